CREATE TABLE "scheduled_ticks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"booking_id" text NOT NULL,
	"occurrence_index" integer DEFAULT 0 NOT NULL,
	"kind" text NOT NULL,
	"rank" smallint NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"fired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "scheduled_ticks_booking_kind_due_uq" ON "scheduled_ticks" USING btree ("booking_id","kind","due_at");--> statement-breakpoint
CREATE INDEX "scheduled_ticks_pending_run_idx" ON "scheduled_ticks" USING btree ("run_at","rank") WHERE state = 'pending';
CREATE TABLE "booking_histories" (
	"id" text PRIMARY KEY NOT NULL,
	"booking_id" text NOT NULL,
	"action" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"by" text,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "booking_slots" (
	"id" text PRIMARY KEY NOT NULL,
	"booking_id" text NOT NULL,
	"project_id" text NOT NULL,
	"asset_id" text NOT NULL,
	"occurrence_index" integer DEFAULT 0 NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"check_ins" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"check_out_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bookings" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"asset_kind" text NOT NULL,
	"asset_id" text NOT NULL,
	"title" text NOT NULL,
	"body" text,
	"status" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"time_period" text,
	"organizer" jsonb NOT NULL,
	"organizer_user_id" text NOT NULL,
	"attendees" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"estimated_attendance" integer,
	"pin_code" text NOT NULL,
	"check_ins" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"check_out_at" timestamp with time zone,
	"rrule" text,
	"anchor_start_at" timestamp with time zone,
	"anchor_end_at" timestamp with time zone,
	"payment_channel" text,
	"discount_code" text,
	"frontend_redirect_url" text,
	"price" jsonb,
	"created_by_app_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox_events" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"booking_id" text,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "booking_histories" ADD CONSTRAINT "booking_histories_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_slots" ADD CONSTRAINT "booking_slots_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_created_by_app_id_apps_id_fk" FOREIGN KEY ("created_by_app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "booking_histories_booking_idx" ON "booking_histories" USING btree ("booking_id","at");--> statement-breakpoint
CREATE INDEX "booking_slots_booking_idx" ON "booking_slots" USING btree ("booking_id","occurrence_index");--> statement-breakpoint
CREATE INDEX "booking_slots_project_start_idx" ON "booking_slots" USING btree ("project_id","start_at");--> statement-breakpoint
CREATE INDEX "bookings_project_start_idx" ON "bookings" USING btree ("project_id","start_at");--> statement-breakpoint
CREATE INDEX "bookings_asset_idx" ON "bookings" USING btree ("asset_id");--> statement-breakpoint
CREATE INDEX "bookings_organizer_idx" ON "bookings" USING btree ("organizer_user_id","status");--> statement-breakpoint
CREATE INDEX "outbox_events_created_idx" ON "outbox_events" USING btree ("created_at");
CREATE SEQUENCE "public"."payment_invoice_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"booking_id" text NOT NULL,
	"project_id" text NOT NULL,
	"invoice_no" text NOT NULL,
	"kind" text NOT NULL,
	"amount_minor" integer NOT NULL,
	"summary" jsonb NOT NULL,
	"discount_code" text,
	"channel" text NOT NULL,
	"status" text NOT NULL,
	"expired_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"frontend_redirect_url" text,
	"gateway" text NOT NULL,
	"gateway_ref" text,
	"web_payment_url" text NOT NULL,
	"web_payment_qr" text NOT NULL,
	"previous_start_at" timestamp with time zone,
	"previous_end_at" timestamp with time zone,
	"previous_status" text,
	"previous_time_period" text,
	"new_end_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_invoice_no_uq" ON "payments" USING btree ("invoice_no");--> statement-breakpoint
CREATE INDEX "payments_booking_idx" ON "payments" USING btree ("booking_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_one_pending_per_booking_uq" ON "payments" USING btree ("booking_id") WHERE status = 'pending';
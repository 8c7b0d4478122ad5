-- A payment records the times it pays for (a create's, or an extension's new times), so an
-- extension charges only for time no payment has paid for (core/payment/rules.ts
-- paidExtensionOf). An extension opened before this kept only its new end: its start is taken
-- as the start before the PATCH (an extension rarely moves the start). A create's times were
-- not kept (the booking may have changed since), so those stay null: priced as before.
ALTER TABLE "payments" ADD COLUMN "new_start_at" timestamp with time zone;--> statement-breakpoint
UPDATE "payments" SET "new_start_at" = "previous_start_at" WHERE "kind" = 'extension' AND "new_end_at" IS NOT NULL;

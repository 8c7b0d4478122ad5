-- A payment records the times it pays for (a create's, or an extension's new times), so an
-- extension charges only for time no payment has paid for (core/payment/rules.ts
-- paidExtensionOf). Payments opened before this keep null times (their extension's start may
-- have moved, so the start before the PATCH is no safe guess): such a booking's next extension
-- is priced from its own times.
ALTER TABLE "payments" ADD COLUMN "new_start_at" timestamp with time zone;

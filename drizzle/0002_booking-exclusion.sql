-- No double booking by construction: two live slots of one asset never overlap.
-- Half-open ranges ('[)'): a booking ending at 10:00 and one starting at 10:00 coexist,
-- the same rule as core/shared/interval.ts.
CREATE EXTENSION IF NOT EXISTS btree_gist;
--> statement-breakpoint
ALTER TABLE "booking_slots" ADD CONSTRAINT "booking_slots_no_overlap"
  EXCLUDE USING gist ("asset_id" WITH =, tstzrange("start_at", "end_at", '[)') WITH &&)
  WHERE ("status" IN ('unpaid', 'active', 'checked-in'));
--> statement-breakpoint
ALTER TABLE "booking_slots" ADD CONSTRAINT "booking_slots_positive_length" CHECK ("end_at" > "start_at");

-- Issue 13, session 19: a project's slots overlapping a window are read as two ranges of the start
-- index (adapters/postgres/slot-window.ts): the slots of at most 24 hours start in
-- (from - 24 h, to), and the longer ones come from their own partial index. The window reads had
-- scanned everything that ends after the window's start (booking_slots_end_idx: every future
-- booking, 80 ms for a one-hour desk listing with 300,000 future slots) or everything that
-- started before its end (all history). Both indexes carry end_at, status and asset_id, so the
-- listing's count and the free-asset sets are index-only scans. The new indexes are built before
-- the old one is dropped: while they build, writes to booking_slots wait but reads go on (the
-- migrations run as one transaction, so a DROP first would hold every read until the commit).
CREATE INDEX "booking_slots_project_start_incl_idx" ON "booking_slots" USING btree ("project_id","start_at") INCLUDE ("end_at","status","asset_id");--> statement-breakpoint
CREATE INDEX "booking_slots_project_long_idx" ON "booking_slots" USING btree ("project_id","start_at") INCLUDE ("end_at","status","asset_id") WHERE "end_at" - "start_at" > interval '24 hours';--> statement-breakpoint
DROP INDEX IF EXISTS "booking_slots_project_start_idx";--> statement-breakpoint
ALTER INDEX "booking_slots_project_start_incl_idx" RENAME TO "booking_slots_project_start_idx";

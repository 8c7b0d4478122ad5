-- Hot reads bounded by time (bench/README.md shows the plans). Without these, the availability
-- check of GET /meeting-rooms and GET /desks (asset_id = ANY(..) AND start_at < $end AND
-- end_at > $start) and the GET /meetings window read every slot that ever started before the
-- window's end: a scan that grows with history. end_at > $start keeps them to what is current.
CREATE INDEX IF NOT EXISTS "booking_slots_asset_end_idx" ON "booking_slots" ("asset_id", "end_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "booking_slots_end_idx" ON "booking_slots" ("end_at");

-- Issue 13, session 7: what PostgreSQL spends per create, measured with perf and auto_explain
-- (bench/README.md): the exclusion constraint's GiST index compared asset ids as collated text
-- (btree_gist's varlena keys: gbt_text_consistent and gbt_var_penalty per entry visited), and the
-- outbox trigger ran a PL/pgSQL function and the subscription rule's SQL function per row, the
-- latter planned anew by every statement.
--
-- 1. The no-double-booking rule keys the asset by hashtextextended(asset_id, 0), an int8 GiST
--    compares as a number (btree_gist's int8 keys). Equal asset ids always give equal keys, so two
--    live overlapping slots of one asset are still refused, always; two different assets could
--    only share a key through a 64-bit hash collision (about 10^-9 among 100,000 assets), which
--    would refuse a free slot, never double-book. (Not md5: a FIPS-mode server refuses it.)
--    Rebuilding the constraint locks booking_slots while its index builds: a pause that grows
--    with the table, taken once at upgrade.
ALTER TABLE "booking_slots" DROP CONSTRAINT "booking_slots_no_overlap";
--> statement-breakpoint
ALTER TABLE "booking_slots" ADD CONSTRAINT "booking_slots_no_overlap"
  EXCLUDE USING gist ((hashtextextended("asset_id", 0)) WITH =, tstzrange("start_at", "end_at", '[)') WITH &&)
  WHERE ("status" IN ('unpaid', 'active', 'checked-in'));
--> statement-breakpoint
-- 2. The subscription rule (migration 0013) in PL/pgSQL, same answer: as an SQL function with a
--    subquery it cannot be inlined, so every statement calling it planned its body again (perf:
--    fmgr_sql and the planner, ~10% of PostgreSQL's CPU per create); PL/pgSQL keeps the plan per
--    session. webhook_wants, a plain expression, is still inlined into it.
CREATE OR REPLACE FUNCTION webhook_subscribed(project text, event_type text) RETURNS boolean AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = project AND webhook_wants(w, event_type));
END;
$$ LANGUAGE plpgsql STABLE;
--> statement-breakpoint
-- 3. One queue insert per statement (its transition table), not a trigger call per event row.
DROP TRIGGER IF EXISTS outbox_events_webhook_enqueue ON outbox_events;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION webhook_outbox_enqueue() RETURNS trigger AS $$
BEGIN
  INSERT INTO webhook_outbox_queue (event_id, created_at)
    SELECT n.id, n.created_at FROM new_events n WHERE webhook_subscribed(n.project_id, n.type)
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER outbox_events_webhook_enqueue AFTER INSERT ON outbox_events
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_enqueue();

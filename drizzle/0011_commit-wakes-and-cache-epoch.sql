-- 1. The outbox trigger still queues each event (with its service-clock created_at, 0010) for the webhook relay in the writing
-- transaction, but no longer NOTIFYs there: a NOTIFY holds a cluster-wide lock from pre-commit
-- to the end of the commit, which queued every booking commit behind every other. The
-- application wakes the relay after the commit instead (adapters/postgres/database.ts).
CREATE OR REPLACE FUNCTION webhook_outbox_enqueue() RETURNS trigger AS $$
BEGIN
  INSERT INTO webhook_outbox_queue (event_id, created_at) VALUES (NEW.id, NEW.created_at) ON CONFLICT DO NOTHING;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- 2. One counter every process reads to know its caches (tokens, apps, projects, rooms, desks)
-- are current: any committed change to a cached table moves it (adapters/postgres/cache-epoch.ts).
CREATE TABLE IF NOT EXISTS "cache_epoch" ("id" smallint PRIMARY KEY, "value" bigint NOT NULL);
--> statement-breakpoint
INSERT INTO "cache_epoch" ("id", "value") VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Deferred to commit, once per transaction (a transaction-local setting marks it done): the
-- counter's row lock is the last lock a writer takes, so writers of cached tables never
-- deadlock on it, and the new value becomes visible together with the change.
CREATE OR REPLACE FUNCTION bump_cache_epoch() RETURNS trigger AS $$
BEGIN
  IF current_setting('keyspace.cache_epoch_bumped', true) IS DISTINCT FROM 'on' THEN
    PERFORM set_config('keyspace.cache_epoch_bumped', 'on', true);
    UPDATE cache_epoch SET value = value + 1 WHERE id = 1;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER cache_epoch_apps AFTER INSERT OR UPDATE OR DELETE ON apps
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_cache_epoch();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER cache_epoch_app_projects AFTER INSERT OR UPDATE OR DELETE ON app_projects
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_cache_epoch();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER cache_epoch_projects AFTER INSERT OR UPDATE OR DELETE ON projects
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_cache_epoch();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER cache_epoch_rooms AFTER INSERT OR UPDATE OR DELETE ON rooms
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_cache_epoch();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER cache_epoch_desks AFTER INSERT OR UPDATE OR DELETE ON desks
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_cache_epoch();
--> statement-breakpoint
-- Only access tokens are cached; minting one changes nothing cached, revoking or deleting does.
CREATE CONSTRAINT TRIGGER cache_epoch_tokens AFTER UPDATE OR DELETE ON tokens
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.kind = 'access') EXECUTE FUNCTION bump_cache_epoch();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION bump_cache_epoch_now() RETURNS trigger AS $$
BEGIN
  UPDATE cache_epoch SET value = value + 1 WHERE id = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER cache_epoch_truncate AFTER TRUNCATE ON apps FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch_now();
--> statement-breakpoint
CREATE TRIGGER cache_epoch_truncate AFTER TRUNCATE ON app_projects FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch_now();
--> statement-breakpoint
CREATE TRIGGER cache_epoch_truncate AFTER TRUNCATE ON projects FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch_now();
--> statement-breakpoint
CREATE TRIGGER cache_epoch_truncate AFTER TRUNCATE ON rooms FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch_now();
--> statement-breakpoint
CREATE TRIGGER cache_epoch_truncate AFTER TRUNCATE ON desks FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch_now();
--> statement-breakpoint
CREATE TRIGGER cache_epoch_truncate AFTER TRUNCATE ON tokens FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch_now();

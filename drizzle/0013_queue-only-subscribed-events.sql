-- The outbox trigger queues an event for the webhook relay only when an enabled webhook of its
-- project subscribes to its type. Most projects subscribe to few types or none: every other
-- event was queued, claimed by the relay and deleted unsent (a row written and deleted, index
-- entries and a relay statement per booking change, for nothing). The relay still asks again
-- when it builds deliveries (a webhook disabled meanwhile). An event is matched against the
-- webhooks its own statement sees: one registered by a request answered before the change
-- began is always seen (docs/decisions.md, issue 13 session 6).
-- The rule, in one place for the trigger, the relay and its deliveries (webhook-store.ts):
-- whether a registration wants an event type, and whether any of a project's does.
CREATE OR REPLACE FUNCTION webhook_wants(w webhooks, event_type text) RETURNS boolean AS $$
  SELECT w.enabled AND w.events @> jsonb_build_array(event_type)
$$ LANGUAGE sql STABLE;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION webhook_subscribed(project text, event_type text) RETURNS boolean AS $$
  SELECT EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = project AND webhook_wants(w, event_type))
$$ LANGUAGE sql STABLE;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION webhook_outbox_enqueue() RETURNS trigger AS $$
BEGIN
  IF webhook_subscribed(NEW.project_id, NEW.type) THEN
    INSERT INTO webhook_outbox_queue (event_id, created_at) VALUES (NEW.id, NEW.created_at) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

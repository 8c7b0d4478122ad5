-- Every booking outbox event is queued for the webhook relay in the transaction that writes it
-- (adapters/postgres/tables/webhook-deliveries.ts), and listeners are woken at commit.
CREATE OR REPLACE FUNCTION webhook_outbox_enqueue() RETURNS trigger AS $$
BEGIN
  INSERT INTO webhook_outbox_queue (event_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  PERFORM pg_notify('keyspace_webhooks', '');
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
DROP TRIGGER IF EXISTS outbox_events_webhook_enqueue ON outbox_events;
--> statement-breakpoint
CREATE TRIGGER outbox_events_webhook_enqueue AFTER INSERT ON outbox_events
  FOR EACH ROW EXECUTE FUNCTION webhook_outbox_enqueue();

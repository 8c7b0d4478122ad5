-- A new single booking's first schedule as one `plan` row instead of five tick rows: the tick
-- rows were 15 of the 29 index entries a create wrote (issue 13, session 9). A worker expands
-- a plan into its ticks before claiming anything due after it (adapters/postgres/tick-store.ts).
ALTER TABLE "scheduled_ticks" ADD COLUMN "plan" jsonb;--> statement-breakpoint
CREATE INDEX "scheduled_ticks_pending_plan_idx" ON "scheduled_ticks" USING btree ("run_at","rank") WHERE state = 'pending' and kind = 'plan';

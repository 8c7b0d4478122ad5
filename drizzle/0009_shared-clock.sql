-- Issue 16: state every server process on one database shares (docs/deployment.md).
-- The manual test clock of the whole deployment: one row, moved only forward by
-- POST /admin/v1/clock/advance on any process (adapters/clock/shared-clock.ts).
CREATE TABLE IF NOT EXISTS "service_clock" (
	"id" smallint PRIMARY KEY DEFAULT 1 CHECK ("id" = 1),
	"now_ms" bigint NOT NULL
);
--> statement-breakpoint
-- Coherence versions: a writer bumps a scope's version in its own transaction and NOTIFYs
-- keyspace_coherence at commit; in-process caches compare versions (adapters/coherence/).
CREATE TABLE IF NOT EXISTS "coherence_versions" (
	"scope" text PRIMARY KEY,
	"version" bigint NOT NULL DEFAULT 0
);

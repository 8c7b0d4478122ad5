-- Bookings no longer reference their project and app by foreign key: each create took a KEY
-- SHARE lock on the same parent rows, and concurrent creates shared them through MultiXacts
-- (about 10% of PostgreSQL's CPU per create at 64 clients, issue 13 session 8). The service
-- never deletes projects or apps; see docs/decisions.md, "Issue 13, session 8".
ALTER TABLE "bookings" DROP CONSTRAINT IF EXISTS "bookings_project_id_projects_id_fk";
--> statement-breakpoint
ALTER TABLE "bookings" DROP CONSTRAINT IF EXISTS "bookings_created_by_app_id_apps_id_fk";

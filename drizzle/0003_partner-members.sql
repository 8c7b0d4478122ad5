CREATE TABLE "device_commands" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"user_id" text NOT NULL,
	"access_group_id" text NOT NULL,
	"action" text NOT NULL,
	"credential_kind" text NOT NULL,
	"credential_id" text NOT NULL,
	"card_uid" bigint,
	"created_at" timestamp with time zone NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "member_access_groups" (
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"access_group_id" text NOT NULL,
	"project_id" text NOT NULL,
	"granted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "member_access_groups_app_id_user_id_access_group_id_pk" PRIMARY KEY("app_id","user_id","access_group_id")
);
--> statement-breakpoint
CREATE TABLE "member_cards" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"uid" bigint NOT NULL,
	"card_no" text NOT NULL,
	"label" text NOT NULL,
	"type" text NOT NULL,
	"generated" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"enrolled_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "member_faces" (
	"user_id" text PRIMARY KEY NOT NULL,
	"face_id" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"mime_type" text NOT NULL,
	"byte_length" integer NOT NULL,
	"consent_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_rate_limits" (
	"app_id" text PRIMARY KEY NOT NULL,
	"hits" jsonb DEFAULT '[]'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "unit_reservation_groups" (
	"unit_id" text PRIMARY KEY NOT NULL,
	"group_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "unit_residents" (
	"unit_id" text NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"role" text NOT NULL,
	"bound_at" timestamp with time zone NOT NULL,
	CONSTRAINT "unit_residents_unit_id_user_id_pk" PRIMARY KEY("unit_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "device_commands" ADD CONSTRAINT "device_commands_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_commands" ADD CONSTRAINT "device_commands_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_commands" ADD CONSTRAINT "device_commands_access_group_id_access_groups_id_fk" FOREIGN KEY ("access_group_id") REFERENCES "public"."access_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_access_groups" ADD CONSTRAINT "member_access_groups_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_access_groups" ADD CONSTRAINT "member_access_groups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_access_groups" ADD CONSTRAINT "member_access_groups_access_group_id_access_groups_id_fk" FOREIGN KEY ("access_group_id") REFERENCES "public"."access_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_access_groups" ADD CONSTRAINT "member_access_groups_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_cards" ADD CONSTRAINT "member_cards_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_cards" ADD CONSTRAINT "member_cards_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_faces" ADD CONSTRAINT "member_faces_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_rate_limits" ADD CONSTRAINT "partner_rate_limits_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unit_reservation_groups" ADD CONSTRAINT "unit_reservation_groups_unit_id_units_id_fk" FOREIGN KEY ("unit_id") REFERENCES "public"."units"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unit_residents" ADD CONSTRAINT "unit_residents_unit_id_units_id_fk" FOREIGN KEY ("unit_id") REFERENCES "public"."units"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unit_residents" ADD CONSTRAINT "unit_residents_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unit_residents" ADD CONSTRAINT "unit_residents_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "device_commands_id_uq" ON "device_commands" USING btree ("id");--> statement-breakpoint
CREATE INDEX "device_commands_member_idx" ON "device_commands" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "device_commands_pending_idx" ON "device_commands" USING btree ("seq") WHERE "device_commands"."delivered_at" is null;--> statement-breakpoint
CREATE INDEX "member_access_groups_user_idx" ON "member_access_groups" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "member_cards_active_uid_uq" ON "member_cards" USING btree ("project_id","uid") WHERE "member_cards"."status" = 'active';--> statement-breakpoint
CREATE INDEX "member_cards_uid_idx" ON "member_cards" USING btree ("project_id","uid");--> statement-breakpoint
CREATE INDEX "member_cards_member_idx" ON "member_cards" USING btree ("user_id","project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "unit_reservation_groups_group_uq" ON "unit_reservation_groups" USING btree ("group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "unit_residents_member_uq" ON "unit_residents" USING btree ("project_id","user_id");
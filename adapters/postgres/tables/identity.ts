import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core"
import { instant, oid, timestamps } from "./columns.ts"
import { accessGroupsTable, projectsTable } from "./tenancy.ts"

/** People: project members, partner-provisioned members, federated visitors. */
export const usersTable = pgTable(
  "users",
  {
    id: oid("id").primaryKey(),
    firstName: text("first_name").notNull().default(""),
    lastName: text("last_name").notNull().default(""),
    profileName: text("profile_name"),
    email: text("email"),
    /** lower(email): the spec matches email case-insensitively and keeps it unique. */
    emailNorm: text("email_norm"),
    /** E.164 after normalization; unique across all users. */
    phone: text("phone"),
    username: text("username"),
    userType: text("user_type").notNull().default("member"),
    source: text("source").notNull().default("manifest"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("users_email_norm_uq").on(t.emailNorm),
    uniqueIndex("users_phone_uq").on(t.phone),
    uniqueIndex("users_username_uq").on(t.username),
  ],
)

export const projectMembershipsTable = pgTable(
  "project_memberships",
  {
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    userId: oid("user_id").notNull().references(() => usersTable.id),
    /** `member` or `admin` (a project admin may cancel any booking of the project). */
    role: text("role").notNull().default("member"),
    employeeId: text("employee_id"),
    /** `active` or `deactivated` (partner offboarding). */
    status: text("status").notNull().default("active"),
    manifestKey: text("manifest_key"),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.userId] }),
    uniqueIndex("memberships_employee_uq").on(t.projectId, t.employeeId),
    uniqueIndex("memberships_manifest_key_uq").on(t.projectId, t.manifestKey),
  ],
)

export const appsTable = pgTable(
  "apps",
  {
    id: oid("id").primaryKey(),
    key: text("key"),
    /** Public client identifier (app_id of the token grant). */
    appId: text("app_id").notNull(),
    /** PBKDF2-SHA256 of app_secret: `pbkdf2$<iterations>$<salt b64>$<hash b64>`. */
    secretHash: text("secret_hash").notNull(),
    canActAs: boolean("can_act_as").notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex("apps_app_id_uq").on(t.appId), uniqueIndex("apps_key_uq").on(t.key)],
)

export const appProjectsTable = pgTable(
  "app_projects",
  {
    appId: oid("app_id").notNull().references(() => appsTable.id),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
  },
  (t) => [primaryKey({ columns: [t.appId, t.projectId] })],
)

/** The access groups fixed when the app was provisioned (partnerAccessGroupIds). */
export const appPartnerGroupsTable = pgTable(
  "app_partner_groups",
  {
    appId: oid("app_id").notNull().references(() => appsTable.id),
    accessGroupId: oid("access_group_id").notNull().references(() => accessGroupsTable.id),
  },
  (t) => [primaryKey({ columns: [t.appId, t.accessGroupId] })],
)

/** externalUserId -> user, per app. The link is kept across offboarding. */
export const appLinksTable = pgTable(
  "app_links",
  {
    appId: oid("app_id").notNull().references(() => appsTable.id),
    externalUserId: text("external_user_id").notNull(),
    userId: oid("user_id").notNull().references(() => usersTable.id),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.externalUserId] }),
    uniqueIndex("app_links_app_user_uq").on(t.appId, t.userId),
  ],
)

/**
 * Opaque bearer tokens, stored as SHA-256 hashes. A token may carry a member subject
 * (act_as); refresh tokens rotate: using one revokes it and mints a new pair.
 */
export const tokensTable = pgTable(
  "tokens",
  {
    id: oid("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    kind: text("kind").notNull(),
    appId: oid("app_id").notNull().references(() => appsTable.id),
    grant: text("grant").notNull(),
    subjectUserId: oid("subject_user_id").references(() => usersTable.id),
    projectId: oid("project_id").references(() => projectsTable.id),
    expiresAt: instant("expires_at").notNull(),
    revokedAt: instant("revoked_at"),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [uniqueIndex("tokens_hash_uq").on(t.tokenHash), index("tokens_expiry_idx").on(t.expiresAt)],
)

/** Webhook registrations (out of band: the manifest). */
export const webhooksTable = pgTable(
  "webhooks",
  {
    id: oid("id").primaryKey(),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    key: text("key"),
    url: text("url").notNull(),
    /** Needed in clear to sign deliveries (HMAC); never returned by any endpoint. */
    secret: text("secret").notNull(),
    events: jsonb("events").$type<string[]>().notNull(),
    auth: jsonb("auth").$type<Record<string, unknown>>().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    disabledAt: instant("disabled_at"),
    ...timestamps,
  },
  (t) => [uniqueIndex("webhooks_project_key_uq").on(t.projectId, t.key)],
)

import { sql } from "drizzle-orm"
import {
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core"
import { instant, oid } from "./columns.ts"
import { appsTable, usersTable } from "./identity.ts"
import { accessGroupsTable, projectsTable, unitsTable } from "./tenancy.ts"

/** Raw bytes; both drivers hand back a Uint8Array (postgres-js a Buffer, which is one). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
})

/**
 * Residents of a unit (PUT member rule 4). A member lives in at most one unit per project;
 * `role` is derived by core/member/unit-binding.ts after every write, `bound_at` orders
 * promotion when the owner leaves.
 */
export const unitResidentsTable = pgTable(
  "unit_residents",
  {
    unitId: oid("unit_id")
      .notNull()
      .references(() => unitsTable.id),
    userId: oid("user_id")
      .notNull()
      .references(() => usersTable.id),
    projectId: oid("project_id")
      .notNull()
      .references(() => projectsTable.id),
    role: text("role").notNull(),
    boundAt: instant("bound_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.unitId, t.userId] }),
    uniqueIndex("unit_residents_member_uq").on(t.projectId, t.userId),
  ],
)

/** The reservation group of a unit (PartnerMember.unit.groupId), minted on first binding. */
export const unitReservationGroupsTable = pgTable(
  "unit_reservation_groups",
  {
    unitId: oid("unit_id")
      .primaryKey()
      .references(() => unitsTable.id),
    groupId: oid("group_id").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [uniqueIndex("unit_reservation_groups_group_uq").on(t.groupId)],
)

/**
 * Access groups a member holds, per granting app: offboarding by one app withdraws only that
 * app's grants, and devices keep a credential while any grant of the group remains.
 */
export const memberAccessGroupsTable = pgTable(
  "member_access_groups",
  {
    appId: oid("app_id")
      .notNull()
      .references(() => appsTable.id),
    userId: oid("user_id")
      .notNull()
      .references(() => usersTable.id),
    accessGroupId: oid("access_group_id")
      .notNull()
      .references(() => accessGroupsTable.id),
    projectId: oid("project_id")
      .notNull()
      .references(() => projectsTable.id),
    grantedAt: instant("granted_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.userId, t.accessGroupId] }),
    index("member_access_groups_user_idx").on(t.projectId, t.userId),
  ],
)

/**
 * Access cards, physical (`real`) and service-issued (`virtual`). Revoked rows are kept so a
 * fresh virtual number never reuses an old one; an active UID is unique in its project, so
 * one card cannot open doors for two members.
 */
export const memberCardsTable = pgTable(
  "member_cards",
  {
    id: oid("id").primaryKey(),
    userId: oid("user_id")
      .notNull()
      .references(() => usersTable.id),
    projectId: oid("project_id")
      .notNull()
      .references(() => projectsTable.id),
    /** The 4-byte card UID (core/member/card-number.ts), unsigned. */
    uid: bigint("uid", { mode: "number" }).notNull(),
    /** decimal-reversed, the one form every response gives. */
    cardNo: text("card_no").notNull(),
    label: text("label").notNull(),
    type: text("type").notNull(),
    generated: boolean("generated").notNull().default(false),
    status: text("status").notNull().default("active"),
    enrolledAt: instant("enrolled_at").notNull(),
    revokedAt: instant("revoked_at"),
  },
  (t) => [
    uniqueIndex("member_cards_active_uid_uq")
      .on(t.projectId, t.uid)
      .where(sql`${t.status} = 'active'`),
    index("member_cards_uid_idx").on(t.projectId, t.uid),
    index("member_cards_member_idx").on(t.userId, t.projectId),
  ],
)

/**
 * Face images. Bytes are stored for device enrollment and never returned; `face_id` changes
 * with every upload so devices replace the template. `consent_at` is kept for audit.
 */
export const memberFacesTable = pgTable("member_faces", {
  userId: oid("user_id")
    .primaryKey()
    .references(() => usersTable.id),
  faceId: oid("face_id").notNull(),
  bytes: bytea("bytes").notNull(),
  mimeType: text("mime_type").notNull(),
  byteLength: integer("byte_length").notNull(),
  consentAt: instant("consent_at").notNull(),
  updatedAt: instant("updated_at").notNull(),
})

/**
 * Device enrollment outbox: one row per grant or revocation of a credential to an access
 * group, written in the transaction that changed it. An access-control controller adapter
 * drains it in `seq` order.
 */
export const deviceCommandsTable = pgTable(
  "device_commands",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    id: oid("id").notNull(),
    projectId: oid("project_id")
      .notNull()
      .references(() => projectsTable.id),
    userId: oid("user_id")
      .notNull()
      .references(() => usersTable.id),
    accessGroupId: oid("access_group_id")
      .notNull()
      .references(() => accessGroupsTable.id),
    action: text("action").notNull(),
    credentialKind: text("credential_kind").notNull(),
    /** cardId or faceId. */
    credentialId: text("credential_id").notNull(),
    cardUid: bigint("card_uid", { mode: "number" }),
    createdAt: instant("created_at").notNull(),
    deliveredAt: instant("delivered_at"),
  },
  (t) => [
    uniqueIndex("device_commands_id_uq").on(t.id),
    index("device_commands_member_idx").on(t.userId),
    index("device_commands_pending_idx")
      .on(t.seq)
      .where(sql`${t.deliveredAt} is null`),
  ],
)

/**
 * Partner surface rate limit: a sliding log of request instants (epoch ms, service clock) per
 * app, in the database so every server process on one PostgreSQL shares the budget.
 */
export const partnerRateLimitsTable = pgTable("partner_rate_limits", {
  appId: oid("app_id")
    .primaryKey()
    .references(() => appsTable.id),
  hits: jsonb("hits").$type<number[]>().notNull().default([]),
})

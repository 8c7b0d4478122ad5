import { boolean, integer, jsonb, numeric, pgTable, text, uniqueIndex, index } from "drizzle-orm/pg-core"
import { oid, timestamps } from "./columns.ts"

export const brandsTable = pgTable("brands", {
  id: oid("id").primaryKey(),
  name: text("name").notNull(),
  ...timestamps,
})

export const projectsTable = pgTable(
  "projects",
  {
    id: oid("id").primaryKey(),
    key: text("key"),
    name: text("name").notNull(),
    timezone: text("timezone").notNull(),
    brandId: oid("brand_id").notNull().references(() => brandsTable.id),
    ...timestamps,
  },
  (t) => [uniqueIndex("projects_key_uq").on(t.key)],
)

export const zonesTable = pgTable(
  "zones",
  {
    id: oid("id").primaryKey(),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    key: text("key"),
    name: text("name").notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("zones_project_key_uq").on(t.projectId, t.key)],
)

export const floorsTable = pgTable(
  "floors",
  {
    id: oid("id").primaryKey(),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    zoneId: oid("zone_id").notNull().references(() => zonesTable.id),
    key: text("key"),
    name: text("name").notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("floors_project_key_uq").on(t.projectId, t.key)],
)

/** Residential/office units partners bind members to (spec: unit.addressNo, unit.unitId). */
export const unitsTable = pgTable(
  "units",
  {
    id: oid("id").primaryKey(),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    zoneId: oid("zone_id").references(() => zonesTable.id),
    key: text("key"),
    addressNo: text("address_no").notNull(),
    unitId: text("unit_id"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("units_project_key_uq").on(t.projectId, t.key),
    index("units_project_address_idx").on(t.projectId, t.addressNo),
  ],
)

export const accessGroupsTable = pgTable(
  "access_groups",
  {
    id: oid("id").primaryKey(),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    key: text("key"),
    name: text("name").notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("access_groups_project_key_uq").on(t.projectId, t.key)],
)

export const discountsTable = pgTable(
  "discounts",
  {
    id: oid("id").primaryKey(),
    projectId: oid("project_id").notNull().references(() => projectsTable.id),
    key: text("key"),
    code: text("code").notNull(),
    name: text("name").notNull(),
    percentOff: numeric("percent_off", { mode: "number" }),
    /** THB off, when the code takes a fixed amount. */
    amountOff: numeric("amount_off", { mode: "number" }),
    active: boolean("active").notNull().default(true),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("discounts_project_key_uq").on(t.projectId, t.key),
    uniqueIndex("discounts_project_code_uq").on(t.projectId, t.code),
  ],
)

export type ChargeRate = { perHour: number; perDay: number }
export type Equipments = { camera: boolean; display: boolean; mic: boolean; projector: boolean; speaker: boolean }

const assetColumns = () => ({
  id: oid("id").primaryKey(),
  projectId: oid("project_id").notNull().references(() => projectsTable.id),
  zoneId: oid("zone_id").notNull().references(() => zonesTable.id),
  floorId: oid("floor_id").notNull().references(() => floorsTable.id),
  key: text("key"),
  name: text("name").notNull(),
  email: text("email"),
  capacity: integer("capacity").notNull().default(1),
  status: text("status").notNull().default("active"),
  isPublic: boolean("is_public").notNull().default(true),
  facilities: jsonb("facilities").$type<string[]>().notNull().default([]),
  pictureUrls: jsonb("picture_urls").$type<string[]>().notNull().default([]),
  chargeRate: jsonb("charge_rate").$type<ChargeRate>().notNull().default({ perHour: 0, perDay: 0 }),
  /** AssetConfig as the spec shapes it (core/booking/asset-config.ts validates it). */
  config: jsonb("config").$type<Record<string, unknown>>().notNull().default({}),
  ...timestamps,
})

export const roomsTable = pgTable(
  "rooms",
  {
    ...assetColumns(),
    type: text("type").notNull().default("normal"),
    equipmentsAvailability: jsonb("equipments_availability")
      .$type<Equipments>()
      .notNull()
      .default({ camera: false, display: false, mic: false, projector: false, speaker: false }),
  },
  (t) => [
    uniqueIndex("rooms_project_key_uq").on(t.projectId, t.key),
    index("rooms_project_idx").on(t.projectId, t.zoneId, t.floorId),
  ],
)

export const desksTable = pgTable(
  "desks",
  {
    ...assetColumns(),
    index: integer("index").notNull().default(0),
  },
  (t) => [
    uniqueIndex("desks_project_key_uq").on(t.projectId, t.key),
    index("desks_project_idx").on(t.projectId, t.zoneId, t.floorId),
  ],
)

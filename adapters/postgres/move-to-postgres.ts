import { PGlite } from "@electric-sql/pglite"
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist"
import postgres from "postgres"
import { StartupError } from "../config/startup-error.ts"
import { openDatabase } from "./database.ts"

/**
 * Moves an embedded (PGlite) database into an empty PostgreSQL database: every table of the
 * public schema (tenants, apps, members, credentials, bookings with their histories, payments,
 * scheduled ticks, webhook registrations, deliveries and outbox), rows copied as JSON through
 * json_populate_recordset, so every column keeps its exact value (ranges, jsonb, timestamps to
 * the microsecond) without a dump tool or a matching pg_dump version. Both sides are migrated to
 * the same schema first; tables are filled parents first (foreign keys), with user triggers off
 * (the outbox trigger would queue already-relayed events again), in one transaction: the target
 * ends up complete or untouched. Sequences continue after the copied ids.
 */
export interface MoveReport {
  readonly tables: ReadonlyArray<{ readonly table: string; readonly rows: number }>
}

const BATCH = 2000
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`

export const moveToPostgres = async (
  dataDir: string,
  databaseUrl: string,
  log: (line: string) => void = () => {},
): Promise<MoveReport> => {
  // Migrate both to the schema this build knows, then copy with plain drivers.
  await (await openDatabase({ dataDir })).close()
  await (await openDatabase({ databaseUrl, maxConnections: 1 })).close()

  const source = await PGlite.create({ dataDir, extensions: { btree_gist } })
  const target = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 })
  try {
    const tables = (
      await source.query<{ table_name: string }>(
        `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
      )
    ).rows.map((r) => r.table_name)
    const edges = (
      await source.query<{ child: string; parent: string }>(
        `select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
           from pg_constraint c join pg_namespace n on n.oid = c.connamespace
          where c.contype = 'f' and n.nspname = 'public'`,
      )
    ).rows
    const ordered = parentsFirst(tables, edges)

    const data = ordered.filter((t) => !SEEDED_BY_MIGRATIONS.has(t))
    const nonEmpty = await target.unsafe<Array<{ n: number }>>(
      `select count(*)::int as n from (${data.map((t) => `(select 1 from ${ident(t)} limit 1)`).join(" union all ")}) x`,
    )
    if ((nonEmpty[0]?.n ?? 0) > 0)
      throw new StartupError("DATABASE_URL: the target database already has data; move into an empty database (createdb a new one).")

    const report: Array<{ table: string; rows: number }> = []
    await target.begin(async (tx) => {
      for (const t of ordered) await tx.unsafe(`alter table ${ident(t)} disable trigger user`)
      // The source's deployment state replaces what the target's migrations seeded.
      for (const t of ordered) if (SEEDED_BY_MIGRATIONS.has(t)) await tx.unsafe(`delete from ${ident(t)}`)
      for (const t of ordered) {
        let rows = 0
        for (let offset = 0; ; offset += BATCH) {
          const page = await source.query<{ rows: string | null; n: number }>(
            `select json_agg(t)::text as rows, count(*)::int as n
               from (select * from ${ident(t)} order by ctid limit ${BATCH} offset ${offset}) t`,
          )
          const { rows: json, n } = page.rows[0] ?? { rows: null, n: 0 }
          if (!json || n === 0) break
          await tx.unsafe(`insert into ${ident(t)} select * from json_populate_recordset(null::${ident(t)}, $1::text::json)`, [json])
          rows += n
          if (n < BATCH) break
        }
        const [copied] = await tx.unsafe<Array<{ n: number }>>(`select count(*)::int as n from ${ident(t)}`)
        const [had] = (await source.query<{ n: number }>(`select count(*)::int as n from ${ident(t)}`)).rows
        if (copied?.n !== had?.n) throw new Error(`${t}: ${had?.n} rows in PGlite, ${copied?.n} copied`)
        report.push({ table: t, rows })
        log(`${t}: ${rows}`)
      }
      for (const t of ordered) await tx.unsafe(`alter table ${ident(t)} enable trigger user`)
      // Every sequence continues where PGlite's was: the invoice numbers' stands alone (no
      // column owns it), and restarting it made the day's next paid create a duplicate key.
      const sequences = (
        await source.query<{ name: string }>(
          `select sequence_name as name from information_schema.sequences where sequence_schema = 'public'`,
        )
      ).rows
      for (const { name } of sequences) {
        const [state] = (await source.query<{ last_value: string; is_called: boolean }>(`select last_value::text, is_called from ${ident(name)}`)).rows
        if (state !== undefined) await tx.unsafe(`select setval('${ident(name)}', $1::bigint, $2)`, [state.last_value, state.is_called])
      }
      const serials = await tx.unsafe<Array<{ table_name: string; column_name: string }>>(
        `select table_name, column_name from information_schema.columns
          where table_schema = 'public' and column_default like 'nextval(%'`,
      )
      for (const s of serials)
        await tx.unsafe(
          `select setval(pg_get_serial_sequence('${ident(s.table_name)}', '${s.column_name}'),
                         coalesce((select max(${ident(s.column_name)}) from ${ident(s.table_name)}), 0) + 1, false)`,
        )
    })
    return { tables: report }
  } finally {
    await source.close()
    await target.end({ timeout: 5 })
  }
}

/**
 * Deployment state whose rows the migrations or the first start create (the cache counter,
 * the shared manual clock): not tenant data, so a target holding them is still empty.
 */
const SEEDED_BY_MIGRATIONS: ReadonlySet<string> = new Set(["cache_epoch", "service_clock"])

/** Tables ordered so every table comes after the tables its foreign keys point to. */
const parentsFirst = (tables: readonly string[], edges: ReadonlyArray<{ child: string; parent: string }>): string[] => {
  const out: string[] = []
  const state = new Map<string, "visiting" | "done">()
  const visit = (t: string) => {
    if (state.get(t) === "done" || state.get(t) === "visiting") return // a cycle: checked at statement end
    state.set(t, "visiting")
    for (const e of edges) if (e.child === t && e.parent !== t && tables.includes(e.parent)) visit(e.parent)
    state.set(t, "done")
    out.push(t)
  }
  for (const t of tables) visit(t)
  return out
}

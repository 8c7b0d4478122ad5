/**
 * `npx tsx bench/driver-ceiling.ts [clients] [seconds]`: what postgres-js alone reaches with the
 * round trips of one create, against pgbench's minimal transaction (bench/run.ts), on a fresh
 * database: (a) pgbench -M prepared; (b) postgres-js, BEGIN; the two inserts pipelined; COMMIT
 * (3 round trips); (c) the same as one round trip (a single statement: a CTE inserting both rows,
 * autocommit); (d) the create's current shape: a counter read, BEGIN, a 6-statement pipelined
 * batch, COMMIT (4 round trips). Node CPU per transaction is printed for b-d.
 */
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import postgres from "postgres"
import { freshPostgresDatabase } from "../test/support/databases.ts"

const clients = Number(process.argv[2] ?? 16)
const seconds = Number(process.argv[3] ?? 5)
const pg = await freshPostgresDatabase()
const sql = postgres(pg.url, { max: clients, prepare: true, onnotice: () => {} })
try {
  await sql.unsafe(`create extension if not exists btree_gist`)
  await sql.unsafe(`create table pgb_bookings (id bigserial primary key, asset_id int not null, during tstzrange not null,
      exclude using gist (asset_id with =, during with &&))`)
  await sql.unsafe(`create table pgb_outbox (id bigserial primary key, payload jsonb not null, at timestamptz not null default now())`)
  await sql.unsafe(`create table counter (id int primary key, value int8 not null)`)
  await sql.unsafe(`insert into counter values (1, 0)`)
  const file = `/tmp/keyspace-driver-ceiling-${process.pid}.sql`
  writeFileSync(file, `\\set asset random(1, 10000)
\\set slot random(1, 5000000)
BEGIN;
INSERT INTO pgb_bookings (asset_id, during) VALUES (:asset, tstzrange(timestamptz '2030-01-01' + :slot * interval '15 minutes', timestamptz '2030-01-01' + (:slot + 1) * interval '15 minutes')) ON CONFLICT DO NOTHING;
INSERT INTO pgb_outbox (payload) VALUES ('{"event":"BOOK"}');
END;
`)
  const u = new URL(pg.url)
  const out = await new Promise<string>((resolve) => {
    const c = spawn("pgbench", ["-M", "prepared", "-n", "-c", String(clients), "-j", "2", "-T", String(seconds), "-f", file, "-h", u.hostname, "-p", u.port || "5432", "-U", "postgres", u.pathname.slice(1)])
    let t = ""
    c.stdout.on("data", (d: Buffer) => (t += d))
    c.stderr.on("data", (d: Buffer) => (t += d))
    c.on("close", () => resolve(t))
  })
  console.log(`pgbench -M prepared, ${clients} clients: ${/tps = ([\d.]+)/.exec(out)?.[1]} tps`)
  const slot = () => {
    const s = Math.floor(Math.random() * 5_000_000)
    return [1 + Math.floor(Math.random() * 10_000), new Date(1_893_456_000_000 + s * 900_000), new Date(1_893_456_000_000 + (s + 1) * 900_000)] as const
  }
  const ins = (q: postgres.Sql | postgres.TransactionSql) => {
    const [a, from, to] = slot()
    return q`insert into pgb_bookings (asset_id, during) values (${a}, tstzrange(${from}, ${to})) on conflict do nothing`
  }
  const shapes: Record<string, () => Promise<unknown>> = {
    "BEGIN; 2 inserts pipelined; COMMIT (3 round trips)": () => sql.begin((tx) => [ins(tx), tx`insert into pgb_outbox (payload) values (${sql.json({ event: "BOOK" })})`]),
    "one statement, CTE of both inserts, autocommit (1 round trip)": () => {
      const [a, from, to] = slot()
      return sql`with b as (insert into pgb_bookings (asset_id, during) values (${a}, tstzrange(${from}, ${to})) on conflict do nothing returning id)
        insert into pgb_outbox (payload) select ${sql.json({ event: "BOOK" })} from b`
    },
    "counter read; BEGIN; 6 statements pipelined; COMMIT (4 round trips, today's create)": async () => {
      await sql`select value from counter where id = 1`
      return sql.begin((tx) => [tx`select pg_advisory_xact_lock(hashtext(${"asset" + Math.random()}))`, ins(tx), tx`insert into pgb_outbox (payload) values (${sql.json({ event: "BOOK" })})`,
        tx`insert into pgb_outbox (payload) values (${sql.json({ event: "history" })})`, tx`insert into pgb_outbox (payload) values (${sql.json({ event: "slot" })})`, tx`insert into pgb_outbox (payload) values (${sql.json({ event: "tick" })})`])
    },
  }
  for (const [name, run] of Object.entries(shapes)) {
    let n = 0
    const until = Date.now() + seconds * 1000
    const cpu0 = process.cpuUsage()
    await Promise.all(Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        await run()
        n++
      }
    }))
    const cpu = process.cpuUsage(cpu0)
    console.log(`postgres-js, ${name}: ${Math.round(n / seconds)} tx/s, Node CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(3)} ms per transaction`)
  }
} finally {
  await sql.end()
  await pg.drop()
}

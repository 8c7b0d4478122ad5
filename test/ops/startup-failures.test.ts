import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import postgres from "postgres"
import { freshPostgresDatabase, TEST_DATABASE_URL } from "../support/databases.ts"
import { RUNTIMES, spawnServer } from "./server-runtime.ts"

/**
 * Issue 15, point 3: every start-up failure is one or two lines naming the cause and the
 * variable, exit 2, and nothing seeded or printed as if the start had worked, on every runtime.
 */
const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)))

/** A PostgreSQL server that asks for a password and refuses it, as a wrong password is answered. */
const refusingPostgres = () =>
  createServer((socket: Socket) => {
    let greeted = false
    socket.on("data", (data: Buffer) => {
      // SSLRequest (8 bytes, code 80877103): answer "no TLS" and wait for the startup message.
      if (data.length === 8 && data.readInt32BE(4) === 80877103) return void socket.write("N")
      if (!greeted) {
        greeted = true
        const auth = Buffer.alloc(9)
        auth.write("R", 0)
        auth.writeInt32BE(8, 1)
        auth.writeInt32BE(3, 5) // AuthenticationCleartextPassword
        return void socket.write(auth)
      }
      const fields = Buffer.from("SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user \"keyspace\"\0\0")
      const head = Buffer.alloc(5)
      head.write("E", 0)
      head.writeInt32BE(fields.length + 4, 1)
      socket.end(Buffer.concat([head, fields]))
    })
    socket.on("error", () => {})
  })

/** Not PostgreSQL: an HTTP server, which answers whatever it is sent with a 400 and keeps the socket. */
const httpServer = () =>
  createServer((socket: Socket) => {
    socket.on("data", () => socket.write("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n"))
    socket.on("error", () => {})
  })

describe("start-up failures name the cause and the variable", () => {
  const dir = mkdtempSync(join(tmpdir(), "keyspace-startup-"))
  const occupied = createServer()
  const fakePg = refusingPostgres()
  const closedPort = createServer()
  const notPostgres = httpServer()
  let notPostgresPort = 0
  let busyPort = 0
  let fakePgPort = 0
  let deadPort = 0
  /** A directory another application's files are in. */
  const foreignDir = join(dir, "someone-elses-files")
  mkdirSync(foreignDir, { recursive: true })
  writeFileSync(join(foreignDir, "notes.txt"), "not a database")
  /** A database another application's tables are in. */
  const foreign = { url: "", drop: async () => {} }
  beforeAll(async () => {
    Object.assign(foreign, await freshPostgresDatabase())
    const sql = postgres(foreign.url, { max: 1, onnotice: () => {} })
    await sql.unsafe("create table users (id serial primary key, name text)")
    await sql.end()
    busyPort = await listen(occupied)
    fakePgPort = await listen(fakePg)
    deadPort = await listen(closedPort)
    notPostgresPort = await listen(notPostgres)
    await new Promise((r) => closedPort.close(r)) // a port nothing listens on
  })
  afterAll(async () => {
    await foreign.drop()
    occupied.close()
    fakePg.close()
    notPostgres.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const missingDb = new URL(TEST_DATABASE_URL)
  missingDb.pathname = "/keyspace_no_such_database"

  const cases = (): Array<{ name: string; env: Record<string, string>; variable: string; cause: RegExp }> => [
    { name: "unreachable DATABASE_URL", env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${deadPort}/test` }, variable: "DATABASE_URL", cause: /cannot reach PostgreSQL at 127\.0\.0\.1:\d+/ },
    { name: "database that does not exist", env: { DATABASE_URL: missingDb.toString() }, variable: "DATABASE_URL", cause: /database "keyspace_no_such_database" does not exist/ },
    { name: "wrong password", env: { DATABASE_URL: `postgres://keyspace:wrong-secret@127.0.0.1:${fakePgPort}/keyspace` }, variable: "DATABASE_URL", cause: /password authentication failed for user "keyspace"/ },
    { name: "port in use", env: { PORT: String(busyPort) }, variable: "PORT", cause: /already in use/ },
    { name: "PORT not a number", env: { PORT: "abc" }, variable: "PORT", cause: /must be an integer/ },
    { name: "a server that is not PostgreSQL", env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${notPostgresPort}/test` }, variable: "DATABASE_URL", cause: /gave no PostgreSQL answer/ },
    { name: "a password with a bare %", env: { DATABASE_URL: "postgres://postgres:p%ss@127.0.0.1:5432/test" }, variable: "DATABASE_URL", cause: /not a percent-escape/ },
    { name: "a database holding tables Keyspace did not create", env: { DATABASE_URL: foreign.url }, variable: "DATABASE_URL", cause: /could not be migrated, nothing was changed .*relation "users" already exists/ },
    // Node's recursive mkdir never returned for a path under /proc.
    { name: "a data directory that cannot exist", env: { KEYSPACE_DATA_DIR: "/proc/keyspace-nope/data" }, variable: "KEYSPACE_DATA_DIR", cause: /cannot be created/ },
    { name: "a data directory of another application's files", env: { KEYSPACE_DATA_DIR: foreignDir }, variable: "KEYSPACE_DATA_DIR", cause: /not an embedded database \(notes\.txt\)/ },
    { name: "tracing endpoint not a URL", env: { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, variable: "OTEL_EXPORTER_OTLP_ENDPOINT", cause: /must be an http\(s\) URL/ },
    { name: "unreadable webhook CA file", env: { KEYSPACE_WEBHOOK_CA_FILE: "/nonexistent/ca.pem" }, variable: "KEYSPACE_WEBHOOK_CA_FILE", cause: /cannot be read/ },
  ]

  for (const runtime of RUNTIMES)
    it(`on ${runtime}: each failure is one line naming the variable, exit 2, nothing seeded or printed`, { timeout: 240_000 }, async () => {
      for (const c of cases()) {
        const dataDir = join(dir, `${runtime}-${c.name.replace(/\W+/g, "-")}`)
        const s = spawnServer(runtime, { KEYSPACE_DATA_DIR: dataDir, ...c.env })
        const { code } = await s.exited(90_000)
        const lines = s.stderr().trim().split("\n")
        expect(code, `${runtime} / ${c.name}: ${s.stderr()}`).toBe(2)
        expect(lines.length, `${runtime} / ${c.name}: ${s.stderr()}`).toBeLessThanOrEqual(2)
        expect(lines[0], `${runtime} / ${c.name}`).toContain(c.variable)
        expect(lines.join(" "), `${runtime} / ${c.name}`).toMatch(c.cause)
        expect(s.stderr()).not.toMatch(/\bat .*:\d+:\d+/) // no stack trace
        expect(s.stderr()).not.toContain("wrong-secret") // never the password
        // Nothing as if the start had worked: no token, no demo credentials, no data directory.
        expect(s.stdout(), `${runtime} / ${c.name}`).toBe("")
        if (c.variable === "PORT") expect(existsSync(dataDir), `${runtime} / ${c.name}`).toBe(false)
      }
    })
})

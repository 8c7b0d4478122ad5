import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { KeyspaceClient } from "../../clients/typescript/src/index.ts"
import { root, spawnProcess, type Spawned } from "./server-runtime.ts"

/**
 * Issue 15, point 7: the README's walkthrough runs as written, top to bottom. The two shell
 * blocks of "First booking with curl" are taken from the README itself: the first starts the
 * server (`npm start`) in one process, the second runs under `bash -e` against it; then the
 * typed-client example runs with the command the README gives.
 */
const section = (() => {
  const readme = readFileSync(`${root}README.md`, "utf8")
  const start = readme.indexOf("## First booking with curl")
  return readme.slice(start, readme.indexOf("\n## ", start + 5))
})()
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

const run = (command: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: root, env: { ...process.env, ...env } })
    let out = ""
    let err = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString()))
    child.stderr.on("data", (d: Buffer) => (err += d.toString()))
    child.on("exit", (code) => resolve({ code, out, err }))
  })

describe("the README walkthrough", () => {
  let server: Spawned | undefined
  afterAll(async () => {
    server?.child.kill("SIGTERM")
    await server?.exited(30_000).catch(() => server?.stop())
  })

  it("has a server block and a client block, and never hard-codes the port", () => {
    expect(blocks).toHaveLength(2)
    expect(blocks.join("\n")).not.toMatch(/localhost:3000/)
  })

  it("runs top to bottom: start, ids, token, search, book, advance the clock, check in, typed client", { timeout: 300_000 }, async () => {
    const port = await freePort()
    server = spawnProcess(["bash", "-c", blocks[0]!], { PORT: String(port), KEYSPACE_LOG_LEVEL: "warn" })
    await server.listening(240_000)

    const client = await run(["bash", "-e", "-c", blocks[1]!], { PORT: String(port) })
    expect(client.code, `${client.out}\n${client.err}`).toBe(0)
    const lines = client.out.trim().split("\n")
    expect(lines[0]).toContain("Lotus") // the search
    expect(lines.at(-2)).toBe("2030-01-07T02:50:00.000Z") // the clock moved to 09:50 Bangkok
    expect(lines.at(-1)).toBe("checked-in")

    // The typed client, with the command the README gives (the ids as the walkthrough gets them).
    const ids = await fetch(`http://localhost:${port}/admin/v1/manifest/ids`, {
      headers: { authorization: "Bearer dev-admin-token-123456" },
    }).then((r) => r.json() as Promise<{ data: { projects: { demo: { id: string } } } }>)
    const example = await run([process.execPath, "--import", "tsx", "clients/typescript/examples/first-booking.ts"], {
      KEYSPACE_URL: `http://localhost:${port}`,
      KEYSPACE_APP_SECRET: "walkthrough-secret-1",
      KEYSPACE_PROJECT_ID: ids.data.projects.demo.id,
    })
    expect(example.code, `${example.out}\n${example.err}`).toBe(0)
    expect(example.out).toMatch(/^booked (Lotus|Orchid): [0-9a-f]{24} \(active\)/)

    // The typed client's operator calls for credentials: rotate, then sign in with the new secret.
    const operator = new KeyspaceClient({ baseUrl: `http://localhost:${port}`, operatorToken: "dev-admin-token-123456" }).operator
    expect((await operator.manifestIds()).projects).toHaveProperty("demo")
    const { appSecret } = await operator.rotateAppSecret("demo-app")
    const app = new KeyspaceClient({ baseUrl: `http://localhost:${port}`, credentials: { appId: "demo-app", appSecret } })
    expect(await app.meetingRooms.list({ projectId: ids.data.projects.demo.id })).not.toHaveLength(0)
  })
})

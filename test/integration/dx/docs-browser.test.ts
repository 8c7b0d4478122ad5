import { existsSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { serve, type ServerType } from "@hono/node-server"
import { chromium, type Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHarness, type Harness } from "../../support/harness.ts"

/** Issue 9: the /docs page renders the endpoints in a real browser, with nothing fetched off-host. */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const haveChromium = existsSync(CHROMIUM)
const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
]

describe.skipIf(!haveChromium)(
  `API reference page in Chromium${haveChromium ? "" : ` (skipped: no browser at ${CHROMIUM}; apt-get install -y chromium)`}`,
  () => {
    let h: Harness
    let server: ServerType
    let base: string
    let browser: Browser
    beforeAll(async () => {
      h = await startHarness("pglite", {}, { background: false })
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.booted.app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
          resolve(s),
        )
      })
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS })
    })
    afterAll(async () => {
      await browser?.close()
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()))
      await h?.close()
    })

    it("lists every endpoint of /openapi.json and loads nothing from another host", async () => {
      const page = await browser.newPage()
      const requests: string[] = []
      const problems: string[] = []
      page.on("request", (r) => requests.push(r.url()))
      page.on("pageerror", (e) => problems.push(e.message))
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text())
      })
      const res = await page.goto(`${base}/docs`)
      expect(res?.status()).toBe(200)
      await page.waitForSelector("body[data-ready=true]", { timeout: 15_000 })

      const doc = await (await fetch(`${base}/openapi.json`)).json()
      const expected = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
      )
      const listed = await page.$$eval("#toc a[data-entry]", (as) =>
        as.map((a) => a.getAttribute("data-entry")),
      )
      for (const entry of expected) expect(listed).toContain(entry)
      expect(listed).toContain("WEBHOOK ROOM_BOOK")
      expect(await page.locator("h1").textContent()).toContain("Keyspace")

      // Open one operation and see its parameters, body and errors rendered.
      await page.click('#toc a[data-entry="POST /meetings"]')
      const op = page.locator("#createMeeting")
      expect(await op.getAttribute("open")).not.toBeNull()
      const text = (await op.textContent()) ?? ""
      expect(text).toContain("meetingRoomId")
      expect(text).toContain("SV012")
      expect(text).toContain("bearerAuth")

      // The filter narrows the list.
      await page.fill("#filter", "partner")
      const visible = await page.$$eval("#toc a[data-entry]", (as) =>
        as
          .filter((a) => (a as HTMLElement).style.display !== "none")
          .map((a) => a.getAttribute("data-entry")),
      )
      expect(visible.length).toBeGreaterThan(0)
      expect(visible.every((v) => v?.includes("/partner/"))).toBe(true)

      expect(problems).toEqual([])
      expect(requests.every((u) => u.startsWith(base))).toBe(true)
      await page.close()
    })
  },
)

import { existsSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { serve, type ServerType } from "@hono/node-server"
import { chromium, type Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHarness, type Harness } from "../support/harness.ts"
import { bookRoom, getMeeting, setUpPaymentsWorld, type PaymentsWorld } from "../integration/payments/payment-fixtures.ts"

/**
 * Operator contract section 4, end to end in a real browser: a person opens webPaymentUrl on
 * a real HTTP listener, sees the amount and the QR, presses Pay, lands on the client's
 * frontendRedirectUrl (another origin, as a real frontend would be), and the booking is active.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`browser tests skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`)

const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
]

const listen = (server: Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

describe.skipIf(!hasChromium)("sandbox payment page in chromium", () => {
  let h: Harness
  let w: PaymentsWorld
  let api: ServerType
  let frontend: Server
  let frontendUrl: string
  let browser: Browser

  beforeAll(async () => {
    // The service hands out addresses under KEYSPACE_PUBLIC_URL, so the port comes first and
    // the listener forwards to the app once it is booted.
    let fetchApp: (req: Request) => Response | Promise<Response> = () => new Response("booting", { status: 503 })
    const port = await new Promise<number>((resolve) => {
      api = serve({ fetch: (req) => fetchApp(req), port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port))
    })
    h = await startHarness("pglite", { KEYSPACE_PUBLIC_URL: `http://127.0.0.1:${port}`, KEYSPACE_MAX_UNPAID_HOLDS: "100" })
    fetchApp = (req) => h.booted.app.fetch(req)
    w = await setUpPaymentsWorld(h)

    // The client's own frontend: a tiny page on another origin.
    frontend = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(`<!doctype html><title>Booked</title><h1 id="done">Thanks! ${req.url?.replace(/[<>&"]/g, "")}</h1>`)
    })
    frontendUrl = `http://localhost:${await listen(frontend)}/booked?ref=abc`

    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS })
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise((r) => frontend?.close(r))
    await new Promise((r) => api?.close(r))
    await h?.close()
  })

  it("open webPaymentUrl, see the amount and the QR, press Pay, land on frontendRedirectUrl; the booking is active", async () => {
    const m = await bookRoom(h, w, "lotus", "10:00", "11:30", 1, { frontendRedirectUrl: frontendUrl })
    expect(m.status).toBe("unpaid")

    const page = await browser.newPage()
    const response = await page.goto(m.payment.webPaymentUrl)
    expect(response?.status()).toBe(200)
    await expect.poll(() => page.getByTestId("amount").textContent()).toBe("150.00 THB")
    expect(await page.getByTestId("booking-title").textContent()).toBe("Paid meeting")
    expect(await page.getByTestId("asset-name").textContent()).toBe("Lotus")
    // The QR is a real, decoded image (a data: PNG under the page's strict CSP).
    const qr = page.getByTestId("qr")
    expect(await qr.getAttribute("src")).toBe(m.payment.webPaymentQr)
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 100)).toBe(true)

    await Promise.all([
      page.waitForURL(frontendUrl),
      page.getByRole("button", { name: /^Pay / }).click(),
    ])
    expect(page.url()).toBe(frontendUrl)
    expect(await page.locator("#done").textContent()).toContain("Thanks!")
    expect((await getMeeting(h, w, m._id)).status).toBe("active")
    await page.close()
  })

  it("Decline shows the declined page and the booking stays unpaid", async () => {
    const m = await bookRoom(h, w, "lotus", "13:00", "14:00", 1, { frontendRedirectUrl: frontendUrl })
    const page = await browser.newPage()
    await page.goto(m.payment.webPaymentUrl)
    await page.getByRole("button", { name: "Decline" }).click()
    await expect.poll(() => page.getByTestId("status").getAttribute("data-status")).toBe("failed")
    expect((await getMeeting(h, w, m._id)).status).toBe("unpaid")
    await page.close()
  })
})

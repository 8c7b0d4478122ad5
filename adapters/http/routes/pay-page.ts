import { Hono, type Context } from "hono"
import {
  renderBadRequestPage,
  renderDeclinedPage,
  renderErrorPage,
  renderNotFoundPage,
  renderPaidPage,
  renderPayPage,
  renderStatusPage,
} from "../../payments/pay-page.ts"
import { type ManagedRuntime, Option } from "effect"
import { Payments } from "../../../core/payment/payments.ts"
import type { AppEnv } from "../app-env.ts"
import { makeRun, type DefectSink } from "../run.ts"
import { OBJECT_ID_PATTERN } from "../../../core/shared/ids.ts"
import { nulViolations } from "../validation.ts"

/**
 * GET/POST /pay/{paymentId}: the sandbox gateway's hosted page (operator contract section 4).
 * Public on purpose: the payer is a person with a browser, not an API client, and the
 * unguessable paymentId in the address is what the client handed them.
 */

const originOf = (url: string | null): string | undefined => {
  if (url === null) return undefined
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/**
 * No script, images only as data URIs, no framing (a Pay button must not be clickjacked), and
 * the form may only post here or be redirected to the booking's frontendRedirectUrl origin
 * (Chromium applies form-action to the redirect that follows the post).
 */
const html = (
  c: Context<AppEnv>,
  body: string,
  status: 200 | 400 | 404 | 409,
  redirectOrigin?: string,
) => {
  const formAction = ["'self'", ...(redirectOrigin ? [redirectOrigin] : [])].join(" ")
  c.header(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      "img-src data:",
      "style-src 'unsafe-inline'",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
  )
  c.header("X-Frame-Options", "DENY")
  c.header("X-Content-Type-Options", "nosniff")
  c.header("Referrer-Policy", "no-referrer")
  c.header("Cache-Control", "no-store")
  return c.html(body, status)
}

/** The runtime the pay page's use case runs on (the app's), and where a defect is logged. */
export interface PayPageDeps extends DefectSink {
  readonly runtime: ManagedRuntime.ManagedRuntime<Payments, never>
}

export const payPageRoutes = (s: PayPageDeps) => {
  const routes = new Hono<AppEnv>()
  const run = makeRun(s.runtime, s)

  routes.get("/:paymentId", async (c) => {
    const paymentId = c.req.param("paymentId")
    if (!OBJECT_ID_PATTERN.test(paymentId)) return html(c, renderNotFoundPage(), 404)
    return run(c, Payments.use((p) => p.payPage(paymentId)), (found) => {
      if (Option.isNone(found)) return html(c, renderNotFoundPage(), 404)
      const model = found.value
      const status = model.payment.status
      const redirectOrigin = originOf(model.payment.frontendRedirectUrl)
      if (status === "pending" && !model.lapsed)
        return html(c, renderPayPage(model), 200, redirectOrigin)
      return html(c, renderStatusPage(model, status === "pending" ? "expired" : status), 200)
    })
  })

  routes.post("/:paymentId", async (c) => {
    const paymentId = c.req.param("paymentId")
    // Payment ids are ObjectIds; anything else names no payment (and never reaches SQL).
    if (!OBJECT_ID_PATTERN.test(paymentId)) return html(c, renderNotFoundPage(), 404)
    // Every value of a repeated field: `outcome=paid&outcome=failed` is ambiguous, and a decline is final.
    const form = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>)
    const nul = nulViolations(form)
    if (nul.length > 0) return html(c, renderBadRequestPage(nul.join("; ")), 400)
    const outcome = form["outcome"]
    if (Array.isArray(outcome)) return html(c, renderBadRequestPage("outcome: must be given once"), 400)
    if (outcome !== "paid" && outcome !== "failed")
      return html(c, renderBadRequestPage('outcome: must be "paid" or "failed"'), 400)
    return run(c, Payments.use((p) => p.settleForPage(paymentId, outcome)), ({ result, page }) => {
      if (result._tag === "NotFound" || Option.isNone(page)) return html(c, renderNotFoundPage(), 404)
      const model = page.value
      switch (result._tag) {
        case "Refused":
          return html(c, renderErrorPage(model, result.reason), 409)
        case "Declined":
          return html(c, renderDeclinedPage(model), 200)
        case "Paid": {
          const target = result.payment.frontendRedirectUrl
          // 303: the browser follows with a GET, so a reload of the target never re-posts. The
          // Location is the URL's ASCII form (punycode host, percent-encoded path and query): a
          // header carries no other text, and it names the origin form-action allows.
          if (target) {
            c.header("Cache-Control", "no-store")
            return c.redirect(new URL(target).href, 303)
          }
          return html(c, renderPaidPage(model), 200)
        }
      }
    })
  })

  return routes
}

import type { PayPageModel } from "../../core/payment/payments.ts"

/**
 * HTML of the sandbox payment page (operator contract section 4). Plain server-rendered HTML
 * with one form and no script: it works in any browser, with a screen reader, and under a
 * strict Content-Security-Policy. Every interpolated value goes through `esc`.
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
}

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export const esc = (value: unknown): string =>
  String(value).replace(/[&<>"'`]/g, (c) => ESCAPES[c]!)

/** 150.5 -> "150.50 THB". */
export const formatThb = (amount: number): string =>
  `${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} THB`

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, sans-serif; }
  body { margin: 0; background: Canvas; color: CanvasText; }
  main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem;
    border: 1px solid #8884; border-radius: 12px; }
  h1 { font-size: 1.25rem; margin: 0 0 1rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .35rem 1rem; margin: 0 0 1rem; }
  dt { color: GrayText; } dd { margin: 0; overflow-wrap: anywhere; }
  .amount { font-size: 2rem; font-weight: 700; margin: .5rem 0 1rem; }
  .qr { display: block; margin: 0 auto 1rem; width: 240px; height: 240px;
    background: #fff; padding: 8px; border-radius: 8px; }
  .lines { width: 100%; border-collapse: collapse; margin-bottom: 1rem; }
  .lines td { padding: .2rem 0; } .lines td:last-child { text-align: right; }
  .actions { display: flex; gap: .75rem; }
  button { flex: 1; font: inherit; padding: .8rem; border-radius: 8px;
    border: 1px solid #8888; cursor: pointer; }
  button.pay { background: #0b6e4f; color: #fff; border-color: #0b6e4f; font-weight: 600; }
  .note { color: GrayText; font-size: .9rem; }
  .status { padding: .75rem; border-radius: 8px; background: #8882; }
`

/** A complete HTML document. */
const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`

const details = (m: PayPageModel): string => `<dl>
  <dt>Booking</dt><dd data-testid="booking-title">${esc(m.bookingTitle)}</dd>
  <dt>${m.assetKind === "room" ? "Room" : "Desk"}</dt>
  <dd data-testid="asset-name">${esc(m.assetName)}</dd>
  <dt>When</dt><dd><time datetime="${esc(m.startDateTime)}">${esc(m.when)}</time></dd>
  <dt>Invoice</dt><dd data-testid="invoice-no">${esc(m.payment.invoiceNo)}</dd>
  ${m.payment.kind === "extension" ? "<dt>For</dt><dd>Extension of a paid booking</dd>" : ""}
</dl>`

const summaryLines = (m: PayPageModel): string => {
  const s = m.payment.summary
  if (s.discounts.length === 0) return ""
  const rows = [
    `<tr><td>Subtotal</td><td>${esc(formatThb(s.subtotal))}</td></tr>`,
    ...s.discounts.map(
      (d) =>
        `<tr><td>${esc(d.name)} (${esc(d.code)})</td>` +
        `<td>&minus;${esc(formatThb(d.value))}</td></tr>`,
    ),
  ]
  return `<table class="lines">${rows.join("")}</table>`
}

/**
 * The page a payer sees while the payment is pending and its window open. Its form has no
 * action: it posts back to the page's own address as the browser reached it, so a proxy's path
 * prefix (KEYSPACE_PUBLIC_URL with a path) is kept, where an action of the server's own path
 * dropped it.
 */
export const renderPayPage = (m: PayPageModel): string => {
  const p = m.payment
  const amount = esc(formatThb(p.summary.total))
  const alt =
    p.channel === "prompt-pay"
      ? "PromptPay QR code for this payment"
      : "QR code of this payment page"
  return page(
    `Pay ${formatThb(p.summary.total)} - ${m.bookingTitle}`,
    `<h1>Pay for your booking</h1>
${details(m)}
${summaryLines(m)}
<p class="amount" data-testid="amount">${amount}</p>
<img class="qr" data-testid="qr" src="${esc(p.webPaymentQr)}" alt="${esc(alt)}"
  width="240" height="240">
<p class="note">${p.channel === "prompt-pay" ? "Scan with a banking app" : "Scan to open this page on a phone"}, or use the buttons below (sandbox: no money moves).
Pay before <time datetime="${esc(m.payBefore.dateTime)}" data-testid="pay-before">${esc(m.payBefore.text)}</time>.</p>
<form method="post" class="actions">
  <button type="submit" name="outcome" value="paid" class="pay">Pay ${amount}</button>
  <button type="submit" name="outcome" value="failed">Decline</button>
</form>`,
  )
}

const STATUS_TEXT: Record<string, { title: string; text: string }> = {
  paid: { title: "Payment received", text: "This booking is paid and confirmed." },
  failed: { title: "Payment declined", text: "This payment was declined. Nothing was charged." },
  voided: {
    title: "Payment cancelled",
    text: "The booking was cancelled, so this payment can no longer be made.",
  },
  expired: {
    title: "Payment window closed",
    text: "The time to pay for this booking has run out. Nothing was charged; please book again.",
  },
}

/** An extension's window lapsed: the booking is back to its earlier, already paid times. */
const EXTENSION_EXPIRED = {
  title: "Payment window closed",
  text: "The time to pay for this extension has run out. Nothing was charged; the booking keeps its earlier times.",
}

const statusText = (m: PayPageModel, status: string): { title: string; text: string } | undefined =>
  status === "expired" && m.payment.kind === "extension" ? EXTENSION_EXPIRED : STATUS_TEXT[status]

/** A payment that is no longer payable, seen with GET (status page, nothing to press). */
export const renderStatusPage = (m: PayPageModel, status: string): string => {
  const t = statusText(m, status) ?? { title: "Payment", text: `This payment is ${status}.` }
  return page(
    t.title,
    `<h1>${esc(t.title)}</h1>
${details(m)}
<p class="amount" data-testid="amount">${esc(formatThb(m.payment.summary.total))}</p>
<p class="status" data-testid="status" data-status="${esc(status)}">${esc(t.text)}</p>`,
  )
}

/** The answer to a post that changed nothing (409 SV006): why, and that nothing happened. */
export const renderErrorPage = (m: PayPageModel, reason: string): string => {
  const t = statusText(m, reason) ?? { title: "", text: `This payment is ${reason}.` }
  return page(
    "Payment not possible",
    `<h1>Payment not possible</h1>
<p class="status" data-testid="error" data-code="SV006" data-status="${esc(reason)}">
${esc(t.text)}</p>
<p class="note">Nothing was changed by this request (error SV006).</p>
${details(m)}`,
  )
}

/** After a successful payment when the booking gave no frontendRedirectUrl. */
export const renderPaidPage = (m: PayPageModel): string =>
  page(
    "Payment received",
    `<h1>Payment received</h1>
<p class="status" data-testid="status" data-status="paid">Thank you. Your booking is confirmed.</p>
${details(m)}
<p class="amount" data-testid="amount">${esc(formatThb(m.payment.summary.total))}</p>`,
  )

/** After a decline. */
export const renderDeclinedPage = (m: PayPageModel): string =>
  page(
    "Payment declined",
    `<h1>Payment declined</h1>
<p class="status" data-testid="status" data-status="failed">${esc(STATUS_TEXT["failed"]!.text)}</p>
${details(m)}`,
  )

export const renderNotFoundPage = (): string =>
  page("Payment not found", `<h1>Payment not found</h1><p>No payment has this address.</p>`)

export const renderBadRequestPage = (message: string): string =>
  page(
    "Bad request",
    `<h1>Bad request</h1><p data-testid="error" data-code="SV001">${esc(message)}</p>`,
  )

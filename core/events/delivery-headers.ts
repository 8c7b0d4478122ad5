/**
 * Headers every delivery request carries (spec "Delivery request") or that the HTTP client owns:
 * a registration's custom headers may not name them. The manifest refuses such a name, so a
 * registration never looks as if a header it lists would be sent when it would not be.
 */
export const RESERVED_DELIVERY_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "content-type",
  "user-agent",
  "transfer-encoding",
  "connection",
  // Hop-by-hop and framing headers the HTTP client owns.
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection",
  "x-service-event",
  "x-service-delivery",
  "x-service-timestamp",
  "x-service-signature",
])

/** Why a custom-header list cannot be sent as written: reserved names and names given twice. */
export const customHeaderViolations = (headers: ReadonlyArray<{ readonly name: string }>): string[] => {
  const seen = new Set<string>()
  const messages: string[] = []
  for (const { name } of headers) {
    const lower = name.toLowerCase()
    if (RESERVED_DELIVERY_HEADERS.has(lower)) messages.push(`${name}: is set by every delivery and cannot be replaced`)
    else if (seen.has(lower)) messages.push(`${name}: is given more than once (header names ignore case)`)
    seen.add(lower)
  }
  return messages
}

/**
 * Decides one request against a sliding log of the app's admitted requests. Pure, so the
 * window arithmetic is tested without a database. A refused request is not logged: a client
 * that backs off as told gets in when Retry-After says.
 */
export const admit = (
  hits: ReadonlyArray<number>,
  now: number,
  limit: { readonly requests: number; readonly windowSeconds: number },
): { admitted: true; hits: number[] } | { admitted: false; retryAfterSeconds: number } => {
  const windowMs = limit.windowSeconds * 1000
  // A hit more than a window ahead of now was stamped by a clock since set back (the manual test
  // clock restarts at KEYSPACE_CLOCK_START): counted, it locked the app out for hours. Hits a
  // little ahead (another process's clock a few milliseconds on) still count.
  const recent = hits.filter((t) => t > now - windowMs && t <= now + windowMs).sort((a, b) => a - b)
  if (recent.length < limit.requests) return { admitted: true, hits: [...recent, now] }
  // The next slot frees when the oldest hit that keeps the log full leaves the window.
  const frees = recent[recent.length - limit.requests]! + windowMs
  return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)) }
}

/**
 * Server-side request forgery guard for webhook targets. A registration names any URL; before
 * each attempt the host is resolved and every address it resolves to is checked, and the
 * sender then connects to the checked address itself (no second lookup), so DNS rebinding
 * between check and connect cannot slip through. Redirects are never followed (http-sender.ts).
 */

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "shared"
  | "unspecified"
  | "unique-local"
  | "multicast"
  | "reserved"

export interface TargetPolicy {
  /** KEYSPACE_ALLOW_INSECURE_WEBHOOKS: admits http:// and loopback, for local development. */
  readonly allowInsecure: boolean
}

export type Resolver = (hostname: string) => Promise<ReadonlyArray<string>>

export type TargetCheck =
  | {
      readonly ok: true
      readonly url: URL
      /** The checked address the sender must connect to. */
      readonly address: string
    }
  | { readonly ok: false; readonly reason: string }

const parseIpv4 = (s: string): number[] | undefined => {
  const parts = s.split(".")
  if (parts.length !== 4) return undefined
  const out: number[] = []
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined
    const n = Number(p)
    if (n > 255) return undefined
    out.push(n)
  }
  return out
}

/** 8 groups of 16 bits, or undefined when not an IPv6 literal. Accepts an embedded IPv4 tail. */
const parseIpv6 = (input: string): number[] | undefined => {
  let s = input.replace(/^\[|\]$/g, "")
  const zone = s.indexOf("%")
  if (zone >= 0) s = s.slice(0, zone)
  if (!s.includes(":")) return undefined
  const lastColon = s.lastIndexOf(":")
  const last = s.slice(lastColon + 1)
  if (last.includes(".")) {
    // ::ffff:1.2.3.4 -> ::ffff:102:304
    const v4 = parseIpv4(last)
    if (!v4) return undefined
    const hi = ((v4[0]! << 8) | v4[1]!).toString(16)
    const lo = ((v4[2]! << 8) | v4[3]!).toString(16)
    s = `${s.slice(0, lastColon + 1)}${hi}:${lo}`
  }
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const group = (part: string): number[] | undefined => {
    if (part === "") return []
    const out: number[] = []
    for (const g of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined
      out.push(parseInt(g, 16))
    }
    return out
  }
  const head = group(halves[0]!)
  const rest = halves.length === 2 ? group(halves[1]!) : []
  if (!head || !rest) return undefined
  if (halves.length === 1) return head.length === 8 ? head : undefined
  const missing = 8 - head.length - rest.length
  if (missing < 1) return undefined
  return [...head, ...new Array<number>(missing).fill(0), ...rest]
}

const inV4 = (ip: number[], a: number, b: number, c: number, d: number, bits: number): boolean => {
  const value = ((ip[0]! << 24) | (ip[1]! << 16) | (ip[2]! << 8) | ip[3]!) >>> 0
  const base = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
  return (value & mask) === (base & mask)
}

const classifyV4 = (ip: number[]): AddressClass => {
  if (inV4(ip, 127, 0, 0, 0, 8)) return "loopback"
  if (inV4(ip, 0, 0, 0, 0, 8)) return "unspecified"
  if (inV4(ip, 10, 0, 0, 0, 8) || inV4(ip, 172, 16, 0, 0, 12) || inV4(ip, 192, 168, 0, 0, 16))
    return "private"
  // 169.254.169.254 (cloud metadata) is in here.
  if (inV4(ip, 169, 254, 0, 0, 16)) return "link-local"
  if (inV4(ip, 100, 64, 0, 0, 10)) return "shared"
  if (inV4(ip, 224, 0, 0, 0, 4)) return "multicast"
  if (
    inV4(ip, 240, 0, 0, 0, 4) ||
    inV4(ip, 192, 0, 0, 0, 24) ||
    inV4(ip, 192, 0, 2, 0, 24) ||
    inV4(ip, 198, 18, 0, 0, 15) ||
    inV4(ip, 198, 51, 100, 0, 24) ||
    inV4(ip, 203, 0, 113, 0, 24)
  )
    return "reserved"
  return "public"
}

const classifyV6 = (g: number[]): AddressClass => {
  const zeroPrefix = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroPrefix(7) && g[7] === 1) return "loopback"
  if (zeroPrefix(8)) return "unspecified"
  const embedded = [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff]
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d and NAT64 64:ff9b::a.b.c.d reach
  // the embedded IPv4 address: judge that one.
  if (zeroPrefix(5) && g[5] === 0xffff) return classifyV4(embedded)
  if (zeroPrefix(6)) return classifyV4(embedded)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return classifyV4(embedded)
  const first = g[0]!
  if ((first & 0xfe00) === 0xfc00) return "unique-local"
  if ((first & 0xffc0) === 0xfe80) return "link-local"
  if ((first & 0xff00) === 0xff00) return "multicast"
  // 2001:db8::/32 documentation, 100::/64 discard, 2002::/16 6to4 (may embed anything).
  if ((first === 0x2001 && g[1] === 0x0db8) || first === 0x2002) return "reserved"
  if (first === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "reserved"
  return "public"
}

/** The class of an IP literal, or undefined when `s` is not one. */
export const classifyAddress = (s: string): AddressClass | undefined => {
  const v4 = parseIpv4(s)
  if (v4) return classifyV4(v4)
  const v6 = parseIpv6(s)
  if (v6) return classifyV6(v6)
  return undefined
}

export const isIpLiteral = (s: string): boolean => classifyAddress(s) !== undefined

/**
 * Decides whether a webhook URL may be called, on the addresses its host resolves to now.
 * Every address must pass (a name answering one public and one private address is refused).
 */
export const checkTarget = async (
  rawUrl: string,
  policy: TargetPolicy,
  resolve: Resolver,
): Promise<TargetCheck> => {
  let url: URL
  try {
    url = new URL(rawUrl)
  } catch {
    return { ok: false, reason: "refused: not a valid URL" }
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { ok: false, reason: `refused: scheme ${url.protocol} is not https` }
  if (url.protocol === "http:" && !policy.allowInsecure)
    return { ok: false, reason: "refused: only https:// targets are accepted" }
  const host = url.hostname.replace(/^\[|\]$/g, "")
  let addresses: ReadonlyArray<string>
  if (isIpLiteral(host)) {
    addresses = [host]
  } else {
    try {
      addresses = await resolve(host)
    } catch (e) {
      const code = (e as { code?: unknown }).code
      const detail = typeof code === "string" ? ` (${code})` : ""
      return { ok: false, reason: `cannot resolve host${detail}` }
    }
    if (addresses.length === 0) return { ok: false, reason: "cannot resolve host (no address)" }
  }
  for (const address of addresses) {
    const cls = classifyAddress(address) ?? "reserved"
    if (cls === "public") continue
    if (cls === "loopback" && policy.allowInsecure) continue
    return { ok: false, reason: `refused: ${address} is a ${cls} address` }
  }
  // Plain http is for local development only: loopback under the flag, never the network.
  if (url.protocol === "http:" && !addresses.every((a) => classifyAddress(a) === "loopback"))
    return { ok: false, reason: "refused: http:// is accepted only on loopback" }
  return { ok: true, url, address: addresses[0]! }
}

/**
 * Resolves a host name with node:dns where the runtime has it (Node, Bun and Deno all do),
 * IPv4 first (the address connected to is the first one).
 * Without it the fallback fails closed: only IP literals can be checked, so names are refused.
 */
export const systemResolver = (): Resolver => {
  let lookup: ((host: string) => Promise<ReadonlyArray<string>>) | undefined | null
  return async (hostname) => {
    if (lookup === undefined) {
      try {
        const dns = await import("node:dns/promises")
        lookup = async (h) =>
          (await dns.lookup(h, { all: true, verbatim: false })).map((a) => a.address)
      } catch {
        lookup = null
      }
    }
    if (lookup === null) throw Object.assign(new Error("no resolver"), { code: "ENORESOLVER" })
    return lookup(hostname)
  }
}

/**
 * Registration-time check of manifest webhook URLs, for early feedback (400 SV001): https only,
 * or http on loopback under the development flag, and never an IP literal the send-time guard
 * would refuse. Host names are judged at send time only, on what they resolve to then.
 */
export const registrationUrlErrors = (
  projects: ReadonlyArray<{
    readonly webhooks?: ReadonlyArray<{ readonly url: string }> | undefined
  }>,
  policy: TargetPolicy,
): string[] => {
  const errors: string[] = []
  projects.forEach((p, pi) =>
    (p.webhooks ?? []).forEach((w, wi) => {
      const at = `projects.${pi}.webhooks.${wi}.url`
      let url: URL
      try {
        url = new URL(w.url)
      } catch {
        errors.push(`${at}: must be an absolute URL`)
        return
      }
      const host = url.hostname.replace(/^\[|\]$/g, "")
      const cls = classifyAddress(host)
      const loopback = cls === "loopback" || host === "localhost"
      if (url.protocol !== "https:" && url.protocol !== "http:") {
        errors.push(`${at}: must be an https:// address`)
      } else if (url.protocol === "http:" && !(policy.allowInsecure && loopback)) {
        errors.push(
          policy.allowInsecure
            ? `${at}: plain http:// is accepted only on loopback`
            : `${at}: must be an https:// address ` +
                "(KEYSPACE_ALLOW_INSECURE_WEBHOOKS=1 admits http:// on loopback)",
        )
      } else if (
        cls !== undefined &&
        cls !== "public" &&
        !(cls === "loopback" && policy.allowInsecure)
      ) {
        errors.push(`${at}: must not be a ${cls} address`)
      }
    }),
  )
  return errors
}

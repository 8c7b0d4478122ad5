import { describe, expect, it } from "vitest"
import { checkTarget, classifyAddress, registrationUrlErrors } from "../../../adapters/webhooks/ssrf-guard.ts"

describe("SSRF guard: address classes", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["100.64.0.1", "shared"],
    ["100.127.255.254", "shared"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2001:db8::1", "reserved"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["2606:4700::1111", "public"],
  ])("%s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls)
  })

  it("host names and junk are not IP literals", () => {
    for (const s of ["example.com", "1.2.3", "1.2.3.256", "::1::2", "gggg::1", ""]) expect(classifyAddress(s)).toBeUndefined()
  })
})

describe("SSRF guard: target check", () => {
  const resolveTo = (...addresses: string[]) => async () => addresses
  const strict = { allowInsecure: false }
  const dev = { allowInsecure: true }

  it("a public https target passes and pins the resolved address", async () => {
    const r = await checkTarget("https://hooks.example/k?x=1", strict, resolveTo("93.184.216.34"))
    expect(r).toMatchObject({ ok: true, address: "93.184.216.34" })
  })

  it("a name resolving to any private address is refused (no mixed answers)", async () => {
    const r = await checkTarget("https://hooks.example/k", strict, resolveTo("93.184.216.34", "10.0.0.5"))
    expect(r).toEqual({ ok: false, reason: "refused: 10.0.0.5 is a private address" })
  })

  it("http is refused without the flag, and off loopback even with it", async () => {
    expect(await checkTarget("http://hooks.example/", strict, resolveTo("93.184.216.34"))).toMatchObject({ ok: false })
    expect(await checkTarget("http://hooks.example/", dev, resolveTo("93.184.216.34"))).toEqual({
      ok: false,
      reason: "refused: http:// is accepted only on loopback",
    })
    expect(await checkTarget("http://localhost:8080/", dev, resolveTo("127.0.0.1"))).toMatchObject({ ok: true })
  })

  it("loopback passes only under the flag; metadata never", async () => {
    expect(await checkTarget("https://127.0.0.1/", strict, resolveTo())).toMatchObject({ ok: false })
    expect(await checkTarget("https://127.0.0.1/", dev, resolveTo())).toMatchObject({ ok: true })
    expect(await checkTarget("https://[::1]:8443/", dev, resolveTo())).toMatchObject({ ok: true, address: "::1" })
    expect(await checkTarget("https://169.254.169.254/", dev, resolveTo())).toMatchObject({ ok: false })
  })

  it("unresolvable hosts, other schemes and bad URLs are refused", async () => {
    const failing = async () => {
      throw Object.assign(new Error("nope"), { code: "ENOTFOUND" })
    }
    expect(await checkTarget("https://nowhere.invalid/", strict, failing)).toEqual({ ok: false, reason: "cannot resolve host (ENOTFOUND)" })
    expect(await checkTarget("ftp://hooks.example/", dev, resolveTo("93.184.216.34"))).toMatchObject({ ok: false })
    expect(await checkTarget("not a url", dev, resolveTo())).toMatchObject({ ok: false })
  })
})

describe("registration-time URL check (manifest)", () => {
  const hooks = (...urls: string[]) => [{ webhooks: urls.map((url) => ({ url })) }]
  it("https to a name or public address passes; http only on loopback under the flag", () => {
    expect(registrationUrlErrors(hooks("https://hooks.example/k", "https://93.184.216.34/"), { allowInsecure: false })).toEqual([])
    expect(registrationUrlErrors(hooks("http://localhost:3000/", "http://127.0.0.1/"), { allowInsecure: true })).toEqual([])
    expect(registrationUrlErrors(hooks("http://localhost:3000/"), { allowInsecure: false })).toHaveLength(1)
    expect(registrationUrlErrors(hooks("http://hooks.example/"), { allowInsecure: true })).toEqual([
      "projects.0.webhooks.0.url: plain http:// is accepted only on loopback",
    ])
    expect(registrationUrlErrors(hooks("https://192.168.0.1/"), { allowInsecure: true })).toEqual([
      "projects.0.webhooks.0.url: must not be a private address",
    ])
  })
})

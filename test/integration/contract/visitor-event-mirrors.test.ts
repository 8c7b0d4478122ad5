import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHarness, CLOCK_START, type Harness } from "../../support/harness.ts"
import { applyHooks, hostCancelled, inviteSent } from "../webhooks/fixtures.ts"
import { startReceiver, type Receiver } from "../webhooks/receiver.ts"

describe("visitor events: projectId and timestamp mirror the envelope", () => {
  let h: Harness
  let rx: Receiver
  let projectId: string
  beforeAll(async () => {
    h = await startHarness("pglite", { KEYSPACE_ALLOW_INSECURE_WEBHOOKS: "1" })
    rx = await startReceiver()
    ;({ projectId } = await applyHooks(h, "mirror", [{ key: "ops", url: rx.url }]))
  })
  afterAll(async () => {
    await rx?.close()
    await h?.close()
  })

  const post = (data: unknown) =>
    h.admin("POST", `/projects/${projectId}/visitor-events`, { type: "VMS_HOST_CANCELLED", data })
  const delivered = async (id: string) => {
    for (let i = 0; i < 600; i++) {
      const req = rx.received.find((r) => (r.body as { id?: string })?.id === id)
      if (req) return req.body as any
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`delivery ${id} never arrived`)
  }

  it("absent projectId and timestamp are filled from the path and the service clock", async () => {
    const { projectId: _p, timestamp: _t, ...rest } = hostCancelled(projectId, CLOCK_START)
    const res = await post(rest)
    expect(res.status).toBe(202)
    const body = await delivered(res.body.data)
    expect(body.occurredAt).toBe(CLOCK_START)
    expect(body.data).toEqual({ ...rest, projectId, timestamp: CLOCK_START })
  })

  it("a given timestamp with an explicit offset becomes occurredAt, seconds kept", async () => {
    const res = await post({ ...hostCancelled(projectId, "2030-01-07T08:59:30+07:00") })
    expect(res.status).toBe(202)
    const body = await delivered(res.body.data)
    expect(body.occurredAt).toBe("2030-01-07T01:59:30.000Z")
    expect(body.data.timestamp).toBe("2030-01-07T01:59:30.000Z")
  })

  it("a timestamp in any form the booking routes take (a comma fraction, a lower-case t and z) is read as its instant", async () => {
    const res = await post({ ...hostCancelled(projectId, "2030-01-07t08:59:30,5+07:00") })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect((await delivered(res.body.data)).occurredAt).toBe("2030-01-07T01:59:30.500Z")
    const z = await post({ ...hostCancelled(projectId, "2030-01-07t01:59:00z") })
    expect((await delivered(z.body.data)).occurredAt).toBe("2030-01-07T01:59:00.000Z")
  })

  it("a given projectId other than the path's, or a timestamp that names no single instant, is 400 SV001", async () => {
    const other = await post(hostCancelled("0123456789abcdef01234567", CLOCK_START))
    expect(other.status).toBe(400)
    expect(other.body.code).toBe("SV001")
    expect(other.body.message).toEqual(["data.projectId: must equal the project of the path"])
    for (const timestamp of ["2030-01-07", "2030-01-07T09:00:00", "yesterday", 1_894_000_000_000]) {
      const res = await post({ ...hostCancelled(projectId, CLOCK_START), timestamp })
      expect(res.status, String(timestamp)).toBe(400)
      expect(res.body.code).toBe("SV001")
      expect(res.body.message[0]).toMatch(/^data\.timestamp: /)
    }
  })

  it("visitDate is a day or a date-time with its offset (convention 3); a local date-time or an empty userId is 400 SV001", async () => {
    const invite = (over: Record<string, unknown>) =>
      h.admin("POST", `/projects/${projectId}/visitor-events`, { type: "VMS_INVITE_SENT", data: { ...inviteSent(projectId, CLOCK_START), ...over } })
    for (const visitDate of ["2030-01-08", "2030-01-08T10:00:00+07:00", "2030-01-08T03:00:00Z"])
      expect((await invite({ visitDate })).status, visitDate).toBe(202)
    const local = await invite({ visitDate: "2030-01-08T10:00:00" })
    expect(local.status).toBe(400)
    expect(local.body.code).toBe("SV001")
    expect(local.body.message.join(" ")).toMatch(/visitDate.*offset/)
    const noUser = await invite({ userId: "" })
    expect(noUser.status).toBe(400)
    expect(noUser.body.message.join(" ")).toMatch(/userId: must not be empty/)
  })

  it("a wrong projectId does not hide the other violated constraints: every one in one 400", async () => {
    const { userId: _u, ...noUser } = hostCancelled("0123456789abcdef01234567", "yesterday")
    const res = await post(noUser)
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual([
      "data.projectId: must equal the project of the path",
      expect.stringMatching(/^data\.timestamp: /),
      "data.userId: Missing key",
    ])
  })
})

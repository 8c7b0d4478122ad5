import { Result } from "effect"
import { describe, expect, it } from "vitest"
import type { IdentityConflict } from "../../../core/member/errors.ts"
import {
  checkKeysFree,
  emailLookupKey,
  type IdentityKeys,
  type IdentityLookup,
  type IdentityResolution,
  type KeyHolder,
  resolveIdentity,
} from "../../../core/member/identity.ts"

const PROJECT = "64b000000000000000000001"
const EXT = "ext-1"
const user = (memberId: string, extra: Partial<KeyHolder> = {}): KeyHolder => ({
  memberId,
  isProjectMember: true,
  ...extra,
})

const resolve = (keys: IdentityKeys, lookup: IdentityLookup) =>
  resolveIdentity({ projectId: PROJECT, externalUserId: EXT, keys, lookup })
const resolved = (keys: IdentityKeys, lookup: IdentityLookup): IdentityResolution =>
  Result.getOrThrow(resolve(keys, lookup))
const conflictOf = (keys: IdentityKeys, lookup: IdentityLookup): IdentityConflict => {
  const r = resolve(keys, lookup)
  if (Result.isSuccess(r)) throw new Error(`expected a conflict, got ${JSON.stringify(r.success)}`)
  return r.failure
}

const ALL: IdentityKeys = { email: "a@x.io", phone: "+66812345678", employeeId: "E1" }

describe("PUT member identity resolution (rule 2)", () => {
  it("resolution order: link before email before phone before employeeId", () => {
    const m = user("m")
    expect(resolved(ALL, { linked: { memberId: "m" }, email: m, phone: m, employeeId: m }))
      .toMatchObject({ kind: "existing", memberId: "m", matchedBy: "link" })
    expect(resolved(ALL, { email: m, phone: m, employeeId: m })).toMatchObject({
      matchedBy: "email",
    })
    expect(resolved(ALL, { phone: m, employeeId: m })).toMatchObject({ matchedBy: "phone" })
    expect(resolved(ALL, { employeeId: m })).toMatchObject({ matchedBy: "employeeId" })
  })

  it("no match creates a new member (matchedBy provisioned)", () => {
    expect(resolved(ALL, {})).toEqual({ kind: "create", matchedBy: "provisioned" })
  })

  it("a key missing from the body is not used even if the repository returned a hit", () => {
    expect(resolved({ phone: "+66812345678" }, { email: user("x"), phone: user("m") }))
      .toMatchObject({ memberId: "m", matchedBy: "phone" })
  })

  it("a key that misses does not block a later key that hits (it will be written)", () => {
    expect(resolved(ALL, { phone: user("m") })).toMatchObject({ memberId: "m", matchedBy: "phone" })
  })

  it("rule 3: a user matched by email or phone who is not a project member is added", () => {
    const outsider = user("m", { isProjectMember: false })
    expect(resolved({ email: "a@x.io" }, { email: outsider })).toMatchObject({ addToProject: true })
    expect(resolved({ email: "a@x.io" }, { email: user("m") })).toMatchObject({
      addToProject: false,
    })
  })

  it("rule 4: a PUT carrying only a unit (no identity key) always creates a new member", () => {
    expect(resolved({}, {})).toEqual({ kind: "create", matchedBy: "provisioned" })
  })

  it("rule 4: with a link, a unit-only PUT updates the linked member", () => {
    expect(resolved({}, { linked: { memberId: "m" } })).toMatchObject({ matchedBy: "link" })
  })

  it("rule 6: employeeId alone creates a loginless member named {projectId}_{employeeId}", () => {
    expect(resolved({ employeeId: "E-77" }, {})).toEqual({
      kind: "create",
      matchedBy: "provisioned",
      username: `${PROJECT}_E-77`,
    })
    expect(resolved({ employeeId: "E-77", email: "a@x.io" }, {})).not.toHaveProperty("username")
  })

  it("emails match case-insensitively (lookup key)", () => {
    expect(emailLookupKey("  Ann.Lee@Example.COM ")).toBe("ann.lee@example.com")
  })
})

describe("PUT member identity conflicts (rule 8, 409 SV006)", () => {
  it("a body key resolving to a different member than the one already linked conflicts", () => {
    const c = conflictOf({ email: "a@x.io" }, { linked: { memberId: "m" }, email: user("other") })
    expect(c._tag).toBe("IdentityConflict")
    expect(c.conflictKey).toBe("email")
    expect(c.linkedExternalUserId).toBeUndefined()
  })

  it("a key resolving to a member managed under another externalUserId carries that id", () => {
    const managed = user("other", { linkedExternalUserId: "ext-2" })
    const c = conflictOf({ phone: "+66812345678" }, { phone: managed })
    expect(c).toMatchObject({ conflictKey: "phone", linkedExternalUserId: "ext-2" })
    const linked = conflictOf(
      { employeeId: "E1" },
      { linked: { memberId: "m" }, employeeId: managed },
    )
    expect(linked).toMatchObject({ conflictKey: "employeeId", linkedExternalUserId: "ext-2" })
  })

  it("a key resolving to a member another app manages conflicts without that app's id", () => {
    const c = conflictOf({ email: "a@x.io" }, { email: user("theirs", { managedByOtherApp: true }) })
    expect(c.conflictKey).toBe("email")
    expect(c.linkedExternalUserId).toBeUndefined()
  })

  it("never silently re-links: a first hit managed elsewhere conflicts, no fallthrough", () => {
    const managed = user("o", { linkedExternalUserId: "ext-9" })
    const c = conflictOf(ALL, { email: managed, phone: user("m") })
    expect(c).toMatchObject({ conflictKey: "email", linkedExternalUserId: "ext-9" })
  })

  it("keys resolving to two different users conflict on the later key", () => {
    const c = conflictOf(ALL, { email: user("m"), phone: user("other") })
    expect(c.conflictKey).toBe("phone")
    const e = conflictOf(ALL, { email: user("m"), phone: user("m"), employeeId: user("o") })
    expect(e.conflictKey).toBe("employeeId")
  })

  it("keys resolving to the same user agree", () => {
    expect(resolved(ALL, { email: user("m"), phone: user("m"), employeeId: user("m") }))
      .toMatchObject({ memberId: "m", matchedBy: "email" })
  })

  it("a hit recorded under this same externalUserId is not a conflict", () => {
    expect(resolved({ email: "a@x.io" }, { email: user("m", { linkedExternalUserId: EXT }) }))
      .toMatchObject({ memberId: "m", matchedBy: "email" })
  })

  it("on update, unique keys taken by someone else conflict (first in resolution order)", () => {
    const c = conflictOf(ALL, {
      linked: { memberId: "m" },
      email: user("m"),
      phone: user("p"),
      employeeId: user("e"),
    })
    expect(c.conflictKey).toBe("phone")
  })
})

describe("uniqueness of the keys being written", () => {
  it("email, phone or employeeId taken by another user conflicts with that key", () => {
    for (const key of ["email", "phone", "employeeId"] as const) {
      const r = checkKeysFree("m", { [key]: "v" }, { [key]: user("other") })
      expect(Result.isFailure(r) && r.failure.conflictKey).toBe(key)
    }
  })

  it("keys free or held by the member itself pass", () => {
    expect(Result.isSuccess(checkKeysFree("m", ALL, { email: user("m") }))).toBe(true)
    expect(Result.isSuccess(checkKeysFree("m", ALL, {}))).toBe(true)
  })
})

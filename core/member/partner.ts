import { Result } from "effect"
import type { Principal } from "../auth/principal.ts"
import { Forbidden, ValidationFailed } from "../shared/errors.ts"
import type { credentialsView } from "./credentials.ts"
import type { IdentityKeys } from "./identity.ts"
import { normalizePhone } from "./phone.ts"
import type { MemberStatus } from "./state.ts"
import type { ProfilePatch } from "./transitions.ts"
import type { UnitBinding, UnitRequest } from "./unit-binding.ts"

/** The caller of a partner route: an app_credentials token of a single-project app. */
export interface PartnerScope {
  readonly appId: string
  readonly projectId: string
}

/**
 * Spec Authentication 6 and Endpoints > Partner members: only an app_credentials token of a
 * single-project app (403 SV003 otherwise).
 */
export const partnerScopeOf = (p: Principal): Result.Result<PartnerScope, Forbidden> => {
  if (p.grant !== "app_credentials")
    return Result.fail(new Forbidden({ reason: "partner routes accept only an app_credentials token" }))
  const [projectId] = p.projectIds
  if (p.projectIds.length !== 1 || projectId === undefined)
    return Result.fail(new Forbidden({ reason: "partner routes are for an app provisioned for exactly one project" }))
  return Result.succeed({ appId: p.appId, projectId })
}

/** PUT member body after decoding at the edge. */
export interface UpsertInput {
  readonly firstName: string
  readonly lastName: string
  readonly profileName?: string
  readonly email?: string
  readonly phone?: string
  readonly employeeId?: string
  readonly unit?: UnitRequest | null
}

/** PartnerMember (PUT member response data). */
export interface PartnerMemberView {
  readonly memberId: string
  readonly externalUserId: string
  readonly projectId: string
  readonly created: boolean
  readonly matchedBy: "link" | "email" | "phone" | "employeeId" | "provisioned"
  readonly accessGroupIds: ReadonlyArray<string>
  readonly employeeId: string | null
  readonly unit: UnitBinding | null
}

/** PartnerMemberDetail (GET member response data). */
export interface PartnerMemberDetailView {
  readonly memberId: string
  readonly externalUserId: string
  readonly projectId: string
  readonly status: MemberStatus
  readonly source: string
  readonly userType: string
  readonly accessGroupIds: ReadonlyArray<string>
  readonly employeeId: string | null
  readonly unit: UnitBinding | null
  readonly profile: {
    readonly firstName: string
    readonly lastName: string
    readonly profileName: string | null
    readonly email: string | null
    readonly phone: string | null
  }
  readonly credentials: {
    readonly cards: ReturnType<typeof credentialsView>["cards"]
    readonly face: { readonly present: boolean }
  }
}

/** The profile patch of a PUT body: email trimmed, phone normalized to E.164. */
export const patchOf = (input: UpsertInput): Result.Result<ProfilePatch, ValidationFailed> => {
  let phone: string | undefined
  if (input.phone !== undefined) {
    const r = normalizePhone(input.phone)
    if (Result.isFailure(r)) return Result.fail(new ValidationFailed({ messages: [`phone: ${r.failure}`] }))
    phone = r.success
  }
  return Result.succeed({
    firstName: input.firstName,
    lastName: input.lastName,
    ...(input.profileName !== undefined ? { profileName: input.profileName } : {}),
    ...(input.email !== undefined ? { email: input.email.trim() } : {}),
    ...(phone !== undefined ? { phone } : {}),
    ...(input.employeeId !== undefined ? { employeeId: input.employeeId } : {}),
  })
}

export const keysOf = (patch: ProfilePatch): IdentityKeys => ({
  ...(patch.email !== undefined ? { email: patch.email } : {}),
  ...(patch.phone !== undefined ? { phone: patch.phone } : {}),
  ...(patch.employeeId !== undefined ? { employeeId: patch.employeeId } : {}),
})

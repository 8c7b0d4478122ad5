import { Schema } from "effect"
import {
  ExternalUserId,
  PartnerCredentialsRequest,
  PartnerMemberUpsertRequest,
} from "../../schemas/partner-requests.ts"
import { defineGroup, type ApiOperation } from "../operation.ts"
import { PartnerCredentials, PartnerMember, PartnerMemberDetail } from "../resource-schemas.ts"

const ExternalUserIdParam = Schema.Struct({ externalUserId: ExternalUserId })

const common = {
  tag: "Partner members",
  security: "bearer",
  pathParams: ExternalUserIdParam,
  pathParamDescriptions: {
    externalUserId: "Your own user id: opaque to the service, at most 128 characters.",
  },
} as const

const partnerErrors = ["Forbidden", "RateLimited"] as const

const operations: ApiOperation[] = [
  {
    ...common,
    method: "put",
    path: "/partner/members/:externalUserId",
    operationId: "upsertPartnerMember",
    summary: "Create, link or update a member",
    description:
      "Idempotent on externalUserId. Resolution order: existing link, email, phone, employeeId, else a new " +
      "member. unit is a binding, never an identity; null unbinds. Omitted fields are left untouched.",
    body: {
      schema: PartnerMemberUpsertRequest.annotate({ identifier: "PartnerMemberUpsertRequest" }),
      required: true,
      examples: {
        member: {
          summary: "Resident with a unit",
          value: {
            firstName: "Alice",
            lastName: "Ng",
            email: "alice@example.com",
            unit: { addressNo: "99/1" },
          },
        },
      },
    },
    responses: [{ status: 200, description: "PartnerMember.", data: PartnerMember }],
    errors: [...partnerErrors, "NotFound", "IdentityConflict", "StateConflict"],
  },
  {
    ...common,
    method: "get",
    path: "/partner/members/:externalUserId",
    operationId: "getPartnerMember",
    summary: "Read a member",
    description: "Never creates a member. Face bytes are never returned.",
    responses: [{ status: 200, description: "PartnerMemberDetail.", data: PartnerMemberDetail }],
    errors: [...partnerErrors, "SubjectUnresolved", "SubjectNotAuthorized"],
  },
  {
    ...common,
    method: "delete",
    path: "/partner/members/:externalUserId",
    operationId: "offboardPartnerMember",
    summary: "Offboard a member",
    description:
      "Revokes all cards and device access; 204 also when already offboarded. The link is kept.",
    responses: [{ status: 204, description: "Offboarded." }],
    errors: [...partnerErrors, "SubjectUnresolved", "SubjectNotAuthorized"],
  },
  {
    ...common,
    method: "put",
    path: "/partner/members/:externalUserId/credentials",
    operationId: "setPartnerCredentials",
    summary: "Set cards and face",
    description:
      "cards is the exact set of physical cards ([] revokes all); face is base64 JPEG or PNG (null erases) and " +
      "needs faceConsentAt. A member with a face and no physical card gets one generated virtual card.",
    body: {
      schema: PartnerCredentialsRequest.annotate({ identifier: "PartnerCredentialsRequest" }),
      required: true,
      examples: { cards: { summary: "One card", value: { cards: [{ cardNo: "3523839245" }] } } },
    },
    responses: [{ status: 200, description: "PartnerCredentials.", data: PartnerCredentials }],
    errors: [...partnerErrors, "SubjectUnresolved", "SubjectNotAuthorized", "MemberOffboarded"],
  },
]

export const partnerMembersGroup = defineGroup({
  tag: "Partner members",
  description:
    "Member and credential provisioning for an app_credentials token of a single-project app; 30 requests per 60 s per app.",
  operations,
})

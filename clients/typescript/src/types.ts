/**
 * Request and response types. Requests are the encoded side of the Effect Schemas the server
 * validates with; responses are the resource schemas the OpenAPI document is built from. All
 * imports are type-only, so the client has no runtime dependency on the server code or effect.
 */
import type {
  ListDesksQuery as ListDesksQuerySchema,
  ListRoomsQuery as ListRoomsQuerySchema,
  CalendarQuery as CalendarQuerySchema,
} from "../../../adapters/http/schemas/asset-queries.ts"
import type {
  CreateMeetingRequest as CreateMeetingSchema,
  ListMeetingsQuery as ListMeetingsQuerySchema,
  MeetingActionRequest as MeetingActionSchema,
  UpdateMeetingRequest as UpdateMeetingSchema,
} from "../../../adapters/http/schemas/meeting-requests.ts"
import type {
  PartnerCredentialsRequest as PartnerCredentialsSchema,
  PartnerMemberUpsertRequest as PartnerMemberUpsertSchema,
} from "../../../adapters/http/schemas/partner-requests.ts"
import type {
  ActAsGrant as ActAsGrantSchema,
  AppCredentialsGrant as AppCredentialsGrantSchema,
  RefreshTokenGrant as RefreshTokenGrantSchema,
} from "../../../adapters/http/schemas/token-request.ts"
import type {
  Desk as DeskSchema,
  Meeting as MeetingSchema,
  MeetingRoom as MeetingRoomSchema,
  PartnerCredentials as PartnerCredentialsResponseSchema,
  PartnerMember as PartnerMemberSchema,
  PartnerMemberDetail as PartnerMemberDetailSchema,
  TokenResponse as TokenResponseSchema,
} from "../../../adapters/http/openapi/resource-schemas.ts"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
/** Plain-string query values (limit, offset, minCapacity) may be numbers; literals stay literal. */
type Query<T> = {
  [K in keyof T]?: string extends NonNullable<T[K]> ? string | number : T[K]
}

export type AppCredentialsGrant = Mutable<typeof AppCredentialsGrantSchema.Encoded>
export type RefreshTokenGrant = Mutable<typeof RefreshTokenGrantSchema.Encoded>
export type ActAsGrant = Mutable<typeof ActAsGrantSchema.Encoded>
export type TokenResponse = typeof TokenResponseSchema.Type

export type ListRoomsQuery = Query<typeof ListRoomsQuerySchema.Encoded> & { projectId: string }
export type ListDesksQuery = Query<typeof ListDesksQuerySchema.Encoded>
export type CalendarQuery = Query<typeof CalendarQuerySchema.Encoded>
export type ListMeetingsQuery = Query<typeof ListMeetingsQuerySchema.Encoded> & {
  from: string
  to: string
}
export type CreateMeetingRequest = typeof CreateMeetingSchema.Encoded
export type UpdateMeetingRequest = typeof UpdateMeetingSchema.Encoded
export type MeetingActionRequest = typeof MeetingActionSchema.Encoded
export type PartnerMemberUpsertRequest = typeof PartnerMemberUpsertSchema.Encoded
export type PartnerCredentialsRequest = typeof PartnerCredentialsSchema.Encoded

export type MeetingRoom = typeof MeetingRoomSchema.Type
export type Desk = typeof DeskSchema.Type
export type Meeting = typeof MeetingSchema.Type
export type PartnerMember = typeof PartnerMemberSchema.Type
export type PartnerMemberDetail = typeof PartnerMemberDetailSchema.Type
export type PartnerCredentials = typeof PartnerCredentialsResponseSchema.Type

export interface PageMeta {
  readonly limit: number
  readonly offset: number
  readonly total: number
}

/** A paginated list: the rows and the envelope's meta. */
export interface Page<T> {
  readonly data: T[]
  readonly meta: PageMeta
}

/** The spec's envelope (every JSON response except the token endpoint). */
export interface Envelope<T> {
  readonly code: string
  readonly success: boolean
  readonly message: string | string[]
  readonly data?: T
  readonly meta?: PageMeta
}

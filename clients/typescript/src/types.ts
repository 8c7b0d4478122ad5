/**
 * Request and response types, all taken from the types openapi-typescript generates from the
 * service's OpenAPI document (src/openapi.ts, `npm run generate`): nothing is restated by
 * hand and nothing is imported from the server, so this package can be copied or published
 * on its own.
 */
import type { components, operations } from "./openapi.ts"

type Schemas = components["schemas"]
type QueryOf<K extends keyof operations> = NonNullable<operations[K]["parameters"]["query"]>

export type AppCredentialsGrant = Schemas["AppCredentialsGrant"]
export type RefreshTokenGrant = Schemas["RefreshTokenGrant"]
export type ActAsGrant = Schemas["ActAsGrant"]
export type TokenResponse = Schemas["TokenResponse"]

export type ListRoomsQuery = QueryOf<"listMeetingRooms">
export type ListDesksQuery = QueryOf<"listDesks">
export type CalendarQuery = QueryOf<"getMeetingRoom">
export type ListMeetingsQuery = QueryOf<"listMeetings">
export type CreateMeetingRequest = Schemas["CreateMeetingRequest"]
export type UpdateMeetingRequest = Schemas["UpdateMeetingRequest"]
export type MeetingActionRequest = Schemas["MeetingActionRequest"]
export type PartnerMemberUpsertRequest = Schemas["PartnerMemberUpsertRequest"]
export type PartnerCredentialsRequest = Schemas["PartnerCredentialsRequest"]

export type MeetingRoom = Schemas["MeetingRoom"]
export type MeetingRoomDetail = Schemas["MeetingRoomDetail"]
export type Desk = Schemas["Desk"]
export type DeskDetail = Schemas["DeskDetail"]
export type Meeting = Schemas["Meeting"]
export type MeetingDraft = Schemas["MeetingDraft"]
export type PartnerMember = Schemas["PartnerMember"]
export type PartnerMemberDetail = Schemas["PartnerMemberDetail"]
export type PartnerCredentials = Schemas["PartnerCredentials"]
export type PageMeta = Schemas["PageMeta"]

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

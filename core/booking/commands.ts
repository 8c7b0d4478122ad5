import type { Option } from "effect"
import type { PaymentChannel } from "../ports/payments.ts"
import type { TimePeriod } from "./asset-rules.ts"
import type { AssetRef } from "./asset.ts"
import type { AttendeeType } from "./state.ts"

/**
 * What the booking use cases are asked to do, as domain values: the HTTP edge decodes a
 * request once (adapters/http/schemas/meeting-requests.ts) into one of these, and the core
 * never sees request text again. Instants are epoch milliseconds.
 */

/** The asset a meeting is for: a meeting room or a desk (exactly one, checked at the edge). */
export type { AssetRef }

/** The requested time: an explicit [start, end), or a desk's named period on the start's local day. */
export type Requested =
  | { readonly _tag: "Span"; readonly start: number; readonly end: number }
  | { readonly _tag: "Period"; readonly start: number; readonly period: TimePeriod }

/** An attendee as given: resolved to a known user by id or email by the Directory. */
export interface AttendeeRequest {
  readonly email: string
  readonly id?: string | undefined
  readonly type?: AttendeeType | undefined
}

/** The payment hand-off fields of a request. */
export interface PaymentRequest {
  readonly channel?: PaymentChannel | undefined
  /** As given (stored as given); looked up in its normalized form (core/booking/pricing.ts). */
  readonly discountCode?: string | undefined
  readonly returnUrl?: string | undefined
}

/** A draft asks what the change would do, and the same for each candidate end. Nothing is written. */
export interface Draft {
  readonly ends: ReadonlyArray<number>
}

export interface CreateMeeting {
  readonly asset: AssetRef
  readonly when: Requested
  readonly title: string
  readonly body?: string | undefined
  readonly attendees: ReadonlyArray<AttendeeRequest>
  readonly estimatedAttendance?: number | undefined
  readonly payment: PaymentRequest
  /** RRULE text; parsed by the core (its messages follow the asset's checks, as the spec orders them). */
  readonly recurrence?: string | undefined
  readonly draft: Option.Option<Draft>
}

export interface UpdateMeeting {
  readonly title?: string | undefined
  readonly body?: string | undefined
  readonly start?: number | undefined
  readonly end?: number | undefined
  readonly timePeriod?: TimePeriod | undefined
  readonly attendees?: ReadonlyArray<AttendeeRequest> | undefined
  readonly estimatedAttendance?: number | undefined
  readonly pinCode?: string | undefined
  readonly payment: PaymentRequest
  /** The request's field names (sorted, without pinCode and the draft fields): the history's `fields`. */
  readonly fields: ReadonlyArray<string>
  readonly draft: Option.Option<Draft>
}

/** cancel, check-in, check-out (a member or app) and reject (the operator). */
/** `occurrenceEventId` names one occurrence of a series (else the current one acts). */
export type MeetingAction =
  | {
      readonly _tag: "Cancel"
      readonly pinCode?: string | undefined
      readonly paymentId?: string | undefined
      readonly occurrenceEventId?: string | undefined
    }
  | { readonly _tag: "CheckIn"; readonly pinCode?: string | undefined; readonly occurrenceEventId?: string | undefined }
  | { readonly _tag: "CheckOut"; readonly pinCode?: string | undefined; readonly occurrenceEventId?: string | undefined }
  | { readonly _tag: "Reject"; readonly reason?: string | undefined; readonly occurrenceEventId?: string | undefined }

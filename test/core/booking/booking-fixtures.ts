import { Result } from "effect"
import type { Booking, BookingStatus } from "../../../core/booking/state.ts"
import type { Actor, Transitioned, TransitionError } from "../../../core/booking/transitions.ts"

export const MINUTE = 60_000
export const START = Date.parse("2025-01-06T09:00:00+07:00")
export const END = START + 60 * MINUTE
export const ORGANIZER_ID = "aaaaaaaaaaaaaaaaaaaaaaa1"
export const PIN = "4821"

export const organizer: Actor = { userId: ORGANIZER_ID, isProjectAdmin: false }
export const pinHolder: Actor = {
  userId: "bbbbbbbbbbbbbbbbbbbbbbb2",
  isProjectAdmin: false,
  pinCode: PIN,
}
export const admin: Actor = { userId: "ccccccccccccccccccccccc3", isProjectAdmin: true }
export const stranger: Actor = { userId: "ddddddddddddddddddddddd4", isProjectAdmin: false }
export const wrongPin: Actor = { ...stranger, pinCode: "0000" }

export const makeBooking = (overrides: Partial<Booking> = {}): Booking => ({
  id: "eeeeeeeeeeeeeeeeeeeeeee5",
  projectId: "fffffffffffffffffffffff6",
  assetKind: "room",
  assetId: "999999999999999999999997",
  title: "Weekly sync",
  status: "active",
  start: START,
  end: END,
  organizer: { userId: ORGANIZER_ID, email: "org@example.com" },
  attendees: [],
  pinCode: PIN,
  checkIns: [],
  createdAt: START - 24 * 60 * MINUTE,
  updatedAt: START - 24 * 60 * MINUTE,
  ...overrides,
})

export const withStatus = (status: BookingStatus, overrides: Partial<Booking> = {}): Booking =>
  makeBooking({
    status,
    ...(status === "checked-in" || status === "done"
      ? { checkIns: [{ userId: ORGANIZER_ID, at: START }] }
      : {}),
    ...overrides,
  })

export const success = (r: Result.Result<Transitioned, TransitionError>): Transitioned => {
  if (Result.isFailure(r)) throw new Error(`expected success, got ${r.failure._tag}`)
  return r.success
}

export const failureTag = (r: Result.Result<unknown, { readonly _tag: string }>): string =>
  Result.isFailure(r) ? r.failure._tag : "Success"

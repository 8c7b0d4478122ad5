import { Schema } from "effect"
import {
  CreateMeetingRequest,
  LIST_MEETINGS_ARRAY_KEYS,
  ListMeetingsQuery,
  MeetingActionRequest,
  RejectMeetingRequest,
  UpdateMeetingRequest,
} from "../../schemas/meeting-requests.ts"
import { defineGroup, type ApiOperation } from "../operation.ts"
import { Meeting, MeetingDraft, ObjectId } from "../resource-schemas.ts"

const IdParam = Schema.Struct({ id: ObjectId })
const ActionBody = MeetingActionRequest.annotate({ identifier: "MeetingActionRequest" })
const idDescription = { id: "Meeting _id (for a series, the master _id)." }

const action = (
  path: string,
  operationId: string,
  summary: string,
  description: string,
): ApiOperation => ({
  method: "post",
  path: `/meetings/:id/${path}`,
  operationId,
  tag: "Meetings",
  summary,
  description: `${description} pinCode is required when the caller is not the organizer.`,
  security: "bearer",
  pathParams: IdParam,
  pathParamDescriptions: idDescription,
  body: {
    schema: ActionBody,
    required: false,
    examples: { pin: { summary: "As a pinCode holder", value: { pinCode: "<pinCode>" } } },
  },
  responses: [{ status: 202, description: "The Meeting after the action.", data: Meeting }],
  // RateLimited: ten wrong pinCodes for the booking within 15 minutes (core/booking/pin-attempts.ts).
  errors: ["NotFound", "IllegalTransition", "Forbidden", "RateLimited"],
})

export const meetingsGroup = defineGroup({
  tag: "Meetings",
  description:
    "Booking lifecycle for rooms and desks. Statuses also change without a call: re-fetch to reconcile.",
  operations: [
    {
      method: "post",
      path: "/meetings",
      operationId: "createMeeting",
      tag: "Meetings",
      summary: "Book a room or a desk",
      description:
        "Exactly one of meetingRoomId / deskId. Rooms take endDateTime; desks exactly one of endDateTime or " +
        "timePeriod. A paid asset answers status unpaid with a payment to complete within about 5 minutes. " +
        "draft true previews the price and creates nothing (200). No idempotency: after a timeout, " +
        "reconcile through GET /meetings rather than resending.",
      security: "bearer",
      body: {
        schema: CreateMeetingRequest.annotate({ identifier: "CreateMeetingRequest" }),
        required: true,
        examples: {
          room: {
            summary: "Room for an hour",
            value: {
              meetingRoomId: "65f1a2b3c4d5e6f708192a3b",
              title: "Weekly sync",
              startDateTime: "2030-01-07T10:00:00+07:00",
              endDateTime: "2030-01-07T11:00:00+07:00",
            },
          },
          desk: {
            summary: "Desk for the morning",
            value: {
              deskId: "65f1a2b3c4d5e6f708192a3c",
              title: "Focus",
              startDateTime: "2030-01-07T08:00:00+07:00",
              timePeriod: "morning",
            },
          },
        },
      },
      responses: [
        {
          status: 201,
          description: "Created: status active (free) or unpaid (paid, with payment).",
          data: Meeting,
        },
        {
          status: 200,
          description: "draft true: price preview, nothing created.",
          data: MeetingDraft,
        },
      ],
      errors: ["BookingRuleViolated", "NotFound", "Forbidden", "SlotTaken", "TooManyUnpaidHolds"],
    },
    {
      method: "get",
      path: "/meetings",
      operationId: "listMeetings",
      tag: "Meetings",
      summary: "List bookings in a window",
      description:
        "Recurring series are expanded into one row per occurrence overlapping [from, to], each with " +
        "seriesMasterId and occurrenceEventId: key rows on occurrenceEventId when present, else _id.",
      security: "bearer",
      query: ListMeetingsQuery,
      queryArrays: LIST_MEETINGS_ARRAY_KEYS,
      responses: [
        {
          status: 200,
          description: "Meetings, paginated.",
          data: Schema.Array(Meeting),
          paginated: true,
        },
      ],
      errors: ["Forbidden"],
    },
    {
      method: "get",
      path: "/meetings/:id",
      operationId: "getMeeting",
      tag: "Meetings",
      summary: "Booking detail",
      description: "Poll this until status leaves unpaid after a paid create.",
      security: "bearer",
      pathParams: IdParam,
      pathParamDescriptions: idDescription,
      responses: [{ status: 200, description: "The Meeting.", data: Meeting }],
      errors: ["NotFound", "Forbidden"],
    },
    {
      method: "patch",
      path: "/meetings/:id",
      operationId: "updateMeeting",
      tag: "Meetings",
      summary: "Update or extend a booking",
      description:
        "Only from active or checked-in. Extending a paid booking returns it to unpaid with a payment.",
      security: "bearer",
      pathParams: IdParam,
      pathParamDescriptions: idDescription,
      body: {
        schema: UpdateMeetingRequest.annotate({ identifier: "UpdateMeetingRequest" }),
        required: true,
        examples: {
          extend: { summary: "Extend", value: { endDateTime: "2030-01-07T11:30:00+07:00" } },
        },
      },
      responses: [
        {
          status: 200,
          description: "The updated Meeting, or with draft true a preview (nothing changed).",
          data: Schema.Union([Meeting, MeetingDraft]),
        },
      ],
      errors: [
        "BookingRuleViolated",
        "NotFound",
        "Forbidden",
        "IllegalTransition",
        "SlotTaken",
        "TooManyUnpaidHolds",
        "RateLimited",
      ],
    },
    action(
      "cancel",
      "cancelMeeting",
      "Cancel a booking",
      "Only from active or unpaid; irreversible. paymentId voids a pending payment.",
    ),
    action(
      "check-in",
      "checkInMeeting",
      "Check in",
      "Only from active, once the check-in window is open.",
    ),
    action(
      "check-out",
      "checkOutMeeting",
      "Check out",
      "Only from checked-in; releases the asset.",
    ),
  ],
})

export const operatorMeetingsGroup = defineGroup({
  tag: "Operator",
  description: "Provisioning and test control (operator contract); KEYSPACE_ADMIN_TOKEN required.",
  operations: [
    {
      method: "post",
      path: "/admin/v1/meetings/:id/reject",
      operationId: "rejectMeeting",
      tag: "Operator",
      summary: "Reject a booking (administrator decline)",
      description:
        "The administrator decline: a booking in any status but done, cancelled and rejected becomes " +
        "`rejected` (a series: its current occurrence) and a CANCEL event without a reason is sent. " +
        "409 SV006 from a terminal status.",
      security: "operator",
      pathParams: IdParam,
      body: { schema: RejectMeetingRequest, required: false },
      responses: [{ status: 200, description: "The Meeting, status rejected.", data: Meeting }],
      errors: ["NotFound", "IllegalTransition"],
    },
  ],
})

import { Schema } from "effect"
import {
  CalendarQuery,
  LIST_DESKS_ARRAY_KEYS,
  LIST_ROOMS_ARRAY_KEYS,
  ListDesksQuery,
  ListRoomsQuery,
} from "../../schemas/asset-queries.ts"
import { defineGroup } from "../operation.ts"
import { Desk, DeskDetail, MeetingRoom, MeetingRoomDetail, ObjectId } from "../resource-schemas.ts"

const IdParam = Schema.Struct({ id: ObjectId })

export const assetsGroup = defineGroup({
  tag: "Assets",
  description: "Search of meeting rooms and desks, with optional filtering to a free time window.",
  operations: [
    {
      method: "get",
      path: "/meeting-rooms",
      operationId: "listMeetingRooms",
      tag: "Assets",
      summary: "Search meeting rooms",
      description:
        "With startDateTime and endDateTime (both required together), rooms with a conflicting booking are " +
        "excluded and rooms free but not bookable carry unavailableReason. Not paginated.",
      security: "bearer",
      query: ListRoomsQuery,
      queryArrays: LIST_ROOMS_ARRAY_KEYS,
      responses: [{ status: 200, description: "Rooms.", data: Schema.Array(MeetingRoom) }],
      errors: ["Forbidden"],
    },
    {
      method: "get",
      path: "/meeting-rooms/:id",
      operationId: "getMeetingRoom",
      tag: "Assets",
      summary: "Meeting room with its booking calendar",
      description:
        "The room as GET /meeting-rooms shows it, with its bookings between from and to (both optional " +
        "date-times with an offset; to must be after from). 404 when the room is unknown or outside the caller's projects.",
      security: "bearer",
      pathParams: IdParam,
      query: CalendarQuery,
      responses: [{ status: 200, description: "The room and its booking calendar.", data: MeetingRoomDetail }],
      errors: ["NotFound", "Forbidden"],
    },
    {
      method: "get",
      path: "/desks",
      operationId: "listDesks",
      tag: "Assets",
      summary: "Search desks",
      description:
        "An availability filter is startDateTime plus exactly one of endDateTime or timePeriod; desks with a " +
        "conflicting booking are removed and meta.total counts the free ones.",
      security: "bearer",
      query: ListDesksQuery,
      queryArrays: LIST_DESKS_ARRAY_KEYS,
      responses: [
        {
          status: 200,
          description: "Desks, paginated.",
          data: Schema.Array(Desk),
          paginated: true,
        },
      ],
      errors: ["Forbidden"],
    },
    {
      method: "get",
      path: "/desks/:id",
      operationId: "getDesk",
      tag: "Assets",
      summary: "Desk with its booking calendar",
      description:
        "The desk as GET /desks shows it, with its bookings between from and to (both optional " +
        "date-times with an offset; to must be after from). 404 when the desk is unknown or outside the caller's projects.",
      security: "bearer",
      pathParams: IdParam,
      query: CalendarQuery,
      responses: [{ status: 200, description: "The desk and its booking calendar.", data: DeskDetail }],
      errors: ["NotFound", "Forbidden"],
    },
  ],
})

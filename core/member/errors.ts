import { Schema } from "effect"

export const ConflictKey = Schema.Literals(["email", "phone", "employeeId", "unit.addressNo"])
export type ConflictKey = typeof ConflictKey.Type

/** PUT member: a key resolves to another member than the one linked, or is taken (409 SV006). */
export class IdentityConflict extends Schema.TaggedError<IdentityConflict>()("IdentityConflict", {
  conflictKey: ConflictKey,
  linkedExternalUserId: Schema.optionalKey(Schema.String),
}) {}

/** Credentials for a deactivated (offboarded) member (409 SV006). */
export class MemberOffboarded extends Schema.TaggedError<MemberOffboarded>()("MemberOffboarded", {
  memberId: Schema.String,
}) {}

/** act_as: subject could not be resolved; on partner routes the member record is missing (401 SV223). */
export class SubjectUnresolved extends Schema.TaggedError<SubjectUnresolved>()(
  "SubjectUnresolved",
  { subject: Schema.String },
) {}

/** The app may not act for this member or subject (403 SV221). */
export class SubjectNotAuthorized extends Schema.TaggedError<SubjectNotAuthorized>()(
  "SubjectNotAuthorized",
  { subject: Schema.String, reason: Schema.String },
) {}

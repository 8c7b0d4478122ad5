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

/**
 * A store write hit the unique index guarding an identity key (two writers raced for one
 * email, phone or employeeId). Retried by the member transaction, then IdentityConflict.
 */
export class IdentityKeyTaken extends Schema.TaggedError<IdentityKeyTaken>()("IdentityKeyTaken", {
  conflictKey: ConflictKey,
}) {}

/**
 * A store write lost a race the locks do not cover: another unique index (`unique`, e.g. a
 * card number drawn twice) or a serialization failure / deadlock (`serialization`). Retried
 * by the member transaction; a persistent unique race is a StateConflict, the rest a defect.
 */
export class WriteConflict extends Schema.TaggedError<WriteConflict>()("WriteConflict", {
  kind: Schema.Literals(["unique", "serialization"]),
}) {}

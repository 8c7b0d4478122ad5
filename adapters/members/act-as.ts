import { SubjectNotAuthorized, SubjectUnresolved } from "../../core/member/errors.ts"
import { ValidationFailed } from "../../core/shared/errors.ts"
import { OBJECT_ID_PATTERN } from "../../core/shared/ids.ts"
import { authenticateApp, issueDelegatedToken, type TokenResponse } from "../auth/token-service.ts"
import type { ActAsHandler } from "../http/routes/auth.ts"
import {
  appProjectIds,
  findLink,
  findLinkOfUser,
  findMembership,
  findUser,
  insertLink,
  insertMembership,
  insertUser,
  lockExternalUser,
} from "../postgres/member-repo.ts"
import type { Queryable } from "../postgres/database.ts"
import type { Services } from "../wiring/services.ts"
import { inMemberTransaction } from "./partner-member-service.ts"

/**
 * act_as (spec Authentication 3 and 5): a short-lived token for one of the app's own members,
 * without refresh token. The token carries the member and the project of its link; the
 * bearer middleware intersects that with the app's projects, so the authority is the
 * member's scope within the app's.
 *
 * Errors: bad app credentials 401 SV002 (as every grant); an app without canActAs, a member
 * of another app, a member outside the app's projects, an offboarded member, or a
 * multi-project app using external_user_id 403 SV221; a member id that names no user (or a
 * link whose member record is gone) 401 SV223.
 */
export const actAs: ActAsHandler = async (s, grant) => {
  const app = await authenticateApp(s, grant.app_id, grant.app_secret)
  const subject = grant.subject
  if (/\p{Cc}/u.test(subject))
    throw new ValidationFailed({ messages: ["subject: must not contain control characters"] })
  if (!app.canActAs)
    throw new SubjectNotAuthorized({
      subject,
      reason: "the app is not provisioned to act as its members",
    })
  const projects = await appProjectIds(s.database.db, app.id)
  const target =
    (grant.subject_type ?? "external_user_id") === "external_user_id"
      ? await byExternalUserId(s, app.id, projects, subject)
      : await byMemberId(s.database.db, app.id, projects, subject)
  const token: TokenResponse = await issueDelegatedToken(s, app.id, target.userId, target.projectId)
  return { ...token }
}

/** An active member of the link's project, or the matching error. */
const checkMember = async (
  q: Queryable,
  subject: string,
  userId: string,
  projectId: string,
  projects: string[],
) => {
  if (!projects.includes(projectId))
    throw new SubjectNotAuthorized({ subject, reason: "member is outside the app's projects" })
  const membership = await findMembership(q, projectId, userId)
  if (!membership) throw new SubjectUnresolved({ subject })
  if (membership.status !== "active")
    throw new SubjectNotAuthorized({ subject, reason: "member is offboarded" })
  return { userId, projectId }
}

/**
 * subject_type external_user_id: the app's own user id. The member is created on first use
 * as a federated visitor; only a single-project app can say which project that is.
 */
const byExternalUserId = (s: Services, appId: string, projects: string[], subject: string) => {
  if (projects.length !== 1)
    throw new SubjectNotAuthorized({
      subject,
      reason: "a multi-project app must act as an already linked member by keyspace_member_id",
    })
  const projectId = projects[0]!
  return inMemberTransaction(s, async (tx) => {
    await lockExternalUser(tx, appId, subject)
    const link = await findLink(tx, appId, subject)
    if (link) return checkMember(tx, subject, link.userId, link.projectId, projects)
    const userId = s.newId()
    // A federated visitor: no profile, no login, no access groups until PUT member onboards it.
    await insertUser(s, tx, {
      id: userId,
      profile: { firstName: "", lastName: "" },
      userType: "visitor",
      source: "federated",
    })
    await insertMembership(s, tx, { projectId, userId, status: "active" })
    await insertLink(s, tx, { appId, externalUserId: subject, userId, projectId })
    return { userId, projectId }
  })
}

/** subject_type keyspace_member_id: a member this app has already linked. */
const byMemberId = async (q: Queryable, appId: string, projects: string[], subject: string) => {
  const user = OBJECT_ID_PATTERN.test(subject) ? await findUser(q, subject) : undefined
  if (!user) throw new SubjectUnresolved({ subject })
  const link = await findLinkOfUser(q, appId, user.id)
  if (!link) throw new SubjectNotAuthorized({ subject, reason: "member is not linked to this app" })
  return checkMember(q, subject, user.id, link.projectId, projects)
}

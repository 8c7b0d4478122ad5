/** Who is calling: an app (client credentials) or a member acting through an app (act_as). */
export type Grant = "app_credentials" | "act_as"

export interface Principal {
  /** The app's ObjectId (apps.id). */
  readonly appId: string
  readonly appKey: string | null
  readonly grant: Grant
  /** Projects the app is provisioned for: the tenancy boundary of every call. */
  readonly projectIds: readonly string[]
  /** The member a delegated token acts for; absent for an app token. */
  readonly subjectUserId?: string | undefined
}

/** The user id a booking made by this principal is organized by. */
export const actingUserId = (p: Principal): string => p.subjectUserId ?? p.appId

export const canSeeProject = (p: Principal, projectId: string): boolean => p.projectIds.includes(projectId)

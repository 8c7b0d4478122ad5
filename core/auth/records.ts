/** A provisioned app (manifest `apps[]`), as the token grants see it. */
export interface AppRecord {
  /** apps.id (ObjectId); what tokens and principals carry. */
  readonly id: string
  /** The app_id of the token grant. */
  readonly appId: string
  readonly key: string | null
  readonly secretHash: string
  readonly canActAs: boolean
}

export type TokenKind = "access" | "refresh"

/** A token to store; only its hash is kept. */
export interface NewToken {
  readonly hash: string
  readonly kind: TokenKind
  readonly appId: string
  readonly grant: string
  readonly subjectUserId?: string | undefined
  readonly projectId?: string | undefined
  readonly expiresAt: number
  readonly createdAt: number
}

/** What a bearer token resolves to, before the clock and scope rules. */
export interface TokenGrant {
  readonly appId: string
  readonly kind: string
  readonly grant: string
  readonly subjectUserId: string | null
  readonly tokenProjectId: string | null
  readonly expiresAt: number
  readonly revokedAt: number | null
  readonly appKey: string | null
  readonly appProjects: ReadonlyArray<string>
}

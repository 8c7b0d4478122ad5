import { Context, type Effect } from "effect"
import type { FaceImage } from "../member/face-image.ts"
import type { CardIssuer, MemberCard } from "../member/state.ts"
import type { MemberWriteFailure } from "./member-store.ts"

/** Cards and faces of members (in tx unless said otherwise). */
export class CredentialStore extends Context.Service<
  CredentialStore,
  {
    readonly insertCards: (
      key: { readonly projectId: string; readonly userId: string },
      cards: ReadonlyArray<MemberCard>,
    ) => Effect.Effect<void, MemberWriteFailure>
    readonly revokeCards: (cardIds: ReadonlyArray<string>) => Effect.Effect<void, MemberWriteFailure>
    readonly relabelCards: (cards: ReadonlyArray<MemberCard>) => Effect.Effect<void, MemberWriteFailure>
    /** Active cards among `uids` held by anyone but `userId` in the project. */
    readonly cardsHeldByOthers: (
      projectId: string,
      userId: string,
      uids: ReadonlyArray<number>,
    ) => Effect.Effect<ReadonlyArray<{ readonly uid: number; readonly userId: string }>>
    /** Card ids and numbers for the core's synchronous issuer, checked against the project's history. */
    readonly cardIssuer: (projectId: string) => Effect.Effect<CardIssuer>
    readonly saveFace: (
      userId: string,
      face: { readonly image: FaceImage; readonly consentAt: string },
    ) => Effect.Effect<void, MemberWriteFailure>
    readonly eraseFace: (userId: string) => Effect.Effect<void, MemberWriteFailure>
  }
>()("keyspace/ports/CredentialStore") {}

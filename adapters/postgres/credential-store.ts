import { and, eq, inArray, sql } from "drizzle-orm"
import { Effect, Layer } from "effect"
import { toResponseCardNo } from "../../core/member/card-number.ts"
import type { CardIssuer } from "../../core/member/state.ts"
import { Clock } from "../../core/ports/clock.ts"
import { CredentialStore } from "../../core/ports/credential-store.ts"
import { Ids } from "../../core/ports/ids.ts"
import type { Queryable } from "./database.ts"
import { memberWrite } from "./member-races.ts"
import { memberCardsTable, memberFacesTable } from "./schema.ts"
import { read, SqlDatabase } from "./unit-of-work.ts"

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef")

/** Hex text of bytes via one ASCII buffer and a native decode (portable to Bun and Deno). */
export const toHex = (bytes: Uint8Array): string => {
  const out = new Uint8Array(bytes.length * 2)
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    out[2 * i] = HEX_DIGITS[b >>> 4]!
    out[2 * i + 1] = HEX_DIGITS[b & 15]!
  }
  return new TextDecoder().decode(out)
}

/**
 * Card numbers for the auto-generated virtual card. The core's issuer interface is
 * synchronous, so candidates are drawn up front and checked against every number ever
 * issued in the project (revoked ones included) in one query. Should all candidates be taken
 * (odds ~ (n/2^32)^8), further draws are unchecked and the active-UID unique index is the
 * last guard.
 */
const prepareCardIssuer = async (q: Queryable, newId: () => string, projectId: string): Promise<CardIssuer> => {
  const candidates = Array.from({ length: 8 }, () => crypto.getRandomValues(new Uint32Array(1))[0]!)
  const taken = new Set(
    (
      await q
        .select({ uid: memberCardsTable.uid })
        .from(memberCardsTable)
        .where(and(eq(memberCardsTable.projectId, projectId), inArray(memberCardsTable.uid, candidates)))
    ).map((r) => r.uid),
  )
  let next = 0
  return {
    newCardId: newId,
    random: (bytes) => {
      if (bytes.length === 4 && next < candidates.length) {
        const n = candidates[next++]!
        bytes.set([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])
        return bytes
      }
      return crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>)
    },
    isCardUidTaken: (uid) => taken.has(uid),
  }
}

/** Cards and faces on PostgreSQL / PGlite. */
export const CredentialStorePostgres = Layer.effect(
  CredentialStore,
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    const clock = yield* Clock
    const ids = yield* Ids
    const r = <A>(f: (q: Queryable) => Promise<A>) => read(f).pipe(Effect.provideService(SqlDatabase, database))
    const now = () => new Date(clock.now())
    return CredentialStore.of({
      insertCards: (key, cards) =>
        cards.length === 0
          ? Effect.void
          : memberWrite("CredentialStore.insertCards", async (tx) => {
              await tx.insert(memberCardsTable).values(
                cards.map((c) => ({
                  id: c.cardId,
                  ...key,
                  uid: c.uid,
                  cardNo: toResponseCardNo(c.uid),
                  label: c.label,
                  type: c.type,
                  generated: c.generated,
                  status: "active",
                  enrolledAt: now(),
                })),
              )
            }),
      revokeCards: (cardIds) =>
        cardIds.length === 0
          ? Effect.void
          : memberWrite("CredentialStore.revokeCards", async (tx) => {
              await tx
                .update(memberCardsTable)
                .set({ status: "revoked", revokedAt: now() })
                .where(and(inArray(memberCardsTable.id, [...cardIds]), eq(memberCardsTable.status, "active")))
            }),
      relabelCards: (cards) =>
        cards.length === 0
          ? Effect.void
          : memberWrite("CredentialStore.relabelCards", async (tx) => {
              for (const c of cards)
                await tx.update(memberCardsTable).set({ label: c.label }).where(eq(memberCardsTable.id, c.cardId))
            }),
      cardsHeldByOthers: (projectId, userId, uids) =>
        uids.length === 0
          ? Effect.succeed([])
          : r((q) =>
              q
                .select({ uid: memberCardsTable.uid, userId: memberCardsTable.userId })
                .from(memberCardsTable)
                .where(
                  and(
                    eq(memberCardsTable.projectId, projectId),
                    eq(memberCardsTable.status, "active"),
                    inArray(memberCardsTable.uid, [...uids]),
                    sql`${memberCardsTable.userId} <> ${userId}`,
                  ),
                ),
            ),
      cardIssuer: (projectId) => r((q) => prepareCardIssuer(q, ids.newId, projectId)),
      // The bytes travel as hex text decoded by PostgreSQL: PGlite serializes a bytea parameter
      // byte by byte in JavaScript (about 4 s for 10 MB), text is ~15x faster on both engines.
      // `excluded` keeps the image to a single parameter on replace.
      saveFace: (userId, face) =>
        memberWrite("CredentialStore.saveFace", async (tx) => {
          const values = {
            faceId: ids.newId(),
            mimeType: face.image.mimeType,
            byteLength: face.image.bytes.length,
            consentAt: new Date(face.consentAt),
            updatedAt: now(),
          }
          await tx
            .insert(memberFacesTable)
            .values({ userId, ...values, bytes: sql`decode(${toHex(face.image.bytes)}, 'hex')` })
            .onConflictDoUpdate({ target: memberFacesTable.userId, set: { ...values, bytes: sql`excluded.bytes` } })
        }),
      eraseFace: (userId) =>
        memberWrite("CredentialStore.eraseFace", async (tx) => {
          await tx.delete(memberFacesTable).where(eq(memberFacesTable.userId, userId))
        }),
    })
  }),
)

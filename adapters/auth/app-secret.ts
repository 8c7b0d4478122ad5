import { eq } from "drizzle-orm"
import { NotFound } from "../../core/shared/errors.ts"
import type { Db } from "../postgres/database.ts"
import { appsTable } from "../postgres/schema.ts"
import { hashSecret, newOpaqueToken } from "./secret-hash.ts"

/**
 * Rotates an app's secret (POST /admin/v1/apps/{appId}/secret): the new secret is returned once
 * and only its hash is kept, as for the manifest. The old secret stops working at once on every
 * process: the update of the apps row moves cache_epoch when it commits (a database trigger,
 * adapters/postgres/cache-epoch.ts), so every process's caches drop what they hold before the
 * next request reads them. Tokens already issued stay valid until they expire (rotation must
 * not break a running integration mid-request; revoke by waiting out KEYSPACE_ACCESS_TOKEN_TTL).
 */
export const rotateAppSecret = async (
  db: Db,
  appId: string,
  now: number,
  chosen?: string,
): Promise<{ appId: string; appSecret: string }> => {
  const appSecret = chosen ?? newOpaqueToken()
  // Hashed before the transaction opens: the hash is deliberately slow and holds no lock.
  const secretHash = await hashSecret(appSecret)
  await db.transaction(async (tx) => {
    const updated = await tx
      .update(appsTable)
      .set({ secretHash, updatedAt: new Date(now) })
      .where(eq(appsTable.appId, appId))
      .returning({ id: appsTable.id })
    if (updated.length === 0) throw new NotFound({ entity: "app", id: appId })
  })
  return { appId, appSecret }
}

import { eq } from "drizzle-orm"
import { NotFound } from "../../core/shared/errors.ts"
import type { Queryable } from "../postgres/database.ts"
import { appsTable } from "../postgres/schema.ts"
import { hashSecret, newOpaqueToken } from "./secret-hash.ts"

/**
 * Rotates an app's secret (POST /admin/v1/apps/{appId}/secret): the new secret is returned once
 * and only its hash is kept, as for the manifest. The old secret stops working at once; tokens
 * already issued stay valid until they expire (rotation must not break a running integration
 * mid-request; revoke by waiting out KEYSPACE_ACCESS_TOKEN_TTL).
 */
export const rotateAppSecret = async (
  db: Queryable,
  appId: string,
  now: number,
  chosen?: string,
): Promise<{ appId: string; appSecret: string }> => {
  const appSecret = chosen ?? newOpaqueToken()
  const updated = await db
    .update(appsTable)
    .set({ secretHash: await hashSecret(appSecret), updatedAt: new Date(now) })
    .where(eq(appsTable.appId, appId))
    .returning({ id: appsTable.id })
  if (updated.length === 0) throw new NotFound({ entity: "app", id: appId })
  return { appId, appSecret }
}

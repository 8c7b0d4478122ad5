/** Key -> id map of one provisioned project (PUT /manifest and GET /manifest/ids). */
export interface ProjectIds {
  id: string
  brandId: string
  zones: Record<string, string>
  floors: Record<string, string>
  rooms: Record<string, string>
  desks: Record<string, string>
  units: Record<string, string>
  accessGroups: Record<string, string>
  discounts: Record<string, string>
  users: Record<string, string>
  webhooks: Record<string, string>
}

export interface ManifestIds {
  projects: Record<string, ProjectIds>
  apps: Record<string, string>
}

/**
 * A key -> value map as a plain object without a prototype: "__proto__" is a key the manifest
 * allows (1-64 of a-z0-9-_), and on an ordinary object it set the prototype instead of an entry.
 */
export const keyMap = <T = string>(): Record<string, T> => Object.create(null) as Record<string, T>

export const emptyManifestIds = (): ManifestIds => ({ projects: keyMap(), apps: keyMap() })

export const emptyProjectIds = (id: string, brandId: string): ProjectIds => ({
  id,
  brandId,
  zones: keyMap(),
  floors: keyMap(),
  rooms: keyMap(),
  desks: keyMap(),
  units: keyMap(),
  accessGroups: keyMap(),
  discounts: keyMap(),
  users: keyMap(),
  webhooks: keyMap(),
})

/** The key maps of a project's ids: every field of ProjectIds but its own ids. */
const KINDS = (Object.keys(emptyProjectIds("", "")) as Array<keyof ProjectIds>).filter(
  (k): k is Exclude<keyof ProjectIds, "id" | "brandId"> => k !== "id" && k !== "brandId",
)

/** A deep copy that keeps the maps without a prototype (structuredClone gives them one). */
export const copyManifestIds = (ids: ManifestIds): ManifestIds => {
  const out = emptyManifestIds()
  Object.assign(out.apps, ids.apps)
  for (const [key, p] of Object.entries(ids.projects)) {
    const copy = emptyProjectIds(p.id, p.brandId)
    for (const kind of KINDS) Object.assign(copy[kind], p[kind])
    out.projects[key] = copy
  }
  return out
}

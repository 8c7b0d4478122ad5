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

export const emptyProjectIds = (id: string, brandId: string): ProjectIds => ({
  id,
  brandId,
  zones: {},
  floors: {},
  rooms: {},
  desks: {},
  units: {},
  accessGroups: {},
  discounts: {},
  users: {},
  webhooks: {},
})

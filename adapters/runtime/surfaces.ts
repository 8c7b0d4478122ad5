import type { AppParts } from "../http/app.ts"
import type { Services } from "./services.ts"

/**
 * The composition root: which HTTP surfaces and background workers this build serves.
 * Each capability adds its routes and workers here, in one place.
 */
export const surfaces = (_s: Services): AppParts => ({
  surfaces: [],
  operator: [],
  public: [],
})

/** Starts background workers (scheduler, webhook dispatcher); returns their stop function. */
export const startBackground = (_s: Services): (() => Promise<void>) => {
  return async () => {}
}

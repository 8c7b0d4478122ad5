// Builds dist/pglite-template, the data directory a new embedded database starts from
// (adapters/postgres/pglite-template.ts), from the compiled dist/: run by build.mjs, in its own
// process so the build keeps none of PGlite's memory.
import { buildPgliteTemplate } from "../dist/adapters/postgres/database.js"

await buildPgliteTemplate()

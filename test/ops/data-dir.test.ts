import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { StartupError } from "../../adapters/config/startup-error.ts"
import { FILLING } from "../../adapters/postgres/pglite-template.ts"
import { makeDataDir, refuseForeignDataDir } from "../../adapters/wiring/data-dir.ts"

/**
 * What the start accepts as the embedded database's directory (docs/decisions.md, session 22):
 * new, empty, an embedded database, or one whose fill from the template was cut short; never a
 * directory of another application's files, never a path that cannot be a directory.
 */
describe("the embedded database's directory", () => {
  const root = mkdtempSync(join(tmpdir(), "keyspace-data-dir-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const dir = (name: string, entries: Record<string, string | null>) => {
    const path = join(root, name)
    mkdirSync(path, { recursive: true })
    for (const [entry, content] of Object.entries(entries))
      if (content === null) mkdirSync(join(path, entry))
      else writeFileSync(join(path, entry), content)
    return path
  }

  it("a new path is made level by level; an existing directory, a volume's lost+found, or a database are accepted", () => {
    const fresh = join(root, "a", "b", "c")
    makeDataDir(fresh)
    expect(() => refuseForeignDataDir(fresh)).not.toThrow()
    expect(() => refuseForeignDataDir(dir("volume", { "lost+found": null }))).not.toThrow()
    expect(() => refuseForeignDataDir(dir("database", { PG_VERSION: "17", base: null }))).not.toThrow()
  })

  it("a fill from the template cut short (its marker, some entries, no PG_VERSION) is accepted: the fill repeats it", () => {
    expect(() => refuseForeignDataDir(dir("cut", { [FILLING]: "", global: null, base: null }))).not.toThrow()
  })

  it("another application's files, or a regular file as the directory, stop the start (StartupError)", () => {
    expect(() => refuseForeignDataDir(dir("foreign", { "notes.txt": "mine" }))).toThrow(StartupError)
    expect(() => refuseForeignDataDir(dir("foreign-2", { "notes.txt": "mine" }))).toThrow(/not an embedded database \(notes\.txt\)/)
    const file = join(root, "a-file")
    writeFileSync(file, "x")
    expect(() => makeDataDir(file)).toThrow(/cannot be created \(it is not a directory\)/)
  })
})

import { setFlagsFromString } from "node:v8"

/**
 * How far V8 lets the old generation grow past what the last full GC kept before it collects
 * again, as a percentage (V8 `--heap-growing-percent`). V8's own factor is 1.1-4x of the live
 * heap, chosen by GC and allocation speed: under 64 creating connections a create's objects
 * live through two scavenges, are promoted and die there, and with a factor near 4 the old
 * space grew to 208 MB holding 69 MB of live objects (peak RSS 324 MB). At 50 the same load
 * peaks at ~195 MB for a few more full GCs (issue 13, stream E; bench/README.md).
 *
 * Unlike a heap cap (`--max-old-space-size`) this never makes the process run out of memory:
 * a large answer still gets the heap it needs, and V8 collects sooner after it. Set from the
 * entry, so every way of starting the server has it (`npm start`'s command line carries only
 * `--no-memory-reducer`, which V8 reads once, at start); read by V8 at every full GC, so setting
 * it once the process runs takes effect. A flag given on the command line or in NODE_OPTIONS wins.
 */
export const HEAP_GROWING_PERCENT = 50

const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))
if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)

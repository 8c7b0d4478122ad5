// The options `npm start` gives node (package.json's `start`: `--no-memory-reducer`), for what
// must start the server as `npm start` does: the bench (bench/support.ts) and the runtime smoke
// (`node scripts/start-options.mjs` prints them). package.json stays the one place they are set.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** @returns {string[]} */
export const startNodeOptions = () => {
  const start = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).scripts.start
  const options = /\bnode((?:\s+--\S+)*)\s+scripts\/start\.mjs/.exec(start)
  if (!options) throw new Error(`package.json's start script does not run scripts/start.mjs with node: ${start}`)
  return options[1].trim().split(/\s+/).filter(Boolean)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(startNodeOptions().join(" "))

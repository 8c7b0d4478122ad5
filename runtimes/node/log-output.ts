import { lineBuffer, type LineBuffer } from "../../adapters/observability/line-buffer.ts"

/**
 * The process's log lines on stdout, one write per event-loop turn (line-buffer.ts). Whatever
 * waits is written when the process exits, however it exits: a signal's shutdown, a startup
 * failure's `process.exit`, an uncaught exception (Node writes to a pipe or file synchronously,
 * so a write in the `exit` event still lands).
 */
export const stdoutLines = (): LineBuffer => {
  const lines = lineBuffer((chunk) => process.stdout.write(chunk), setImmediate)
  process.on("exit", lines.flush)
  return lines
}

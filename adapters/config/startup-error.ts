import { ConfigError } from "./config.ts"

/** A start that cannot go on; its message is the one or two lines the operator reads (exit 2). */
export class StartupError extends Error {}

type Env = Record<string, string | undefined>

const codeOf = (e: unknown): string | undefined => {
  let cur: unknown = e
  for (let i = 0; i < 4 && cur; i++) {
    const c = cur as { code?: unknown; cause?: unknown }
    if (typeof c.code === "string") return c.code
    cur = c.cause
  }
  return undefined
}

/** Host, port, database and user of a DATABASE_URL, never its password. */
const target = (databaseUrl: string | undefined) => {
  try {
    const u = new URL(databaseUrl ?? "")
    return {
      where: `${u.hostname || "localhost"}:${u.port || "5432"}`,
      database: decodeURIComponent(u.pathname.replace(/^\//, "")) || decodeURIComponent(u.username) || "postgres",
      user: decodeURIComponent(u.username) || "(default user)",
      sslmode: u.searchParams.get("sslmode"),
    }
  } catch {
    return { where: "?", database: "?", user: "?", sslmode: null }
  }
}

/**
 * The operator's message for a failed start, or undefined for a failure we did not foresee
 * (a bug: the runtime prints its stack). One rule for every runtime.
 */
export const startupFailureMessage = (e: unknown, env: Env): string | undefined => {
  if (e instanceof StartupError || e instanceof ConfigError) return e.message
  const code = codeOf(e)
  const message = e instanceof Error ? e.message : String(e)
  const port = env.PORT || "3000"
  if (code === "EADDRINUSE" || (e as { name?: string })?.name === "AddrInUse")
    return `PORT ${port} is already in use by another process. Stop that process or set PORT to a free port.`
  if (code === "EACCES" && /listen|bind|permission/i.test(message))
    return `PORT ${port} may not be opened by this user (ports below 1024 need privileges). Set PORT to another port.`
  if (!env.DATABASE_URL) {
    return undefined
  }
  const t = target(env.DATABASE_URL)
  // Asked for SSL, a server without it closes the connection: say so, not "unreachable".
  if (code === "ECONNRESET" && (t.sslmode === "require" || t.sslmode === "verify-full" || t.sslmode === "verify-ca"))
    return `DATABASE_URL: PostgreSQL at ${t.where} closed the connection (ECONNRESET); with sslmode=${t.sslmode}, a server without SSL does that. Enable SSL on the server, or set sslmode=prefer or disable.`
  switch (code) {
    case "ECONNREFUSED":
    case "ECONNRESET":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "CONNECT_TIMEOUT":
    case "ETIMEDOUT":
      return `DATABASE_URL: cannot reach PostgreSQL at ${t.where} (${code}). Start the database server or fix the host and port in DATABASE_URL.`
    case "MIGRATION_FAILED":
      return `DATABASE_URL: the database "${t.database}" on ${t.where} could not be migrated, nothing was changed (${message}).${
        (e as { foreignTables?: boolean }).foreignTables
          ? " It holds tables Keyspace did not create: point DATABASE_URL at an empty database or one Keyspace created."
          : " Check that the user may create tables in it."
      }`
    case "HANDSHAKE_TIMEOUT":
      return `DATABASE_URL: ${t.where} accepted the connection but gave no PostgreSQL answer (${message}). Check that DATABASE_URL names a PostgreSQL server.`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `DATABASE_URL: the host of ${t.where} cannot be resolved (${code}). Fix the host in DATABASE_URL.`
    case "3D000":
      return `DATABASE_URL: database "${t.database}" does not exist on ${t.where}. Create it (createdb ${t.database}) or fix the database name in DATABASE_URL.`
    case "28P01":
      return `DATABASE_URL: password authentication failed for user "${t.user}" on ${t.where}. Fix the user or password in DATABASE_URL.`
    case "28000":
      return `DATABASE_URL: ${t.where} refused user "${t.user}" (${message}). Fix the user in DATABASE_URL or the server's pg_hba.conf.`
    case "SASL_SIGNATURE_MISMATCH":
    case "AUTH_TYPE_NOT_IMPLEMENTED":
      return `DATABASE_URL: authentication with ${t.where} failed (${code}). Check the user and password in DATABASE_URL.`
    default:
      if (code && /^(08|28|3D|53|57P0)/.test(code))
        return `DATABASE_URL: PostgreSQL at ${t.where} refused the connection: ${message} (${code}).`
      return undefined
  }
}

/**
 * Runs a runtime's start: a foreseen failure prints its message to stderr and exits 2; anything
 * else prints the error (a bug) and exits 1. Never a half-started server.
 */
export const startOrExit = async <T>(
  env: Env,
  start: () => Promise<T>,
  exit: (code: number) => never,
): Promise<T> => {
  try {
    return await start()
  } catch (e) {
    const message = startupFailureMessage(e, env)
    if (message !== undefined) {
      console.error(message)
      return exit(2)
    }
    console.error(e)
    return exit(1)
  }
}

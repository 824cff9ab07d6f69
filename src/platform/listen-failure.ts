import { HttpServerError } from "effect/http"

/**
 * A server that cannot listen names the fix, as a busy EMBEDDED_POSTGRES_PORT does
 * (embedded-postgres/postmaster.ts): `npm start` and `studio serve` print the message as their
 * one `error:` line. The system's own error stays as the cause.
 */
export const explainServeError = (
  error: HttpServerError.ServeError,
  config: { readonly host: string; readonly port: number }
): HttpServerError.ServeError => {
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code
  const where = `${config.host}:${config.port}`
  const message =
    code === "EADDRINUSE"
      ? `PORT ${config.port} is in use (another server listens on ${where}, perhaps an earlier npm start): stop it, or set PORT to a free one (PORT=3100 npm start)`
      : code === "EACCES"
        ? `PORT ${config.port} may not be opened by this user (ports below 1024 need privileges): set PORT to 1024 or above`
        : code === "EADDRNOTAVAIL"
          ? `HOST ${config.host} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0`
          : undefined
  return message === undefined ? error : new HttpServerError.ServeError({ cause: new Error(message, { cause: error.cause }) })
}

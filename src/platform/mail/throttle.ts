import { Effect } from "effect"
import { AppConfig } from "../config.ts"
import { RateLimiter } from "../rate-limit.ts"
import { RequestContext } from "../../shared/request-context.ts"

/**
 * Password-reset and confirmation mails are asked for by anyone who knows an address: without a
 * budget, ten requests a second would send ten mails (a mailbox flooded, the sender's reputation
 * spent). Each request counts against the client's IP and against the address (lower-cased,
 * whether or not an account has it, so a refusal does not tell which addresses exist), in the
 * shared rate-limit store. A refused IP is not counted against the address.
 */
export const MAIL_REQUEST_WINDOW_SECONDS = 900

/** Seconds until the caller may ask again, or undefined when this request may send its mail. */
export const mailRequestRefusal = Effect.fn("Mail.requestRefusal")(function* (address: string) {
  const config = yield* AppConfig
  const limiter = yield* RateLimiter
  const { clientAddress } = yield* RequestContext
  const ip = yield* limiter.hit(`mail-ip:${clientAddress}`, config.mailRequestsPerIp ?? 10, MAIL_REQUEST_WINDOW_SECONDS)
  if (!ip.allowed) return ip.retryAfterSeconds
  const perAddress = yield* limiter.hit(
    `mail-address:${address.trim().toLowerCase()}`,
    config.mailRequestsPerAddress ?? 3,
    MAIL_REQUEST_WINDOW_SECONDS
  )
  return perAddress.allowed ? undefined : perAddress.retryAfterSeconds
})

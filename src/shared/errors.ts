import { Effect, Schema } from "effect"
import { type MessageKey, type MessageParams, t } from "./i18n.ts"
import { RequestContext } from "./request-context.ts"

/**
 * The one error model of the Core API.
 * - Validation, rule and lookup failures: `{"errors": ["..."]}`, each message translated to the
 *   request's locale (`X-FD-Locale`, else the business default, else `en`).
 * - Authentication and `client_id` problems: `{"error": "..."}` in English (spec, common rule 8
 *   and "server status messages and errors are always English").
 * Each class is a Schema, so endpoints declare it and OpenAPI documents it.
 */
const Messages = { errors: Schema.Array(Schema.String) }

export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(Messages, {
  httpApiStatus: 400,
  description: "The request could not be decoded: malformed JSON or a parameter of the wrong type"
}) {}

export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(Messages, {
  httpApiStatus: 403,
  description: "The caller may not perform this action"
}) {}

export class NotFound extends Schema.Error<NotFound>("NotFound")(Messages, {
  httpApiStatus: 404,
  description: "No such record in this business (another business's ids are not found either)"
}) {}

export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(Messages, {
  httpApiStatus: 422,
  description: "The request was understood but breaks a rule; one message per failed rule"
}) {}

export class TooManyRequests extends Schema.Error<TooManyRequests>("TooManyRequests")(Messages, {
  httpApiStatus: 429,
  description: "Rate limit exceeded; RateLimit-Reset tells when requests may resume"
}) {}

export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")({ error: Schema.String }, {
  httpApiStatus: 401,
  description: "Missing, invalid or revoked access token, or missing client_id on an unauthenticated call"
}) {}

export class StaffOnly extends Schema.Error<StaffOnly>("StaffOnly")({ error: Schema.String }, {
  httpApiStatus: 403,
  description: "The access token does not belong to a staff member of this business"
}) {}

type MessagesError = typeof BadRequest | typeof Forbidden | typeof NotFound | typeof Unprocessable | typeof TooManyRequests

export interface Message {
  readonly key: MessageKey
  readonly params?: MessageParams
}

/** Fails with `errorClass`, its messages translated to the request's locale. */
export const fail = <C extends MessagesError>(
  errorClass: C,
  ...messages: ReadonlyArray<Message>
): Effect.Effect<never, InstanceType<C>> =>
  RequestContext.use((context) =>
    Effect.fail(
      new errorClass({ errors: messages.map((m) => t(context.locale, m.key, m.params)) }) as InstanceType<C>
    ))

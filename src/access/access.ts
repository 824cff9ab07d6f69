import { Context, Effect, Layer, Option } from "effect"
import type { HttpServerResponse } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { NotFound, StaffOnly, Unauthorized } from "../shared/errors.ts"
import { type BusinessRow, RequestContext, type RequestContextShape } from "../shared/request-context.ts"
import { AppConfig, type AppConfigShape } from "../platform/config.ts"
import { Applications } from "./applications.ts"
import { CurrentBusiness } from "./tenant.ts"
import { AccessTokens, type AccessTokensShape, type StaffRole, type TokenGrant } from "./tokens.ts"
import { AccessRefusals } from "./refusals.ts"

/**
 * The two ways into a business's endpoints (spec, common rules 7 and 8; Authentication rule 3):
 * - `FrontAccess`: client mode; a token of any person, or no token but a known `client_id`
 *   (the token-less front endpoints: staff members, branding, events, event occurrences).
 * - `DeskAccess`: staff mode; a token whose person is staff in this business.
 * Each provides `CurrentBusiness`; a call on the account-level host is a 404.
 */

/** The caller in client mode: the token's grant, or None for a `client_id`-only call. */
export interface ClientCallerShape {
  readonly grant: Option.Option<TokenGrant>
}
export class CurrentClient extends Context.Service<CurrentClient, ClientCallerShape>()("studio/CurrentClient") {}

export interface StaffCallerShape {
  readonly tokenId: number
  readonly accountId: number
  readonly personId: number
  readonly staffMemberId: number
  readonly role: StaffRole
}
export class CurrentStaff extends Context.Service<CurrentStaff, StaffCallerShape>()("studio/CurrentStaff") {}

export class FrontAccess extends HttpApiMiddleware.Service<FrontAccess, {
  provides: CurrentBusiness | CurrentClient
}>()("studio/FrontAccess", { error: [NotFound, Unauthorized] }) {}

/**
 * `FrontAccess` for an address a browser is sent to by a third party (plan terms' `complete`,
 * where a signing provider returns the payer): a call with neither token nor client_id but a
 * `completion` value in its query goes through as a token-less client, and the endpoint checks
 * that value itself. A token, when given, is checked as by `FrontAccess`.
 */
export class FrontOrCompletionAccess extends HttpApiMiddleware.Service<FrontOrCompletionAccess, {
  provides: CurrentBusiness | CurrentClient
}>()("studio/FrontOrCompletionAccess", { error: [NotFound, Unauthorized] }) {}

export class DeskAccess extends HttpApiMiddleware.Service<DeskAccess, {
  provides: CurrentBusiness | CurrentStaff
}>()("studio/DeskAccess", { error: [NotFound, Unauthorized, StaffOnly] }) {}

/** The caller of account endpoints: a token granted at the account-level host. */
export interface AccountCallerShape {
  readonly tokenId: number
  readonly accountId: number
}
export class CurrentAccount extends Context.Service<CurrentAccount, AccountCallerShape>()("studio/CurrentAccount") {}

export class AccountAccess extends HttpApiMiddleware.Service<AccountAccess, {
  provides: CurrentAccount
}>()("studio/AccountAccess", { error: [NotFound, Unauthorized] }) {}

/** Account-level host only, no token needed (password reset requests). */
export class AccountHost extends HttpApiMiddleware.Service<AccountHost>()("studio/AccountHost", { error: NotFound }) {}

/** What a middleware answers: the endpoint's response, or one of its refusals. */
type Served<E> = Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled | E>

const unauthorized = (error: string) => Effect.fail(new Unauthorized({ error }))

export const AUTH_MESSAGES = {
  clientIdRequired: "The application client id (client_id) is required for unauthenticated requests",
  unknownClientId: "Unknown application client id",
  invalidToken: "The access token is invalid or has been revoked",
  wrongBusiness: "The access token was granted for another business",
  tokenRequired: "An access token is required",
  staffRequired: "The access token does not belong to a staff member of this business",
  demoted: "This staff member no longer has access to staff mode",
  accountTokenRequired: "Account endpoints need a token granted at the account-level host"
} as const

// Every API call runs one of these middlewares: each reads its services once, when built,
// without re-providing them (every service provided per request is a context entry more for
// the whole handler to carry), and the business endpoints' two do their per-request work as
// plain `Effect.flatMap` steps rather than a generator.

/** A 404 on a business host: account endpoints live on the bare BASE_DOMAIN. */
const requireAccountHost = (context: RequestContextShape, config: AppConfigShape) =>
  Option.isNone(context.business)
    ? Effect.void
    : AccessRefusals.accountHostRequired.fail({ base_domain: config.baseDomain })

/** The 404 of a business endpoint called on the account-level host. */
const businessHostRequired = (config: AppConfigShape) =>
  AccessRefusals.businessHostRequired.fail({ base_domain: config.baseDomain })

/** A live token valid on this business's host, or the `{"error"}` 401 saying why not. */
const verifyToken = (tokens: AccessTokensShape, token: string, businessId: number) =>
  Effect.flatMap(tokens.verify(token, Option.some(businessId)), (grant) => {
    if (Option.isNone(grant)) return unauthorized(AUTH_MESSAGES.invalidToken)
    if (Option.isSome(grant.value.tokenBusinessId) && grant.value.tokenBusinessId.value !== businessId) {
      return unauthorized(AUTH_MESSAGES.wrongBusiness)
    }
    return Effect.succeed(grant.value)
  })

/** A `completion` value in the request's query (the endpoint decides what it is worth). */
const hasCompletion = (context: RequestContextShape) =>
  (new URL(context.originalUrl, "http://localhost").searchParams.get("completion") ?? "") !== ""

/** The client-mode middleware; `completion`: also let a token-less call with a completion value through. */
const frontAccess = (options: { readonly completion: boolean }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const tokens = yield* AccessTokens
    const applications = yield* Applications
    const serve = <A, E, R>(httpEffect: Effect.Effect<A, E, R>, business: BusinessRow, grant: Option.Option<TokenGrant>) =>
      httpEffect.pipe(Effect.provideService(CurrentBusiness, business), Effect.provideService(CurrentClient, { grant }))
    return (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, CurrentBusiness | CurrentClient>) =>
      RequestContext.use((context): Served<NotFound | Unauthorized> => {
        if (Option.isNone(context.business)) return businessHostRequired(config)
        const business = context.business.value
        if (Option.isSome(context.accessToken)) {
          return Effect.flatMap(verifyToken(tokens, context.accessToken.value, business.id), (grant) =>
            serve(httpEffect, business, Option.some(grant)))
        }
        if (options.completion && Option.isNone(context.clientId) && hasCompletion(context)) {
          return serve(httpEffect, business, Option.none())
        }
        if (Option.isNone(context.clientId)) return unauthorized(AUTH_MESSAGES.clientIdRequired)
        return Effect.flatMap(applications.isKnownClientId(context.clientId.value), (known): Served<Unauthorized> =>
          known ? serve(httpEffect, business, Option.none()) : unauthorized(AUTH_MESSAGES.unknownClientId))
      })
  })

export const AccessLive = Layer.mergeAll(
  Layer.effect(AccountHost)(
    AppConfig.useSync((config) =>
      (httpEffect) => Effect.flatMap(RequestContext.use((context) => requireAccountHost(context, config)), () => httpEffect))
  ),
  Layer.effect(AccountAccess)(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const tokens = yield* AccessTokens
      return (httpEffect) =>
        Effect.gen(function* () {
          const context = yield* RequestContext
          yield* requireAccountHost(context, config)
          if (Option.isNone(context.accessToken)) return yield* unauthorized(AUTH_MESSAGES.tokenRequired)
          const grant = yield* tokens.verify(context.accessToken.value, Option.none())
          if (Option.isNone(grant)) return yield* unauthorized(AUTH_MESSAGES.invalidToken)
          if (Option.isSome(grant.value.tokenBusinessId)) return yield* unauthorized(AUTH_MESSAGES.accountTokenRequired)
          return yield* Effect.provideService(httpEffect, CurrentAccount, {
            tokenId: grant.value.tokenId,
            accountId: grant.value.accountId
          })
        })
    })
  ),
  Layer.effect(FrontAccess)(frontAccess({ completion: false })),
  Layer.effect(FrontOrCompletionAccess)(frontAccess({ completion: true })),
  Layer.effect(DeskAccess)(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const tokens = yield* AccessTokens
      return (httpEffect) =>
        RequestContext.use((context): Served<NotFound | Unauthorized | StaffOnly> => {
          if (Option.isNone(context.business)) return businessHostRequired(config)
          const business = context.business.value
          if (Option.isNone(context.accessToken)) return unauthorized(AUTH_MESSAGES.tokenRequired)
          return Effect.flatMap(verifyToken(tokens, context.accessToken.value, business.id), (grant): Served<StaffOnly> => {
            if (Option.isNone(grant.staff) || Option.isNone(grant.personId)) {
              return Effect.fail(new StaffOnly({ error: AUTH_MESSAGES.staffRequired }))
            }
            if (grant.staff.value.role === "demoted") {
              return Effect.fail(new StaffOnly({ error: AUTH_MESSAGES.demoted }))
            }
            return httpEffect.pipe(
              Effect.provideService(CurrentBusiness, business),
              Effect.provideService(CurrentStaff, {
                tokenId: grant.tokenId,
                accountId: grant.accountId,
                personId: grant.personId.value,
                staffMemberId: grant.staff.value.staffMemberId,
                role: grant.staff.value.role
              })
            )
          })
        })
    })
  )
)

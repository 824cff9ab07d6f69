import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { AccountApi, AccountPasswordsApi } from "./api.ts"
import { createPasswordReset, getAccount, listAccountBusinesses, listAccountPeople, sendConfirmation } from "./service.ts"

export const AccountLive = HttpApiBuilder.group(apiOf(AccountApi), "account", (handlers) =>
  handlers
    .handle("get", () => getAccount())
    .handle("businesses", ({ query }) => listAccountBusinesses(query))
    .handle("people", () => listAccountPeople())
    .handle("confirmations", () => sendConfirmation()))

export const AccountPasswordsLive = HttpApiBuilder.group(apiOf(AccountPasswordsApi), "accountPasswords", (handlers) =>
  handlers.handle("create", ({ payload }) => createPasswordReset(payload)))

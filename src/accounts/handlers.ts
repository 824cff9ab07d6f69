import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { createPasswordReset, getAccount, listAccountBusinesses, listAccountPeople, sendConfirmation } from "./service.ts"

export const AccountLive = HttpApiBuilder.group(Api, "account", (handlers) =>
  handlers
    .handle("get", () => getAccount())
    .handle("businesses", ({ query }) => listAccountBusinesses(query))
    .handle("people", () => listAccountPeople())
    .handle("confirmations", () => sendConfirmation()))

export const AccountPasswordsLive = HttpApiBuilder.group(Api, "accountPasswords", (handlers) =>
  handlers.handle("create", ({ payload }) => createPasswordReset(payload)))

import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { AccountAccess, AccountHost } from "../../access/access.ts"
import { BusinessFront } from "../business/model.ts"
import { PersonFront } from "../people/model.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound, TooManyRequests } from "../../shared/errors.ts"
import { PageFields } from "../../shared/pagination.ts"
import { Account, AccountBusinessesQuery, PasswordRequest } from "./model.ts"
import { AccessRefusals } from "../../access/refusals.ts"
import { AccountRefusals } from "./refusals.ts"

const AccountPerson = Schema.Struct({ ...PersonFront.fields, business_id: Schema.Int, subdomain: Schema.String }).annotate({
  identifier: "AccountPerson"
})

const Created = Schema.Struct({}).pipe(HttpApiSchema.status(201)).annotate({ description: "Accepted: an empty object" })

export const AccountApi = HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/account", {
      success: Schema.Struct({ accounts: Schema.Array(Account) }),
      error: NotFound
    }).annotateMerge(docs("The account of the token", "Account-level host only, with a token granted there.", [AccessRefusals.accountHostRequired]))
  )
  .add(
    HttpApiEndpoint.get("businesses", "/api/v2/account/businesses", {
      query: AccountBusinessesQuery,
      success: Schema.Struct({ businesses: Schema.Array(BusinessFront), ...PageFields })
    }).annotateMerge(docs("The account's businesses", "Every business where the account has a person, by name."))
  )
  .add(
    HttpApiEndpoint.get("people", "/api/v2/account/people", {
      success: Schema.Struct({ people: Schema.Array(AccountPerson) })
    }).annotateMerge(docs("The account's person records", "One per business, as client mode shows them, with business_id and subdomain."))
  )
  .add(
    HttpApiEndpoint.post("confirmations", "/api/v2/account/confirmations", { success: Created, error: TooManyRequests }).annotateMerge(
      docs(
        "Send an e-mail confirmation",
        "201; no mail when the address is confirmed already. 429 past MAIL_REQUESTS_PER_ADDRESS or MAIL_REQUESTS_PER_IP mails in 15 minutes.",
        [AccountRefusals.mailThrottled]
      )
    )
  )
  .middleware(AccountAccess)
  .annotateMerge(docs("Account"))

export const AccountPasswordsApi = HttpApiGroup.make("accountPasswords")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/account/passwords", {
      payload: PasswordRequest,
      success: Created,
      error: TooManyRequests
    }).annotateMerge(
      docs(
        "Send a password reset e-mail",
        "Body `email`. 201 whether or not an account exists. No token needed. 429 past MAIL_REQUESTS_PER_ADDRESS requests for the address or MAIL_REQUESTS_PER_IP from the caller's IP in 15 minutes (counted whether or not an account exists).",
        [AccountRefusals.mailThrottled]
      )
    )
  )
  .middleware(AccountHost)
  .annotateMerge(docs("Account passwords"))

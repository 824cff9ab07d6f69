import { TooManyRequests } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the account endpoints (a host that is not the account host is the access layer's). */
export const AccountRefusals = {
  mailThrottled: refusal(TooManyRequests, "mail_throttled")
}

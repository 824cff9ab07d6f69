import { Forbidden, NotFound, Unprocessable } from "../shared/errors.ts"
import { type Refusal, refusal } from "../shared/refusals.ts"
import type { TargetProblem } from "./targets.ts"

/** Every refusal of the webhook subscription endpoints. */
export const WebhookRefusals = {
  webhooksFeatureDisabled: refusal(Forbidden, "webhooks_feature_disabled"),
  webhookNotFound: refusal(NotFound, "webhook_not_found"),
  webhookLimitReached: refusal(Unprocessable, "webhook_limit_reached"),
  fieldTooLong: refusal(Unprocessable, "field_too_long"),
  webhookIdMismatch: refusal(Unprocessable, "webhook_id_mismatch"),
  webhookDisabled: refusal(Unprocessable, "webhook_disabled"),
  webhookEventNotFound: refusal(NotFound, "webhook_event_not_found"),
  webhookTargetInvalid: refusal(Unprocessable, "webhook_target_invalid"),
  webhookTargetScheme: refusal(Unprocessable, "webhook_target_scheme"),
  webhookTargetCredentials: refusal(Unprocessable, "webhook_target_credentials"),
  webhookTargetUnresolvable: refusal(Unprocessable, "webhook_target_unresolvable"),
  webhookTargetPrivate: refusal(Unprocessable, "webhook_target_private")
}

/** Why a target cannot be used, by the problem targets.ts finds. */
export const targetRefusals: Record<TargetProblem, Refusal> = {
  invalid: WebhookRefusals.webhookTargetInvalid,
  scheme: WebhookRefusals.webhookTargetScheme,
  credentials: WebhookRefusals.webhookTargetCredentials,
  unresolvable: WebhookRefusals.webhookTargetUnresolvable,
  private: WebhookRefusals.webhookTargetPrivate
}

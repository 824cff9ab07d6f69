import { Effect, Option } from "effect"
import { AppConfig, publicOrigin } from "../config.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { type MessageKey, type MessageParams, t } from "../../shared/i18n.ts"
import type { Locale } from "../../shared/locale.ts"
import { enqueueJob } from "../jobs.ts"
import { type MailPayload, type MailTemplate, SendMailJob } from "./jobs.ts"

/**
 * The origin of the links a mail carries: from configuration (PUBLIC_URL, BASE_DOMAIN) and the
 * request's business, never from its Host or `X-Forwarded-Host`, which the requester chooses
 * (a reset link pointing at the requester's host would hand them the token).
 */
export const mailLinkOrigin = Effect.gen(function* () {
  const config = yield* AppConfig
  const { business } = yield* RequestContext
  return publicOrigin(config, Option.isSome(business) ? business.value.subdomain : undefined)
})

/**
 * Outgoing mail. A message is rendered when it is asked for (in the recipient's locale, with
 * absolute links from `mailLinkOrigin`) and delivered by the `send_mail` job, enqueued in
 * the caller's transaction: a rolled-back change sends nothing.
 */

const keys: Record<MailTemplate, { readonly subject: MessageKey; readonly body: MessageKey }> = {
  password_reset: { subject: "mail_password_reset_subject", body: "mail_password_reset_body" },
  email_confirmation: { subject: "mail_confirmation_subject", body: "mail_confirmation_body" },
  invitation: { subject: "mail_invitation_subject", body: "mail_invitation_body" },
  visit_confirmation: { subject: "mail_visit_confirmation_subject", body: "mail_visit_confirmation_body" },
  visit_cancellation: { subject: "mail_visit_cancellation_subject", body: "mail_visit_cancellation_body" },
  waitlist_enrolled: { subject: "mail_waitlist_enrolled_subject", body: "mail_waitlist_enrolled_body" },
  note_added: { subject: "mail_note_added_subject", body: "mail_note_added_body" },
  refund_receipt: { subject: "mail_refund_receipt_subject", body: "mail_refund_receipt_body" }
}

export const sendMail = (options: {
  readonly template: MailTemplate
  readonly to: string
  readonly locale: Locale
  readonly params: MessageParams
  readonly businessId?: number | null
}) =>
  enqueueJob(SendMailJob, {
    to: options.to,
    subject: t(options.locale, keys[options.template].subject, options.params),
    text: t(options.locale, keys[options.template].body, options.params),
    template: options.template,
    business_id: options.businessId ?? null
  } satisfies MailPayload).pipe(Effect.withSpan("Mail.send", { attributes: { template: options.template } }))

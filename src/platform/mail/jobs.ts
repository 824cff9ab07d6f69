import { Schema } from "effect"
import { defineJob } from "../jobs.ts"

export const MAIL_TEMPLATES = ["password_reset", "email_confirmation", "invitation", "visit_confirmation", "visit_cancellation", "waitlist_enrolled", "note_added", "refund_receipt"] as const
export type MailTemplate = (typeof MAIL_TEMPLATES)[number]

/** One rendered message to deliver (workers/tasks/send_mail.ts). */
export const MailPayload = Schema.Struct({
  to: Schema.String,
  subject: Schema.String,
  text: Schema.String,
  template: Schema.Literals(MAIL_TEMPLATES),
  business_id: Schema.NullOr(Schema.Number)
})
export type MailPayload = typeof MailPayload.Type

export const SendMailJob = defineJob("send_mail", MailPayload)

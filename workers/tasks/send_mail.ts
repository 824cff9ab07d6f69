import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import nodemailer from "nodemailer"
import { SendMailJob } from "../../src/platform/mail/jobs.ts"
import { AppConfig } from "../../src/platform/config.ts"

/**
 * Delivers one message: through SMTP when `SMTP_URL` is set, else into the development
 * mailbox. Either way it is recorded in `mail_messages` (the mailbox tests and developers
 * read, and the delivery log). A failed SMTP send fails the job, which graphile-worker retries.
 */
export const sendMailTask = (payload: unknown) =>
  Effect.gen(function* () {
    const mail = yield* SendMailJob.decode(payload)
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    if (Option.isSome(config.smtpUrl)) {
      const transport = nodemailer.createTransport(config.smtpUrl.value)
      yield* Effect.tryPromise(() =>
        transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text })
      )
    }
    yield* sql`insert into mail_messages (business_id, to_address, subject, body_text, template, transport)
               values (${mail.business_id}, ${mail.to}, ${mail.subject}, ${mail.text}, ${mail.template},
                       ${Option.isSome(config.smtpUrl) ? "smtp" : "mailbox"})`.pipe(Effect.orDie)
    yield* Effect.logInfo("mail sent").pipe(
      Effect.annotateLogs({ template: mail.template, transport: Option.isSome(config.smtpUrl) ? "smtp" : "mailbox" })
    )
  })

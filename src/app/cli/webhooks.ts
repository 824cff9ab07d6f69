import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { migrateDatabase } from "../../platform/startup.ts"
import { WebhooksRepo } from "../../webhooks/repo.ts"
import { setWebhooksFeature } from "../../webhooks/service.ts"
import { findBusiness, printJson, withServices } from "./support.ts"

/** `webhooks enable|disable --business S`: the business's webhooks feature (spec, Events). */
const webhooksFeature = (enabled: boolean) =>
  Command.make(
    enabled ? "enable" : "disable",
    { business: Flag.String("business").pipe(Flag.withDescription("Subdomain of the business")) },
    (flags) =>
      withServices(
        Effect.gen(function* () {
          yield* migrateDatabase
          const businessId = yield* findBusiness(flags.business)
          const removed = enabled ? 0 : (yield* (yield* WebhooksRepo).countSubscriptions({ businessId })).n
          const changed = yield* setWebhooksFeature(businessId, enabled)
          yield* printJson({
            business: flags.business.trim().toLowerCase(),
            webhooks_enabled: enabled,
            changed,
            ...(enabled ? {} : { webhooks_deleted: changed ? removed : 0 })
          })
        })
      )
  ).pipe(
    Command.withDescription(
      enabled
        ? "Turn on the webhooks feature of a business: its owners may subscribe"
        : "Turn off the webhooks feature of a business: deletes its webhooks (and their delivery logs) and stops notifications"
    )
  )

export const webhooks = Command.make("webhooks").pipe(
  Command.withDescription("Manage the webhooks feature of businesses"),
  Command.withSubcommands([webhooksFeature(true), webhooksFeature(false)])
)

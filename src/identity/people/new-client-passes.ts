import { Context, type Effect } from "effect"
import type { BusinessRow } from "../../shared/request-context.ts"

/**
 * What people ask of billing when the business takes someone on: the complimentary passes it
 * offers new clients (plan products marked `new_client_pass`), given free to the new person
 * (spec: people create `skip_complimentary_passes`; a staff booking's new person
 * `skip_new_client_passes`). Plans sit above people, so people declares the question and
 * src/billing/plans/new-client-passes-live.ts answers it; provided in src/app/layers.ts. Runs inside the
 * caller's transaction: the person and their passes commit together.
 */
export class NewClientPasses extends Context.Service<NewClientPasses, {
  /** Gives each person the business's new-client passes (none when it offers none). */
  readonly give: (business: BusinessRow, personIds: ReadonlyArray<number>) => Effect.Effect<void>
}>()("studio/NewClientPasses") {}

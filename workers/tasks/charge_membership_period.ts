import { Effect } from "effect"
import { ChargeMembershipPeriodJob } from "../../src/billing/billing-runs/jobs.ts"
import { chargePeriod } from "../../src/billing/billing-runs/service.ts"

/** One charge attempt of a membership billing period (src/billing/billing-runs/service.ts). */
export const chargeMembershipPeriodTask = (payload: unknown) =>
  Effect.gen(function* () {
    const { business_id, period_id } = yield* ChargeMembershipPeriodJob.decode(payload)
    const outcome = yield* chargePeriod(business_id, period_id)
    yield* Effect.logInfo("membership period charged").pipe(Effect.annotateLogs({ period_id, outcome }))
  })

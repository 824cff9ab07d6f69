import { Schema } from "effect"
import { defineJob } from "../../platform/jobs.ts"

/**
 * Records the service pays of an occurrence whose attendance was completed
 * (workers/tasks/create_service_pays.ts), enqueued in the transaction that completes it.
 */
export const CreateServicePaysJob = defineJob(
  "create_service_pays",
  Schema.Struct({ business_id: Schema.Number, event_occurrence_id: Schema.Number })
)

/**
 * Records the commission pay of a closed invoice (workers/tasks/create_sale_pays.ts), enqueued
 * in the transaction that closes it.
 */
export const CreateSalePaysJob = defineJob("create_sale_pays", Schema.Struct({ business_id: Schema.Number, invoice_id: Schema.Number }))

import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The writes of pack products (plan_products rows of kind `pack`); reads go through
 * PlanProductsRepo. Every statement names `business_id`.
 */
const Fields = Schema.Struct({
  name: Schema.String,
  price_cents: Schema.Number,
  visibility: Schema.String,
  description: Schema.NullOr(Schema.String),
  description_long: Schema.NullOr(Schema.String),
  suspended: Schema.Boolean,
  count: Schema.Number,
  commitment_length: Schema.Number,
  commitment_unit: Schema.String,
  location_id: Schema.NullOr(Schema.Number),
  consider_member: Schema.Boolean,
  terms: Schema.NullOr(Schema.String),
  terms_acceptance_required: Schema.Boolean,
  terms_acceptance_type: Schema.String,
  terms_acceptance_at_checkout: Schema.Boolean,
  send_expiration_notifications: Schema.Boolean
})
type Fields = typeof Fields.Type

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, fields: Fields, now: Schema.Date }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, fields, now }) =>
      sql`insert into plan_products ${sql.insert({ business_id: businessId, kind: "pack", ...fields, created_at: now, updated_at: now })}
          returning id`
  })
  const update = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, fields: Fields, now: Schema.Date }),
    execute: ({ businessId, id, fields, now }) =>
      sql`update plan_products set ${sql.update({ ...fields, updated_at: now })}
          where business_id = ${businessId} and id = ${id} and kind = 'pack' and deleted_at is null`
  })
  const softDelete = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, now: Schema.Date }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id, now }) =>
      sql`update plan_products set deleted_at = ${now}, updated_at = ${now}
          where business_id = ${businessId} and id = ${id} and kind = 'pack' and deleted_at is null
          returning id`
  })
  const clearServices = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    execute: ({ businessId, id }) => sql`delete from plan_product_services where business_id = ${businessId} and plan_product_id = ${id}`
  })
  // Unknown ids (or another business's) are ignored, as the spec says: only existing services are linked.
  const addServices = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, serviceIds: Schema.Array(Schema.Number) }),
    execute: ({ businessId, id, serviceIds }) =>
      sql`insert into plan_product_services (business_id, plan_product_id, service_id)
          select ${businessId}, ${id}, s.id from services s where s.business_id = ${businessId} and s.id = any(${bigintArray(serviceIds)})
          on conflict do nothing`
  })
  const location = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id }) => sql`select id from locations where business_id = ${businessId} and id = ${id}`
  })

  /** Replaces the product's services with those of `serviceIds` that exist in the business. */
  const replaceServices = (request: Parameters<typeof addServices>[0]) =>
    Effect.gen(function* () {
      yield* clearServices(request)
      if (request.serviceIds.length > 0) yield* addServices(request)
    })

  return {
    insert: orDie(insert),
    update: orDie(update),
    /**
     * Gone from the catalog; packs sold from it keep their copy of what they need. Undefined when
     * the product was deleted already (a concurrent delete got there first).
     */
    softDelete: orUndefined(softDelete),
    replaceServices: orDie(replaceServices),
    /** The location, when the business has it. */
    location: orUndefined(location)
  }
})

export class PackProductsRepo extends Context.Service<PackProductsRepo, Effect.Success<typeof make>>()("studio/PackProductsRepo") {
  static readonly layer = Layer.effect(PackProductsRepo)(make)
}

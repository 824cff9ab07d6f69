import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { PlanTermsRow } from "./model.ts"

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const Key = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

  const ofPlan = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, planId: Schema.Number }),
    Result: PlanTermsRow,
    execute: ({ businessId, planId }) =>
      sql`select t.id, t.plan_id, t.payer_person_id, t.acceptance_type, t.terms, t.document_id, t.accepted_at, t.declined_at,
            t.created_at, t.updated_at, concat_ws(' ', pe.first_name, pe.last_name) as payer_name, pe.email::text as payer_email
          from plan_terms t
          join plans p on p.business_id = t.business_id and p.id = t.plan_id
          join people pe on pe.business_id = t.business_id and pe.id = t.payer_person_id
          where t.business_id = ${businessId} and t.plan_id = ${planId}`
  })
  // Two first looks at the same terms may each open an envelope: the first one stored wins,
  // and both answer with it.
  const attachDocument = SqlSchema.findOne({
    Request: Schema.Struct({ ...Key.fields, documentId: Schema.String, now: Schema.Date }),
    Result: Schema.Struct({ document_id: Schema.String }),
    execute: ({ businessId, id, documentId, now }) =>
      sql`update plan_terms set document_id = coalesce(document_id, ${documentId}),
            updated_at = case when document_id is null then ${now} else updated_at end
          where business_id = ${businessId} and id = ${id}
          returning document_id`
  })
  // Accepted and declined are final: each is written once, and never both.
  const accept = SqlSchema.void({
    Request: Schema.Struct({ ...Key.fields, now: Schema.Date }),
    execute: ({ businessId, id, now }) =>
      sql`update plan_terms set accepted_at = ${now}, updated_at = ${now}
          where business_id = ${businessId} and id = ${id} and accepted_at is null and declined_at is null`
  })
  const decline = SqlSchema.void({
    Request: Schema.Struct({ ...Key.fields, now: Schema.Date }),
    execute: ({ businessId, id, now }) =>
      sql`update plan_terms set declined_at = ${now}, updated_at = ${now}
          where business_id = ${businessId} and id = ${id} and accepted_at is null and declined_at is null`
  })

  // Each look at open document terms mints one; the same statement drops this terms' expired ones.
  const insertCompletion = SqlSchema.void({
    Request: Schema.Struct({ ...Key.fields, valueHash: Schema.Uint8Array, now: Schema.Date, expiresAt: Schema.Date }),
    execute: ({ businessId, id, valueHash, now, expiresAt }) =>
      sql`with swept as (
            delete from plan_terms_completions
            where business_id = ${businessId} and plan_terms_id = ${id} and expires_at <= ${now}
          )
          insert into plan_terms_completions (business_id, value_hash, plan_terms_id, created_at, expires_at)
          values (${businessId}, ${valueHash}, ${id}, ${now}, ${expiresAt})`
  })
  // Single use: one statement marks it used, so two arrivals with the same value cannot both pass.
  const claimCompletion = SqlSchema.findAll({
    Request: Schema.Struct({ ...Key.fields, valueHash: Schema.Uint8Array, now: Schema.Date }),
    Result: Schema.Struct({ plan_terms_id: Schema.Number }),
    execute: ({ businessId, id, valueHash, now }) =>
      sql`update plan_terms_completions set used_at = ${now}
          where business_id = ${businessId} and value_hash = ${valueHash} and plan_terms_id = ${id}
            and used_at is null and expires_at > ${now}
          returning plan_terms_id`
  })

  /** Uses up a live completion value of the terms `id`; false when there is none (unknown, used, expired, other terms). */
  const claimed = (request: Parameters<typeof claimCompletion>[0]) => claimCompletion(request).pipe(Effect.map((rows) => rows.length > 0))

  return {
    /** Records a completion value (its hash) for the terms `id`, good until `expiresAt`. */
    insertCompletion: orDie(insertCompletion),
    claimCompletion: orDie(claimed),
    /** The terms of a plan of the business, with the payer's name and e-mail (for the signing provider). */
    ofPlan: orUndefined(ofPlan),
    /** Stores the envelope of document terms unless one is there already; answers the row with the one kept. */
    attachDocument: orDie(attachDocument),
    accept: orDie(accept),
    decline: orDie(decline)
  }
})

export class PlanTermsRepo extends Context.Service<PlanTermsRepo, Effect.Success<typeof make>>()("studio/PlanTermsRepo") {
  static readonly layer = Layer.effect(PlanTermsRepo)(make)
}

import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { CustomFieldDefinitionRow, CustomFieldValueRow, type CustomFieldValueWrite, RelationshipRow } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of what hangs off a person: relationships (providers and dependents) and custom field
 * values. Part of PeopleRepo (repo.ts spreads these methods in), kept apart so each file reads
 * one aggregate; same conventions: every statement names `business_id`, writes run on the
 * caller's connection.
 */
const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Ids })
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

export const relationsQueries = (sql: SqlClient.SqlClient) => {
  const dependents = SqlSchema.findAll({
    Request: ById,
    Result: Id,
    execute: ({ businessId, id }) =>
      sql`select p.id from person_relationships r
          join people p on p.business_id = r.business_id and p.id = r.dependent_id
          where r.business_id = ${businessId} and r.provider_id = ${id} and p.deleted_at is null
          order by p.id`
  })
  const customFieldValues = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, includeHidden: Schema.Boolean }),
    Result: CustomFieldValueRow,
    execute: ({ businessId, ids, includeHidden }) =>
      sql`select v.person_id, v.custom_field_id, f.name, f.data_type, v.text_value, v.boolean_value,
                 coalesce((select json_agg(json_build_object('id', o.id, 'value', o.value) order by o.position, o.id)
                           from person_custom_field_selections s
                           join custom_field_options o on o.business_id = s.business_id and o.id = s.custom_field_option_id
                           where s.business_id = v.business_id and s.person_id = v.person_id
                             and s.custom_field_id = v.custom_field_id), '[]') as options
          from person_custom_field_values v
          join custom_fields f on f.business_id = v.business_id and f.id = v.custom_field_id
          where v.business_id = ${businessId} and v.person_id = any(${bigintArray(ids)})
          ${includeHidden ? sql`` : sql`and not f.hidden_in_client_mode`}
          order by v.person_id, f.position, f.id`
  })
  const relationships = SqlSchema.findAll({
    Request: InBusiness,
    Result: RelationshipRow,
    execute: ({ businessId, ids }) =>
      sql`select r.provider_id, r.dependent_id,
                 pp.first_name || ' ' || pp.last_name as provider_name,
                 dp.first_name || ' ' || dp.last_name as dependent_name
          from person_relationships r
          join people pp on pp.business_id = r.business_id and pp.id = r.provider_id and pp.deleted_at is null
          join people dp on dp.business_id = r.business_id and dp.id = r.dependent_id and dp.deleted_at is null
          where r.business_id = ${businessId} and (r.provider_id = any(${bigintArray(ids)}) or r.dependent_id = any(${bigintArray(ids)}))
          order by r.provider_id, r.dependent_id`
  })
  const customFieldDefinitions = SqlSchema.findAll({
    Request: InBusiness,
    Result: CustomFieldDefinitionRow,
    execute: ({ businessId, ids }) =>
      sql`select f.id, f.name, f.data_type, f.multi_select,
                 coalesce((select json_agg(json_build_object('id', o.id, 'value', o.value) order by o.position, o.id)
                           from custom_field_options o
                           where o.business_id = f.business_id and o.custom_field_id = f.id), '[]') as options
          from custom_fields f
          where f.business_id = ${businessId} and f.id = any(${bigintArray(ids)})`
  })
  const removeOtherDependents = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, providerId: Schema.Number }),
    Result: Schema.Struct({ provider_id: Schema.Number, dependent_id: Schema.Number }),
    execute: ({ businessId, providerId, ids }) =>
      sql`delete from person_relationships
          where business_id = ${businessId}
            and ((provider_id = ${providerId} and dependent_id <> all(${bigintArray(ids)}::bigint[]))
                 or (dependent_id = any(${bigintArray(ids)}::bigint[]) and provider_id <> ${providerId}))
          returning provider_id, dependent_id`
  })
  const addDependents = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, providerId: Schema.Number }),
    Result: Id,
    execute: ({ businessId, providerId, ids }) =>
      sql`insert into person_relationships (business_id, provider_id, dependent_id)
          select ${businessId}, ${providerId}, d from unnest(${bigintArray(ids)}::bigint[]) as d
          on conflict do nothing
          returning dependent_id as id`
  })
  const ProviderChange = Schema.Struct({ businessId: Schema.Number, dependentId: Schema.Number, providerId: Schema.NullOr(Schema.Number) })
  const removeOtherProviders = SqlSchema.findAll({
    Request: ProviderChange,
    Result: Id,
    execute: ({ businessId, dependentId, providerId }) =>
      sql`delete from person_relationships
          where business_id = ${businessId} and dependent_id = ${dependentId}
            ${providerId === null ? sql`` : sql`and provider_id <> ${providerId}`}
          returning provider_id as id`
  })
  const addProvider = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, dependentId: Schema.Number, providerId: Schema.Number }),
    Result: Id,
    execute: ({ businessId, dependentId, providerId }) =>
      sql`insert into person_relationships (business_id, provider_id, dependent_id)
          values (${businessId}, ${providerId}, ${dependentId})
          on conflict do nothing
          returning provider_id as id`
  })

  const deleteBarcodes = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) => sql`delete from person_barcodes where business_id = ${businessId} and person_id = ${id}`
  })
  const insertBarcodes = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, barcodes: Schema.Array(Schema.String) }),
    execute: ({ businessId, id, barcodes }) =>
      sql`insert into person_barcodes (business_id, person_id, barcode)
          select ${businessId}, ${id}, b from unnest(${barcodes}::text[]) as b`
  })
  const FieldOfPerson = Schema.Struct({ ...ById.fields, customFieldId: Schema.Number })
  const clearValue = SqlSchema.void({
    Request: FieldOfPerson,
    execute: ({ businessId, id, customFieldId }) =>
      sql`delete from person_custom_field_values
          where business_id = ${businessId} and person_id = ${id} and custom_field_id = ${customFieldId}`
  })
  const upsertValue = SqlSchema.void({
    Request: Schema.Struct({ ...FieldOfPerson.fields, text: Schema.NullOr(Schema.String), boolean: Schema.NullOr(Schema.Boolean) }),
    execute: ({ businessId, id, customFieldId, text, boolean }) =>
      sql`insert into person_custom_field_values (business_id, person_id, custom_field_id, text_value, boolean_value)
          values (${businessId}, ${id}, ${customFieldId}, ${text}, ${boolean})
          on conflict (business_id, person_id, custom_field_id)
          do update set text_value = excluded.text_value, boolean_value = excluded.boolean_value`
  })
  const Selections = Schema.Struct({ ...FieldOfPerson.fields, optionIds: Ids })
  const removeOtherSelections = SqlSchema.findAll({
    Request: Selections,
    Result: Id,
    execute: ({ businessId, id, customFieldId, optionIds }) =>
      sql`delete from person_custom_field_selections
          where business_id = ${businessId} and person_id = ${id} and custom_field_id = ${customFieldId}
            and custom_field_option_id <> all(${bigintArray(optionIds)}::bigint[])
          returning 1 as id`
  })
  const addSelections = SqlSchema.findAll({
    Request: Selections,
    Result: Id,
    execute: ({ businessId, id, customFieldId, optionIds }) =>
      sql`insert into person_custom_field_selections (business_id, person_id, custom_field_id, custom_field_option_id)
          select ${businessId}, ${id}, ${customFieldId}, o from unnest(${bigintArray(optionIds)}::bigint[]) as o
          on conflict do nothing
          returning 1 as id`
  })
  const touchValue = SqlSchema.void({
    Request: FieldOfPerson,
    execute: ({ businessId, id, customFieldId }) =>
      sql`update person_custom_field_values set updated_at = now()
          where business_id = ${businessId} and person_id = ${id} and custom_field_id = ${customFieldId}`
  })

  /** The live dependents of a person, by id (whom a client-mode token may also act for). */
  const dependentIds = (request: typeof ById.Type) => dependents(request).pipe(Effect.map((rows) => rows.map((row) => row.id)))
  /** Custom field values of these people, fields in position order; hidden fields only when asked. */
  const valuesOf = (request: Parameters<typeof customFieldValues>[0]) =>
    request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<CustomFieldValueRow>) : customFieldValues(request)
  /** Relationships where these people are provider or dependent, between live people. */
  const relationshipsOf = (request: typeof InBusiness.Type) =>
    request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<RelationshipRow>) : relationships(request)
  /** Custom fields of the business among `ids`, with their options. */
  const definitionsOf = (request: typeof InBusiness.Type) =>
    request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<CustomFieldDefinitionRow>) : customFieldDefinitions(request)
  /**
   * Makes `ids` exactly the dependents of `providerId`. A dependent has one provider, so one
   * taken from another provider leaves that one. Returns the people whose relationships changed.
   */
  const replaceDependents = (request: Parameters<typeof removeOtherDependents>[0]) =>
    Effect.gen(function* () {
      const removed = yield* removeOtherDependents(request)
      const added = request.ids.length === 0 ? [] : yield* addDependents(request)
      return [...new Set([...removed.flatMap((r) => [r.provider_id, r.dependent_id]), ...added.map((r) => r.id)])]
    })
  /** Sets or removes (null) the single provider of a person; returns the people whose relationships changed. */
  const setProvider = ({ businessId, dependentId, providerId }: typeof ProviderChange.Type) =>
    Effect.gen(function* () {
      const removed = yield* removeOtherProviders({ businessId, dependentId, providerId })
      const added = providerId === null ? [] : yield* addProvider({ businessId, dependentId, providerId })
      return [...new Set([...removed.map((r) => r.id), ...added.map((r) => r.id)])]
    })
  /** Replaces a person's barcodes. */
  const replaceBarcodes = (request: Parameters<typeof insertBarcodes>[0]) =>
    Effect.gen(function* () {
      yield* deleteBarcodes(request)
      if (request.barcodes.length > 0) yield* insertBarcodes(request)
    })
  /**
   * Writes (or clears) custom field values of one person; select fields replace their
   * selections, and a value whose selections changed is touched.
   */
  const writeCustomFieldValues = ({ values, ...person }: typeof ById.Type & { readonly values: ReadonlyArray<CustomFieldValueWrite> }) =>
    Effect.forEach(
      values,
      (value) => {
        const field = { ...person, customFieldId: value.customFieldId }
        return value.clear
          ? clearValue(field)
          : Effect.gen(function* () {
            yield* upsertValue({ ...field, text: value.text, boolean: value.boolean })
            const removed = yield* removeOtherSelections({ ...field, optionIds: value.optionIds })
            const added = value.optionIds.length === 0 ? [] : yield* addSelections({ ...field, optionIds: value.optionIds })
            if (removed.length + added.length > 0) yield* touchValue(field)
          })
      },
      { discard: true }
    )

  return {
    dependents: orDie(dependentIds),
    customFieldValues: orDie(valuesOf),
    relationships: orDie(relationshipsOf),
    customFieldDefinitions: orDie(definitionsOf),
    replaceDependents: orDie(replaceDependents),
    setProvider: orDie(setProvider),
    replaceBarcodes: orDie(replaceBarcodes),
    writeCustomFieldValues: orDie(writeCustomFieldValues)
  }
}

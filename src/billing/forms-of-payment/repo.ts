import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { FormOfPaymentRow } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

const COLUMNS = `id, person_id, type, first_name, last_name, autobill, gateway_token, card_type, expire_month, expire_year, last_four,
  account_name, account_type, account_holder_type, account_number_masked, routing_number_masked, created_at, updated_at`

const PersonKey = Schema.Struct({ businessId: Schema.Number, personId: Schema.Number })

export const VaultingRow = Schema.Struct({
  id: Schema.String,
  person_id: Schema.Number,
  mode: Schema.Literals(["front", "desk"]),
  gateway_form_id: Schema.String,
  expires_at: Schema.Date,
  used_at: Schema.NullOr(Schema.Date)
})
export type VaultingRow = typeof VaultingRow.Type

const NewCard = Schema.Struct({
  businessId: Schema.Number,
  personId: Schema.Number,
  firstName: Schema.String,
  lastName: Schema.String,
  autobill: Schema.Boolean,
  token: Schema.String,
  cardType: Schema.String,
  expireMonth: Schema.Number,
  expireYear: Schema.Number,
  lastFour: Schema.String,
  now: Schema.Date
})

/** Vaulting sessions: started with a person and mode, locked and used up once by the completion. */
const vaultingStatements = (sql: SqlClient.SqlClient) => {
  const insertVaulting = SqlSchema.void({
    Request: Schema.Struct({
      businessId: Schema.Number,
      id: Schema.String,
      personId: Schema.Number,
      mode: Schema.Literals(["front", "desk"]),
      formId: Schema.String,
      expiresAt: Schema.Date,
      now: Schema.Date
    }),
    execute: (r) =>
      sql`insert into form_of_payment_vaultings (business_id, id, person_id, mode, gateway_form_id, expires_at, created_at)
          values (${r.businessId}, ${r.id}, ${r.personId}, ${r.mode}, ${r.formId}, ${r.expiresAt}, ${r.now})`
  })
  const lockVaulting = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.String }),
    Result: VaultingRow,
    execute: ({ businessId, id }) =>
      sql`select id, person_id, mode, gateway_form_id, expires_at, used_at from form_of_payment_vaultings
          where business_id = ${businessId} and id = ${id} for update`
  })
  const useVaulting = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.String, formOfPaymentId: Schema.NullOr(Schema.Number), now: Schema.Date }),
    execute: ({ businessId, id, formOfPaymentId, now }) =>
      sql`update form_of_payment_vaultings set used_at = ${now}, form_of_payment_id = ${formOfPaymentId}
          where business_id = ${businessId} and id = ${id} and used_at is null`
  })
  return {
    insertVaulting: orDie(insertVaulting),
    /** The session, locked for update. */
    lockVaulting: orUndefined(lockVaulting),
    /** Uses the session up (`formOfPaymentId` the saved form, or null). */
    useVaulting: orDie(useVaulting)
  }
}

/** Saving a card: its person locked, its token looked up, the card inserted, the autobill form moved. */
const cardWrites = (sql: SqlClient.SqlClient) => {
  const lockPerson = SqlSchema.findAll({
    Request: PersonKey,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, personId }) => sql`select id from people where business_id = ${businessId} and id = ${personId} for update`
  })
  const findByToken = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...PersonKey.fields, token: Schema.String }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, personId, token }) =>
      sql`select id from forms_of_payment where business_id = ${businessId} and person_id = ${personId} and gateway_token = ${token}`
  })
  const insertCard = SqlSchema.findOne({
    Request: NewCard,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: (r) =>
      sql`insert into forms_of_payment (business_id, person_id, type, first_name, last_name, autobill, gateway_token, card_type,
            expire_month, expire_year, last_four, created_at, updated_at)
          values (${r.businessId}, ${r.personId}, 'creditcard', ${r.firstName}, ${r.lastName}, ${r.autobill}, ${r.token}, ${r.cardType},
            ${r.expireMonth}, ${r.expireYear}, ${r.lastFour}, ${r.now}, ${r.now})
          returning id`
  })
  // Two statements, others off first: the unique autobill index is checked row by row.
  const autobillOff = SqlSchema.void({
    Request: Schema.Struct({ ...PersonKey.fields, id: Schema.Number, now: Schema.Date }),
    execute: ({ businessId, personId, id, now }) =>
      sql`update forms_of_payment set autobill = false, updated_at = ${now}
          where business_id = ${businessId} and person_id = ${personId} and autobill and id <> ${id}`
  })
  const autobillOn = SqlSchema.void({
    Request: Schema.Struct({ ...PersonKey.fields, id: Schema.Number, now: Schema.Date }),
    execute: ({ businessId, personId, id, now }) =>
      sql`update forms_of_payment set autobill = true, updated_at = ${now}
          where business_id = ${businessId} and person_id = ${personId} and id = ${id} and not autobill`
  })
  /** Both writes as one unit: turning the others off first keeps at most one autobill form. */
  const makeAutobill = (request: Parameters<typeof autobillOn>[0]) => Effect.andThen(autobillOff(request), autobillOn(request))
  return {
    lockPerson: orDie(lockPerson),
    /** The person's form holding that gateway token, `{ id }`. */
    findByToken: orUndefined(findByToken),
    /** Answers `{ id }`. */
    insertCard: orDie(insertCard),
    /** This form becomes the person's autobill form; the others are turned off. */
    makeAutobill: orDie(makeAutobill)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ ...PersonKey.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...FormOfPaymentRow.fields, total_count: Schema.Number }),
    execute: ({ businessId, personId, limit, offset }) =>
      sql`select ${sql.literal(COLUMNS)}, count(*) over ()::int as total_count from forms_of_payment
          where business_id = ${businessId} and person_id = ${personId} order by id limit ${limit} offset ${offset}`
  })
  const counted = SqlSchema.findAll({
    Request: PersonKey,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, personId }) =>
      sql`select count(*)::int as n from forms_of_payment where business_id = ${businessId} and person_id = ${personId}`
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...PersonKey.fields, id: Schema.Number }),
    Result: FormOfPaymentRow,
    execute: ({ businessId, personId, id }) =>
      sql`select ${sql.literal(COLUMNS)} from forms_of_payment where business_id = ${businessId} and person_id = ${personId} and id = ${id}`
  })
  // Serializes a person's autobill changes and first forms: one writer at a time per person.
  const hasAutobill = SqlSchema.findAll({
    Request: PersonKey,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, personId }) =>
      sql`select id from forms_of_payment where business_id = ${businessId} and person_id = ${personId} and autobill`
  })
  const cardHolders = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, personIds: Schema.Array(Schema.Number) }),
    Result: Schema.Struct({ person_id: Schema.Number }),
    execute: ({ businessId, personIds }) =>
      sql`select distinct person_id from forms_of_payment
          where business_id = ${businessId} and person_id = any(${bigintArray(personIds)}::bigint[]) and type = 'creditcard'`
  })
  /** A page of the person's forms, oldest first, and the total. */
  const list = ({ page, ...key }: typeof PersonKey.Type & { readonly page: Page }) =>
    Effect.gen(function* () {
      const rows = yield* listed({ ...key, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted(key))
      return { rows, total }
    })
  const anyAutobill = (key: typeof PersonKey.Type) => Effect.map(hasAutobill(key), (rows) => rows.length > 0)
  const holders = (request: Parameters<typeof cardHolders>[0]) =>
    request.personIds.length === 0
      ? Effect.succeed(new Set<number>())
      : Effect.map(cardHolders(request), (rows) => new Set(rows.map((row) => row.person_id)))

  return {
    list: orDie(list),
    /** One form, only under its own person (another person's or business's is not found). */
    find: orUndefined(find),
    /** Whether the person has an autobill form. */
    hasAutobill: orDie(anyAutobill),
    /** Of `personIds`, who has a credit card on file (none asked, no round trip). */
    cardHolders: orDie(holders),
    ...cardWrites(sql),
    ...vaultingStatements(sql)
  }
})

export class FormsOfPaymentRepo extends Context.Service<FormsOfPaymentRepo, Effect.Success<typeof make>>()("studio/FormsOfPaymentRepo") {
  static readonly layer = Layer.effect(FormsOfPaymentRepo)(make)
}

import { Clock, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { AccountTokensRepo, passwordResetLink } from "../../access/account-tokens.ts"
import { requireManagerOrHigher } from "../../access/policies.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { sendMail } from "../../platform/mail/service.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { parseLocale } from "../../shared/locale.ts"
import { AppConfig, publicOrigin } from "../../platform/config.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { emitWebhookEvent } from "../../webhooks/emit.ts"
import { type PreparedPerson, prepareAttributes } from "./attributes.ts"
import { FutureVisits } from "./future-visits.ts"
import type { PersonCreateInput, PersonUpdateInput } from "./inputs.ts"
import { NewClientPasses } from "./new-client-passes.ts"
import { PeopleRepo } from "./repo.ts"
import { deskPeople } from "./service.ts"
import { currentTime } from "../../shared/clock.ts"
import { PeopleRefusals } from "./refusals.ts"

/**
 * Creating, updating and deleting people (staff mode). Each runs in one transaction: the
 * person, their custom field values, relationships, account link and invitation mail job
 * commit together or not at all. Every rule is checked before anything is written, so a 422
 * lists every failed rule at once.
 *
 * Policy: any staff member may create and update people (front-desk staff sign clients up);
 * deleting needs a manager or an owner.
 */

/** The person as desk `GET /people/:id` shows them: `{"people": [person]}` (none when gone). */
const personAnswer = Effect.fn("People.answer")(function* (request: { readonly businessId: number; readonly id: number; readonly includeDeleted: boolean }) {
  const rows = yield* (yield* PeopleRepo).find({ businessId: request.businessId, ids: [request.id], includeDeleted: request.includeDeleted })
  return { people: yield* deskPeople(rows, { relationships: true, balances: false }) }
})

/**
 * The person (deleted ones too with `includeDeleted`), or the 404 every command answers without one.
 * The person a write changes, its row locked until the commit: two writes of one person (a client
 * that sends its update twice) run one after the other, the second reading what the first wrote,
 * rather than both deciding from the same row (two account links deadlocking, two person.deleted).
 */
const lockedPerson = Effect.fn("People.locked")(function* (request: { readonly businessId: number; readonly id: number; readonly includeDeleted: boolean }) {
  const [row] = yield* (yield* PeopleRepo).find({ businessId: request.businessId, ids: [request.id], includeDeleted: request.includeDeleted, lock: true })
  if (row === undefined) return yield* PeopleRefusals.personNotFound.fail({ id: request.id })
  return row
})

/**
 * The e-mail checks before a write can race another request taking the same address: the
 * unique index decides, and the loser hears the same 422 the check would have given.
 */
const emailTaken = (error: SqlError.SqlError) =>
  error.reason._tag === "UniqueViolation" && error.reason.constraint === "people_business_email_idx"
    ? PeopleRefusals.fieldTaken.fail({ field: "email" })
    : Effect.die(error)

/** Invitations open the password form; a week gives the invited person time to act. */
const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000

/** Links the person to the account of their e-mail address (created when missing), unless it already has a person here. */
const linkAccount = Effect.fn("People.linkAccount")(function* (
  businessId: number,
  email: string,
  names: { readonly first_name: string; readonly last_name: string }
) {
  const repo = yield* PeopleRepo
  const { id: accountId } = yield* repo.accountForEmail({ email, firstName: names.first_name, lastName: names.last_name })
  const taken = yield* repo.personOfAccount({ businessId, accountId })
  return taken === undefined ? accountId : null
})

/** The invitation: a password link for the account, mailed in the business's language. */
const invite = Effect.fn("People.invite")(function* (accountId: number, email: string, firstName: string) {
  const business = yield* CurrentBusiness
  // The business's own host from configuration, never the request's headers (mail/service.ts).
  const origin = publicOrigin(yield* AppConfig, business.subdomain)
  const token = yield* (yield* AccountTokensRepo).issue({ accountId, purpose: "password_reset", lifetimeMs: INVITATION_LIFETIME_MS })
  yield* sendMail({
    template: "invitation",
    to: email,
    locale: parseLocale(business.default_locale) ?? "en",
    params: { name: firstName, business: business.name, link: passwordResetLink(origin, token) },
    businessId: business.id
  })
})

/** Writes a new person (prepared, valid) with values and account link; returns the id and the account. */
export const insertPerson = Effect.fn("People.insertPerson")(function* (businessId: number, prepared: PreparedPerson, messagePrefix: string) {
  const repo = yield* PeopleRepo
  const names = { first_name: prepared.write.first_name ?? "", last_name: prepared.write.last_name ?? "" }
  const accountId = prepared.email === null ? null : yield* linkAccount(businessId, prepared.email, names)
  const inserted = yield* repo.insert({ businessId, write: { ...prepared.write, account_id: accountId } })
  // Another request took the address since it was checked.
  if (inserted === undefined) return yield* PeopleRefusals.fieldTaken.fail({ field: `${messagePrefix}email` })
  yield* repo.writeCustomFieldValues({ businessId, id: inserted.id, values: prepared.customFields })
  if (prepared.barcodes !== undefined) yield* repo.replaceBarcodes({ businessId, id: inserted.id, barcodes: prepared.barcodes })
  if (prepared.sendInvite && prepared.email !== null && accountId !== null) yield* invite(accountId, prepared.email, names.first_name)
  return inserted.id
})

export const createPerson = Effect.fn("People.create")(function* (input: PersonCreateInput) {
  const business = yield* CurrentBusiness
  const repo = yield* PeopleRepo
  const sql = yield* SqlClient.SqlClient
  const now = (yield* currentTime)
  const id = yield* sql.withTransaction(
    Effect.gen(function* () {
      const messages: Array<Message> = []
      const claimedEmails = new Set<string>()
      const person = yield* prepareAttributes(
        business.id,
        input,
        { prefix: "", defaults: { location_id: null, joined_at: now }, claimedEmails },
        messages
      )
      const dependents: Array<PreparedPerson> = []
      for (const [i, dependent] of (input.dependents ?? []).entries()) {
        dependents.push(
          yield* prepareAttributes(
            business.id,
            dependent,
            {
              prefix: `dependents[${i}].`,
              // A dependent lives where their provider does and joins with them unless told otherwise.
              defaults: { location_id: person.write.location_id ?? null, joined_at: person.write.joined_at ?? now },
              claimedEmails
            },
            messages
          )
        )
      }
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
      const id = yield* insertPerson(business.id, person, "")
      const dependentIds: Array<number> = []
      for (const [i, dependent] of dependents.entries()) {
        const dependentId = yield* insertPerson(business.id, dependent, `dependents[${i}].`)
        yield* repo.setProvider({ businessId: business.id, dependentId, providerId: id })
        dependentIds.push(dependentId)
      }
      // The business's new-client passes, unless the request skips them (skip_complimentary_passes).
      if (input.skip_complimentary_passes !== true) yield* (yield* NewClientPasses).give(business, [id, ...dependentIds])
      yield* emitPersonEvents("person.created", [id, ...dependentIds])
      return id
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
  return yield* personAnswer({ businessId: business.id, id, includeDeleted: false })
})

/**
 * person.* webhooks, one event per person, in the transaction of the change: the person as
 * desk `GET /people/:id` shows them (`{"people": [person]}`, deleted ones with `deleted_at`).
 */
export const emitPersonEvents = Effect.fn("People.emitWebhooks")(function* (
  topic: "person.created" | "person.updated" | "person.deleted" | "person.undeleted",
  ids: ReadonlyArray<number>
) {
  const business = yield* CurrentBusiness
  for (const id of ids) {
    yield* emitWebhookEvent(business.id, topic, personAnswer({ businessId: business.id, id, includeDeleted: true }))
  }
})

/** `dependent_ids`/`provider_ids` as ids: a form's lone `""` item stands for an empty list. */
const idList = (ids: ReadonlyArray<number | ""> | null | undefined): ReadonlyArray<number> | undefined =>
  ids === undefined || ids === null ? undefined : [...new Set(ids.filter((id): id is number => id !== ""))]

export const updatePerson = Effect.fn("People.update")(function* (id: number, input: PersonUpdateInput) {
  const business = yield* CurrentBusiness
  const repo = yield* PeopleRepo
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      const existing = yield* lockedPerson({ businessId: business.id, id, includeDeleted: false })
      const messages: Array<Message> = []
      const prepared = yield* prepareAttributes(business.id, input, { prefix: "", existing, claimedEmails: new Set() }, messages)

      const dependentIds = idList(input.dependent_ids)
      const providerIds = idList(input.provider_ids)
      const current = yield* repo.relationships({ businessId: business.id, ids: [id] })
      const currentProviders = current.filter((r) => r.dependent_id === id).map((r) => r.provider_id)
      const currentDependents = current.filter((r) => r.provider_id === id).map((r) => r.dependent_id)
      const providersAfter = providerIds ?? currentProviders
      const dependentsAfter = dependentIds ?? currentDependents
      const known = yield* repo.existingIds({ businessId: business.id, ids: [...(dependentIds ?? []), ...(providerIds ?? [])] })
      for (const [field, ids] of [["dependent_ids", dependentIds], ["provider_ids", providerIds]] as const) {
        if (ids === undefined) continue
        if (ids.includes(id)) messages.push(PeopleRefusals.personSelfRelationship.message({ field }))
        for (const other of ids) {
          if (other !== id && !known.has(other)) messages.push(PeopleRefusals.fieldIdNotFound.message({ field, id: other }))
        }
      }
      if (providerIds !== undefined && providerIds.length > 1) messages.push(PeopleRefusals.fieldSingleProvider.message({ field: "provider_ids" }))
      for (const other of dependentsAfter) {
        if (other !== id && providersAfter.includes(other)) messages.push(PeopleRefusals.personRelationshipBothWays.message({ id: other }))
      }
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)

      const names = {
        first_name: prepared.write.first_name ?? existing.first_name,
        last_name: prepared.write.last_name ?? existing.last_name
      }
      // A person without an account gets the one of their (new) address; an existing link stays.
      const accountId =
        existing.account_id === null && prepared.email !== null
          ? yield* linkAccount(business.id, prepared.email, names)
          : existing.account_id
      yield* repo.update({ businessId: business.id, id, write: { ...prepared.write, ...(accountId !== existing.account_id ? { account_id: accountId } : {}) } })
      yield* repo.writeCustomFieldValues({ businessId: business.id, id, values: prepared.customFields })
      if (prepared.barcodes !== undefined) yield* repo.replaceBarcodes({ businessId: business.id, id, barcodes: prepared.barcodes })
      const changed = [
        ...(dependentIds === undefined ? [] : yield* repo.replaceDependents({ businessId: business.id, providerId: id, ids: dependentIds })),
        ...(providerIds === undefined ? [] : yield* repo.setProvider({ businessId: business.id, dependentId: id, providerId: providerIds[0] ?? null }))
      ]
      // Their dependents[]/providers[] changed too: list clients syncing by updated_since see them.
      const others = [...new Set(changed)].filter((other) => other !== id)
      yield* repo.touch({ businessId: business.id, ids: others })
      yield* emitPersonEvents("person.updated", [id, ...others])
      if (prepared.sendInvite && prepared.email !== null && accountId !== null) yield* invite(accountId, prepared.email, names.first_name)
    })
  ).pipe(Effect.catchTag("SqlError", emailTaken))
  return yield* personAnswer({ businessId: business.id, id, includeDeleted: false })
})

/**
 * Soft delete (spec: 422 with one message per failed condition). The conditions that can be
 * checked: not yourself, not a staff member, no dependents, no future visits, no active plan
 * (current with visits left), no open invoice (open or on hold).
 */
export const deletePerson = Effect.fn("People.delete")(function* (id: number) {
  const staff = yield* requireManagerOrHigher
  const business = yield* CurrentBusiness
  const repo = yield* PeopleRepo
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* lockedPerson({ businessId: business.id, id, includeDeleted: false })
      const now = yield* Clock.currentTimeMillis
      const blockers = yield* repo.deleteBlockers({ businessId: business.id, id, today: localDateAt(now, business.time_zone) })
      const messages: Array<Message> = []
      if (staff.personId === id) messages.push(PeopleRefusals.personDeleteSelf.message())
      if (blockers.is_staff) messages.push(PeopleRefusals.personDeleteStaff.message())
      if (blockers.dependents > 0) messages.push(PeopleRefusals.personDeleteDependents.message({ count: blockers.dependents }))
      // Future visits: a place held in an occurrence that has not started (history stays).
      const futureVisits = yield* (yield* FutureVisits).count(business.id, id, new Date(now))
      if (futureVisits > 0) messages.push(PeopleRefusals.personDeleteFutureVisits.message({ count: futureVisits }))
      // Active plans: current with visits left (the plan rules' `active`), today business-local.
      if (blockers.active_plans.length > 0) {
        messages.push(PeopleRefusals.personDeleteActivePlans.message({ names: blockers.active_plans.join(", ") }))
      }
      // Open invoices (spec): issued and not settled, open or on hold, the person paying.
      if (blockers.open_invoices.length > 0) {
        messages.push(PeopleRefusals.personDeleteOpenInvoices.message({ numbers: blockers.open_invoices.join(", ") }))
      }
      if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
      yield* repo.softDelete({ businessId: business.id, id })
      yield* emitPersonEvents("person.deleted", [id])
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
})

/**
 * Restores a deleted person (PUT /desk/people/:id/undelete; the spec names the person.undeleted
 * topic but no operation): managers and owners, as delete. 404 for an unknown person, 422 for
 * a live one or when their e-mail address now belongs to another live person; person.undeleted
 * goes out in the same transaction.
 */
export const undeletePerson = Effect.fn("People.undelete")(function* (id: number) {
  yield* requireManagerOrHigher
  const business = yield* CurrentBusiness
  const repo = yield* PeopleRepo
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      const existing = yield* lockedPerson({ businessId: business.id, id, includeDeleted: true })
      if (existing.deleted_at === null) return yield* PeopleRefusals.personNotDeleted.fail({ id })
      yield* repo.restore({ businessId: business.id, id })
      yield* emitPersonEvents("person.undeleted", [id])
    })
  ).pipe(Effect.catchTag("SqlError", emailTaken))
  return yield* personAnswer({ businessId: business.id, id, includeDeleted: false })
})

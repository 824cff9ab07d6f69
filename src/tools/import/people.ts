import { Effect } from "effect"
import { maskNumber } from "../../billing/forms-of-payment/model.ts"
import type { ImportDocument } from "./model.ts"
import type { ImportFormOfPayment, ImportWaiver } from "./records.ts"
import { ImportRepo } from "./repo.ts"
import type { FormOfPaymentInsert, PersonInsert, RelationshipInsert, StaffMemberInsert, WaiverInsert } from "./rows.ts"

/**
 * The people part of an import: accounts (linked by e-mail, created when new), staff, clients
 * and their dependents with the ids reserved up front, and what hangs off a person (waivers,
 * ACH forms of payment, provider/dependent relationships). Runs inside the import's transaction.
 */

export interface PersonSource {
  readonly email?: string
  readonly first_name: string
  readonly last_name: string
  readonly password?: string
}

export const everyPerson = (doc: ImportDocument): ReadonlyArray<PersonSource> => [
  ...(doc.staff ?? []),
  ...(doc.clients ?? []).flatMap((client) => [client, ...(client.dependents ?? [])])
]

type PersonFields = PersonSource & {
  readonly middle_name?: string
  readonly phone?: string
  readonly birthdate?: string
  readonly is_member?: boolean
  readonly location?: string
}

/** How rows refer to what was written before them: the business, its locations, the people's accounts. */
interface RowContext {
  readonly businessId: number
  readonly locationIds: ReadonlyMap<string, number>
  readonly accountId: (email: string | undefined) => number | null
}

const personRow = (context: RowContext, id: number, source: PersonFields): PersonInsert => ({
  business_id: context.businessId,
  id,
  account_id: context.accountId(source.email),
  first_name: source.first_name.trim(),
  middle_name: source.middle_name?.trim() || null,
  last_name: source.last_name.trim(),
  email: source.email ?? null,
  phone: source.phone ?? null,
  birthdate: source.birthdate ?? null,
  is_member: source.is_member ?? false,
  location_id: source.location === undefined ? null : context.locationIds.get(source.location)!
})

/** ACH accounts, numbers masked here; the person's default is the one marked autobill, else the first. */
const formOfPaymentRows = (
  businessId: number,
  personId: number,
  source: { readonly first_name: string; readonly last_name: string; readonly forms_of_payment?: ReadonlyArray<ImportFormOfPayment> }
): Array<FormOfPaymentInsert> => {
  const forms = source.forms_of_payment ?? []
  const chosen = Math.max(0, forms.findIndex((form) => form.autobill === true))
  return forms.map((form, index) => ({
    business_id: businessId,
    person_id: personId,
    type: "ach",
    first_name: (form.first_name ?? source.first_name).trim(),
    last_name: (form.last_name ?? source.last_name).trim(),
    autobill: index === chosen,
    account_name: form.account_name.trim(),
    account_type: form.account_type,
    account_holder_type: form.account_holder_type,
    account_number_masked: maskNumber(form.account_number),
    routing_number_masked: maskNumber(form.routing_number)
  }))
}

/** A guardian waiver a dependent accepted was signed by their provider. */
const waiverRows = (
  businessId: number,
  personId: number,
  source: { readonly waivers?: ReadonlyArray<ImportWaiver> },
  providerId: number | null
): Array<WaiverInsert> =>
  (source.waivers ?? []).map((waiver) => {
    const type = waiver.type ?? "Waiver"
    const accepted = waiver.accepted ?? false
    return {
      business_id: businessId,
      person_id: personId,
      name: waiver.name.trim(),
      type,
      signer_id: accepted ? (type === "GuardianWaiver" && providerId !== null ? providerId : personId) : null,
      signing_url: waiver.signing_url ?? null,
      accepted
    }
  })

/** Every row of the people part, ids taken from `ids` in document order: staff, then each client and their dependents. */
const peopleRows = (doc: ImportDocument, context: RowContext, ids: Array<number>) => {
  const { businessId } = context
  const nextId = () => ids.shift()!
  const rows = {
    people: [] as Array<PersonInsert>,
    staffMembers: [] as Array<StaffMemberInsert>,
    relationships: [] as Array<RelationshipInsert>,
    waivers: [] as Array<WaiverInsert>,
    formsOfPayment: [] as Array<FormOfPaymentInsert>
  }
  for (const member of doc.staff ?? []) {
    const id = nextId()
    rows.people.push(personRow(context, id, member))
    rows.staffMembers.push({
      business_id: businessId,
      person_id: id,
      role: member.role,
      bio: member.bio ?? null,
      hidden_in_client_mode: member.hidden_in_client_mode ?? false
    })
  }
  for (const client of doc.clients ?? []) {
    const providerId = nextId()
    rows.people.push(personRow(context, providerId, client))
    rows.waivers.push(...waiverRows(businessId, providerId, client, null))
    rows.formsOfPayment.push(...formOfPaymentRows(businessId, providerId, client))
    for (const dependent of client.dependents ?? []) {
      const dependentId = nextId()
      rows.people.push(personRow(context, dependentId, dependent))
      rows.waivers.push(...waiverRows(businessId, dependentId, dependent, providerId))
      rows.formsOfPayment.push(...formOfPaymentRows(businessId, dependentId, dependent))
      rows.relationships.push({ business_id: businessId, provider_id: providerId, dependent_id: dependentId })
    }
  }
  return rows
}

export const writePeople = Effect.fn("Import.writePeople")(function* (
  doc: ImportDocument,
  context: { readonly businessId: number; readonly locationIds: ReadonlyMap<string, number>; readonly hashes: ReadonlyMap<string, string> }
) {
  const repo = yield* ImportRepo
  const { businessId, locationIds, hashes } = context
  const withEmail = everyPerson(doc).filter((person): person is PersonSource & { readonly email: string } => person.email !== undefined)
  const accounts = yield* repo.upsertAccounts(
    withEmail.map((person) => ({
      email: person.email,
      first_name: person.first_name.trim(),
      last_name: person.last_name.trim(),
      password_hash: hashes.get(person.email.toLowerCase()) ?? null
    }))
  )
  const accountId = (email: string | undefined) => (email === undefined ? null : accounts.get(email.toLowerCase())!.id)

  const staff = doc.staff ?? []
  const clients = doc.clients ?? []
  const dependentCount = clients.reduce((n, client) => n + (client.dependents?.length ?? 0), 0)
  const ids = [...(yield* repo.reservePersonIds({ count: staff.length + clients.length + dependentCount }))]
  const { people, staffMembers, relationships, waivers, formsOfPayment } = peopleRows(doc, { businessId, locationIds, accountId }, ids)
  yield* repo.insertPeople(people)
  yield* repo.insertStaffMembers(staffMembers)
  yield* repo.insertRelationships(relationships)
  yield* repo.insertWaivers(waivers)
  yield* repo.insertFormsOfPayment(formsOfPayment)

  const created = [...accounts.values()].filter((account) => account.inserted).length
  return {
    personIdsByEmail: new Map(people.flatMap((row) => (row.email === null ? [] : [[row.email.toLowerCase(), row.id] as const]))),
    counts: {
      /** In the summary's order: before the schedule's counts... */
      people: {
        staff: staff.length,
        clients: clients.length,
        dependents: dependentCount,
        accounts_created: created,
        accounts_linked: accounts.size - created
      },
      /** ...and after them. */
      attached: { waivers: waivers.length, forms_of_payment: formsOfPayment.length }
    }
  }
})

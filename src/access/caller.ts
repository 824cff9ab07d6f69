import { Effect, Schema } from "effect"
import { CurrentStaff } from "./access.ts"
import { STAFF_ROLES } from "./tokens.ts"

/**
 * Who is calling a domain function, the one answer every domain reads (spec, Authentication:
 * staff mode and client mode):
 * - `Staff`: a staff member of the business (desk), with the role the staff policies check.
 * - `Client`: a person in client mode (front), with whom they may act for (their household: the
 *   person first, then their live dependents) and whether they are a member today (members see
 *   members-only services).
 * - `Visitor`: client mode without a person here (a `client_id`-only call, or an account with no
 *   person in this business): sees what anyone may see and acts for nobody.
 * Schemas, so a repo's statement can take what the caller may see (`CallerView`) in its request.
 * The desk constructor is below; the client-mode ones need people and plans, so they sit with
 * the catalog (src/catalog/services/callers.ts).
 */
export const StaffCaller = Schema.TaggedStruct("Staff", {
  staffMemberId: Schema.Number,
  accountId: Schema.Number,
  role: Schema.Literals(STAFF_ROLES)
})
export const ClientCaller = Schema.TaggedStruct("Client", {
  personId: Schema.Number,
  household: Schema.Array(Schema.Number),
  isMember: Schema.Boolean
})
export type ClientCaller = typeof ClientCaller.Type
export const VisitorCaller = Schema.TaggedStruct("Visitor", {})

export const Caller = Schema.Union([StaffCaller, ClientCaller, VisitorCaller])
export type Caller = typeof Caller.Type
/** A caller in client mode, with or without a person. */
export type FrontCaller = Exclude<Caller, { readonly _tag: "Staff" }>

/**
 * What a read shows its caller, the scope a repo's statement takes: what a client-mode caller
 * may see, or everything (`Staff`: staff mode, and jobs that answer as staff mode does). Every
 * `Caller` is one, so a domain function passes its caller down as it is.
 */
export const CallerView = Schema.Union([ClientCaller, VisitorCaller, Schema.TaggedStruct("Staff", {})])
export type CallerView = typeof CallerView.Type
export const staffView: CallerView = { _tag: "Staff" }

/** Staff mode: the staff member the desk middleware (`DeskAccess`) let in. */
export const staffCaller = Effect.gen(function* () {
  const staff = yield* CurrentStaff
  return { _tag: "Staff", staffMemberId: staff.staffMemberId, accountId: staff.accountId, role: staff.role } satisfies Caller as Caller
})

// Small derivations, so each domain reads what it needs rather than matching on tags itself.

/** Client mode (a person or a visitor) sees only what the business shows clients. */
export const isFrontCaller = (caller: CallerView): caller is FrontCaller => caller._tag !== "Staff"

/** The client's own person; null for staff and visitors. */
export const personOf = (caller: CallerView): number | null => (caller._tag === "Client" ? caller.personId : null)

/** Whom a client may act for: their person, then their live dependents; nobody for staff and visitors. */
export const householdOf = (caller: CallerView): ReadonlyArray<number> => (caller._tag === "Client" ? caller.household : [])

/** Members-only services show to members; a visitor is nobody's member. */
export const isMemberOf = (caller: FrontCaller): boolean => caller._tag === "Client" && caller.isMember

/** The mode's segment of an API path (`/api/v2/front/...`, `/api/v2/desk/...`). */
export const pathModeOf = (caller: Caller) => (caller._tag === "Staff" ? ("desk" as const) : ("front" as const))
export type PathMode = ReturnType<typeof pathModeOf>

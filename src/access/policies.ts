import { Effect } from "effect"
import { Forbidden, type Message, fail } from "../shared/errors.ts"
import { CurrentStaff } from "./access.ts"
import type { StaffRole } from "./tokens.ts"
import { AccessRefusals } from "./refusals.ts"

/**
 * Staff policies: each action names the one it needs, and a refusal is a 403 with a message
 * saying who may do it (translated like every `errors` message).
 */
const rank: Record<StaffRole, number> = {
  primary_owner: 5,
  owner: 4,
  manager: 3,
  standard: 2,
  limited: 1,
  demoted: 0
}

export const isOwner = (role: StaffRole) => rank[role] >= rank.owner
export const isManagerOrHigher = (role: StaffRole) => rank[role] >= rank.manager

/** Owners and the primary owner. */
export const requireOwner = Effect.gen(function* () {
  const staff = yield* CurrentStaff
  if (!isOwner(staff.role)) return yield* AccessRefusals.ownerRequired.fail()
  return staff
})

/** Managers, owners and the primary owner. */
export const requireManagerOrHigher = Effect.gen(function* () {
  const staff = yield* CurrentStaff
  yield* requireManagerRole(staff.role)
  return staff
})

/**
 * The manager rule for a role already in hand: code both modes share (invoice writes) decides on
 * the locked record whether a change needs a manager, and the desk caller carries its role there.
 * `message` may say why this change needs one.
 */
export const requireManagerRole = (role: StaffRole, message: Message = AccessRefusals.managerRequired.message()) =>
  isManagerOrHigher(role) ? Effect.void : fail(Forbidden, message)

/** The record's author (by person id), or a manager or higher. */
export const requireAuthorOrManager = (authorPersonId: number | null) =>
  Effect.gen(function* () {
    const staff = yield* CurrentStaff
    if (staff.personId !== authorPersonId && !isManagerOrHigher(staff.role)) {
      return yield* AccessRefusals.authorOrManagerRequired.fail()
    }
    return staff
  })

/** Standard staff, managers, owners and the primary owner (not limited or demoted staff). */
export const requireStandardOrHigher = Effect.gen(function* () {
  const staff = yield* CurrentStaff
  if (rank[staff.role] < rank.standard) return yield* AccessRefusals.standardStaffRequired.fail()
  return staff
})

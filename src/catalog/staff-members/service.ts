import { Effect } from "effect"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { type Page, pageLinks, pageOf } from "../../shared/pagination.ts"
import type { StaffMemberDesk, StaffMemberRef, StaffMemberRow, StaffRefRow } from "./model.ts"
import { type StaffScope, StaffMembersRepo } from "./repo.ts"
import { StaffMemberRefusals } from "./refusals.ts"

/** A studio's staff fits one page of 100. */
export const STAFF_PER_PAGE = 100

export const staffName = (row: { readonly first_name: string; readonly last_name: string }) =>
  `${row.first_name} ${row.last_name}`.trim()

/** The staff of an event or occurrence as its record shows them; client mode leaves out the hidden ones. */
export const staffRefs = (staff: ReadonlyArray<StaffRefRow>, options: { readonly clientMode: boolean }): Array<StaffMemberRef> =>
  staff.filter((member) => !(options.clientMode && member.hidden)).map((member) => ({ id: member.id, name: staffName(member) }))

/** Photos are stored once; the sizes are the same image with a `size` hint (as for people and logos). */
const sized = (url: string, size: string) => `${url}${url.includes("?") ? "&" : "?"}size=${size}`
const profilePhoto = (url: string | null): StaffMemberDesk["profile_photo"] =>
  url === null
    ? null
    : { x50: sized(url, "50x50"), x50_2x: sized(url, "100x100"), x75: sized(url, "75x75"), x75_2x: sized(url, "150x150"), full: url }

const toWire = (row: StaffMemberRow): StaffMemberDesk => ({
  id: row.id,
  name: staffName(row),
  first_name: row.first_name,
  middle_name: row.middle_name,
  last_name: row.last_name,
  bio: row.bio,
  profile_photo: profilePhoto(row.profile_photo_url),
  phone: row.phone,
  email: row.email,
  role: row.role,
  person_id: row.person_id,
  hidden_in_client_mode: row.hidden_in_client_mode
})

export const staffRef = (row: { readonly id: number; readonly first_name: string; readonly last_name: string }): StaffMemberRef => ({
  id: row.id,
  name: staffName(row)
})

/** The response schema of each mode drops what that mode does not show. */
export const listStaffMembers = Effect.fn("StaffMembers.list")(function* (
  query: { readonly page?: number | undefined; readonly per_page?: number | undefined },
  scope: StaffScope
) {
  const business = yield* CurrentBusiness
  const page: Page = pageOf(query, STAFF_PER_PAGE)
  const { rows, total } = yield* (yield* StaffMembersRepo).list({ businessId: business.id, scope, page })
  return { staff_members: rows.map(toWire), ...(yield* pageLinks(page, total)) }
})

/** One staff member; in client mode a hidden one is not found (spec: 404 if hidden). */
export const getStaffMember = Effect.fn("StaffMembers.get")(function* (id: number, scope: StaffScope) {
  const business = yield* CurrentBusiness
  const [row] = yield* (yield* StaffMembersRepo).findMany({ businessId: business.id, ids: [id], scope })
  if (!row) return yield* StaffMemberRefusals.staffMemberNotFound.fail({ id })
  return { staff_members: [toWire(row)] }
})

/** The calling staff member (desk `me`). */
export const getCurrentStaffMember = CurrentStaff.use((staff) => getStaffMember(staff.staffMemberId, { clientVisibleOnly: false }))

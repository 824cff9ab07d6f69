import type pg from "pg"
import { createEvent } from "../../src/schedule/events/service.ts"
import type { EventInput } from "../../src/schedule/events/model.ts"
import { materializeEvent } from "../../src/schedule/event-occurrences/materialize.ts"
import { createAppointment } from "../../src/schedule/event-occurrences/service.ts"
import type { TestServer } from "../support/server.ts"

/** Schedule rows for the schedule tests: services and hours straight to SQL, events through the service. */

export const createService = async (
  pool: pg.Pool,
  businessId: number,
  fields: {
    type: "Appointment" | "GroupClass" | "Course"
    name: string
    duration_in_minutes?: number
    visibility?: "Everyone" | "Members" | "Staff"
    hidden?: boolean
    online_booking?: boolean
    clients_can_book?: boolean
    members_can_book?: boolean
    client_purchase_disabled?: boolean
    require_cc?: boolean
    require_plan?: boolean
    enrollment_window_blackout_minutes?: number
    booking_window_days?: number | null
    maximum_clients?: number | null
    position?: number
    category_id?: number | null
    drop_in_price_cents?: number | null
    staff_member_ids?: Array<number>
  }
) => {
  const { rows } = await pool.query(
    `insert into services (business_id, type, name, duration_in_minutes, visibility, hidden_at, online_booking,
       clients_can_book, members_can_book, client_purchase_disabled, require_cc, require_plan,
       enrollment_window_blackout_minutes, booking_window_days, maximum_clients, position, category_id, drop_in_price_cents)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) returning id`,
    [
      businessId,
      fields.type,
      fields.name,
      fields.duration_in_minutes ?? 60,
      fields.visibility ?? "Everyone",
      fields.hidden ? new Date("2026-01-01T00:00:00Z") : null,
      fields.online_booking ?? true,
      fields.clients_can_book ?? true,
      fields.members_can_book ?? true,
      fields.client_purchase_disabled ?? false,
      fields.require_cc ?? false,
      fields.require_plan ?? false,
      fields.enrollment_window_blackout_minutes ?? 0,
      fields.booking_window_days ?? null,
      fields.maximum_clients === undefined ? (fields.type === "Appointment" ? 1 : 10) : fields.maximum_clients,
      fields.position ?? 0,
      fields.category_id ?? null,
      fields.drop_in_price_cents ?? null
    ]
  )
  const id = Number(rows[0].id)
  for (const staffMemberId of fields.staff_member_ids ?? []) {
    await pool.query(`insert into service_staff_members (business_id, service_id, staff_member_id) values ($1, $2, $3)`, [
      businessId,
      id,
      staffMemberId
    ])
  }
  return id
}

export const createCategory = async (pool: pg.Pool, businessId: number, name: string, position = 0) => {
  const { rows } = await pool.query(
    `insert into service_categories (business_id, name, position, description) values ($1, $2, $3, 'About ' || $2) returning id`,
    [businessId, name, position]
  )
  return Number(rows[0].id)
}

export const setStaffHidden = (pool: pg.Pool, businessId: number, staffMemberId: number, hidden = true) =>
  pool.query(`update staff_members set hidden_in_client_mode = $3 where business_id = $1 and id = $2`, [businessId, staffMemberId, hidden])

/** Weekly hours: weekday 0 = Sunday; times HH:MM local to the location. */
export const addWorkingHours = (
  pool: pg.Pool,
  businessId: number,
  staffMemberId: number,
  locationId: number,
  weekday: number,
  start: string,
  end: string
) =>
  pool.query(
    `insert into staff_working_hours (business_id, staff_member_id, location_id, weekday, start_time, end_time)
     values ($1, $2, $3, $4, $5, $6)`,
    [businessId, staffMemberId, locationId, weekday, start, end]
  )

/** An event created through the service (as the import does), then materialized at the server's clock. */
export const scheduleEvent = async (server: TestServer, businessId: number, input: EventInput) => {
  const id = await server.runtime.runPromise(createEvent(businessId, input))
  await server.runtime.runPromise(materializeEvent(businessId, id))
  return id
}

export const materialize = (server: TestServer, businessId: number, eventId: number) =>
  server.runtime.runPromise(materializeEvent(businessId, eventId))

export const bookAppointment = (server: TestServer, businessId: number, appointment: Parameters<typeof createAppointment>[1]) =>
  server.runtime.runPromise(createAppointment(businessId, appointment))

/** The event's occurrences by scheduled date: id, start, end, state. */
export const occurrencesOf = async (pool: pg.Pool, businessId: number, eventId: number) => {
  const { rows } = await pool.query(
    `select id, scheduled_date::text as date, start_at, end_at, state from event_occurrences
     where business_id = $1 and event_id = $2 order by scheduled_date`,
    [businessId, eventId]
  )
  return rows.map((row: { id: string; date: string; start_at: Date; end_at: Date; state: string }) => ({
    id: Number(row.id),
    date: row.date,
    start_at: row.start_at.toISOString().replace(".000Z", "Z"),
    end_at: row.end_at.toISOString().replace(".000Z", "Z"),
    state: row.state
  }))
}

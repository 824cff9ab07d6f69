import type pg from "pg"

/** Schedule and pay-rate rows for the staff pay tests, straight to SQL (the spec has no endpoint for rates). */

export const createOccurrence = async (
  pool: pg.Pool,
  businessId: number,
  fields: { serviceId: number; start: string; minutes: number; staff: ReadonlyArray<number>; timeZone?: string; state?: string }
) => {
  const start = new Date(fields.start)
  const { rows } = await pool.query(
    `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone, state)
     values ($1, $2, 'Session', $3, $4, $5, $6) returning id`,
    [businessId, fields.serviceId, start, new Date(start.getTime() + fields.minutes * 60_000), fields.timeZone ?? "America/Los_Angeles", fields.state ?? "active"]
  )
  const id = Number(rows[0].id)
  for (const [position, staffId] of fields.staff.entries()) {
    await pool.query(
      `insert into event_occurrence_staff_members (business_id, event_occurrence_id, staff_member_id, position) values ($1, $2, $3, $4)`,
      [businessId, id, staffId, position]
    )
  }
  return id
}

export const addVisits = async (pool: pg.Pool, businessId: number, occurrenceId: number, personIds: ReadonlyArray<number>, state = "completed") => {
  for (const personId of personIds) {
    await pool.query(`insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, $4)`, [businessId, occurrenceId, personId, state])
  }
}

export const setRate = async (
  pool: pg.Pool,
  businessId: number,
  staffId: number,
  serviceId: number | null,
  rate: { base?: number; perHead?: number; minimum?: number; hourly?: number; tiers?: ReadonlyArray<readonly [number, number]> }
) => {
  const { rows } = await pool.query(
    `insert into pay_rates (business_id, staff_member_id, service_id, base_cents, per_head_cents, per_head_minimum, hourly_cents)
     values ($1, $2, $3, $4, $5, $6, $7) returning id`,
    [businessId, staffId, serviceId, rate.base ?? 0, rate.perHead ?? 0, rate.minimum ?? 0, rate.hourly ?? 0]
  )
  for (const [threshold, bonus] of rate.tiers ?? []) {
    await pool.query(`insert into pay_rate_tiers (business_id, pay_rate_id, attendance_threshold, bonus_cents) values ($1, $2, $3, $4)`, [
      businessId,
      rows[0].id,
      threshold,
      bonus
    ])
  }
}

export const paysOf = async (pool: pg.Pool, businessId: number) =>
  (
    await pool.query(
      `select id::int, pay_type, pay_state, staff_member_id::int, service_id::int, event_occurrence_id::int, invoice_id::int,
              base_cents::int, per_head_cents::int, tiered_cents::int, final_cents::int, service_hours::float8,
              pay_period_start::text, pay_period_end::text
         from pays where business_id = $1 order by id`,
      [businessId]
    )
  ).rows

/** Polls until `check` holds (jobs run on the test server's worker), failing after `ms`. */
export const eventually = async <T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 20_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (check(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

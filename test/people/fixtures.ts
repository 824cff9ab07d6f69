import type pg from "pg"

/** People-specific rows for the people tests, written straight to the test database. */

/** A person without an account (a child, say), optionally a dependent of `providerId`. */
export const createDependent = async (
  pool: pg.Pool,
  businessId: number,
  providerId: number | null,
  fields: Partial<{ first_name: string; last_name: string; email: string; birthdate: string }> = {}
) => {
  const { rows } = await pool.query(
    `insert into people (business_id, first_name, last_name, email, birthdate) values ($1, $2, $3, $4, $5) returning id`,
    [businessId, fields.first_name ?? "Kid", fields.last_name ?? "Lovelace", fields.email ?? null, fields.birthdate ?? null]
  )
  const id = Number(rows[0].id)
  if (providerId !== null) {
    await pool.query(`insert into person_relationships (business_id, provider_id, dependent_id) values ($1, $2, $3)`, [
      businessId,
      providerId,
      id
    ])
  }
  return id
}

export const setTextValue = (pool: pg.Pool, businessId: number, personId: number, fieldId: number, value: string) =>
  pool.query(
    `insert into person_custom_field_values (business_id, person_id, custom_field_id, text_value) values ($1, $2, $3, $4)`,
    [businessId, personId, fieldId, value]
  )

export const setBooleanValue = (pool: pg.Pool, businessId: number, personId: number, fieldId: number, value: boolean) =>
  pool.query(
    `insert into person_custom_field_values (business_id, person_id, custom_field_id, boolean_value) values ($1, $2, $3, $4)`,
    [businessId, personId, fieldId, value]
  )

export const optionIds = async (pool: pg.Pool, fieldId: number): Promise<Record<string, number>> => {
  const { rows } = await pool.query(`select id, value from custom_field_options where custom_field_id = $1 order by position`, [fieldId])
  return Object.fromEntries(rows.map((row: { id: string; value: string }) => [row.value, Number(row.id)]))
}

/** Pending jobs of a task in graphile-worker's queue. */
export const pendingJobs = async (pool: pg.Pool, task: string) => {
  const { rows } = await pool.query(
    `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = $1 order by j.id`,
    [task]
  )
  return rows.map((row: { payload: unknown }) => row.payload)
}

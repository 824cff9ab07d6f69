import type pg from "pg"
import { generateToken, hashToken, type StaffRole } from "../../src/access/tokens.ts"

/** Rows for tests, written straight to the test database. Each returns what tests need. */
export const createBusiness = async (
  pool: pg.Pool,
  fields: Partial<{
    subdomain: string
    name: string
    time_zone: string
    currency_code: string
    default_locale: string
    franchise_parent_id: number
    website: string
  }> = {}
) => {
  const subdomain = fields.subdomain ?? `b${Math.random().toString(36).slice(2, 10)}`
  const { rows } = await pool.query(
    `insert into businesses (subdomain, name, time_zone, currency_code, default_locale, franchise_parent_id, website)
     values ($1, $2, $3, $4, $5, $6, $7) returning id`,
    [
      subdomain,
      fields.name ?? `Studio ${subdomain}`,
      fields.time_zone ?? "America/Los_Angeles",
      fields.currency_code ?? "USD",
      fields.default_locale ?? "en",
      fields.franchise_parent_id ?? null,
      fields.website ?? null
    ]
  )
  return { id: Number(rows[0].id), subdomain }
}

export const createLocation = async (
  pool: pg.Pool,
  businessId: number,
  fields: Partial<{ name: string; slug: string; time_zone: string; show_in_client_mode: boolean; position: number }> = {}
) => {
  const name = fields.name ?? `Location ${Math.random().toString(36).slice(2, 7)}`
  const { rows } = await pool.query(
    `insert into locations (business_id, name, slug, time_zone, show_in_client_mode, position, address, latitude, longitude)
     values ($1, $2, $3, $4, $5, $6, '1 Main St', 37.77, -122.42) returning id`,
    [
      businessId,
      name,
      fields.slug ?? name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
      fields.time_zone ?? "America/Los_Angeles",
      fields.show_in_client_mode ?? true,
      fields.position ?? 0
    ]
  )
  return { id: Number(rows[0].id), name }
}

/** An account and its person in a business; with `role`, also a staff member. */
export const createPerson = async (
  pool: pg.Pool,
  businessId: number,
  fields: Partial<{ email: string; first_name: string; last_name: string; role: StaffRole }> = {}
) => {
  // Digits only: a random address must not contain the letters a search test looks for ("ada").
  const email = fields.email ?? `${Math.random().toString().slice(2, 14)}@example.test`
  const account = await pool.query(
    `insert into accounts (email, first_name, last_name) values ($1, $2, $3)
     on conflict (email) do update set updated_at = now() returning id`,
    [email, fields.first_name ?? "Ada", fields.last_name ?? "Lovelace"]
  )
  const accountId = Number(account.rows[0].id)
  const person = await pool.query(
    `insert into people (business_id, account_id, first_name, last_name, email) values ($1, $2, $3, $4, $5) returning id`,
    [businessId, accountId, fields.first_name ?? "Ada", fields.last_name ?? "Lovelace", email]
  )
  const personId = Number(person.rows[0].id)
  let staffMemberId: number | undefined
  if (fields.role) {
    const staff = await pool.query(
      `insert into staff_members (business_id, person_id, role) values ($1, $2, $3) returning id`,
      [businessId, personId, fields.role]
    )
    staffMemberId = Number(staff.rows[0].id)
  }
  return { accountId, personId, staffMemberId, email }
}

/** A plain token for an account; `businessId` null makes it account-wide. */
export const createToken = async (pool: pg.Pool, accountId: number, businessId: number | null) => {
  const token = generateToken()
  await pool.query(`insert into access_tokens (token_hash, account_id, business_id) values ($1, $2, $3)`, [
    hashToken(token),
    accountId,
    businessId
  ])
  return token
}

export const createApplication = async (pool: pg.Pool, clientId = "test-app") => {
  await pool.query(
    `insert into oauth_applications (client_id, name, redirect_uri) values ($1, 'Test app', 'http://localhost/callback')
     on conflict (client_id) do nothing`,
    [clientId]
  )
  return clientId
}

export const createCustomField = async (
  pool: pg.Pool,
  businessId: number,
  fields: { name: string; data_type: "select" | "text" | "boolean"; multi_select?: boolean; hidden?: boolean; options?: Array<string>; position?: number }
) => {
  const { rows } = await pool.query(
    `insert into custom_fields (business_id, name, why, data_type, multi_select, hidden_in_client_mode, position)
     values ($1, $2, 'We ask because we care', $3, $4, $5, $6) returning id`,
    [businessId, fields.name, fields.data_type, fields.multi_select ?? false, fields.hidden ?? false, fields.position ?? 0]
  )
  const id = Number(rows[0].id)
  for (const [i, value] of (fields.options ?? []).entries()) {
    await pool.query(
      `insert into custom_field_options (business_id, custom_field_id, value, position) values ($1, $2, $3, $4)`,
      [businessId, id, value, i]
    )
  }
  return { id }
}

import type pg from "pg"

/**
 * Catalog and plan rows for tests, written straight to the test database (sql/migrations/0011).
 * Tests of an endpoint create what they test through HTTP; these set up the surroundings.
 */
export type PlanProductKind = "membership" | "prepaid" | "pack" | "single_visit_pass"

export const createRevenueCategory = async (pool: pg.Pool, businessId: number, name = `Category ${Math.random().toString(36).slice(2, 7)}`) => {
  const { rows } = await pool.query(`insert into revenue_categories (business_id, name) values ($1, $2) returning id`, [businessId, name])
  return { id: Number(rows[0].id), name }
}

export const createPlanProduct = async (
  pool: pg.Pool,
  businessId: number,
  fields: Partial<{
    kind: PlanProductKind
    name: string
    price_cents: number
    visibility: "Everyone" | "Members" | "Staff" | "New clients"
    count: number | null
    limit_period: "week" | "month" | "year" | null
    commitment_length: number | null
    commitment_unit: "day" | "week" | "month" | "year" | null
    invoice_interval_count: number | null
    invoice_interval_unit: "weekly" | "monthly" | "yearly" | null
    location_id: number | null
    consider_member: boolean
    revenue_category_id: number | null
    service_ids: ReadonlyArray<number>
  }> = {}
) => {
  const kind = fields.kind ?? "pack"
  const recurring = kind === "membership"
  const { rows } = await pool.query(
    `insert into plan_products (business_id, kind, name, price_cents, visibility, count, limit_period, commitment_length,
       commitment_unit, invoice_interval_count, invoice_interval_unit, location_id, consider_member, revenue_category_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) returning id`,
    [
      businessId,
      kind,
      fields.name ?? `${kind} ${Math.random().toString(36).slice(2, 7)}`,
      fields.price_cents ?? 5000,
      fields.visibility ?? "Everyone",
      fields.count !== undefined ? fields.count : kind === "single_visit_pass" ? 1 : recurring ? null : 5,
      fields.limit_period ?? null,
      fields.commitment_length !== undefined ? fields.commitment_length : 3,
      fields.commitment_unit !== undefined ? fields.commitment_unit : "month",
      fields.invoice_interval_count !== undefined ? fields.invoice_interval_count : recurring ? 1 : null,
      fields.invoice_interval_unit !== undefined ? fields.invoice_interval_unit : recurring ? "monthly" : null,
      fields.location_id ?? null,
      fields.consider_member ?? recurring,
      fields.revenue_category_id ?? null
    ]
  )
  const id = Number(rows[0].id)
  for (const serviceId of fields.service_ids ?? []) {
    await pool.query(`insert into plan_product_services (business_id, plan_product_id, service_id) values ($1, $2, $3)`, [businessId, id, serviceId])
  }
  return { id, kind }
}

/** A person plan of `planProductId` held by `personIds` (the first is the primary participant). */
export const createPlan = async (
  pool: pg.Pool,
  businessId: number,
  planProductId: number,
  personIds: ReadonlyArray<number>,
  fields: Partial<{
    type: "Pack" | "Membership" | "Prepaid"
    name: string
    price_cents: number
    count: number | null
    limit_period: "week" | "month" | "year" | null
    consider_member: boolean
    visits_shared: boolean
    start_date: string
    end_date: string | null
    staff_member_id: number | null
    location_id: number | null
    deactivated_at: Date | null
  }> = {}
) => {
  const { rows } = await pool.query(
    `insert into plans (business_id, plan_product_id, type, name, price_cents, count, limit_period, consider_member,
       visits_shared, start_date, end_date, staff_member_id, location_id, deactivated_at)
     select $1, p.id, coalesce($3, case p.kind when 'membership' then 'Membership' when 'prepaid' then 'Prepaid' else 'Pack' end),
       coalesce($4, p.name), coalesce($5, p.price_cents), case when $15 then $6 else p.count end, case when $16 then $7 else p.limit_period end,
       coalesce($8, p.consider_member), coalesce($9, true), coalesce($10::date, current_date), $11::date, $12, $13, $14
     from plan_products p where p.business_id = $1 and p.id = $2 returning id`,
    [
      businessId,
      planProductId,
      fields.type ?? null,
      fields.name ?? null,
      fields.price_cents ?? null,
      fields.count ?? null,
      fields.limit_period ?? null,
      fields.consider_member ?? null,
      fields.visits_shared ?? (personIds.length > 1 ? false : true),
      fields.start_date ?? null,
      fields.end_date ?? null,
      fields.staff_member_id ?? null,
      fields.location_id ?? null,
      fields.deactivated_at ?? null,
      fields.count !== undefined,
      fields.limit_period !== undefined
    ]
  )
  const id = Number(rows[0].id)
  for (const [index, personId] of personIds.entries()) {
    await pool.query(`insert into plan_people (business_id, plan_id, person_id, is_primary) values ($1, $2, $3, $4)`, [
      businessId,
      id,
      personId,
      index === 0
    ])
  }
  return { id }
}

export const createHold = async (pool: pg.Pool, businessId: number, planId: number, startDate: string, endDate: string | null = null) => {
  const { rows } = await pool.query(
    `insert into plan_holds (business_id, plan_id, start_date, end_date) values ($1, $2, $3, $4) returning id`,
    [businessId, planId, startDate, endDate]
  )
  return { id: Number(rows[0].id) }
}

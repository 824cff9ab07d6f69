/**
 * The queries of `npm run bench:reports`, as lists: each one asked of our endpoint (and of the
 * store directly, raw) and the same question asked of PostgreSQL over the Core API's tables,
 * `$1` = business id, `$2` = now. A query's `setup` runs on PostgreSQL once before any timing:
 * the index PostgreSQL would want for it where the Core API has none (said in its comment).
 */
export interface BenchQuery {
  readonly name: string
  readonly resource: string
  /** Grouped queries have the ≥ 10× target over PostgreSQL; a detail page "no slower than PostgreSQL". */
  readonly grouped: boolean
  readonly attributes: (now: Date) => unknown
  /** The same question on PostgreSQL, `$1` = business id, `$2` = now. */
  readonly postgres: string
  readonly setup?: ReadonlyArray<string>
}

const yearBefore = (now: Date) => new Date(now.getTime() - 365 * 86_400_000).toISOString()
const monthBefore = (now: Date) => new Date(now.getTime() - 30 * 86_400_000).toISOString()

/** The enrollments of one business as the Core API's tables hold them (visits, then waitlist entries still off the roster). */
const enrollmentsCte = `
  e as (
    select v.id as key, v.person_id, v.state, o.id as occurrence_id, o.start_at, o.time_zone
    from visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
    where v.business_id = $1
    union all
    select -w.id, w.person_id, case w.state when 'pending' then 'waiting' else w.state end, o.id, o.start_at, o.time_zone
    from waitlist_entries w join event_occurrences o on o.business_id = w.business_id and o.id = w.event_occurrence_id
    where w.business_id = $1 and w.state <> 'enrolled')`

export const SCHEDULING_QUERIES: ReadonlyArray<BenchQuery> = [
  {
    name: "enrollments by month",
    resource: "enrollments",
    grouped: true,
    attributes: () => ({
      fields: ["enrollment_count", "completed_enrollment_count", "person_count"],
      group: "service_month_start_date",
      sort: ["group_label+"],
      page: { limit: 500 }
    }),
    postgres: `with ${enrollmentsCte}
      select date_trunc('month', start_at at time zone time_zone)::date as month, count(*), count(*) filter (where state = 'completed'),
             count(distinct person_id)
      from e where $2::timestamptz is not null group by 1 order by 1 limit 501`
  },
  {
    name: "enrollments by instructor",
    resource: "enrollments",
    grouped: true,
    attributes: () => ({
      fields: ["completed_enrollment_count", "noshowed_enrollment_count", "late_canceled_enrollment_count"],
      group: "instructor_names",
      sort: ["completed_enrollment_count-"]
    }),
    postgres: `with ${enrollmentsCte},
      instructors as (
        select os.event_occurrence_id as id, string_agg(p.first_name || ' ' || p.last_name, ', ' order by os.position, sm.id) as names
        from event_occurrence_staff_members os
        join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
        join people p on p.business_id = sm.business_id and p.id = sm.person_id
        where os.business_id = $1 group by 1)
      select i.names, count(*) filter (where e.state = 'completed') as completed, count(*) filter (where e.state = 'noshowed'),
             count(*) filter (where e.state = 'late_canceled')
      from e left join instructors i on i.id = e.occurrence_id where $2::timestamptz is not null
      group by 1 order by completed desc limit 101`
  },
  {
    name: "visits by weekday, last 12 months",
    resource: "enrollments",
    grouped: true,
    attributes: (now) => ({
      fields: ["visit_count", "completed_enrollment_count"],
      group: "service_day",
      filter: ["btw", "start_at", yearBefore(now), now.toISOString()]
    }),
    postgres: `with ${enrollmentsCte}
      select extract(dow from start_at at time zone time_zone) as day, count(*) filter (where key > 0), count(*) filter (where state = 'completed')
      from e where start_at between $2::timestamptz - interval '365 days' and $2::timestamptz
      group by 1 order by 1 limit 101`
  },
  {
    name: "occurrences by service",
    resource: "event_occurrences",
    grouped: true,
    attributes: () => ({
      fields: ["event_occurrence_count", "total_capacity", "total_visit_count", "total_completed_enrollment_count"],
      group: "service_name"
    }),
    postgres: `select s.name, count(*), sum(o.capacity), sum(vc.visits), sum(vc.completed)
      from event_occurrences o
      join services s on s.business_id = o.business_id and s.id = o.service_id
      left join lateral (
        select count(*) as visits, count(*) filter (where v.state = 'completed') as completed
        from visits v where v.business_id = o.business_id and v.event_occurrence_id = o.id) vc on true
      where o.business_id = $1 and $2::timestamptz is not null
      group by 1 order by 1 limit 101`
  },
  {
    name: "latest completed visits (detail page)",
    resource: "enrollments",
    grouped: false,
    attributes: () => ({
      fields: ["full_name", "service_name", "start_at", "state"],
      filter: ["eq", "state", "completed"],
      sort: ["start_at-"]
    }),
    postgres: `select p.first_name || ' ' || p.last_name, s.name, o.start_at, v.state
      from visits v
      join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
      join services s on s.business_id = o.business_id and s.id = o.service_id
      join people p on p.business_id = v.business_id and p.id = v.person_id
      where v.business_id = $1 and v.state = 'completed' and $2::timestamptz is not null
      order by o.start_at desc, v.id desc limit 101`
  }
]

/**
 * An invoice's settled payments and refunds, as the invoices report reads them (settled only;
 * net paid = payments − refunds), for the reported states (carts are not reported).
 */
const invoiceMoneyCtes = `
  pay as (select invoice_id, sum(amount_cents) as settled from payments where business_id = $1 and state = 'settled' group by 1),
  ref as (select invoice_id, sum(amount_cents) as settled from refunds where business_id = $1 and state = 'settled' group by 1),
  inv as (
    select i.*, coalesce(pay.settled, 0) - coalesce(ref.settled, 0) as net_paid, coalesce(l.time_zone, b.time_zone) as zone
    from invoices i
    join businesses b on b.id = i.business_id
    left join locations l on l.business_id = i.business_id and l.id = i.location_id
    left join pay on pay.invoice_id = i.id
    left join ref on ref.invoice_id = i.id
    where i.business_id = $1 and i.state in ('canceled', 'closed', 'on_hold', 'open') and $2::timestamptz is not null)`

export const BILLING_QUERIES: ReadonlyArray<BenchQuery> = [
  {
    name: "invoices: net paid by closed month",
    resource: "invoices",
    grouped: true,
    attributes: () => ({
      fields: ["invoice_count", "total_expected_amount", "total_net_paid_amount", "total_refunds_amount"],
      group: "closed_month_start_date",
      sort: ["group_label+"],
      page: { limit: 500 }
    }),
    postgres: `with ${invoiceMoneyCtes}
      select date_trunc('month', closed_at at time zone zone)::date as month, count(*), sum(total_cents), sum(net_paid)
      from inv group by 1 order by 1 limit 501`
  },
  {
    name: "invoices: top payers by net paid",
    resource: "invoices",
    grouped: true,
    attributes: () => ({
      fields: ["invoice_count", "total_net_paid_amount", "total_outstanding_amount"],
      group: "invoice_payer_id",
      sort: ["total_net_paid_amount-"]
    }),
    postgres: `with ${invoiceMoneyCtes}
      select person_id, count(*), sum(net_paid) as net_paid from inv group by 1 order by net_paid desc limit 101`
  },
  {
    name: "invoices: last 12 months by state",
    resource: "invoices",
    grouped: true,
    attributes: (now) => ({
      fields: ["invoice_count", "total_expected_amount", "total_net_paid_amount"],
      group: "invoice_state",
      filter: ["btw", "issued_at", yearBefore(now), now.toISOString()]
    }),
    postgres: `with ${invoiceMoneyCtes}
      select state, count(*), sum(total_cents), sum(net_paid) from inv
      where created_at between $2::timestamptz - interval '365 days' and $2::timestamptz group by 1 order by 1 limit 101`
  },
  {
    name: "latest closed invoices (detail page)",
    resource: "invoices",
    grouped: false,
    attributes: () => ({
      fields: ["invoice_number", "invoice_payer_name", "closed_at", "expected_amount", "net_paid_amount"],
      filter: ["eq", "invoice_state", "closed"],
      sort: ["closed_at-"],
      page: { limit: 100 }
    }),
    // The Core API has no index on closed_at: this partial index (closed invoices, newest first) is
    // the best PostgreSQL has for the page, created by the bench only.
    setup: [`create index if not exists bench_invoices_closed_idx on invoices (business_id, closed_at desc, id desc) where state = 'closed'`],
    postgres: `select i.invoice_number, p.first_name || ' ' || p.last_name, i.closed_at, i.total_cents,
             coalesce((select sum(amount_cents) from payments py where py.business_id = i.business_id and py.invoice_id = i.id and py.state = 'settled'), 0)
             - coalesce((select sum(amount_cents) from refunds rf where rf.business_id = i.business_id and rf.invoice_id = i.id and rf.state = 'settled'), 0)
      from invoices i join people p on p.business_id = i.business_id and p.id = i.person_id
      where i.business_id = $1 and i.state = 'closed' and $2::timestamptz is not null
      order by i.closed_at desc, i.id desc limit 101`
  }
]

/**
 * An item's share of its invoice's net paid by the spec's ratio rule (item total / invoice total),
 * over the closed invoices' live items, with the product's current name.
 */
const itemCtes = `${invoiceMoneyCtes},
  items as (
    select it.id, it.invoice_id, pp.name as product_name, inv.person_id, inv.closed_at, inv.zone, inv.state,
           case when inv.total_cents = 0 then 0 else round(inv.net_paid::numeric * it.total_cents / inv.total_cents) end as net_paid
    from invoice_items it
    join inv on inv.id = it.invoice_id
    join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
    where it.business_id = $1 and it.canceled_at is null)`

/** The invoice_items resource's queries, in the spec's field names. Add any further invoice-item query here. */
export const INVOICE_ITEM_QUERIES: ReadonlyArray<BenchQuery> = [
  {
    name: "invoice items: revenue by product, 12 months",
    resource: "invoice_items",
    grouped: true,
    attributes: (now) => ({
      fields: ["invoice_item_count", "total_net_paid_amount", "total_net_paid_revenue_amount"],
      group: "product_name",
      filter: ["btw", "closed_at", yearBefore(now), now.toISOString()],
      sort: ["total_net_paid_amount-"]
    }),
    postgres: `with ${itemCtes}
      select product_name, count(*), sum(net_paid) as net_paid from items
      where closed_at between $2::timestamptz - interval '365 days' and $2::timestamptz group by 1 order by net_paid desc limit 101`
  },
  {
    name: "invoice items: one product by closed month",
    resource: "invoice_items",
    grouped: true,
    attributes: () => ({
      fields: ["invoice_item_count", "total_net_paid_amount"],
      group: "closed_month_start_date",
      filter: ["eq", "product_name", "10-Class Pack"],
      sort: ["group_label+"],
      page: { limit: 500 }
    }),
    postgres: `with ${itemCtes}
      select date_trunc('month', closed_at at time zone zone)::date as month, count(*), sum(net_paid) from items
      where product_name = '10-Class Pack' group by 1 order by 1 limit 501`
  },
  {
    name: "invoice items: top payers, last 30 days",
    resource: "invoice_items",
    grouped: true,
    attributes: (now) => ({
      fields: ["invoice_item_count", "total_net_paid_amount"],
      group: "invoice_payer_id",
      filter: ["btw", "closed_at", monthBefore(now), now.toISOString()],
      sort: ["total_net_paid_amount-"],
      page: { limit: 100 }
    }),
    postgres: `with ${itemCtes}
      select person_id, count(*), sum(net_paid) as net_paid from items
      where closed_at between $2::timestamptz - interval '30 days' and $2::timestamptz group by 1 order by net_paid desc limit 101`
  },
  {
    name: "recently sold items (detail page)",
    resource: "invoice_items",
    grouped: false,
    attributes: () => ({
      fields: ["invoice_item_id", "product_name", "invoice_payer_name", "closed_at", "net_paid_amount"],
      filter: ["eq", "invoice_state", "closed"],
      sort: ["closed_at-"],
      page: { limit: 100 }
    }),
    setup: [`create index if not exists bench_invoices_closed_idx on invoices (business_id, closed_at desc, id desc) where state = 'closed'`],
    postgres: `select it.id, pp.name, p.first_name || ' ' || p.last_name, i.closed_at, it.total_cents
      from (select * from invoices where business_id = $1 and state = 'closed' and $2::timestamptz is not null
            order by closed_at desc, id desc limit 101) i
      join invoice_items it on it.business_id = i.business_id and it.invoice_id = i.id and it.canceled_at is null
      join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
      join people p on p.business_id = i.business_id and p.id = i.person_id
      order by i.closed_at desc, it.id desc limit 101`
  }
]

/**
 * Every payment and refund of one business's reported invoices, signed as the transactions
 * resource signs them (a refund negative), in its invoice's zone.
 */
const transactionsCte = `
  tx as (
    select t.state, t.amount, t.created_at, t.payment_type_id, coalesce(l.time_zone, b.time_zone) as zone
    from (select business_id, invoice_id, state, amount_cents::bigint as amount, created_at, payment_type_id from payments where business_id = $1
          union all
          select business_id, invoice_id, state, -amount_cents::bigint, created_at, payment_type_id from refunds where business_id = $1) t
    join invoices i on i.business_id = t.business_id and i.id = t.invoice_id
    join businesses b on b.id = i.business_id
    left join locations l on l.business_id = i.business_id and l.id = i.location_id
    where i.state in ('canceled', 'closed', 'on_hold', 'open') and $2::timestamptz is not null)`

/** The transactions resource's queries. */
export const TRANSACTION_QUERIES: ReadonlyArray<BenchQuery> = [
  {
    name: "transactions: net paid by month, 12 months",
    resource: "transactions",
    grouped: true,
    attributes: (now) => ({
      fields: ["transaction_count", "failed_count", "total_payments_amount", "total_refunds_amount", "total_net_paid_amount"],
      group: "transaction_month_start_date",
      filter: ["btw", "transaction_at", yearBefore(now), now.toISOString()],
      sort: ["group_label+"],
      page: { limit: 500 }
    }),
    postgres: `with ${transactionsCte}
      select date_trunc('month', created_at at time zone zone)::date as month, count(*), count(*) filter (where state = 'failed'),
             coalesce(sum(amount) filter (where state = 'settled' and amount > 0), 0), coalesce(sum(amount) filter (where state = 'settled' and amount < 0), 0),
             coalesce(sum(amount) filter (where state = 'settled'), 0)
      from tx where created_at between $2::timestamptz - interval '365 days' and $2::timestamptz group by 1 order by 1 limit 501`
  },
  {
    name: "transactions: net paid by payment method",
    resource: "transactions",
    grouped: true,
    attributes: () => ({
      fields: ["transaction_count", "settled_count", "total_net_paid_amount"],
      group: "payment_method",
      sort: ["total_net_paid_amount-"]
    }),
    postgres: `with ${transactionsCte}
      select case payment_type_id when 1 then 'creditcard' when 2 then 'cash' when 3 then 'check' when 4 then 'ach' when 5 then 'credit'
                  else case when payment_type_id >= 100 then 'external' else 'other' end end as method,
             count(*), count(*) filter (where state = 'settled'), coalesce(sum(amount) filter (where state = 'settled'), 0) as net_paid
      from tx group by 1 order by net_paid desc limit 101`
  }
]

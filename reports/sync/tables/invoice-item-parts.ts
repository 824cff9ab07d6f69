import { fullName } from "./types.ts"

/**
 * The SQL pieces of the item-based tables (invoice_items, invoice_item_transactions), written
 * after invoice-parts.ts's `invoiceMoneyCtes` (they read its `chosen`).
 *
 * Live items only: a canceled item counts for nothing in the invoice's totals
 * (src/billing/invoices/totals.ts), so it is not reported either; an invoice whose items are all
 * canceled has no item rows.
 *
 * Item shares (the spec: an item's share of an invoice amount is the amount times the item's
 * expected_amount over the invoice's). Rounding, one rule: cumulative rounding. The invoice's
 * live items are ordered by id; item k gets round(A × E_1..k / E) − round(A × E_1..k−1 / E),
 * where E_1..k is the running sum of the items' expected amounts and E their sum (the invoice's
 * expected amount). The shares telescope, so an invoice's items always add up to A exactly, and
 * each share is within a cent of the exact ratio. Rounding is half away from zero, as the
 * invoice-level splits: PostgreSQL's round(numeric) in a refresh; in a rebuild DuckDB divides in
 * doubles, which round to the same cents while A × E_1..k stays below 2^52 (amounts under about
 * $670,000 an invoice; the tie and its nearest neighbours are then told apart exactly). An
 * invoice expected at 0 gives the whole amount
 * to its last item (the ratio is undefined; the sum still holds).
 *
 * Tax shares use the same rule weighted by the items' tax (E_1..k replaced by the running sum of
 * the items' expected tax), so an invoice's items' tax shares add up to the invoice's own tax
 * split, round(A × expected tax / expected), and each item's is within a cent of its amount
 * share × its own tax ratio. Revenue = amount − tax on every row.
 */
export const invoiceItemCtes = `
    live as (
      select it.business_id, it.invoice_id, it.id,
             it.total_cents::bigint as total,
             (it.additional_tax_total_cents + it.included_tax_total_cents)::bigint as tax,
             sum(it.total_cents) over w as cum_total,
             sum(it.additional_tax_total_cents + it.included_tax_total_cents) over w as cum_tax,
             sum(it.total_cents) over (partition by it.business_id, it.invoice_id) as denom,
             row_number() over w = count(*) over (partition by it.business_id, it.invoice_id) as is_last
        from invoice_items it
       where (it.business_id, it.invoice_id) in (select business_id, id from chosen) and it.canceled_at is null
      window w as (partition by it.business_id, it.invoice_id order by it.id)),
    item_adj as (
      select ad.business_id, ad.invoice_item_id,
             sum(ad.amount_cents) filter (where ad.type = 'Discount' and ad.source_type = 'Coupon') as coupons,
             bool_or(ad.percent is not null) filter (where ad.type = 'Discount' and ad.source_type is null) as staff_percent
        from invoice_item_adjustments ad
       where (ad.business_id, ad.invoice_item_id) in (select business_id, id from live)
       group by 1, 2),
    tax_adj as (
      select ad.business_id, ad.invoice_item_id, ad.id, ad.name,
             ad.name || ' (' || rtrim(rtrim(cast(ad.percent as text), '0'), '.') || '%' || case when ad.inclusive then ' inclusive' else '' end || ')' as extended,
             count(*) over (partition by ad.business_id, ad.invoice_item_id) as n
        from invoice_item_adjustments ad
       where ad.type = 'TaxAdjustment' and (ad.business_id, ad.invoice_item_id) in (select business_id, id from live)),
    -- An item's taxes by name; an item with one needs no ordered aggregate (as item_rcp below).
    item_tax as (
      select business_id, invoice_item_id, min(name) as tax_types, min(extended) as tax_types_extended
        from tax_adj where n = 1 group by 1, 2
      union all
      select business_id, invoice_item_id, string_agg(name, ', ' order by name collate "C", id) as tax_types,
             string_agg(extended, ', ' order by name collate "C", id) as tax_types_extended
        from tax_adj where n > 1 group by 1, 2),
    rcp as (
      -- Recipients of the live items and of their parents (a signup fee's plan is its parent's).
      select r.business_id, r.invoice_item_id, r.position, r.person_id, r.plan_id, ${fullName("rp")} as name,
             count(*) over (partition by r.business_id, r.invoice_item_id) as n
        from invoice_item_recipients r
        join people rp on rp.business_id = r.business_id and rp.id = r.person_id
       where (r.business_id, r.invoice_item_id) in
             (select it.business_id, coalesce(it.parent_item_id, it.id) from invoice_items it
               where (it.business_id, it.id) in (select business_id, id from live)
              union all select business_id, id from live)),
    -- An item's recipients in order, and the first one's plan. Most items have one recipient,
    -- and they need no ordered aggregate: DuckDB sorts each group of one (7 s against 1 s at
    -- 2 million items).
    item_rcp as (
      select business_id, invoice_item_id, min(name) as names, min(plan_id) as plan_id
        from rcp where n = 1 group by 1, 2
      union all
      select business_id, invoice_item_id, string_agg(name, ', ' order by position, person_id) as names,
             (array_agg(plan_id order by position, person_id) filter (where plan_id is not null))[1] as plan_id
        from rcp where n > 1 group by 1, 2)`

/** `product_type` from the item's kind and its plan product's kind (see the catalog). */
const productType = `case when it.kind = 'signup_fee' then 'signup_fee'
           when it.kind = 'tip' then 'tip'
           when pp.kind = 'membership' then 'recurring'
           when pp.kind in ('pack', 'single_visit_pass') then 'pass'
           when pp.kind = 'prepaid' then 'prepaid'
           else 'unknown_plan' end`

export const invoiceItemColumns: ReadonlyArray<readonly [string, string]> = [
  ["invoice_item_id", "BIGINT NOT NULL"],
  ["product_id", "BIGINT"],
  ["product_name", "VARCHAR"],
  ["product_name_at_sale", "VARCHAR"],
  ["product_type", "VARCHAR"],
  ["plan_id", "BIGINT"],
  ["grants_membership", "BOOLEAN"],
  ["revenue_category", "VARCHAR"],
  ["coupon_code", "VARCHAR"],
  ["discount_type", "VARCHAR"],
  ["recipient_names", "VARCHAR"],
  ["tax_types", "VARCHAR"],
  ["tax_types_extended", "VARCHAR"],
  ["retail_add_ons", "VARCHAR"],
  ["retail_options", "VARCHAR"]
]

export const invoiceItemSelect = `
      it.id as invoice_item_id,
      it.plan_product_id as product_id,
      pp.name as product_name,
      it.name as product_name_at_sale,
      ${productType} as product_type,
      coalesce(rc.plan_id, prc.plan_id) as plan_id,
      -- A plan item grants membership when its plan does (or, before the sale closes, its product).
      it.kind = 'plan' and coalesce(pl.consider_member, pp.consider_member) as grants_membership,
      cat.name as revenue_category,
      case when ia.coupons is not null then cpn.code end as coupon_code,
      -- The item's own discount first, else the invoice's coupon when it reduced the item.
      case when ia.staff_percent is not null then case when ia.staff_percent then 'percent' else 'fixed' end
           when ia.coupons is not null then case when cpn.discount_percent is not null then 'percent' else 'fixed' end end as discount_type,
      coalesce(rc.names, prc.names) as recipient_names,
      itx.tax_types,
      itx.tax_types_extended,
      -- No retail products yet, nor their options.
      null::text as retail_add_ons,
      null::text as retail_options`

/** The joins of `invoiceItemSelect`, after the invoice's (`it` the item, `i` its invoice). */
export const invoiceItemJoins = `
    join plan_products pp on pp.business_id = it.business_id and pp.id = it.plan_product_id
    left join revenue_categories cat on cat.business_id = pp.business_id and cat.id = pp.revenue_category_id
    left join item_adj ia on ia.business_id = it.business_id and ia.invoice_item_id = it.id
    left join item_tax itx on itx.business_id = it.business_id and itx.invoice_item_id = it.id
    left join item_rcp rc on rc.business_id = it.business_id and rc.invoice_item_id = it.id
    left join item_rcp prc on prc.business_id = it.business_id and prc.invoice_item_id = it.parent_item_id
    left join plans pl on pl.business_id = it.business_id and pl.id = coalesce(rc.plan_id, prc.plan_id)
    left join coupons cpn on cpn.business_id = i.business_id and cpn.id = i.coupon_id`

/** An item's share of an invoice-level amount (`lv` the item's `live` row): cumulative rounding. */
export const itemShare = (amount: string) =>
  `(case when lv.denom = 0 then case when lv.is_last then ${amount} else 0 end
         else round(${amount}::numeric * lv.cum_total / lv.denom) - round(${amount}::numeric * (lv.cum_total - lv.total) / lv.denom) end)::bigint`

/** An item's tax share of an invoice-level amount: cumulative rounding weighted by the items' tax. */
export const itemTaxShare = (amount: string) =>
  `(case when lv.denom = 0 then 0
         else round(${amount}::numeric * lv.cum_tax / lv.denom) - round(${amount}::numeric * (lv.cum_tax - lv.tax) / lv.denom) end)::bigint`

import type { ImportDocumentInput } from "../import/model.ts"
import { LOCATION, SERVICE } from "./keys.ts"

/**
 * The demo's catalog: what the studio sells as plans, booked into four revenue categories,
 * with the sales taxes they carry. Spread into the demo document (document.ts).
 */
export const demoCatalog: Pick<ImportDocumentInput, "revenue_categories" | "sales_taxes" | "plan_products"> = {
  revenue_categories: [{ name: "Memberships" }, { name: "Class packs" }, { name: "Drop-ins" }, { name: "Retail" }],
  sales_taxes: [{ name: "Sales tax", tax_rate: 8.875, locations: [{ location: LOCATION.brooklyn }, { location: LOCATION.venice, tax_rate: 9.5 }] }],
  plan_products: [
    {
      kind: "membership",
      name: "Unlimited Monthly",
      description: "Every class, every month.",
      price_cents: 16900,
      consider_member: true,
      invoice_interval_unit: "monthly",
      commitment_length: 3,
      commitment_unit: "month",
      signup_fee_cents: 2500,
      cancellation_fee_cents: 5000,
      revenue_category: "Memberships",
      sales_taxes: ["Sales tax"],
      terms: "Billed monthly. Cancel with 30 days notice after the first three months.",
      terms_acceptance_required: true,
      terms_acceptance_at_checkout: true
    },
    {
      kind: "membership",
      name: "4 Classes a Month",
      description: "Four classes each calendar month.",
      price_cents: 8900,
      count: 4,
      limit_period: "month",
      consider_member: true,
      invoice_interval_unit: "monthly",
      revenue_category: "Memberships",
      sales_taxes: ["Sales tax"]
    },
    {
      kind: "pack",
      name: "10-Class Pack",
      description: "Ten classes, valid six months.",
      price_cents: 22000,
      count: 10,
      commitment_length: 6,
      commitment_unit: "month",
      revenue_category: "Class packs",
      sales_taxes: ["Sales tax"]
    },
    {
      kind: "pack",
      name: "5-Class Pack",
      description: "Five classes, valid three months.",
      price_cents: 12000,
      count: 5,
      commitment_length: 3,
      commitment_unit: "month",
      revenue_category: "Class packs",
      sales_taxes: ["Sales tax"]
    },
    {
      kind: "pack",
      name: "Private Session 3-Pack",
      description: "Three private yoga sessions; the price depends on the teacher.",
      price_cents: 27000,
      count: 3,
      commitment_length: 2,
      commitment_unit: "month",
      services: [SERVICE.privateYoga],
      staff_prices: [{ staff: "ines@demo.test", price_cents: 30000 }],
      revenue_category: "Class packs"
    },
    {
      kind: "single_visit_pass",
      name: "Drop-in",
      description: "One class.",
      price_cents: 2500,
      commitment_length: 1,
      commitment_unit: "month",
      revenue_category: "Drop-ins",
      sales_taxes: ["Sales tax"]
    },
    {
      kind: "pack",
      name: "Intro Offer: 3 Classes",
      description: "New here? Three classes in your first two weeks.",
      price_cents: 3900,
      visibility: "New clients",
      count: 3,
      commitment_length: 14,
      commitment_unit: "day",
      revenue_category: "Class packs"
    },
    {
      kind: "prepaid",
      name: "3-Month Unlimited",
      description: "Unlimited classes for three months, paid once.",
      price_cents: 42000,
      consider_member: true,
      commitment_length: 3,
      commitment_unit: "month",
      revenue_category: "Memberships",
      sales_taxes: ["Sales tax"]
    },
    {
      kind: "pack",
      name: "Members' Reformer 5-Pack",
      description: "Reformer classes at a members' price.",
      price_cents: 10000,
      visibility: "Members",
      count: 5,
      commitment_length: 3,
      commitment_unit: "month",
      location: LOCATION.brooklyn,
      services: [SERVICE.reformer],
      revenue_category: "Class packs"
    }
  ]
}

import type { ImportDocumentInput } from "../import/model.ts"

/**
 * The demo business as an import document: what `npm start` loads into an empty database so
 * every endpoint has something to show. Everything is deterministic (no randomness, no
 * clock), so two fresh databases hold the same demo.
 */
export const DEMO_SUBDOMAIN = "demo"
export const DEMO_PASSWORD = "studio-demo"
export const DEMO_CLIENT_ID = "demo-app"
export const DEMO_REDIRECT_URI = "http://localhost:3000/oauth/callback"
/** Published on purpose, like the demo password: it grants nothing without a user's login. */
export const DEMO_CLIENT_SECRET = "demo-app-secret"
export const DEMO_OWNER_EMAIL = "owner@demo.test"
export const DEMO_CLIENT_EMAIL = "client@demo.test"

const FIRST_NAMES = [
  "Ava", "Liam", "Mia", "Noah", "Zoe", "Ethan", "Lena", "Omar", "Ines", "Kai",
  "Nora", "Mateo", "Yuki", "Leo", "Amara", "Felix", "Sofia", "Ravi", "Elena", "Jonas"
]
const LAST_NAMES = [
  "Garcia", "Nguyen", "Smith", "Okafor", "Kowalski", "Rossi", "Tanaka", "Dubois", "Silva", "Novak",
  "Haddad", "Larsen", "Chen", "Moreau", "Petrov", "Kim", "Schmidt", "Lopez", "Ivanova", "Brown"
]

const LOCATION_KEYS = ["venice", "brooklyn"] as const

/** Client n (1-based) of 50: n = 1 is client@demo.test, the others client2..client50@demo.test. */
const client = (n: number): NonNullable<ImportDocumentInput["clients"]>[number] => {
  const first = FIRST_NAMES[(n * 7) % FIRST_NAMES.length]!
  const last = LAST_NAMES[(n * 3) % LAST_NAMES.length]!
  const month = String(((n * 5) % 12) + 1).padStart(2, "0")
  const day = String(((n * 11) % 28) + 1).padStart(2, "0")
  return {
    key: `client-${n}`,
    email: n === 1 ? DEMO_CLIENT_EMAIL : `client${n}@demo.test`,
    first_name: first,
    last_name: last,
    phone: `+1 555 01${String(n).padStart(2, "0")}`,
    birthdate: `${1970 + ((n * 13) % 35)}-${month}-${day}`,
    is_member: n % 3 === 0,
    location: LOCATION_KEYS[n % 2]!,
    password: DEMO_PASSWORD,
    // Everyone signed the studio waiver; every fifth client still has the hot room waiver to sign.
    waivers: [
      { name: "Liability waiver", accepted: true },
      ...(n % 5 === 0 ? [{ name: "Hot room waiver", signing_url: `https://sign.demo.studio.example/waivers/hot-room?client=${n}` }] : [])
    ],
    ...(n === 1
      ? {
        dependents: [{
          key: "client-1-child",
          first_name: "Milo",
          last_name: last,
          birthdate: "2017-06-14",
          waivers: [{ name: "Minor waiver", type: "GuardianWaiver" as const, accepted: true }]
        }]
      }
      : {})
  }
}

export const demoDocument: ImportDocumentInput = {
  business: {
    subdomain: DEMO_SUBDOMAIN,
    name: "Demo Studio",
    time_zone: "America/Los_Angeles",
    currency_code: "USD",
    default_locale: "en",
    website: "https://demo.studio.example",
    email_address: "hello@demo.test",
    phone: "+1 555 0100",
    branding: {
      colors: {
        accent: "#e85d3f",
        brand: "#2f6f5e",
        header: "#1f3b33",
        background: "#fbf8f3",
        client_mode_accent: "#e85d3f",
        client_mode_brand: "#2f6f5e",
        client_mode_header: "#ffffff",
        client_mode_background: "#f4efe6",
        client_mode_navigation: "#1f3b33"
      },
      logo_url: "https://placehold.co/512x512/2f6f5e/ffffff/png?text=Demo+Studio",
      cover_photo_url: "https://placehold.co/1600x600/1f3b33/fbf8f3/png?text=Demo+Studio"
    }
  },
  locations: [
    {
      key: "venice",
      name: "Venice Beach",
      slug: "venice-beach",
      address: "1200 Abbot Kinney Blvd, Venice, CA 90291",
      latitude: 33.9915,
      longitude: -118.4695,
      phone: "+1 555 0110",
      description: "Our flagship studio, two blocks from the beach.",
      time_zone: "America/Los_Angeles"
    },
    {
      key: "brooklyn",
      name: "Brooklyn Heights",
      slug: "brooklyn-heights",
      address: "75 Montague St, Brooklyn, NY 11201",
      latitude: 40.6947,
      longitude: -73.9951,
      phone: "+1 555 0120",
      description: "East coast studio with a rooftop deck.",
      time_zone: "America/New_York"
    }
  ],
  custom_fields: [
    {
      name: "How did you hear about us?",
      why: "Helps us spend less on ads and more on teachers.",
      data_type: "select",
      options: ["A friend", "Instagram", "Search engine", "Walked by"]
    },
    { name: "Newsletter", why: "Monthly schedule and workshop news.", data_type: "boolean" },
    { name: "Staff notes", data_type: "text", hidden_in_client_mode: true }
  ],
  staff: [
    { email: DEMO_OWNER_EMAIL, first_name: "Olivia", last_name: "Owner", role: "owner", password: DEMO_PASSWORD },
    { email: "manager@demo.test", first_name: "Marcus", last_name: "Manager", role: "manager", password: DEMO_PASSWORD },
    {
      email: "ines@demo.test",
      first_name: "Ines",
      last_name: "Alvarez",
      role: "standard",
      bio: "Vinyasa and yin; teaching since 2012.",
      password: DEMO_PASSWORD,
      working_hours: [{ location: "venice", days: ["monday", "tuesday", "wednesday", "thursday", "friday"], start_time: "12:00", end_time: "17:00" }]
    },
    {
      email: "tom@demo.test",
      first_name: "Tom",
      last_name: "Becker",
      role: "standard",
      bio: "Pilates reformer and barre.",
      password: DEMO_PASSWORD,
      working_hours: [{ location: "brooklyn", days: ["tuesday", "thursday"], start_time: "09:00", end_time: "15:00" }]
    },
    {
      email: "sam@demo.test",
      first_name: "Sam",
      last_name: "Okoye",
      role: "standard",
      bio: "Substitute teacher; not listed for clients.",
      hidden_in_client_mode: true,
      password: DEMO_PASSWORD,
      working_hours: [{ location: "venice", days: ["saturday"], start_time: "10:00", end_time: "14:00" }]
    }
  ],
  clients: Array.from({ length: 50 }, (_, i) => client(i + 1)),
  make_up_reasons: ["Illness", "Injury", "Travel", "Class cancelled by the studio"],
  // Every service type: group classes (one for members only, one staff-only and hidden), a
  // course, and appointments booked in the staff's working hours above.
  services: [
    {
      key: "vinyasa",
      name: "Vinyasa Flow",
      type: "GroupClass",
      category: "Yoga",
      description: "A dynamic, breath-led flow for every level.",
      description_short: "Breath-led flow, all levels",
      duration_in_minutes: 60,
      calendar_color: "#2f6f5e",
      maximum_clients: 20,
      enrollment_window_blackout_minutes: 30,
      booking_window_days: 14,
      drop_in_price_cents: 2500
    },
    {
      key: "yin",
      name: "Yin Yoga",
      type: "GroupClass",
      category: "Yoga",
      description: "Long, quiet holds to end the day.",
      duration_in_minutes: 75,
      calendar_color: "#7a5cc2",
      maximum_clients: 15,
      drop_in_price_cents: 2500
    },
    {
      key: "reformer",
      name: "Reformer Pilates",
      type: "GroupClass",
      category: "Pilates",
      description: "Small-group reformer class. Needs a class pack or membership.",
      duration_in_minutes: 50,
      calendar_color: "#e85d3f",
      maximum_clients: 8,
      require_plan: true,
      require_cc: true,
      free_cancellation_window_in_hours: 12
    },
    {
      key: "sunrise",
      name: "Members' Sunrise Flow",
      type: "GroupClass",
      category: "Yoga",
      description: "Saturday sunrise practice, for members.",
      duration_in_minutes: 60,
      visibility: "Members",
      clients_can_book: false,
      maximum_clients: 25
    },
    {
      key: "intro-course",
      name: "Intro to Yoga (6 weeks)",
      type: "Course",
      category: "Courses",
      description: "Six Sunday sessions: foundations, breath, alignment. Enroll once for the whole run.",
      duration_in_minutes: 90,
      maximum_clients: 12,
      drop_in_price_cents: 15000
    },
    {
      key: "private-yoga",
      name: "Private Yoga Session",
      type: "Appointment",
      category: "Private sessions",
      description: "One-on-one practice with a teacher of your choice.",
      duration_in_minutes: 60,
      enrollment_window_blackout_minutes: 120,
      booking_window_days: 30,
      drop_in_price_cents: 9000,
      staff: ["ines@demo.test", "sam@demo.test"]
    },
    {
      key: "pilates-assessment",
      name: "Pilates Assessment",
      type: "Appointment",
      category: "Private sessions",
      description: "A 30-minute assessment before your first reformer class; booked at the front desk.",
      duration_in_minutes: 30,
      client_purchase_disabled: true,
      staff: ["tom@demo.test"]
    },
    {
      key: "staff-practice",
      name: "Staff Practice",
      type: "GroupClass",
      description: "Teachers' own practice; not on the public schedule.",
      duration_in_minutes: 60,
      visibility: "Staff",
      hidden: true
    }
  ],
  // Recurring classes since January 2026 without end, and a course with a fixed run.
  events: [
    {
      service: "vinyasa",
      location: "venice",
      staff: ["ines@demo.test"],
      frequency: "weekly",
      days: ["monday", "wednesday", "friday"],
      start_date: "2026-01-05",
      start_time: "07:00",
      end_time: "08:00"
    },
    {
      service: "yin",
      location: "venice",
      staff: ["ines@demo.test"],
      frequency: "weekly",
      days: ["tuesday", "thursday"],
      start_date: "2026-01-05",
      start_time: "19:00",
      end_time: "20:15"
    },
    {
      service: "reformer",
      name: "Reformer Pilates",
      location: "brooklyn",
      staff: ["tom@demo.test"],
      frequency: "weekly",
      days: ["monday", "wednesday", "saturday"],
      start_date: "2026-01-05",
      start_time: "17:30",
      end_time: "18:20"
    },
    {
      service: "sunrise",
      location: "venice",
      staff: ["sam@demo.test", "ines@demo.test"],
      frequency: "weekly",
      days: ["saturday"],
      start_date: "2026-01-10",
      start_time: "06:30",
      end_time: "07:30"
    },
    {
      service: "intro-course",
      location: "venice",
      staff: ["ines@demo.test"],
      frequency: "weekly",
      days: ["sunday"],
      start_date: "2027-01-10",
      session_count: 6,
      start_time: "10:00",
      end_time: "11:30"
    }
  ],
  // The catalog: what the studio sells as plans, booked into four revenue categories.
  revenue_categories: [{ name: "Memberships" }, { name: "Class packs" }, { name: "Drop-ins" }, { name: "Retail" }],
  sales_taxes: [{ name: "Sales tax", tax_rate: 8.875, locations: [{ location: "brooklyn" }, { location: "venice", tax_rate: 9.5 }] }],
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
      services: ["private-yoga"],
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
      location: "brooklyn",
      services: ["reformer"],
      revenue_category: "Class packs"
    }
  ]
}

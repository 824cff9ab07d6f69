import { demoPayRates } from "./pay-rates.ts"
import type { ImportDocumentInput } from "../import/model.ts"
import { demoCatalog } from "./catalog.ts"
import { demoSchedule } from "./schedule.ts"
import { LOCATION } from "./keys.ts"

/**
 * The demo business as an import document: what `npm start` loads into an empty database so
 * every endpoint has something to show. Everything is deterministic (no randomness, no
 * clock), so two fresh databases hold the same demo.
 */
export const DEMO_SUBDOMAIN = "demo"
export const DEMO_PASSWORD = "studio-demo"
export const DEMO_CLIENT_ID = "demo-app"
/**
 * The demo application's redirect URI: the callback page on the account-level host of this
 * start (`BASE_DOMAIN`, `PORT`), the very string the authorize link `npm start` prints carries.
 */
export const demoRedirectUri = (config: { readonly baseDomain: string; readonly port: number }) =>
  `http://${config.baseDomain}${config.port === 80 ? "" : `:${config.port}`}/oauth/callback`
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

const LOCATION_KEYS = [LOCATION.venice, LOCATION.brooklyn] as const

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
          key: `client-${n}-child`,
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
      key: LOCATION.venice,
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
      key: LOCATION.brooklyn,
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
      working_hours: [{ location: LOCATION.venice, days: ["monday", "tuesday", "wednesday", "thursday", "friday"], start_time: "12:00", end_time: "17:00" }]
    },
    {
      email: "tom@demo.test",
      first_name: "Tom",
      last_name: "Becker",
      role: "standard",
      bio: "Pilates reformer and barre.",
      password: DEMO_PASSWORD,
      working_hours: [{ location: LOCATION.brooklyn, days: ["tuesday", "thursday"], start_time: "09:00", end_time: "15:00" }]
    },
    {
      email: "sam@demo.test",
      first_name: "Sam",
      last_name: "Okoye",
      role: "standard",
      bio: "Substitute teacher; not listed for clients.",
      hidden_in_client_mode: true,
      password: DEMO_PASSWORD,
      working_hours: [{ location: LOCATION.venice, days: ["saturday"], start_time: "10:00", end_time: "14:00" }]
    }
  ],
  clients: Array.from({ length: 50 }, (_, i) => client(i + 1)),
  make_up_reasons: ["Illness", "Injury", "Travel", "Class cancelled by the studio"],
  // The schedule: services and their events (schedule.ts).
  ...demoSchedule,
  // The catalog: what the studio sells as plans, booked into four revenue categories (catalog.ts).
  ...demoCatalog,
  // What the instructors earn (pay-rates.ts).
  ...demoPayRates
}

/** Registrations for the sessions of the coming days, fewer the further away. */
export const UPCOMING_DAYS = 7
/** Sessions that ended less than this ago still wait for the desk to take attendance. */
export const ATTENDANCE_OPEN_HOURS = 12

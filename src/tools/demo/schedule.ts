import type { ImportDocumentInput } from "../import/model.ts"
import { LOCATION, SERVICE } from "./keys.ts"

/**
 * The demo's schedule: the services the studio offers and the events that put them on the
 * calendar, taught by the staff of the demo document (document.ts). Spread into that document.
 */
export const demoSchedule: Pick<ImportDocumentInput, "services" | "events"> = {
  // Every service type: group classes (one for members only, one staff-only and hidden), a
  // course, and appointments booked in the staff's working hours (document.ts).
  services: [
    {
      key: SERVICE.vinyasa,
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
      key: SERVICE.yin,
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
      key: SERVICE.reformer,
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
      key: SERVICE.sunrise,
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
      key: SERVICE.introCourse,
      name: "Intro to Yoga (6 weeks)",
      type: "Course",
      category: "Courses",
      description: "Six Sunday sessions: foundations, breath, alignment. Enroll once for the whole run.",
      duration_in_minutes: 90,
      maximum_clients: 12,
      drop_in_price_cents: 15000
    },
    {
      key: SERVICE.privateYoga,
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
      key: SERVICE.pilatesAssessment,
      name: "Pilates Assessment",
      type: "Appointment",
      category: "Private sessions",
      description: "A 30-minute assessment before your first reformer class; booked at the front desk.",
      duration_in_minutes: 30,
      client_purchase_disabled: true,
      staff: ["tom@demo.test"]
    },
    {
      key: SERVICE.staffPractice,
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
      service: SERVICE.vinyasa,
      location: LOCATION.venice,
      staff: ["ines@demo.test"],
      frequency: "weekly",
      days: ["monday", "wednesday", "friday"],
      start_date: "2026-01-05",
      start_time: "07:00",
      end_time: "08:00"
    },
    {
      service: SERVICE.yin,
      location: LOCATION.venice,
      staff: ["ines@demo.test"],
      frequency: "weekly",
      days: ["tuesday", "thursday"],
      start_date: "2026-01-05",
      start_time: "19:00",
      end_time: "20:15"
    },
    {
      service: SERVICE.reformer,
      name: "Reformer Pilates",
      location: LOCATION.brooklyn,
      staff: ["tom@demo.test"],
      frequency: "weekly",
      days: ["monday", "wednesday", "saturday"],
      start_date: "2026-01-05",
      start_time: "17:30",
      end_time: "18:20"
    },
    {
      service: SERVICE.sunrise,
      location: LOCATION.venice,
      staff: ["sam@demo.test", "ines@demo.test"],
      frequency: "weekly",
      days: ["saturday"],
      start_date: "2026-01-10",
      start_time: "06:30",
      end_time: "07:30"
    },
    {
      service: SERVICE.introCourse,
      location: LOCATION.venice,
      staff: ["ines@demo.test"],
      frequency: "weekly",
      days: ["sunday"],
      start_date: "2027-01-10",
      session_count: 6,
      start_time: "10:00",
      end_time: "11:30"
    }
  ]
}

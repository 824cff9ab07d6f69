/**
 * The keys the demo document's records refer to each other by (the import format's `key`),
 * named once: a reference to a location or service the document does not have fails to
 * compile instead of failing the import.
 */
export const LOCATION = { venice: "venice", brooklyn: "brooklyn" } as const

export const SERVICE = {
  vinyasa: "vinyasa",
  yin: "yin",
  reformer: "reformer",
  sunrise: "sunrise",
  introCourse: "intro-course",
  privateYoga: "private-yoga",
  pilatesAssessment: "pilates-assessment",
  staffPractice: "staff-practice"
} as const

import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unprocessable } from "../../shared/errors.ts"
import { PageFields } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PersonDesk, PersonListQuery, PersonSearchQuery, PersonSearchResult } from "./model.ts"
import { PersonCreateInput, PersonUpdateInput } from "./inputs.ts"
import { AccessRefusals } from "../../access/refusals.ts"
import { PeopleRefusals, personAttributeRefusals } from "./refusals.ts"

const people = Schema.Struct({ people: Schema.Array(PersonDesk) })

export const PeopleDeskApi = HttpApiGroup.make("peopleDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/people", {
      query: PersonListQuery,
      success: Schema.Struct({ people: Schema.Array(PersonDesk), ...PageFields }),
      error: BadRequest
    }).annotateMerge(docs("List people", "Live (not deleted) people. Paginated, 25 per page by default.", [PeopleRefusals.fieldMustBeOneOf]))
  )
  .add(
    HttpApiEndpoint.get("search", "/api/v2/desk/people/search", {
      query: PersonSearchQuery,
      success: Schema.Struct({ results: Schema.Array(PersonSearchResult), ...PageFields }),
      error: BadRequest
    }).annotateMerge(
      docs(
        "Search people",
        "Best matches first, each with its score, as `{\"results\": [{\"score\": 1.39, \"person\": {...}}], \"total_count\": 1}`. " +
          "Without `fields`, an e-mail address also searches names by the part before the at sign. Paginated, 25 per page by default.",
        [PeopleRefusals.fieldMustBeOneOf]
      )
    )
  )
  .add(
    HttpApiEndpoint.get("me", "/api/v2/desk/people/me", { success: people, error: NotFound }).annotateMerge(
      docs("The staff member's own person", undefined, [PeopleRefusals.personNotFound])
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/people/:id", { params: { id: IdFromString }, success: people, error: NotFound }).annotateMerge(
      docs("Get a person", "Hidden custom fields included; a deleted person is found, with `deleted_at` set.", [
        PeopleRefusals.personNotFound
      ])
    )
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/people", {
      payload: Schema.Struct({ person: PersonCreateInput }),
      success: people.pipe(HttpApiSchema.status(201)),
      error: Unprocessable
    }).annotateMerge(
      docs(
        "Create a person",
        "With `dependents`, new dependents are created with the person. `send_invite` mails an invitation to choose a password. 422 lists every failed rule.",
        personAttributeRefusals
      )
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/people/:id", {
      params: { id: IdFromString },
      payload: Schema.Struct({ person: PersonUpdateInput }),
      success: people,
      error: [NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Update a person",
        "Absent attributes stay unchanged; null or empty clears one. `dependent_ids` replaces the dependents, `provider_ids` sets the single provider.",
        [
          PeopleRefusals.personNotFound,
          ...personAttributeRefusals,
          PeopleRefusals.personSelfRelationship,
          PeopleRefusals.fieldSingleProvider,
          PeopleRefusals.personRelationshipBothWays
        ]
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/desk/people/:id", {
      params: { id: IdFromString },
      error: [NotFound, Forbidden, Unprocessable]
    }).annotateMerge(
      docs(
        "Delete a person",
        "Soft delete (204). Managers and owners only. 422 with one message per failed condition: yourself, a staff member, a person with dependents.",
        [
          AccessRefusals.managerRequired,
          PeopleRefusals.personNotFound,
          PeopleRefusals.personDeleteSelf,
          PeopleRefusals.personDeleteStaff,
          PeopleRefusals.personDeleteDependents,
          PeopleRefusals.personDeleteFutureVisits,
          PeopleRefusals.personDeleteActivePlans,
          PeopleRefusals.personDeleteOpenInvoices
        ]
      )
    )
  )
  .add(
    HttpApiEndpoint.put("undelete", "/api/v2/desk/people/:id/undelete", {
      params: { id: IdFromString },
      success: people,
      error: [NotFound, Forbidden, Unprocessable]
    }).annotateMerge(
      docs(
        "Restore a deleted person",
        "Undoes a delete (200 with the person) and sends person.undeleted. Managers and owners only. 422 when the person is not deleted " +
          "or their e-mail address now belongs to another person.",
        [AccessRefusals.managerRequired, PeopleRefusals.personNotFound, PeopleRefusals.personNotDeleted, PeopleRefusals.fieldTaken]
      )
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("People (staff mode)"))

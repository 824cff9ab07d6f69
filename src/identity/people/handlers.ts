import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { PeopleFrontApi } from "./front.api.ts"
import { PeopleDeskApi } from "./desk.api.ts"
import { createPerson, deletePerson, undeletePerson, updatePerson } from "./commands.ts"
import { getDeskPerson, getFrontPeople, listDeskPeople, searchDeskPeople } from "./service.ts"

export const PeopleFrontLive = HttpApiBuilder.group(apiOf(PeopleFrontApi), "peopleFront", (handlers) =>
  handlers
    .handle("me", ({ query }) => getFrontPeople("me", query.with_dependents === true))
    .handle("get", ({ params, query }) => getFrontPeople(params.id, query.with_dependents === true)))

export const PeopleDeskLive = HttpApiBuilder.group(apiOf(PeopleDeskApi), "peopleDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listDeskPeople(query))
    .handle("search", ({ query }) => searchDeskPeople(query))
    .handle("me", () => getDeskPerson("me"))
    .handle("get", ({ params }) => getDeskPerson(params.id))
    .handle("create", ({ payload }) => createPerson(payload.person))
    .handle("update", ({ params, payload }) => updatePerson(params.id, payload.person))
    .handle("delete", ({ params }) => deletePerson(params.id))
    .handle("undelete", ({ params }) => undeletePerson(params.id)))

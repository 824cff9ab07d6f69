/**
 * Where a person's mail goes, as a lateral join on `person` (an alias of `people`): their own
 * address, else (a dependent without one) the address of their first live provider that has
 * one (a child's class is news for the parent). Columns `recipient.email` (null: nobody to
 * tell) and `recipient.provider_first_name` (set when the mail goes to the provider).
 * One rule for every notice about a person's enrollment (visits, waitlist offers).
 */
export const recipientJoin = (person: string) => `
  left join lateral (
    select q.email::text as email, q.first_name from person_relationships r
    join people q on q.business_id = r.business_id and q.id = r.provider_id and q.deleted_at is null and q.email is not null
    where r.business_id = ${person}.business_id and r.dependent_id = ${person}.id
    order by r.provider_id limit 1
  ) provider on ${person}.email is null
  cross join lateral (
    select coalesce(${person}.email::text, provider.email) as email, provider.first_name as provider_first_name
  ) recipient`

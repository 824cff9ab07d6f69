-- Materializing an event's new sessions looks up its ongoing (recurring) leases
-- (src/bookings/ongoing.ts): index exactly those.
create index leases_ongoing_idx on leases (business_id, event_id) where kind = 'recurring' and recurring;

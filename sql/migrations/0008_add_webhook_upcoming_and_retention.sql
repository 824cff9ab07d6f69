-- Webhooks, scheduled parts (issue 7).

-- event_occurrence.upcoming goes out once per occurrence: the job sets this in the transaction
-- that stores the event, so a restarted or overlapping run finds it set and skips the row.
alter table event_occurrences add column upcoming_notified_at timestamptz;

-- The job's question per subscribed business: active occurrences starting soon, not yet announced.
create index event_occurrences_upcoming_idx on event_occurrences (business_id, start_at)
  where state = 'active' and upcoming_notified_at is null;

-- The retention sweep deletes events older than the cut-off, oldest first, in batches
-- (webhook_events_created_at_idx); their deliveries and attempts go by cascade. Subscriptions
-- by topic across businesses, for the scheduled topics' jobs:
create index webhook_subscriptions_enabled_topic_idx on webhook_subscriptions (topic, business_id) where enabled;

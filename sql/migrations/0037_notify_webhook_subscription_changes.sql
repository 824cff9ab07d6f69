-- Every emission of a webhook topic asks whether the business has an enabled subscription to it.
-- API processes keep that answer (src/webhooks/subscriptions.repo.ts) and drop it when a
-- subscription of the business is created, changed or deleted (a switch-off of the feature
-- deletes them through its trigger, which fires this one too): the payload is
-- `webhook_subscriptions:<business_id>`, sent at commit like the other cache notices (0030).
create trigger webhook_subscriptions_notify_cache
  after insert or update or delete on webhook_subscriptions
  for each row execute function studio_notify_cache('webhook_subscriptions');

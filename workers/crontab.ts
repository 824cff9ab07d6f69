/**
 * Recurring jobs in graphile-worker's crontab format (UTC, one-minute granularity).
 * Empty until the first scheduled task lands (nightly report sync, upcoming-occurrence webhooks).
 */
export const crontab = ""

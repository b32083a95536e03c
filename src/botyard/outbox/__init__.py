"""Webhook deliveries: events written to an outbox in the transaction of what they report, sent by the job runner.

`events` turns an event into one `webhook_delivery` row (and its job) per subscribed webhook; `sender` is the job
handler that POSTs a delivery through the egress guard, signed as Standard Webhooks sign (`signing`), and retries it
on the schedule `RETRY_DELAYS`; `repository` holds their SQL. The owner's API for webhooks is `botyard.webhooks`.
"""

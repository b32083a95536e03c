"""Channels: a chatbot answers where its customers write (WhatsApp, Messenger, Instagram, email, SMS, Telegram,
Slack, any system by a signed generic channel), with the same answers as in the widget.

A channel is a resource of a chatbot (`router`, `service`: credentials sealed, shown as hints). A provider delivers
to the channel's inbound URL (`ingress`): the signature is checked on the raw bytes, the delivery stored under the
provider's own id (a repeat does nothing) and its answer queued, in one transaction, and the route answers at once.
The `channel_answer` job (`answering`) joins a conversation's burst of messages into one question and asks it
through the one answer pipeline; the `channel_send` job (`sending`) sends the reply rendered for the channel
(`render`), its choices as the channel's buttons (`buttons`: a button pressed comes back as the customer's message),
in order within its conversation, retried through the provider's failures; what the provider took is a receipt
(`receipts`: its delivery and read statuses). Each provider's own shapes and rules are a module of their own
(`telegram`, `slack`, `generic`; Meta's three: `meta` for what they share, `whatsapp`, `messenger`, `meta_ingress`,
`graph` for the Graph API's calls, `window` for the 24-hour window) or a package (`email`: IMAP, SMTP, threads, loop
guards; `sms`: Twilio); their HTTP APIs are called through the egress client (`calls`), and a mailbox is read by
the listeners (`polling`: one process per channel, under a lease). A customer's phone number is one identity
however it is written (`phones`).
docs/channels.md says how an owner sets each one up.
"""

"""SMS through Twilio: Twilio's pure part (`twilio`: the webhook's signature, a webhook read, the keywords, the REST
calls' shapes), the segments of a text (`segments`), the REST API and the channel's setup (`api`), the webhooks
taken in (`webhook`), replies sent (`sending`), and the tables of opt-outs and receipts (`repository`)."""

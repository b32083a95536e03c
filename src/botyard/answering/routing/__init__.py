"""Which agent answers a message: the supervisor (`supervisor`), its offline rules (`rules`) on the intents and the
vectors' evidence, the model's short judgements when a provider is configured (`judge`), and the agent variables."""

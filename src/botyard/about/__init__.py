"""What this service runs: its version, which answerer (offline or a language model) and which embedder."""

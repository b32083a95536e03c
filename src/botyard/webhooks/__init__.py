"""Webhooks, the owner's API: register URLs per chatbot for its events, rotate their secrets, send a test, list the
deliveries. Not in the hosted interface; designed in its style. Sending is `botyard.outbox`'s."""

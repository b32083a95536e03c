"""Zapier and Make: a chatbot asked and answered from a Zap or a Make scenario, on the hosted service's paths, and
their subscriptions to its events (`integration_hook`)."""

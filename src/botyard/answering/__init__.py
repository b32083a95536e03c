"""Answering a query: routing to an agent, the answerers (offline, LLM), prompts, citations, stream events."""

"""The answer pipeline behind one entry point (`pipeline.Pipeline.begin`): prepare, route to an agent, retrieve,
answer (offline or LLM), stream, finish; prompts, citations, the wire formats, and the background agents."""

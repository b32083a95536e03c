"""The embedded search backend: per-chatbot indexes in each process's memory (`search`)."""

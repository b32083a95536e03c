"""Source tags: named, coloured groups of a chatbot's data sources."""

"""A chatbot's figures over a period, per owner's day: conversations, questions, answers and refusals, hand-offs,
feedback, first-byte latency, the most asked questions and the most cited sources."""

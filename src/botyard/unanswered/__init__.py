"""Unanswered questions: every question the chatbot refused or answered on weak evidence, recorded with the answer
(`answering.turn.gaps`); the owner sees them grouped by similarity, answers a group with a Q&A source in one step, or
dismisses it. Not in the hosted interface; designed in its style."""

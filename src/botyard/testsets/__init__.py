"""Test sets: an owner's questions with what a right answer must hold, or that the bot must say it does not know,
asked again against the chatbot's current knowledge and agents (`answering.rehearsal`) to guard every change, with
what changed since the previous run. Not in the hosted interface; designed in its style (docs/test-sets.md)."""

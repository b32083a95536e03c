"""How many chunks an answer searches, for the answer itself and for the checks before it (`built_in`)."""

from __future__ import annotations

TOP_K = 8
"""Chunks retrieved for the offline answerer (it quotes from the best `QUOTED_HITS`)."""
MODEL_TOP_K = 12
"""Chunks retrieved for a model: the prompt takes them best first while the model's budget lasts. On the answer
probes the expected answer of 3 of the 4 covered questions whose top 8 missed it ranked 9th to 11th (context recall
96.7% with 8)."""

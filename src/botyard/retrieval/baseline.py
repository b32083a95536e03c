"""What unrelated questions score in one chatbot's knowledge: the relevance decision's bar rises with it.

The evidence a question finds (`relevance`) depends on the knowledge as well as on the question: in a few pages of
a dental clinic, a question about the World Cup finds nothing (evidence about 0.1), while among 5,000 web passages
the same words and a loosely related passage are always somewhere (evidence 0.6-1.3 for chit-chat and
off-domain requests on msmarco-5k, where answerable questions score 1.0-1.9). So each index asks itself a fixed set
of questions that no owner's knowledge is about, once when it is built, and the decision then asks a real question
for more evidence than most of those get here: a bar that explains itself ("unrelated questions reach 0.9 in this
knowledge") and needs no corpus-calibrated constant. The questions are everyday requests, chit-chat and general
knowledge; none is used by the measurements (`bench/retrieval.py`, the answer probes).
"""

from __future__ import annotations

from collections.abc import Sequence

from botyard.embedding import Vectors
from botyard.retrieval.fusion import Method
from botyard.retrieval.index import ChatbotIndex, Search, lexical_text
from botyard.retrieval.relevance import JUDGED_HITS, coverage, similarity

UNRELATED_QUESTIONS = (
    "Good morning, how is your day going?",
    "Can you tell me something funny?",
    "What is your favourite colour?",
    "I need some help with my homework.",
    "What should I name my new puppy?",
    "Can you help me write a birthday card for my aunt?",
    "Which film should I watch tonight?",
    "Is it going to rain this weekend?",
    "What time is it in Tokyo right now?",
    "Who painted the Mona Lisa?",
    "How many legs does a spider have?",
    "What is the tallest mountain in the world?",
    "How long should I boil an egg?",
    "What's the best way to learn the guitar?",
    "How do you say thank you in Italian?",
    "Which team won the basketball final last year?",
    "Explain black holes in simple words.",
    "What is the square root of two?",
    "Can you recommend a fantasy novel?",
    "How do I get a stain out of a carpet?",
    "What are good exercises for a sore back?",
    "Where is the nearest train station to me?",
    "Give me a recipe for pancakes.",
    "Why is the sky blue?",
)


def unrelated_evidence(index: ChatbotIndex, vectors: Sequence[Vectors | None]) -> tuple[float, ...]:
    """The best evidence each unrelated question finds in `index` (the questions' vectors in order; None: BM25)."""
    found = []
    for question, vector in zip(UNRELATED_QUESTIONS, vectors, strict=True):
        usable = vector if index.has_vectors else None
        method = Method.HYBRID if usable is not None else Method.BM25
        ranked = index.search(Search(question, usable, None, JUDGED_HITS, method))
        weights = index.lexical.weights(question)
        best = 0.0
        for row_id, dense in zip(ranked.rows.tolist(), ranked.dense.tolist(), strict=True):
            covered = coverage(weights, index.lexical.analyze(lexical_text(index.rows[row_id]), row_id))
            best = max(best, similarity(dense) + covered)
        found.append(round(best, 4))
    return tuple(found)

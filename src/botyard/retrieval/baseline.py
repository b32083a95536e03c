"""What unrelated questions score in one chatbot's knowledge: the relevance decision's bar rises with it.

The evidence a question finds (`relevance`) depends on the knowledge as well as on the question: in a few pages of
a dental clinic, a question about the World Cup finds nothing (evidence about 0.1), while among 5,000 web passages
the same words and a loosely related passage are always somewhere (evidence 0.6-1.3 for chit-chat and
off-domain requests on msmarco-5k, where answerable questions score 1.0-1.9). So each index asks itself a fixed set
of questions that no owner's knowledge is about, once when it is built, and the decision then asks a real question
for more evidence than most of those get here: a bar that explains itself ("unrelated questions reach 0.9 in this
knowledge") and needs no corpus-calibrated constant. The questions are everyday requests, chit-chat and general
knowledge; none is used by the measurements (`bench/retrieval.py`, the answer probes). The embedded backend asks them
of each index it builds (`embedded.unrelated`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from botyard.embedding import Vectors, own_part, similarities

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


def usual_closeness(
    rows: Vectors, question: Vectors, unrelated: Sequence[Vectors | None], parts: Sequence[int]
) -> Vectors:
    """Each row's mean cosine with the unrelated questions, read as `question` is read: by its own model, at its
    scale (a German question's USE-m3 part is lengthened: `pair`). Some passages are close to every question: a
    short question of an FAQ ("Do you sell bikes?") is near any question by its form alone (in the bike workshop's
    German probe knowledge, 0.16-0.23 on average with these unrelated ones by USE-m3, the median passage 0.00).
    What a passage says about one question is how much closer it is to it than to questions in general (the
    correction for "hubs" of cross-domain similarity local scaling); 0 for every row with nothing to compare."""
    matrix = np.atleast_2d(np.asarray(rows, dtype=np.float32))
    own = own_part(np.asarray(question, dtype=np.float32), parts)
    known = [np.asarray(vector, dtype=np.float32) for vector in unrelated if vector is not None]
    if own is None or not known:
        return np.zeros(matrix.shape[0], dtype=np.float32)
    start = sum(parts[:own])
    end = start + parts[own]
    scale = float(np.linalg.norm(np.asarray(question, dtype=np.float32)[start:end]))
    read = np.zeros((len(known), sum(parts)), dtype=np.float32)
    for index, vector in enumerate(known):
        piece = vector[start:end]
        norm = float(np.linalg.norm(piece))
        if norm > 0:
            read[index, start:end] = piece * (scale / norm)
    present = np.any(read != 0.0, axis=1)
    if not present.any():
        return np.zeros(matrix.shape[0], dtype=np.float32)
    return np.asarray(similarities(matrix, read[present], parts).mean(axis=1), dtype=np.float32)


def less_excess_closeness(cosines: Sequence[Vectors], usual: Sequence[Vectors]) -> list[Vectors]:
    """Each passage's cosine with the question (per chunk) less how much closer it is to questions in general
    (`usual_closeness`) than the median passage among them: a passage is marked down only for being a hub among
    the passages it competes with, so a question that finds no FAQ question leaves every cosine as it was."""
    if not usual:
        return list(cosines)
    typical = float(np.median(np.concatenate([np.asarray(each, dtype=np.float32) for each in usual])))
    return [
        np.asarray(cosine - np.maximum(np.asarray(closeness) - typical, 0.0), dtype=np.float32)
        for cosine, closeness in zip(cosines, usual, strict=True)
    ]

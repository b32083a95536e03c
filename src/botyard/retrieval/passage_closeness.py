"""How close each passage of an answer's best hits is to the question: the offline answerer quotes by meaning.

A few primary-key reads per answer (`Knowledge.passage_vectors`), rather than every passage's vector in
every process's memory; kept apart from the search, so that an answer can read them in a brief transaction of its
own (`Database.brief_read`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from botyard.embedding import Embedder, Vectors, cosines, decode_matrix
from botyard.retrieval.base import QUOTED_HITS, Hit
from botyard.retrieval.baseline import less_excess_closeness, usual_closeness
from botyard.retrieval.knowledge import Knowledge


async def closeness_of_passages(
    repository: Knowledge,
    embedder: Embedder,
    unrelated: list[Vectors | None],
    hits: list[Hit],
    vector: Vectors,
) -> list[Hit]:
    """The best hits with the cosine of each of their passages, less how much closer each passage is to questions
    in general (`unrelated`, `baseline.usual_closeness`) than the passages it competes with are: an FAQ's short
    question is near any question by its form alone."""
    best = hits[:QUOTED_HITS]
    stored = await repository.passage_vectors([hit.chunk_uuid for hit in best], embedder.name)
    dimension, parts = embedder.dimension, embedder.parts
    question = np.asarray(vector, dtype=np.float32)
    found = [(index, data) for index, hit in enumerate(best) if (data := stored.get(hit.chunk_uuid)) is not None]
    matrices = {index: decode_matrix(data, dimension) for index, data in found}
    if not matrices:
        return hits
    # All the passages in one go: hit by hit, comparing them with the unrelated questions cost more than the search
    rows = np.vstack(list(matrices.values()))
    ends = np.cumsum([len(matrix) for matrix in matrices.values()])[:-1]
    all_cosines = np.split(cosines(rows, question, parts), ends)
    all_usual = np.split(usual_closeness(rows, question, unrelated, parts), ends)
    corrected = less_excess_closeness(all_cosines, all_usual)
    for index, closeness in zip(matrices, corrected, strict=True):
        hits[index] = replace(best[index], passage_similarity=tuple(float(c) for c in closeness))
    return hits

"""The hybrid ranking's feedback pass, on hand-made vectors: it promotes what resembles the best hits, while the
reported dense score (which the relevance decision reads) stays that of the query itself."""

from __future__ import annotations

import numpy as np

from botyard.embedding import encode_vector
from botyard.retrieval.embedded.index import ChatbotIndex, Search
from botyard.retrieval.fusion import Method
from botyard.retrieval.knowledge import ChunkRow


def unit(*components: float) -> np.ndarray:
    vector = np.array(components, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def row(name: str, vector: np.ndarray) -> ChunkRow:
    return ChunkRow(name, f"source-{name}", 0, "", f"text {name}", name, "qa", {})


# The query is the first axis. A and B lean the same way (B a little less towards the query); C leans elsewhere.
A, B, C = unit(0.6, 0.8, 0), unit(0.5, 0.866, 0), unit(0.55, 0, 0.835)
INDEX = ChatbotIndex(1, [row("a", A), row("b", B), row("c", C)], [encode_vector(v) for v in (A, B, C)], (3,))


def ranking(method: Method) -> tuple[list[str], list[float]]:
    ranked = INDEX.search(Search("zzz unknown words", unit(1, 0, 0), None, 3, method))
    return [INDEX.rows[r].uuid for r in ranked.rows.tolist()], ranked.dense.tolist()


def test_feedback_promotes_chunks_like_the_best_ones() -> None:
    dense_order, _ = ranking(Method.DENSE)
    assert dense_order == ["a", "c", "b"]  # by cosine with the query alone
    hybrid_order, cosines = ranking(Method.HYBRID)
    assert hybrid_order == ["a", "b", "c"]  # B resembles the best hit A
    assert np.allclose(cosines, [0.6, 0.5, 0.55], atol=5e-3)  # shown scores are the query's own cosines (int8 rows)

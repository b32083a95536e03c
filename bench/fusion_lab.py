"""Fusion lab: the hybrid ranking's variants measured in-process, on the real `ChatbotIndex`, in seconds per set.

`bench/retrieval.py` measures through the API and costs about 20 minutes for every set; this reads each BEIR-layout
dataset as the service would hold it (every passage parsed and chunked as an uploaded `.md`/`.txt` file, each chunk
embedded by the bundled embedder from `embedding_text`), caches the vectors under `--cache` (a few minutes for
msmarco's 5,000 passages, once), builds one
`ChatbotIndex` per set and ranks every query by BM25, dense, the shipped hybrid and the variants below, scoring
nDCG@10 as `bench/retrieval.py` does (a passage split into several chunks counts at its best rank). Its BM25, dense
and hybrid numbers equal the API's on all seven sets (msmarco-5k and XQuAD-en/de/es/ru/zh/ar), so a variant can be
tried here first. msmarco's difference against the shipped ranking comes with a paired bootstrap interval over its
queries, since it has only 43 judged ones.

A variant re-implements `index.search`'s hybrid path with one change (the `lab` variant `shipped` must equal the
real one, and the run says so):

- `head`: each voice standardised over its best quarter (or best N) of the query's candidates, rather than over
  all of them, where most candidates are the other method's, and BM25's are zeros;
- `floor`: a candidate that BM25 did not return counts as BM25's lowest returned score, not 0;
- `rrf`: reciprocal rank fusion (k = 60) instead of standard deviations.

    python bench/fusion_lab.py /work/shared/data/retrieval/*
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from retrieval import ndcg_at, read_dataset

from botyard.config import Settings
from botyard.embedding import build_embedder, encode_vector, part_cosines, unit_parts
from botyard.ingestion.chunk import chunk_markdown
from botyard.ingestion.parse.core import parse_bytes
from botyard.retrieval.embedded.index import ChatbotIndex, Search
from botyard.retrieval.fusion import FEEDBACK_DOCS, FEEDBACK_WEIGHT, OVERFETCH, Method, candidates, lookup
from botyard.retrieval.knowledge import ChunkRow
from botyard.sources.processing.embed import embedding_text

Floats = npt.NDArray[np.float64]
Rows = npt.NDArray[np.int64]


@dataclass
class Loaded:
    index: ChatbotIndex
    doc_of_row: list[str]
    queries: list[tuple[str, np.ndarray | None, dict[str, int]]]
    """Each judged query: its text, its vector (None when no model reads it: BM25 alone) and its judgements."""

    def ndcgs(self, ranker: Callable[[Loaded, str, np.ndarray | None], Rows]) -> Floats:
        found = []
        for text, vector, grades in self.queries:
            ranked: list[str] = []
            for row in ranker(self, text, vector)[:20].tolist():
                if self.doc_of_row[row] not in ranked:
                    ranked.append(self.doc_of_row[row])
            found.append(ndcg_at(ranked[:10], grades))
        return np.array(found)


Data = dict[str, object]


def embedded(directory: Path, cache: Path) -> Data:
    """The dataset's chunks, their vectors and the queries' vectors, as ingestion makes them; cached in `cache`."""
    meta, vectors, query_vectors = (cache / f"{directory.name}{end}" for end in (".json", ".npy", ".queries.npy"))
    if not meta.exists():
        data = asyncio.run(embed(directory))
        cache.mkdir(parents=True, exist_ok=True)
        np.save(vectors, data.pop("vectors"))
        np.save(query_vectors, data.pop("query_vectors"))
        meta.write_text(json.dumps(data))
    found: Data = json.loads(meta.read_text())
    found["vectors"], found["query_vectors"] = np.load(vectors), np.load(query_vectors)
    return found


async def embed(directory: Path) -> Data:
    corpus, queries, qrels = read_dataset(directory)
    embedder = build_embedder(Settings())
    assert embedder is not None
    chunks = []
    for doc_id, doc in corpus.items():
        name, content = (
            (f"{doc_id}.md", f"# {doc['title']}\n\n{doc['text']}") if doc["title"] else (f"{doc_id}.txt", doc["text"])
        )
        parsed = parse_bytes(content.encode(), name, "text/plain")
        for position, chunk in enumerate(chunk_markdown(parsed.markdown)):
            chunks.append((doc_id, (parsed.title or name)[:500], chunk.heading(), chunk.text, position))
    texts = [embedding_text(heading, text) for _, _, heading, text, _ in chunks]
    vectors = np.concatenate([await embedder.embed_documents(texts[at : at + 64]) for at in range(0, len(texts), 64)])
    reads = [embedder.reads(text) for text in queries.values()]
    query_vectors = np.stack([await embedder.embed_query(text) for text in queries.values()])
    judged = [(text, read, qrels[query_id]) for (query_id, text), read in zip(queries.items(), reads, strict=True)]
    return {
        "chunks": chunks,
        "queries": judged,
        "parts": embedder.parts,
        "vectors": vectors,
        "query_vectors": query_vectors,
    }


def loaded(data: dict[str, object]) -> Loaded:
    chunks: list[tuple[str, str, str, str, int]] = data["chunks"]
    vectors: np.ndarray = data["vectors"]
    rows = [
        ChunkRow(f"c{i}", doc, position, heading, text, title, "file", {})
        for i, (doc, title, heading, text, position) in enumerate(chunks)
    ]
    parts = tuple(data["parts"])
    index = ChatbotIndex(1, rows, [encode_vector(v) for v in vectors], parts)
    query_vectors: np.ndarray = data["query_vectors"]
    judged: list[tuple[str, bool, dict[str, int]]] = data["queries"]
    queries = [
        (text, vector if read else None, grades)
        for (text, read, grades), vector in zip(judged, query_vectors, strict=True)
    ]
    return Loaded(index, [row.data_source_uuid for row in index.rows], queries)


def shipped(method: Method) -> Callable[[Loaded, str, np.ndarray | None], Rows]:
    def rank(lab: Loaded, text: str, vector: np.ndarray | None) -> Rows:
        used = method if vector is not None else Method.BM25
        return lab.index.search(Search(text, vector, None, 20, used)).rows

    return rank


def normalised(values: Floats, how: str) -> Floats:
    """A voice's scores in the variant's unit: deviations over all candidates (`all`), over the best quarter
    (`quarter`) or best N (a number) of them, or reciprocal ranks (`rrf`)."""
    if how == "rrf":
        rank = np.empty(len(values))
        rank[np.argsort(-values, kind="stable")] = np.arange(len(values))
        return 1.0 / (61.0 + rank)
    if how == "all":
        head = values
    else:
        size = max(2, len(values) // 4) if how == "quarter" else int(how)
        head = np.sort(values)[-size:]
    spread = float(head.std())
    return (values - head.mean()) / spread if spread > 0 else np.zeros_like(values)


def lab(how: str = "all", floor: bool = False) -> Callable[[Loaded, str, np.ndarray | None], Rows]:
    """The hybrid ranking of `index.search` (fused scores, then the Rocchio feedback pass) with the variant's unit."""

    def fuse(lab: Loaded, rows: Rows, bm25: Floats, vector: np.ndarray) -> Floats:
        dense = lab.index.dense
        assert dense is not None
        total = normalised(bm25, how)
        for cosine in part_cosines(dense.rows(rows), vector, dense.parts):
            values = np.where(dense.present[rows], cosine, np.nan).astype(np.float64)
            finite = np.isfinite(values)
            total = total + normalised(np.where(finite, values, values[finite].min() if finite.any() else 0.0), how)
        return total

    def rank(lab: Loaded, text: str, vector: np.ndarray | None) -> Rows:
        index, dense = lab.index, lab.index.dense
        if vector is None or dense is None:
            return shipped(Method.BM25)(lab, text, vector)
        bm25_rows, raw, best = index.lexical.search(text, OVERFETCH, None)
        scores = (raw / best if best > 0 else raw).astype(np.float32)
        dense_rows, _ = index._dense_candidates(Search(text, vector, None, 20, Method.HYBRID), OVERFETCH)
        rows = candidates(bm25_rows, dense_rows)
        bm25 = lookup(rows, bm25_rows, scores, float(scores.min()) if floor and len(scores) else 0.0)
        bm25 = bm25.astype(np.float64)
        query = np.asarray(vector, dtype=np.float32)
        score = fuse(lab, rows, bm25, query)
        seeds = rows[index._order(rows, score.astype(np.float32))[:FEEDBACK_DOCS]]
        unit = unit_parts(query, dense.parts)
        moved = unit + FEEDBACK_WEIGHT * dense.rows(seeds).mean(axis=0)
        start = 0
        for width in dense.parts:
            if not np.any(unit[start : start + width]):
                moved[start : start + width] = 0.0
            start += width
        score = fuse(lab, rows, bm25, unit_parts(moved, dense.parts))
        return rows[index._order(rows, score.astype(np.float32))]

    return rank


VARIANTS = {
    "bm25": shipped(Method.BM25),
    "dense": shipped(Method.DENSE),
    "hybrid (shipped)": shipped(Method.HYBRID),
    "lab: shipped": lab(),
    "lab: head = best quarter": lab("quarter"),
    "lab: head = best quarter, floor": lab("quarter", floor=True),
    "lab: head = best 20": lab("20"),
    "lab: head = best 10": lab("10"),
    "lab: rrf": lab("rrf"),
}


def bootstrap(difference: Floats, rounds: int = 10_000) -> tuple[float, float]:
    """The 95% interval of the mean of paired per-query differences."""
    draw = np.random.default_rng(0).integers(0, len(difference), (rounds, len(difference)))
    low, high = np.percentile(difference[draw].mean(axis=1), [2.5, 97.5])
    return float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path, help="BEIR-layout directories")
    parser.add_argument("--cache", type=Path, default=Path("data/fusion-lab"), help="where embeddings are cached")
    args = parser.parse_args()
    sets = {directory.name: loaded(embedded(directory, args.cache)) for directory in args.datasets}
    found = {name: {s: sets[s].ndcgs(ranker) for s in sets} for name, ranker in VARIANTS.items()}
    print(f"{'variant':<34}" + "".join(f"{name:>12}" for name in sets))
    for name, by_set in found.items():
        print(f"{name:<34}" + "".join(f"{by_set[s].mean():>12.4f}" for s in sets))
    if any(np.abs(found["lab: shipped"][s] - found["hybrid (shipped)"][s]).max() > 1e-9 for s in sets):
        print("warning: the lab's shipped ranking differs from index.search's; its variants are not comparable")
    for s in sets:
        if len(sets[s].queries) < 100:  # few queries: say how sure each difference is
            for name, by_set in found.items():
                if name.startswith("lab: ") and name != "lab: shipped":
                    difference = by_set[s] - found["hybrid (shipped)"][s]
                    low, high = bootstrap(difference)
                    wins, losses = int((difference > 1e-9).sum()), int((difference < -1e-9).sum())
                    print(
                        f"{s} {name}: {difference.mean():+.4f} (95% {low:+.3f}..{high:+.3f}; {wins} up, {losses} down)"
                    )


if __name__ == "__main__":
    main()

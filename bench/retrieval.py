"""Retrieval benchmark: nDCG@10 and recall@10 of BM25 alone, dense alone and the shipped hybrid, through the API.

Each BEIR-layout dataset given (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`) is loaded into one chatbot of a fresh
`botyard serve` (a fresh SQLite file, or a new PostgreSQL database): every passage is uploaded as a text file
(`# title` first when it has one), and the run waits until ingestion, chunking and embedding are done (about
4.5 minutes for 5,000 passages with the bundled MiniLM and USE-m3 on 2 cores). Then every query goes through
`POST /api/v1/chatbot/{uuid}/retrieve` once per method. A passage that is split into several chunks counts once,
at its best rank. Graded relevance counts as gain (BEIR's nDCG). The endpoint's p50 latency is printed too.

`--relevance` also measures the relevance decision at each strictness: the share of queries found answerable with
their judged passages present ("the chatbot knows"), and declined with them hidden (an agent whose sources are all
the others: what is left is on neighbouring topics) and for a set of chit-chat and off-domain questions.

    python bench/retrieval.py /work/shared/data/retrieval/msmarco-5k
    python bench/retrieval.py /work/shared/data/retrieval/*          # every set, one table at the end
    python bench/retrieval.py DATASET --relevance --postgres-url postgresql://postgres@127.0.0.1:5432/postgres

`--search both` (with `--postgres-url` of a server with pgvector, e.g. `scripts/pgvector-server start`) loads each
set once, measures it on the embedded search backend, then runs `botyard search migrate` and measures it again on
the postgres backend (`BOTYARD_SEARCH=postgres`, docs/search.md): both tables, and their difference, in one run.
`--search postgres` measures the postgres backend alone.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from _engines import add_search_arguments, engines, fresh_database, search_migrate
from _harness import Server

METHODS = ("bm25", "dense", "hybrid")
OFF_DOMAIN = [
    "hello",
    "thanks, that was helpful!",
    "who are you?",
    "tell me a joke",
    "write a poem about autumn leaves",
    "can I speak to a human please",
    "what is your refund policy",
    "my order has not arrived yet",
    "how do I reset my password",
    "what are your opening hours on sunday",
    "do you ship to canada",
    "is there a discount code for students",
    "translate good morning into japanese",
    "what is 17 times 23",
    "recommend a good netflix series",
    "asdfgh qwerty",
    "I want to cancel my subscription",
    "which plan should I choose for a team of five",
    "your website is not loading",
    "what's the wifi password",
]


def read_dataset(directory: Path) -> tuple[dict[str, dict[str, str]], dict[str, str], dict[str, dict[str, int]]]:
    corpus = {}
    with (directory / "corpus.jsonl").open() as lines:
        for line in lines:
            doc = json.loads(line)
            corpus[str(doc["_id"])] = {"title": doc.get("title") or "", "text": doc["text"]}
    with (directory / "queries.jsonl").open() as lines:
        queries = {str(query["_id"]): query["text"] for query in map(json.loads, lines)}
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with (directory / "qrels" / "test.tsv").open() as lines:
        for line in lines:
            query_id, doc_id, grade = line.rstrip("\n").split("\t")[:3]
            if grade.isdigit() and query_id in queries:
                qrels[query_id][doc_id] = int(grade)
    return corpus, {query_id: queries[query_id] for query_id in qrels}, dict(qrels)


def ndcg_at(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    gain = sum(grades.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sum(grade / math.log2(rank + 2) for rank, grade in enumerate(sorted(grades.values(), reverse=True)[:k]))
    return gain / ideal if ideal else 0.0


def recall_at(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    relevant = {doc for doc, grade in grades.items() if grade > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


class Loaded:
    """The chatbot the corpus went into, and which passages each source holds (identical passages share one)."""

    def __init__(self, client: httpx.Client, bot: str, docs_of_source: dict[str, list[str]]) -> None:
        self.client, self.bot, self.docs_of_source = client, bot, docs_of_source

    def retrieve(self, query: str, method: str, top_k: int = 10, agent: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"query": query, "method": method, "top_k": top_k}
        if agent:
            body["agent_uuid"] = agent
        response = self.client.post(f"/api/v1/chatbot/{self.bot}/retrieve", json=body)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def ranked_docs(self, result: dict[str, Any]) -> list[str]:
        ranked: list[str] = []
        for chunk in result["chunks"]:
            ranked += [doc for doc in self.docs_of_source[chunk["data_source_uuid"]] if doc not in ranked]
        return ranked


def load(client: httpx.Client, corpus: dict[str, dict[str, str]]) -> Loaded:
    bot = client.post("/api/v1/chatbot/create", json={"name": "bench"}).raise_for_status().json()["uuid"]
    docs_of_source: dict[str, list[str]] = defaultdict(list)
    started = time.monotonic()
    for doc_id, doc in corpus.items():
        name, content = (
            (f"{doc_id}.md", f"# {doc['title']}\n\n{doc['text']}") if doc["title"] else (f"{doc_id}.txt", doc["text"])
        )
        files = {"file": (name, content.encode(), "text/plain")}
        response = client.post(f"/api/v1/chatbot/{bot}/data-source/upload", files=files)
        if response.status_code not in (200, 409):  # 409: the same bytes again; it answers the existing source
            response.raise_for_status()
        docs_of_source[response.json()["uuid"]].append(doc_id)
    print(f"uploaded {len(corpus)} passages in {time.monotonic() - started:.0f} s; waiting for ingestion")
    while True:
        sources = client.get(f"/api/v1/chatbot/{bot}/data-sources").raise_for_status().json()
        pending = [
            source for source in sources if source["status"] != "success" and not source["status"].startswith("error")
        ]
        if not pending:
            break
        print(f"  {len(sources) - len(pending)}/{len(sources)} done after {time.monotonic() - started:.0f} s")
        time.sleep(10)
    failed = [source for source in sources if source["status"] != "success"]
    print(f"ingested in {time.monotonic() - started:.0f} s ({len(failed)} failed)")
    return Loaded(client, bot, docs_of_source)


def evaluate(loaded: Loaded, queries: dict[str, str], qrels: dict[str, dict[str, int]]) -> dict[str, Scores]:
    """nDCG@10, recall@10 and the endpoint's median latency of each method."""
    found = {}
    for method in METHODS:
        ndcgs, recalls, latencies = [], [], []
        for query_id, query in queries.items():
            started = time.perf_counter()
            ranked = loaded.ranked_docs(loaded.retrieve(query, method, top_k=20))[:10]
            latencies.append((time.perf_counter() - started) * 1000)
            ndcgs.append(ndcg_at(ranked, qrels[query_id]))
            recalls.append(recall_at(ranked, qrels[query_id]))
        found[method] = Scores(statistics.mean(ndcgs), statistics.mean(recalls), statistics.median(latencies))
    return found


@dataclass(frozen=True)
class Scores:
    ndcg: float
    recall: float
    p50_ms: float


def table(results: dict[str, dict[str, Scores]]) -> str:
    """One row per dataset: each method's nDCG@10 and R@10, hybrid's p50 latency, and hybrid's margin over the
    better of BM25 and dense alone (the fusion must never rank below what either method finds alone)."""
    head = "".join(f" {method + ' nDCG':>12} {'R@10':>6}" for method in METHODS)
    lines = [f"{'dataset':<14}{head} {'hybrid-best':>11} {'p50 ms':>7}"]
    for name, scores in results.items():
        cells = "".join(f" {scores[method].ndcg:>12.3f} {scores[method].recall:>6.3f}" for method in METHODS)
        margin = scores["hybrid"].ndcg - max(scores["bm25"].ndcg, scores["dense"].ndcg)
        lines.append(f"{name:<14}{cells} {margin:>+11.3f} {scores['hybrid'].p50_ms:>7.1f}")
    return "\n".join(lines)


def decided(loaded: Loaded, query: str, strictness: str, agent: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"query": query, "top_k": 8, "strictness": strictness}
    if agent:
        body["agent_uuid"] = agent
    response = loaded.client.post(f"/api/v1/chatbot/{loaded.bot}/retrieve", json=body)
    response.raise_for_status()
    decision: dict[str, Any] = response.json()["decision"]
    return decision


def relevance(
    loaded: Loaded, queries: dict[str, str], qrels: dict[str, dict[str, int]], dump: Path | None = None
) -> None:
    """The relevance decision as answering makes it, at each strictness: the share of queries it finds answerable
    on the full corpus ("knows"), and the share it declines without their judged passages (an agent whose sources
    are all the others: "hidden", the hard case of neighbouring topics) and for off-domain questions."""
    source_of = {doc: source for source, docs in loaded.docs_of_source.items() for doc in docs}
    every_source = list(loaded.docs_of_source)
    agents: dict[str, str] = {}
    for query_id in queries:
        hidden = {source_of[doc] for doc in qrels[query_id] if doc in source_of}
        created = loaded.client.post(
            f"/api/v1/chatbot/{loaded.bot}/agent/create", json={"name": f"without {query_id}", "type": "user-facing"}
        )
        agents[query_id] = created.raise_for_status().json()["uuid"]
        update = {"data_source_uuids": [s for s in every_source if s not in hidden], "use_all_sources": False}
        loaded.client.post(f"/api/v1/agent/{agents[query_id]}/update", json=update).raise_for_status()
    if dump:
        rows = []
        for query_id, query in queries.items():
            rows.append({"kind": "knows", "query": query, **decided(loaded, query, "balanced")})
            rows.append({"kind": "hidden", "query": query, **decided(loaded, query, "balanced", agents[query_id])})
        rows += [{"kind": "off", "query": query, **decided(loaded, query, "balanced")} for query in OFF_DOMAIN]
        dump.write_text(json.dumps(rows, indent=1))
    print(f"\n{'strictness':<10} {'knows':>6} {'declines hidden':>16} {'declines off-domain':>20}")
    for strictness in ("loose", "balanced", "strict"):
        knows = [decided(loaded, query, strictness)["relevant"] for query in queries.values()]
        without = [not decided(loaded, q, strictness, agents[qid])["relevant"] for qid, q in queries.items()]
        off = [not decided(loaded, query, strictness)["relevant"] for query in OFF_DOMAIN]
        print(
            f"{strictness:<10} {sum(knows) / len(knows):>6.0%} {sum(without) / len(without):>16.0%} "
            f"{sum(off) / len(off):>20.0%}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "datasets", type=Path, nargs="+", help="BEIR-layout directories (corpus.jsonl, queries.jsonl, qrels/)"
    )
    parser.add_argument("--relevance", action="store_true", help="also measure the relevance decision")
    parser.add_argument("--dump", type=Path, help="with --relevance: write every decision (balanced) to this file")
    parser.add_argument("--limit", type=int, default=0, help="load only the first N passages (a quick look)")
    add_search_arguments(parser, postgres_url=None)  # the database too: embedded on PostgreSQL with a URL
    args = parser.parse_args()
    backends = engines(parser, args)
    results: dict[str, dict[str, dict[str, Scores]]] = {backend: {} for backend in backends}
    for dataset in args.datasets:
        print(f"== {dataset.name}")
        for backend, scores in run(dataset, args, backends).items():
            results[backend][dataset.name] = scores
            print(f"-- {backend}\n" + table({dataset.name: scores}))
    for backend in backends:
        print(f"\n== {backend} search\n" + table(results[backend]))
    if len(backends) == 2:
        print("\n== postgres minus embedded (nDCG@10)\n" + differences(results["embedded"], results["postgres"]))


def differences(embedded: dict[str, dict[str, Scores]], postgres: dict[str, dict[str, Scores]]) -> str:
    lines = [f"{'dataset':<14}" + "".join(f" {method:>8}" for method in METHODS)]
    for name, scores in embedded.items():
        lines.append(
            f"{name:<14}"
            + "".join(f" {postgres[name][method].ndcg - scores[method].ndcg:>+8.4f}" for method in METHODS)
        )
    return "\n".join(lines)


def run(dataset: Path, args: argparse.Namespace, backends: list[str]) -> dict[str, dict[str, Scores]]:
    """One dataset loaded once into a fresh server, measured on each search backend in turn: their scores (and,
    with --relevance, the decision's figures, printed)."""
    corpus, queries, qrels = read_dataset(dataset)
    if args.limit:
        corpus = dict(list(corpus.items())[: args.limit])
    found: dict[str, dict[str, Scores]] = {}
    with tempfile.TemporaryDirectory() as directory, fresh_database(args.postgres_url, Path(directory)) as db:
        settings = db.env | {"BOTYARD_MAX_BODY_KB": "4096"}
        key = Server(Path(directory), settings).create_key()
        loaded: tuple[str, dict[str, list[str]]] | None = None
        for backend in backends:
            server = Server(Path(directory), settings | {"BOTYARD_SEARCH": backend})
            search_migrate(server.env)
            with (
                server.running(),
                httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client,
            ):
                if loaded is None:
                    chatbot = load(client, corpus)
                    loaded = (chatbot.bot, chatbot.docs_of_source)
                chatbot = Loaded(client, *loaded)
                found[backend] = evaluate(chatbot, queries, qrels)
                if args.relevance:
                    dump = args.dump.with_name(f"{dataset.name}-{backend}-{args.dump.name}") if args.dump else None
                    relevance(chatbot, queries, qrels, dump)
    return found


if __name__ == "__main__":
    main()

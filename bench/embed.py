"""How fast the bundled embedders are here: chunks per second when indexing, milliseconds per query.

Run: `python bench/embed.py [--embedder multilingual|minilm|use] [--chunks 128] [--queries 50]`. The default is the
service's default, the pair of MiniLM and USE-m3 (`embedding/pair.py`); `minilm` and `use` measure each model alone.
Chunks are about 250 tokens of varied English prose (what the chunker produces), which both models read; queries are
short questions. One thread per model, as in the service.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time

from tokenizers import Tokenizer

from botyard.embedding import Embedder
from botyard.embedding.minilm import MiniLMEmbedder, default_tokenizer_path
from botyard.embedding.pair import USE_SCALE, PairEmbedder
from botyard.embedding.use import UseEmbedder

TEXT = """the shop opens at nine and closes at five on weekdays while on saturdays it opens later customers can
return items within thirty days of delivery shipping inside the european union takes three working days gift wrapping
is free in december orders above fifty euros ship without charge invoices are sent by email after payment"""
WORDS = TEXT.split()


def chunk(rng: random.Random, words: int = 190) -> str:
    """Roughly 250 word pieces: 190 words of plain English plus punctuation."""
    picked = [rng.choice(WORDS) for _ in range(words)]
    sentences = [" ".join(picked[start : start + 12]).capitalize() + "." for start in range(0, words, 12)]
    return " ".join(sentences)


def build(name: str) -> Embedder:
    if name == "minilm":
        return MiniLMEmbedder()
    if name == "use":
        return UseEmbedder()
    return PairEmbedder(MiniLMEmbedder(), UseEmbedder(), USE_SCALE)


async def run(name: str, chunks: int, queries: int) -> None:
    rng = random.Random(7)
    started = time.perf_counter()
    embedder = build(name)
    print(f"{embedder.name}: load (sha256 checks, sessions, tokenizers): {time.perf_counter() - started:.2f} s")
    documents = [chunk(rng) for _ in range(chunks)]
    wordpieces = Tokenizer.from_file(str(default_tokenizer_path()))
    wordpieces.no_truncation()
    tokens = [len(wordpieces.encode(text).ids) for text in documents]
    await embedder.embed_documents(documents[:4])  # warm-up
    started, cpu = time.perf_counter(), time.process_time()
    await embedder.embed_documents(documents)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    average = statistics.mean(tokens)
    print(f"index: {chunks} chunks of ~{average:.0f} tokens in {seconds:.2f} s = {chunks / seconds:.1f} chunks/s")
    # On a shared machine wall time measures the neighbours too; CPU time per chunk is what this process spent.
    print(f"       {cpu / chunks * 1000:.0f} ms of CPU per chunk (load average {os.getloadavg()[0]:.1f})")
    questions = [f"Can I {rng.choice(WORDS)} {rng.choice(WORDS)} in {rng.randint(2, 60)} days?" for _ in range(queries)]
    await embedder.embed_query(questions[0])
    timings = []
    for question in questions:
        started = time.perf_counter()
        await embedder.embed_query(question)
        timings.append((time.perf_counter() - started) * 1000)
    print(f"query: median {statistics.median(timings):.1f} ms, p95 {sorted(timings)[int(len(timings) * 0.95)]:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedder", choices=("multilingual", "minilm", "use"), default="multilingual")
    parser.add_argument("--chunks", type=int, default=128)
    parser.add_argument("--queries", type=int, default=50)
    arguments = parser.parse_args()
    asyncio.run(run(arguments.embedder, arguments.chunks, arguments.queries))


if __name__ == "__main__":
    main()

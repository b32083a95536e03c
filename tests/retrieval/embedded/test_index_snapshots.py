"""Search indexes saved on disk (`botyard.retrieval.embedded.snapshot`): a loaded snapshot ranks exactly as the index it
was saved from and as a fresh build; a process that starts loads it instead of building and catches up on the changes
made since, on both databases; a damaged or stale snapshot is rebuilt; processes meeting a chatbot at once build it
once and leave one whole snapshot; a snapshot moved to another chatbot's folder is not loaded there; a deleted
chatbot's snapshots go, and so do the private directories of dead processes."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from botyard.embedding import encode_vector
from botyard.retrieval.embedded.index import ChatbotIndex, Search
from botyard.retrieval.embedded.snapshot import Snapshots
from botyard.retrieval.fusion import Method
from botyard.retrieval.knowledge import ChunkRow
from tests.support.api import Api
from tests.support.database import Db
from tests.support.index_snapshots import (
    bulk_texts,
    fill,
    found_texts,
    index_now,
    process_retriever,
    snapshot_names,
)
from tests.support.jobs import process
from tests.support.knowledge import add_qa, knowledge_bot
from tests.support.retrievers import embedded
from tests.support.waiting import START

QUERIES = (
    "lighthouse keeper ledger",
    "harbour ferry timetable day 12",
    "storm fog signal",
    "Log entry 4321",
    "mackerel herring oyster",
    "what is this?",
    "lighthuose kepeer",  # typos: the speller's state is saved too
)


def vector(seed: int) -> np.ndarray:
    found = np.random.default_rng(seed).normal(size=8).astype(np.float32)
    return found / np.linalg.norm(found)


def rows_of(texts: Sequence[str]) -> list[ChunkRow]:
    return [
        ChunkRow(f"c{n}", f"s{n // 40}", n % 40, "Harbour", text, f"Log {n // 40}", "upload", {})
        for n, text in enumerate(texts)
    ]


def index_of(rows: Sequence[ChunkRow], snapshots: Snapshots | None = None) -> ChatbotIndex:
    vectors = [encode_vector(vector(len(row.text) * 7 + row.position)) for row in rows]
    return ChatbotIndex(3, rows, vectors, (8,), workdir=snapshots.private() if snapshots else None)


def rankings(index: ChatbotIndex) -> list[object]:
    found: list[object] = []
    for query in QUERIES:
        for method in Method:
            for sources in (None, frozenset({"s1", "s7", "s30"})):
                ranked = index.search(Search(query, vector(len(query)), sources, 10, method))
                found.append((ranked.rows.tolist(), ranked.score.tolist(), ranked.bm25.tolist()))
        found.append(index.lexical.weights(query))
        found.append(
            [(hit.text, hit.coverage, hit.language) for hit in index.hits(ranked, index.lexical.weights(query), 10)]
        )
    return found


def test_a_loaded_snapshot_ranks_exactly_as_the_index_saved_and_a_fresh_build(tmp_path: Path) -> None:
    snapshots = Snapshots(tmp_path, "snapshot-test-v1", (8,))
    rows = rows_of(bulk_texts(2000))
    built = index_of(rows, snapshots)
    built.unrelated = (0.25, 0.5)
    folder = snapshots.save("bot", built)
    assert folder.name == f"3-{snapshots.key}" and snapshot_names(tmp_path, "bot") == [folder.name]
    loaded = snapshots.load("bot", 5)
    assert loaded is not None and (loaded.version, loaded.built_version, loaded.size) == (3, 3, 2000)
    assert (loaded.unrelated, loaded.unrelated_size) == ((0.25, 0.5), 2000)
    assert loaded.workdir is not None and loaded.workdir.path != built.workdir.path  # type: ignore[union-attr]
    assert rankings(loaded) == rankings(built) == rankings(index_of(rows))
    assert snapshots.load("bot", 2) is None  # never one newer than the version asked for

    # Updating the loaded index writes into its private copy, never into the snapshot another process may read.
    fresh = rows_of([*bulk_texts(2000)[:1960], "The new ferry to the island leaves at noon."])[1960:]
    fresh = [ChunkRow(row.uuid + "x", "s49", 0, "Harbour", row.text, "Log 49", "upload", {}) for row in fresh]
    changed = [encode_vector(vector(1))]
    updated = loaded.updated(4, {"s49"}, fresh, changed)
    assert (
        updated is not None
        and "new ferry"
        in updated.rows[updated.search(Search("ferry island noon", None, None, 1, Method.BM25)).rows[0]].text
    )
    again = snapshots.load("bot", 5)
    assert again is not None and rankings(again) == rankings(built)
    expected = built.updated(4, {"s49"}, fresh, changed)
    assert expected is not None and rankings(updated) == rankings(expected)


def test_a_snapshot_folder_moved_to_another_chatbot_is_not_loaded_there(tmp_path: Path) -> None:
    """A snapshot names the chatbot it was saved for, and a load compares it: a folder copied into another
    chatbot's (by hand, or a shared snapshot someone moved) is put aside, and that chatbot builds."""
    snapshots = Snapshots(tmp_path, "snapshot-test-v1", (8,))
    folder = snapshots.save("bot", index_of(rows_of(bulk_texts(200)), snapshots))
    shutil.copytree(folder, tmp_path / "indexes" / "other" / folder.name)
    assert snapshots.load("other", 5) is None
    assert snapshot_names(tmp_path, "other") == []  # out of the way: the build saves under its name
    assert snapshots.load("bot", 5) is not None


def test_the_private_directories_of_dead_processes_are_removed(tmp_path: Path) -> None:
    dead = int(
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            capture_output=True,
            check=True,
            text=True,
            timeout=START,
        ).stdout
    )
    host = socket.gethostname()
    work = tmp_path / "indexes" / ".work"
    for name in (f"{host}-{dead}-abc", f"{host}-{os.getppid()}-abc", f"elsewhere-{dead}-abc"):
        (work / name).mkdir(parents=True)
    left = tmp_path / "indexes" / "bot" / f".tmp-{host}-{dead}-xyz"
    left.mkdir(parents=True)
    snapshots = Snapshots(tmp_path, None, None)
    private = snapshots.private()
    assert sorted(entry.name for entry in work.iterdir() if not entry.name.startswith(f"{host}-{os.getpid()}-")) == [
        f"elsewhere-{dead}-abc",  # another machine's: its processes are not ours to judge
        f"{host}-{os.getppid()}-abc",
    ]
    snapshots.save("bot", index_of(rows_of(bulk_texts(50)), snapshots))
    assert not left.exists()
    path = private.path
    del private
    assert not path.exists()  # an index's private directory goes with it


def test_a_process_that_starts_loads_the_snapshot_and_catches_up(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds", "password"])
    fill(db, sources["password"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    first = process_retriever(settings, tmp_path)
    built = index_now(db, first, bot)
    assert built is not None and embedded(first).builds == 1 and embedded(first).snapshots is not None
    assert snapshot_names(tmp_path, bot) == [f"{built.version}-{embedded(first).snapshots.key}"]

    # Knowledge changes while no process runs: a source added, one deleted, one replaced.
    add_qa(alice, bot, "shipping")
    process(alice.client)
    alice.ok(alice.delete(f"/data-source/{sources['refunds']}/delete"))
    fill(db, sources["hours"], ["Zebra opening: the shop opens at ten.", "Zebra closing: it closes at six."])

    restarted = process_retriever(settings, tmp_path)
    index = index_now(db, restarted, bot)
    assert index is not None and embedded(restarted).builds == 0
    assert index.built_version == built.version < index.version
    query = "zebra shop opens closes refund international shipping"
    found = found_texts(db, restarted, bot, query, Method.BM25)
    assert "Zebra opening: the shop opens at ten." in found and "Zebra closing: it closes at six." in found
    assert any("International shipping" in text for text in found)
    assert not any("refund" in text.lower() or "springfield" in text.lower() for text in found)
    # Exactly what a process without snapshots builds from the database.
    fresh = process_retriever(settings, tmp_path / "elsewhere", index_snapshots=False)
    for each in (query, "lighthouse keeper ledger", "storm fog day 40"):
        for method in Method:
            assert found_texts(db, restarted, bot, each, method) == found_texts(db, fresh, bot, each, method), each
    assert (
        embedded(fresh).builds == 1
        and embedded(restarted).builds == 0
        and not (tmp_path / "elsewhere" / "indexes").exists()
    )
    # A caught-up index is not saved again (only builds are): the snapshot stays the built one.
    assert snapshot_names(tmp_path, bot) == [f"{built.version}-{embedded(first).snapshots.key}"]


def test_a_process_that_built_an_index_serves_its_snapshot_once_saved(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds"])
    fill(db, sources["refunds"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    builder = process_retriever(settings, tmp_path)
    built = index_now(db, builder, bot)  # built, then saved and loaded
    assert built is not None and built.dense is not None and not isinstance(built.dense.blocks[0], np.memmap)
    served = index_now(db, builder, bot)
    assert (
        served is not None and served is not built and served.version == built.version and embedded(builder).builds == 1
    )
    assert served.dense is not None and all(isinstance(block, np.memmap) for block in served.dense.blocks)
    fresh = process_retriever(settings, tmp_path / "elsewhere", index_snapshots=False)
    for query in ("lighthouse keeper ledger", "storm fog day 40", "When is the shop open?"):
        for method in Method:
            assert found_texts(db, builder, bot, query, method) == found_texts(db, fresh, bot, query, method), query


@pytest.mark.parametrize("damage", ["unreadable state", "missing tantivy file", "other code"])
def test_a_damaged_or_stale_snapshot_is_rebuilt(alice: Api, db: Db, tmp_path: Path, damage: str) -> None:
    bot, sources = knowledge_bot(alice, ["hours"])
    fill(db, sources["hours"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    first = process_retriever(settings, tmp_path)
    built = index_now(db, first, bot)
    assert built is not None and embedded(first).snapshots is not None
    saved = tmp_path / "indexes" / bot / f"{built.version}-{embedded(first).snapshots.key}"
    if damage == "unreadable state":
        (saved / "state.pickle").write_bytes(b"not a pickle")
    elif damage == "missing tantivy file":
        next(path for path in (saved / "tantivy").iterdir() if path.suffix == ".idx").unlink()
    else:  # made by other code (a stop word changed): another key
        saved.rename(saved.with_name(f"{built.version}-{'0' * 16}"))

    restarted = process_retriever(settings, tmp_path)
    assert index_now(db, restarted, bot) is not None and embedded(restarted).builds == 1
    for query in ("lighthouse keeper ledger", "storm fog day 40"):
        assert found_texts(db, restarted, bot, query) == found_texts(db, first, bot, query)
    assert snapshot_names(tmp_path, bot) == [saved.name]  # the damaged one replaced, the stale one removed
    again = process_retriever(settings, tmp_path)
    assert index_now(db, again, bot) is not None and embedded(again).builds == 0


def test_processes_meeting_a_chatbot_at_once_build_it_once(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["hours"])
    fill(db, sources["hours"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    processes = [process_retriever(settings, tmp_path) for _ in range(2)]

    async def both() -> None:
        async def one(retriever: object) -> None:
            # Read transactions: on SQLite, write ones would take turns, and the second could find the first's save.
            async with db.database.transaction(write=False) as session:
                await embedded(processes[int(retriever is processes[1])]).index(session, bot)

        await asyncio.gather(*(one(each) for each in processes))
        for each in processes:
            assert embedded(each).snapshots is not None
            await embedded(each).snapshots.saved()

    assert alice.client.portal is not None
    alice.client.portal.call(both)
    # One builds; the other waits for its build (`build_lock`) and loads the snapshot it saved.
    assert sorted(embedded(each).builds for each in processes) == [0, 1]
    names = snapshot_names(tmp_path, bot)
    assert len(names) == 1 and not names[0].startswith(".")
    third = process_retriever(settings, tmp_path)
    assert index_now(db, third, bot) is not None and embedded(third).builds == 0
    for query in ("lighthouse keeper ledger", "harbour ferry timetable"):
        assert found_texts(db, third, bot, query) == found_texts(db, processes[0], bot, query)


def test_a_deleted_chatbot_loses_its_snapshots(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["hours"])
    fill(db, sources["hours"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    saved = tmp_path / "indexes" / bot
    assert index_now(db, process_retriever(settings, tmp_path), bot) is not None and snapshot_names(tmp_path, bot)
    # Deleted through the API: the app's own data directory loses the chatbot's snapshots at once.
    assert index_now(db, alice.client.app.state.runtime.retriever, bot) is not None  # type: ignore[attr-defined]
    assert snapshot_names(settings.data_dir, bot)
    alice.ok(alice.delete(f"/chatbot/{bot}/delete"))
    assert not (settings.data_dir / "indexes" / bot).exists()
    # Those of a data directory the API's process does not use go when a question there finds the chatbot gone.
    assert saved.exists()
    assert index_now(db, process_retriever(settings, tmp_path), bot) is None
    assert not saved.exists()


def test_a_chatbot_grown_too_small_to_save_loses_its_snapshot(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds"])
    fill(db, sources["hours"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    assert index_now(db, process_retriever(settings, tmp_path), bot) is not None and snapshot_names(tmp_path, bot)
    fill(db, sources["hours"], ["Zebra opening: the shop opens at ten."])
    restarted = process_retriever(settings, tmp_path)
    index = index_now(db, restarted, bot)
    # The snapshot was loaded, but nearly every row is dead: a rebuild, too small to save, and the snapshot goes.
    assert index is not None and index.size == 2 and embedded(restarted).builds == 1
    assert snapshot_names(tmp_path, bot) == []
    assert found_texts(db, restarted, bot, "zebra opens", Method.BM25)[0] == "Zebra opening: the shop opens at ten."

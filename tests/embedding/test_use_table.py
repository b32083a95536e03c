"""USE-m3's embedding table mapped from a file under the data directory (botyard.embedding.use_table): the same
vectors as the table in memory, written once and then only mapped, rewritten when the file is not the table, and
kept in memory where the directory cannot be written."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import threadpoolctl

from botyard.embedding.use import WEIGHTS_SHA256, UseEmbedder

TEXTS = [
    "How long is the warranty on repairs?",
    "Wie lange habe ich Garantie, wenn ihr etwas repariert habt?",
    "维修后的保修期是多长时间",
    "ما هي مدة الضمان بعد الإصلاح؟",
    "x",
]
FILE = f"use-m3-table-{WEIGHTS_SHA256[:16]}.npy"


def vectors(embedder: UseEmbedder) -> np.ndarray:
    return asyncio.run(embedder.embed_documents(TEXTS))


def table(embedder: UseEmbedder) -> np.ndarray:
    found: np.ndarray = embedder._backend.table
    return found


@pytest.fixture(scope="module")
def in_memory() -> UseEmbedder:
    return UseEmbedder()


@pytest.fixture(scope="module")
def expected(in_memory: UseEmbedder) -> np.ndarray:
    return vectors(in_memory)


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("data") / "models"


@pytest.fixture(scope="module")
def mapped(models: Path) -> UseEmbedder:
    return UseEmbedder(table_dir=models)


def assert_same(found: np.ndarray, expected: np.ndarray) -> None:
    assert found.dtype == expected.dtype == np.float32
    assert found.tobytes() == expected.tobytes()  # bitwise, not merely close


def test_the_mapped_table_gives_bitwise_the_same_vectors(
    mapped: UseEmbedder, in_memory: UseEmbedder, expected: np.ndarray
) -> None:
    assert_same(vectors(mapped), expected)
    for text in TEXTS:
        assert_same(asyncio.run(mapped.embed_query(text)), asyncio.run(in_memory.embed_query(text)))


def test_the_table_is_a_map_of_the_file_under_the_directory(
    mapped: UseEmbedder, in_memory: UseEmbedder, models: Path
) -> None:
    assert isinstance(table(mapped), np.memmap) and not isinstance(table(in_memory), np.memmap)
    assert not table(mapped).flags.writeable
    assert (models / FILE).is_file() and sorted(path.name for path in models.iterdir()) == [FILE]
    assert np.array_equal(np.load(models / FILE), table(in_memory))


def resident_kb(path: Path) -> int:
    """kB of the file at `path` resident in this process's maps (Linux's /proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line[:1] in "0123456789abcdef" and "-" in line.split(" ", 1)[0]:
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux's /proc/self/smaps")
def test_only_the_pages_of_the_rows_read_become_resident(tmp_path: Path, expected: np.ndarray) -> None:
    embedder = UseEmbedder(table_dir=tmp_path)  # writes the file: the page cache holds all of it
    assert resident_kb(tmp_path / FILE) == 0
    assert_same(vectors(embedder), expected)
    # a few hundred kB for these texts, not the 2 MB folios Linux caches a written file in, nor the 65 MB table
    assert 0 < resident_kb(tmp_path / FILE) < 2048


def test_a_second_process_maps_the_file_without_writing_it(
    mapped: UseEmbedder, models: Path, expected: np.ndarray
) -> None:
    before = (models / FILE).stat()
    second = UseEmbedder(table_dir=models)
    after = (models / FILE).stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (before.st_ino, before.st_mtime_ns, before.st_size)
    assert isinstance(table(second), np.memmap)
    assert_same(vectors(second), expected)


def truncated(path: Path, good: np.ndarray) -> None:
    np.save(path, good)
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 2)


def another_shape(path: Path, good: np.ndarray) -> None:
    np.save(path, good[:1000])


def another_dtype(path: Path, good: np.ndarray) -> None:
    np.save(path, good.view(np.int8))


def one_byte_changed(path: Path, good: np.ndarray) -> None:
    changed = good.copy()
    changed[12345, 67] ^= 1
    np.save(path, changed)


def not_numpy(path: Path, good: np.ndarray) -> None:
    path.write_bytes(b"not a table")


@pytest.mark.parametrize("corrupt", [truncated, another_shape, another_dtype, one_byte_changed, not_numpy])
def test_a_file_that_is_not_the_table_is_written_anew(
    corrupt: object, tmp_path: Path, in_memory: UseEmbedder, expected: np.ndarray
) -> None:
    assert callable(corrupt)
    corrupt(tmp_path / FILE, table(in_memory))
    embedder = UseEmbedder(table_dir=tmp_path)
    assert isinstance(table(embedder), np.memmap)
    assert np.array_equal(np.load(tmp_path / FILE), table(in_memory))
    assert [path.name for path in tmp_path.iterdir()] == [FILE]  # no temporary file left behind
    assert_same(vectors(embedder), expected)


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "models"
    folder.mkdir(mode=0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("this user writes a directory without write permission (root)")
        yield folder
    finally:
        folder.chmod(0o700)


def test_a_directory_that_cannot_be_written_keeps_the_table_in_memory(
    read_only: Path, expected: np.ndarray, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "botyard.embedding.use_table"):
        embedder = UseEmbedder(table_dir=read_only)
    assert not isinstance(table(embedder), np.memmap) and not any(read_only.iterdir())
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert_same(vectors(embedder), expected)


def test_a_directory_that_cannot_be_made_keeps_the_table_in_memory(
    tmp_path: Path, expected: np.ndarray, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "data").write_text("a file where the data directory should be")  # fails even for root
    with caplog.at_level(logging.WARNING, "botyard.embedding.use_table"):
        embedder = UseEmbedder(table_dir=tmp_path / "data" / "models")
    assert not isinstance(table(embedder), np.memmap)
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert_same(vectors(embedder), expected)


def test_embedding_never_sets_the_blas_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each encode of the port used to set OpenBLAS's thread count and set it back (threadpoolctl), from whichever
    thread embeds. That call is not safe while another thread multiplies: a server embedding questions at once got
    about one vector in 500 different from run to run. The package limits BLAS to one thread once, at import.

    A spy on the third-party call, not a stand-in: each call is recorded and then made as it would have been."""
    limits: list[object] = []
    original = threadpoolctl.ThreadpoolController.limit

    def recording_limit(self: threadpoolctl.ThreadpoolController, **kwargs: Any) -> Any:
        limits.append(kwargs)
        return original(self, **kwargs)

    monkeypatch.setattr(threadpoolctl.ThreadpoolController, "limit", recording_limit)
    embedder = UseEmbedder()
    asyncio.run(embedder.embed_query("How long is the warranty on repairs?"))
    asyncio.run(embedder.embed_documents(TEXTS))
    assert limits == []


def test_writing_the_table_removes_other_weights_tables_and_abandoned_temporary_files(
    tmp_path: Path, in_memory: UseEmbedder, expected: np.ndarray
) -> None:
    older = tmp_path / "use-m3-table-0123456789abcdef.npy"  # an earlier version's weights
    older.write_bytes(b"an earlier table")
    abandoned = tmp_path / f".{FILE[:-4]}-killed.tmp"
    abandoned.write_bytes(b"half a table")
    two_hours_ago = os.stat(abandoned).st_mtime - 7200
    os.utime(abandoned, (two_hours_ago, two_hours_ago))
    being_written = tmp_path / f".{FILE[:-4]}-another-process.tmp"  # another process writing right now
    being_written.write_bytes(b"the start of a table")
    embedder = UseEmbedder(table_dir=tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([FILE, being_written.name])
    assert_same(vectors(embedder), expected)


def test_a_file_that_cannot_be_removed_stays_and_the_table_is_mapped_all_the_same(
    tmp_path: Path, in_memory: UseEmbedder, expected: np.ndarray
) -> None:
    stuck = tmp_path / "use-m3-table-0123456789abcdef.npy"
    stuck.mkdir()  # unlink fails on a directory, whoever runs the test
    embedder = UseEmbedder(table_dir=tmp_path)
    assert isinstance(table(embedder), np.memmap)
    assert stuck.is_dir()
    assert_same(vectors(embedder), expected)

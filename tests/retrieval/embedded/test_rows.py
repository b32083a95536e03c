"""An index's rows as columns (`retrieval.embedded.rows`): every field of a row reads back as it was given, from memory
or from a file; a table extended with more rows leaves the older one reading what it read; a snapshot's texts file is
read, never written; and the texts stay out of the process's heap."""

from __future__ import annotations

import pickle
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from botyard.retrieval.embedded.rows import Texts, rows_of
from botyard.retrieval.knowledge import ChunkRow


def chunk(n: int, text: str | None = None) -> ChunkRow:
    return ChunkRow(
        uuid=f"chunk-{n}",
        data_source_uuid=f"source-{n % 3}",
        position=n,
        heading=["", "Fees", "Über uns"][n % 3],
        text=text if text is not None else f"Passage {n}: the ferry leaves at {n % 24}h, 船票 {n} 元.",
        source_title=f"Title {n % 3}",
        source_type=["qa", "link", "upload"][n % 3],
        source_meta={"url": f"https://example.com/{n % 3}"},
        tokens=n * 2,
        source_file_name=f"file-{n % 3}.pdf",
    )


@pytest.mark.parametrize("on_disk", [False, True], ids=["memory", "file"])
def test_rows_read_back_as_given_and_an_extended_table_leaves_the_older_one_as_it_was(
    tmp_path: Path, on_disk: bool
) -> None:
    given = [chunk(n) for n in range(50)] + [chunk(50, ""), chunk(51, "é" * 3000)]
    table = rows_of(given[:30], Texts(tmp_path / "texts" if on_disk else None))
    extended = table.extended(given[30:])
    assert list(extended) == given
    assert len(table) == 30 and list(table) == given[:30]
    assert table.source_ids == {"source-0": 0, "source-1": 1, "source-2": 2}
    assert extended.source.tolist() == [n % 3 for n in range(52)]
    # Rows of one source share its values rather than each holding a copy.
    assert extended[3].source_meta is extended[6].source_meta
    assert rows_of([], Texts(None)).extended([]).text_end == 0


def test_a_sources_new_rows_bring_its_new_title_and_the_older_table_keeps_the_old_one() -> None:
    older = rows_of([chunk(0), chunk(3)], Texts(None))
    renamed = replace(chunk(6), source_title="Title 0, renamed", source_meta={"url": "https://example.com/new"})
    newer = older.extended([renamed])
    assert (newer[2].source_title, newer[2].source_meta) == ("Title 0, renamed", {"url": "https://example.com/new"})
    assert older[0].source_title == older[1].source_title == "Title 0"
    assert newer.source.tolist() == [0, 0, 0] and len(newer.sources) == 1


def test_a_snapshots_texts_are_read_in_place_and_new_ones_go_to_the_private_file(tmp_path: Path) -> None:
    built = rows_of([chunk(n) for n in range(20)], Texts(tmp_path / "built"))
    built.texts.save(tmp_path / "saved", built.text_end)
    before = (tmp_path / "saved").read_bytes()
    loaded = pickle.loads(pickle.dumps(built))  # noqa: S301 - our own bytes
    assert not hasattr(loaded, "texts")  # a snapshot saves the texts apart
    loaded.texts = Texts(tmp_path / "private", base=tmp_path / "saved")
    newer = loaded.extended([chunk(n) for n in range(20, 25)])
    assert list(newer) == [chunk(n) for n in range(25)]
    assert (tmp_path / "saved").read_bytes() == before
    assert (tmp_path / "private").stat().st_size == sum(len(chunk(n).text.encode()) for n in range(20, 25))
    # A range across both files reads whole.
    assert newer.texts.read(0, newer.texts.size).decode() == "".join(chunk(n).text for n in range(25))


def test_the_texts_of_a_large_table_stay_out_of_the_heap(tmp_path: Path) -> None:
    given = [chunk(n, f"Passage {n} " + "about the harbour ferry and its timetable " * 25) for n in range(5000)]
    texts_size = sum(len(row.text) for row in given)
    tracemalloc.start()
    try:
        table = rows_of(given, Texts(tmp_path / "texts"))
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert texts_size > 5_000_000
    assert held < texts_size / 20, (held, texts_size)  # a few numbers per row, not the texts
    assert table[4999].text == given[4999].text

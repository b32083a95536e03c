from __future__ import annotations

import itertools
import re

from botyard.ingestion.chunk import ChunkingConfig, chunk_markdown
from botyard.ingestion.tokens import count_tokens, truncate_tokens

SMALL = ChunkingConfig(max_tokens=80, overlap_tokens=20)


def _long_section(count: int) -> str:
    return " ".join(f"Fact number {i} is about topic {i % 7}." for i in range(count))


def test_token_counts_are_o200k() -> None:
    # Known o200k_base counts (the same as OpenAI's tiktoken).
    assert count_tokens("Hello world") == 2
    assert count_tokens("Hello world, this is a test of tokens.") == 10
    assert count_tokens("") == 0
    assert truncate_tokens("one two three four five", 2) == "one two"


def test_chunks_are_bounded_and_lose_nothing() -> None:
    markdown = f"# Title\n\n{_long_section(200)}\n\n## Next\n\n{_long_section(50)}\n"
    chunks = chunk_markdown(markdown, SMALL)
    assert len(chunks) > 5
    assert all(chunk.tokens <= SMALL.max_tokens for chunk in chunks)
    assert all(chunk.tokens == count_tokens(chunk.text) for chunk in chunks)
    text = " ".join(chunk.text for chunk in chunks)
    for i in range(200):
        assert f"Fact number {i} is" in text


def test_heading_paths_follow_the_outline() -> None:
    markdown = "# A\nintro\n## B\nunder b\n### C\nunder c\n## D\nunder d\n# E\nunder e\n"
    paths = {chunk.text: chunk.heading_path for chunk in chunk_markdown(markdown, SMALL)}
    assert paths == {
        "intro": ("A",),
        "under b": ("A", "B"),
        "under c": ("A", "B", "C"),
        "under d": ("A", "D"),
        "under e": ("E",),
    }


def test_consecutive_chunks_of_a_section_overlap() -> None:
    chunks = chunk_markdown(_long_section(100), SMALL)
    for previous, current in itertools.pairwise(chunks):
        last_sentence = re.findall(r"Fact number \d+ is about topic \d\.", previous.text)[-1]
        assert current.text.startswith(last_sentence)


def test_a_long_table_is_split_by_rows_with_its_header_repeated() -> None:
    rows = "\n".join(f"| item {i} | {i * 10} euros |" for i in range(60))
    markdown = f"# Prices\n\n| Item | Price |\n|---|---|\n{rows}\n"
    chunks = chunk_markdown(markdown, SMALL)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.text.startswith("| Item | Price |\n|---|---|")
        assert chunk.tokens <= SMALL.max_tokens
    assert sum(chunk.text.count("| item ") for chunk in chunks) == 60


def test_code_fences_are_kept_whole_and_their_hashes_are_not_headings() -> None:
    markdown = "# Setup\n\n```sh\n# install\npip install botyard\n```\n\nDone.\n"
    chunks = chunk_markdown(markdown, SMALL)
    assert [chunk.heading_path for chunk in chunks] == [("Setup",)]
    assert "```sh\n# install\npip install botyard\n```" in chunks[0].text


def test_an_overlong_sentence_is_cut_at_words() -> None:
    chunks = chunk_markdown("word " * 500, SMALL)
    assert len(chunks) > 1
    assert all(chunk.tokens <= SMALL.max_tokens for chunk in chunks)


def test_empty_documents_have_no_chunks() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("\n\n# Only a heading\n\n") == []

"""Structure-aware chunking of Markdown.

A document is read as blocks (headings, paragraphs, list runs, tables, fenced code); each block carries the path of
headings above it. Blocks of one section are packed into chunks of at most `max_tokens`; a block too large for one
chunk is split at sentence boundaries (tables at row boundaries, repeating their header), and a new chunk in the same
section starts with the last sentences of the previous one (`overlap_tokens`) so that no statement loses its context.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from botyard.ingestion.tokens import count_tokens, split_tokens

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_ROW = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s+")
# A sentence ends at . ! ? (or their CJK forms) followed by space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+|\n+")


@dataclass(frozen=True)
class ChunkingConfig:
    max_tokens: int = 300
    overlap_tokens: int = 40


@dataclass(frozen=True)
class Chunk:
    text: str
    heading_path: tuple[str, ...]
    tokens: int

    def heading(self) -> str:
        return " > ".join(self.heading_path)


@dataclass(frozen=True)
class _Block:
    text: str
    path: tuple[str, ...]
    kind: str  # "text", "table" or "code"


def _blocks(markdown: str) -> Iterator[_Block]:
    path: list[tuple[int, str]] = []
    lines: list[str] = []
    kind = "text"

    def flush() -> Iterator[_Block]:
        text = "\n".join(lines).strip()
        if text:
            yield _Block(text, tuple(title for _, title in path), kind)
        lines.clear()

    in_fence = False
    for line in markdown.replace("\r\n", "\n").split("\n"):
        if in_fence:
            lines.append(line)
            if _FENCE.match(line):
                in_fence = False
                yield from flush()
                kind = "text"
            continue
        if _FENCE.match(line):
            yield from flush()
            in_fence, kind = True, "code"
            lines.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            yield from flush()
            level = len(heading[1])
            path[:] = [(lvl, title) for lvl, title in path if lvl < level] + [(level, heading[2].strip())]
            kind = "text"
            continue
        is_row = bool(_TABLE_ROW.match(line))
        if not line.strip() or is_row != (kind == "table"):
            yield from flush()
            kind = "table" if is_row else "text"
            if not line.strip():
                continue
        elif kind == "text" and _LIST_ITEM.match(line) and lines and not _LIST_ITEM.match(lines[-1]):
            yield from flush()
        lines.append(line)
    yield from flush()


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def _pieces(block: _Block, max_tokens: int) -> Iterator[str]:
    """The block itself, or parts of it that each fit in a chunk."""
    if count_tokens(block.text) <= max_tokens:
        yield block.text
        return
    if block.kind == "table":
        rows = block.text.split("\n")
        header = rows[:2] if len(rows) > 1 and _TABLE_RULE.match(rows[1]) else rows[:1]
        body = rows[len(header) :]
        current: list[str] = []
        for row in body:
            if count_tokens(row) > max_tokens:  # one row over a chunk by itself: a cell holding a whole text
                if current:
                    yield "\n".join([*header, *current])
                    current = []
                yield from split_tokens(row, max_tokens)
                continue
            if current and count_tokens("\n".join([*header, *current, row])) > max_tokens:
                yield "\n".join([*header, *current])
                current = []
            current.append(row)
        if current:
            yield "\n".join([*header, *current])
        return
    for sentence in _sentences(block.text):
        if count_tokens(sentence) <= max_tokens:
            yield sentence
        else:
            yield from split_tokens(sentence, max_tokens)  # a URL list, a code line, a text without spaces


def _tail(text: str, overlap_tokens: int) -> str:
    """The last whole sentences of `text` that fit in `overlap_tokens`."""
    kept: list[str] = []
    for sentence in reversed(_sentences(text)):
        if count_tokens(" ".join([sentence, *kept])) > overlap_tokens:
            break
        kept.insert(0, sentence)
    return " ".join(kept)


def chunk_markdown(markdown: str, config: ChunkingConfig | None = None) -> list[Chunk]:
    """Split a Markdown document into chunks of bounded token size, each with its heading path."""
    config = config or ChunkingConfig()
    chunks: list[Chunk] = []
    # Pieces of the chunk being built: (text, tokens, index of the block it came from). Pieces of one block (the
    # sentences of a long paragraph) are joined by a space, pieces of different blocks by a blank line.
    parts: list[tuple[str, int, int]] = []
    path: tuple[str, ...] = ()

    def joined(pieces: list[tuple[str, int, int]]) -> str:
        text = ""
        for index, (piece, _, block) in enumerate(pieces):
            if index:
                text += " " if pieces[index - 1][2] == block else "\n\n"
            text += piece
        return text

    def emit() -> None:
        text = joined(parts).strip()
        if text:
            chunks.append(Chunk(text, path, count_tokens(text)))

    for block_index, block in enumerate(_blocks(markdown)):
        if block.path != path:
            emit()
            parts, path = [], block.path
        for piece in _pieces(block, config.max_tokens):
            tokens = count_tokens(piece)
            # Summed piece counts (+1 per separator) bound the joined count closely: BPE merges across a space or a
            # blank line are rare, and the exact count is taken when the chunk is emitted.
            if parts and sum(t + 1 for _, t, _ in parts) + tokens > config.max_tokens:
                emit()
                last_text, _, last_block = parts[-1]
                overlap = _tail(last_text, config.overlap_tokens) if block.kind == "text" else ""
                overlap_tokens = count_tokens(overlap)
                fits = overlap and overlap_tokens + tokens + 1 <= config.max_tokens
                parts = [(overlap, overlap_tokens, last_block)] if fits else []
            parts.append((piece, tokens, block_index))
    emit()
    return chunks

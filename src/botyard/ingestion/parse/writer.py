"""Markdown output under the limits: blocks, headings and tables appended to a writer that stops the parser
(`OutputFull`) once `max_chars` is reached, and a time budget that parsers of long documents check between
pages, sheets or rows, so a big file ends as a truncated document rather than a timeout."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence

from botyard.ingestion.parse.model import ParseLimits

# Parsers stop at this share of the CPU and wall budgets, leaving time to send what they have back.
SOFT_BUDGET = 0.8
_SPACE = re.compile(r"\s+")


class OutputFull(Exception):
    """Raised by the writer when the output reached its cap; the document so far is kept, marked truncated."""


class Budget:
    """The soft time budget of one parse (CPU seconds of this process, and wall-clock seconds)."""

    def __init__(self, limits: ParseLimits) -> None:
        self._cpu_end = time.process_time() + limits.cpu_seconds * SOFT_BUDGET
        self._wall_end = time.monotonic() + limits.wall_seconds * SOFT_BUDGET

    def spent(self) -> bool:
        return time.process_time() > self._cpu_end or time.monotonic() > self._wall_end


class MarkdownWriter:
    """Collects Markdown blocks (separated by blank lines) up to `limits.max_chars` characters."""

    def __init__(self, limits: ParseLimits) -> None:
        self.limits = limits
        self.budget = Budget(limits)
        self.truncated = False
        self._parts: list[str] = []
        self._size = 0

    @property
    def size(self) -> int:
        return self._size

    def block(self, text: str) -> None:
        """Append one block (a paragraph, a list, a table); blank input is ignored."""
        text = text.strip("\n")
        if not text.strip():
            return
        room = self.limits.max_chars - self._size
        if len(text) + 2 > room:
            self.truncated = True
            if room > 2:
                self._parts.append(text[: room - 2])
                self._size = self.limits.max_chars
            raise OutputFull
        self._parts.append(text)
        self._size += len(text) + 2

    def heading(self, level: int, text: str) -> None:
        text = one_line(text)
        if text:
            self.block(f"{'#' * max(1, min(level, 6))} {text}")

    def table(self, rows: Iterable[Sequence[object]]) -> None:
        """A Markdown table whose first row is the header. Empty rows are skipped, trailing empty columns dropped,
        columns beyond `max_columns` cut; rows stop once the table alone would fill the remaining room."""
        room = self.limits.max_chars - self._size
        kept: list[list[str]] = []
        width = 0
        used = 0
        for count, row in enumerate(rows):
            if count % 512 == 0 and self.budget.spent():
                self.truncated = True
                break
            cells = [cell_text(value) for value in row[: self.limits.max_columns + 1]]
            if len(cells) > self.limits.max_columns:
                cells = cells[: self.limits.max_columns]
                self.truncated = True
            while cells and not cells[-1]:
                cells.pop()
            if not cells:
                continue
            kept.append(cells)
            width = max(width, len(cells))
            used += sum(len(cell) + 3 for cell in cells) + 2
            if used > room:
                self.truncated = True
                break
        if kept:
            self.block(render_table(kept, width))
        if self.truncated and used > room:
            raise OutputFull

    def text(self) -> str:
        return "\n\n".join(self._parts) + ("\n" if self._parts else "")


def one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def cell_text(value: object) -> str:
    """A table cell: one line, pipes escaped; whole floats without their `.0`."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    return one_line(str(value)).replace("|", "\\|")


def render_table(rows: Sequence[Sequence[str]], width: int) -> str:
    padded = [list(row) + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(padded[0]) + " |", "|" + " --- |" * width]
    lines.extend("| " + " | ".join(row) + " |" for row in padded[1:])
    return "\n".join(lines)

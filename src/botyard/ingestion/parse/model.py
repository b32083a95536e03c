"""What parsing produces and how it fails: `ParsedDocument`, `ParseError` with a short reason, `ParseLimits`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Reason = Literal[
    "unsupported type",  # not a format we read: an executable, an image, a plain zip, a .ppt, RTF, ...
    "corrupt",  # claims a format we read, but its library cannot read it
    "encrypted",  # password-protected
    "unsafe",  # hostile structure refused before parsing: an XML DTD (entity expansion) in an Office file
    "too large",  # over a size cap before parsing: zip bomb, too many zip members, nesting too deep
    "no text",  # read fine, but nothing to index
    "timeout",  # over the CPU or wall-clock limit
    "memory",  # over the memory limit
    "crashed",  # the sandboxed parser died without an answer (a signal, e.g. a crash in a C library)
]
REASONS: frozenset[str] = frozenset(get_args(Reason))


class ParseError(Exception):
    """This one file cannot be parsed. `reason` is short and stable (it becomes the source's `error:<reason>`
    status); `detail` is for logs and may change. Permanent: parsing the same bytes again fails the same way."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason: Reason = reason
        self.detail = detail

    @property
    def status(self) -> str:
        return f"error:{self.reason}"


class SandboxError(RuntimeError):
    """The sandbox itself failed (could not start a parser process). Not the file's fault: worth a retry."""


@dataclass(frozen=True)
class ParsedDocument:
    """A file as Markdown: headings as `#`, tables as Markdown tables, lists as `-`/`1.` items.

    `format` is what the file really was (sniffed, not its extension); `pages` counts the PDF's pages or the
    deck's slides when known (all of them, even when parsing stopped early); `truncated` says that output was cut
    at a limit (`max_chars`, `max_pages`, `max_columns`, or the time budget), so the Markdown is a prefix.
    """

    markdown: str
    title: str | None = None
    format: str = "txt"
    pages: int | None = None
    truncated: bool = False


@dataclass(frozen=True)
class ParseLimits:
    """Limits for one file. The child process gets hard limits (CPU seconds, address space, wall clock);
    parsers stop early on soft limits (pages, output characters, table columns, 80% of the time budget) and
    return what they have with `truncated=True` instead of failing."""

    cpu_seconds: float = 30.0
    memory_mb: int = 1024
    wall_seconds: float = 60.0
    max_chars: int = 5_000_000
    max_pages: int = 2000
    max_columns: int = 256
    max_unzipped_mb: int = 256
    max_zip_members: int = 10_000

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            if getattr(self, name) <= 0:
                raise ValueError(f"ParseLimits.{name} must be positive")

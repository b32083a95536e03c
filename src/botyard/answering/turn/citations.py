"""Citation markers and the message's `cite_data_json`.

Hits are numbered before any answerer runs, so every answerer marks the same chunk the same way: `X.Y` is source
number X (1-based, in order of first appearance among the ranked hits) and chunk number Y within that source. Only
the markers an answer actually carries are stored, so `cite_data_json` and the inline `[X.Y]` always agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from botyard.answering.base import CitedHit
from botyard.retrieval.base import Hit

MARKER = re.compile(r"\[(\d+\.\d+)\]")
_BEGUN = re.compile(r"\[\d*(?:\.\d*)?")
"""The start of a marker that the next piece of text may complete: `[`, `[1`, `[1.`, `[12.3`."""
LONGEST_BEGUN = 16
"""The most characters of a begun marker kept for the next piece: a marker names a numbered hit (`[12.3]`), and
one longer than this names none, so waiting for its end would only make a run of digits costly."""


@dataclass(frozen=True)
class CitedSource:
    """What a citation shows of its data source: the source row as of the knowledge version the answer was found in
    (the search index holds it with each chunk)."""

    title: str
    file_name: str
    type: str
    meta: dict[str, Any] = field(default_factory=dict)


def number_hits(hits: Sequence[Hit]) -> list[CitedHit]:
    """Give each hit its `X.Y` marker, keeping the ranking order."""
    sources: dict[str, int] = {}
    chunks: dict[str, int] = {}
    cited: list[CitedHit] = []
    for hit in hits:
        source_number = sources.setdefault(hit.data_source_uuid, len(sources) + 1)
        chunks[hit.data_source_uuid] = chunks.get(hit.data_source_uuid, 0) + 1
        cited.append(CitedHit(f"{source_number}.{chunks[hit.data_source_uuid]}", hit))
    return cited


def markers_in(text: str) -> list[str]:
    """The `X.Y` markers of `text`, each once, in order of first appearance."""
    return list(dict.fromkeys(MARKER.findall(text)))


class MarkerScanner:
    """The markers of a text that arrives in pieces, each announced once, when its closing `]` arrives, in order of
    first appearance (as `markers_in` on the whole text so far would list the new ones).

    `feed` reads the new piece and the few characters of a marker begun at the end of the previous one (`[1.` then
    `2]`), never the text before: an answer's markers cost time linear in its length. `examined` counts the
    characters read, for the test that says so.
    """

    def __init__(self) -> None:
        self._begun = ""
        self._seen: set[str] = set()
        self.examined = 0

    def feed(self, piece: str) -> list[str]:
        """The markers completed by `piece` and not seen before."""
        text = self._begun + piece
        self.examined += len(text)
        fresh = [marker for marker in dict.fromkeys(MARKER.findall(text)) if marker not in self._seen]
        self._seen.update(fresh)
        start = text.rfind("[")
        begun = start >= 0 and len(text) - start <= LONGEST_BEGUN and _BEGUN.fullmatch(text, start) is not None
        self._begun = text[start:] if begun else ""
        return fresh


def cite_entry(cited: CitedHit, source: CitedSource | None) -> dict[str, Any]:
    """One stored citation: `{data_source_uuid, title, text, file_name, type}` plus `reference_source_link` when the
    source has one. The SSE events show it whole; a message's `cite_data_json` shows only the first five keys and
    gives the link in `meta_json` (`chat.wire`), since the SDK refuses any other key in an entry (COMPAT.md)."""
    hit = cited.hit
    meta = source.meta if source is not None else hit.source_meta
    entry: dict[str, Any] = {
        "data_source_uuid": hit.data_source_uuid,
        "title": source.title if source is not None else hit.source_title,
        "text": hit.text,
        "file_name": source.file_name if source is not None else "",
        "type": source.type if source is not None else hit.source_type,
    }
    link = meta.get("reference_source_link")
    if isinstance(link, str) and link:
        entry["reference_source_link"] = link
    return entry


def cite_data(
    text: str, cited: Sequence[CitedHit], sources: Mapping[str, CitedSource], *, show_citations: bool
) -> dict[str, dict[str, Any]]:
    """The markers of `text` that name one of `cited`, mapped to their entries; `{}` when citations are off."""
    if not show_citations:
        return {}
    by_marker = {item.marker: item for item in cited}
    return {
        marker: cite_entry(by_marker[marker], sources.get(by_marker[marker].hit.data_source_uuid))
        for marker in markers_in(text)
        if marker in by_marker
    }

"""The plain-text answer must never parse as JSON: clients tell an error body from an answer by trying to."""

from __future__ import annotations

import json

NOT_JSON = "\u200b"
"""Appended (invisibly) to an answer that would otherwise be a valid JSON document; see `json_guard`."""


def json_guard(text: str) -> str:
    """What to append so that the plain-text body is never a valid JSON document ("" almost always).

    Clients tell an error (a JSON body) from an answer by trying to parse it, so an answer such as `42`, `"yes"`,
    `true` or `{...}` must not parse. The whole text is only known at the end, and a suffix is the one change that
    can still be made then without holding back the stream: a trailing zero-width space is not JSON whitespace, so
    the document no longer parses, while a reader sees nothing (and `str.strip()` / JS `trim()` keep it).
    """
    try:
        json.loads(text)
    except ValueError:
        return ""
    return NOT_JSON

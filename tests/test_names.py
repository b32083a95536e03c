"""The front end spells the server's names from one module, `web/static/shared/names.js`; it must say exactly what
the enums of `botyard.models.kinds` say, so a rename on one side fails here until the other follows."""

from __future__ import annotations

import inspect
import re
from enum import StrEnum
from pathlib import Path

from botyard.models import kinds

NAMES_JS = Path(kinds.__file__).resolve().parent.parent / "web" / "static" / "shared" / "names.js"
_EXPORT = re.compile(r"export const (\w+) = Object\.freeze\(\{(.*?)\}\);", re.S)
_ENTRY = re.compile(r'^\s*(\w+): "([^"\\]*)",?\s*$')


def js_names(source: str) -> dict[str, dict[str, str]]:
    """Each `export const X = Object.freeze({KEY: "value", ...});` of the module as {X: {KEY: value}}."""
    found: dict[str, dict[str, str]] = {}
    for name, body in _EXPORT.findall(source):
        entries: dict[str, str] = {}
        for line in body.splitlines():
            if line.strip():
                match = _ENTRY.match(line)
                assert match is not None, f"{name}: cannot read {line.strip()!r}"
                entries[match[1]] = match[2]
        found[name] = entries
    return found


def python_names() -> dict[str, dict[str, str]]:
    enums = [
        value
        for value in vars(kinds).values()
        if inspect.isclass(value) and issubclass(value, StrEnum) and value is not StrEnum
    ]
    return {enum.__name__: {member.name: member.value for member in enum} for enum in enums}


def test_the_javascript_names_are_the_python_enums() -> None:
    assert js_names(NAMES_JS.read_text(encoding="utf-8")) == python_names()


def test_the_parser_reads_every_export() -> None:
    """Guards the test above: an export the pattern missed would make the comparison vacuous."""
    source = NAMES_JS.read_text(encoding="utf-8")
    assert len(js_names(source)) == source.count("export const") > 0

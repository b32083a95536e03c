"""The front end spells the server's names from one module, `web/static/shared/names.js`; it must say exactly what
the enums of `botyard.models.kinds` say, so a rename on one side fails here until the other follows. And the server
spells them only through those enums: a status, state, type, kind or mode written as a bare string fails here."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path

from botyard.jobs.kinds import JobKind
from botyard.models import kinds

SRC = Path(kinds.__file__).resolve().parent.parent
NAMES_JS = SRC / "web" / "static" / "shared" / "names.js"
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


WORDS = {word for enum in python_names().values() for word in enum.values()} | set(JobKind)
"""Every stored word the enums define."""
ATTRIBUTES = frozenset({"status", "state", "type", "kind", "mode"})
"""Where such a word is compared, set or passed: `x.status == ...`, `x.state = ...`, `status=...`, `{"status": ...}`."""


def _literals(node: ast.AST) -> Iterator[ast.Constant]:
    """The string constants of a value: itself, the items of a tuple, list or set, or an f-string's constant parts."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.Tuple | ast.List | ast.Set | ast.JoinedStr):
        for item in node.elts if not isinstance(node, ast.JoinedStr) else node.values:
            yield from _literals(item)
    elif isinstance(node, ast.BinOp):
        yield from _literals(node.left)


def _named(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES


def _values(node: ast.AST) -> Iterator[ast.AST]:
    """The values `node` compares with, sets or passes to a status, state, type, kind or mode."""
    if isinstance(node, ast.Compare) and any(_named(side) for side in [node.left, *node.comparators]):
        yield from [node.left, *node.comparators]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "in_":
        yield from node.args if _named(node.func.value) else []
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            pairs = (
                zip(target.elts, node.value.elts, strict=True)
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                else [(target, node.value)]
            )
            yield from (value for name, value in pairs if _named(name))
    elif isinstance(node, ast.keyword) and node.arg in ATTRIBUTES:
        yield node.value
    elif isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)
        yield from (value for key, value in pairs if isinstance(key, ast.Constant) and key.value in ATTRIBUTES)


def bare_words(source: str) -> list[tuple[int, str]]:
    """(line, word) of each stored word spelled as a string where a status, state, type, kind or mode is compared,
    set or passed; `error:<reason>` counts as a word (`SourceError` writes it)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        for value in _values(node):
            for literal in _literals(value):
                if literal.value in WORDS or literal.value.startswith("error:"):
                    found.append((literal.lineno, literal.value))
    return sorted(found)


def test_the_server_spells_stored_words_through_their_enums() -> None:
    spelled = {
        f"{path.relative_to(SRC)}:{line}": word
        for path in sorted(SRC.rglob("*.py"))
        if "migrations" not in path.parts and path.name != "kinds.py"
        for line, word in bare_words(path.read_text(encoding="utf-8"))
    }
    assert spelled == {}, "spell these with the enum of botyard.models.kinds (or botyard.jobs.kinds)"


def test_the_spelling_check_finds_each_form() -> None:
    """Guards the test above: each way of spelling a word bare is found, an enum member and another word are not."""
    source = """
if source.status == "success": pass
crawl.state, crawl.reason = "failed", "why"
rows = select(Job).where(Job.status.in_(("queued", "running")))
page = CrawlPage(url=url, state="pending")
changes = {"status": "queued", "title": "success"}
source.status = "error:" + reason
source.status = f"error:{reason}"
if source.status == SourceStatus.SUCCESS and health == {"status": "ok"}: pass
"""
    assert bare_words(source) == [
        (2, "success"),
        (3, "failed"),
        (4, "queued"),
        (4, "running"),
        (5, "pending"),
        (6, "queued"),
        (7, "error:"),
        (8, "error:"),
    ]


def test_a_failed_source_status_is_written_and_read_in_one_place() -> None:
    assert kinds.SourceError("http 404").status == "error:http 404"
    assert kinds.SourceError.parse("error:too large - over 5 chunks") == kinds.SourceError("too large - over 5 chunks")
    assert kinds.SourceError.parse(kinds.SourceStatus.SUCCESS) is None
    assert kinds.SourceError.parse("queued") is None

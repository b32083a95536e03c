"""Plain text, Markdown and JSON. JSON becomes readable Markdown: keys of nested objects as headings, scalar
fields as `- **key**: value` items, arrays of flat objects as tables; what is nested deeper stays as pretty JSON."""

from __future__ import annotations

import itertools
import json
import re

from botyard.ingestion.parse.model import ParseError
from botyard.ingestion.parse.writer import MarkdownWriter, cell_text, one_line

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_ATX_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SETEXT_H1 = re.compile(r"^(\S.*)\n=+\s*$", re.MULTILINE)
MAX_HEADING_CHARS = 80
"""A longer line in capitals is shouting, not a heading."""
# Nested objects deeper than this are shown as JSON rather than as headings.
MAX_HEADING_DEPTH = 4


def clean_text(text: str) -> str:
    """Unix newlines, no control characters (they break the Markdown and the tokenizer downstream)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", "\n\n"))


def parse_txt(text: str, out: MarkdownWriter) -> None:
    """Plain text as Markdown paragraphs; a line in capitals that opens a paragraph ("OPENING HOURS") is a heading,
    as plain-text documents write them: joined to its paragraph, it would read as the paragraph's first words."""
    for paragraph in re.split(r"\n[ \t]*\n", clean_text(text)):
        first, _, rest = paragraph.strip("\n").partition("\n")
        if _is_caps_heading(first):
            out.heading(2, first.strip())
            if rest.strip():
                out.block(rest)
        elif paragraph.strip():
            out.block(paragraph)


def _is_caps_heading(line: str) -> bool:
    letters = [character for character in line if character.isalpha()]
    return len(letters) >= 3 and len(line.strip()) <= MAX_HEADING_CHARS and all(c.isupper() for c in letters)


def parse_md(text: str, out: MarkdownWriter) -> str | None:
    """Markdown as it is; its first level-1 heading is the title."""
    text = clean_text(text)
    out.block(text)
    match = _ATX_H1.search(text) or _SETEXT_H1.search(text)
    return one_line(match.group(1)) or None if match else None


def parse_json(text: str, out: MarkdownWriter) -> str | None:
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise ParseError("too large", "JSON nested too deeply") from error
    except ValueError as error:
        raise ParseError("corrupt", f"invalid JSON: {error}") from error
    _value(value, out, 1)
    title = value.get("title") if isinstance(value, dict) else None
    return one_line(title) or None if isinstance(title, str) else None


def _is_scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _scalar(value: object) -> str:
    return json.dumps(value) if value is None or isinstance(value, bool) else str(value)


def _value(value: object, out: MarkdownWriter, level: int) -> None:
    if isinstance(value, dict):
        _object(value, out, level)
    elif isinstance(value, list):
        _array(value, out, level)
    else:
        out.block(_scalar(value))


def _object(value: dict[str, object], out: MarkdownWriter, level: int) -> None:
    items: list[str] = []
    nested: list[tuple[str, object]] = []
    for key, item in value.items():
        if _is_scalar(item):
            items.append(f"- **{one_line(key)}**: {_scalar(item)}")
        elif isinstance(item, list) and all(_is_scalar(element) for element in item) and len(item) <= 20:
            items.append(f"- **{one_line(key)}**: {', '.join(_scalar(element) for element in item)}")
        else:
            nested.append((key, item))
    out.block("\n".join(items))
    for key, item in nested:
        if out.budget.spent():
            out.truncated = True
            return
        if level > MAX_HEADING_DEPTH:
            out.block(f"- **{one_line(key)}**:\n\n```json\n{json.dumps(item, indent=2, ensure_ascii=False)}\n```")
            continue
        out.heading(level, key)
        _value(item, out, level + 1)


def _array(value: list[object], out: MarkdownWriter, level: int) -> None:
    if all(_is_scalar(element) for element in value):
        out.block("\n".join(f"- {_scalar(element)}" for element in value))
        return
    rows = [element for element in value if isinstance(element, dict) and all(map(_is_scalar, element.values()))]
    if len(rows) == len(value):  # flat objects: a table, the union of their keys as the columns
        header = list(dict.fromkeys(key for row in rows for key in row))
        out.table(itertools.chain([header], ([_cell(row, key) for key in header] for row in rows)))
        return
    for element in value:
        if out.budget.spent():
            out.truncated = True
            return
        if level > MAX_HEADING_DEPTH or _is_scalar(element):
            out.block(f"```json\n{json.dumps(element, indent=2, ensure_ascii=False)}\n```")
        else:
            _value(element, out, level)


def _cell(element: dict[str, object], key: str) -> str:
    return cell_text(_scalar(element[key])) if key in element else ""

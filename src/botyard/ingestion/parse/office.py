"""Word (.docx) and PowerPoint (.pptx), with python-docx and python-pptx (lxml underneath, entities not resolved).

Word: the body in document order (paragraphs, tables, content controls); `Title` and `Heading N` styles become
headings, numbered and bulleted paragraphs become `1.` and `-` items indented by level, tables Markdown tables.
Headers, footers, footnotes and comments are left out. (mammoth, which markitdown uses, converts the same
structure but parses with minidom: five times slower and far hungrier on big documents.)

PowerPoint: each slide is a `## ` section (its title, or `Slide N`) with its text frames (placeholder bullets as
`-` items, indented by level), tables, grouped shapes and speaker notes."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable, Iterator

import docx
import docx.document
import pptx
import pptx.exc
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree
from pptx.shapes.base import BaseShape
from pptx.shapes.group import GroupShape

from botyard.ingestion.parse.model import ParseError
from botyard.ingestion.parse.writer import MarkdownWriter, OutputFull, cell_text, one_line

_LIBRARY_ERRORS = (KeyError, ValueError, TypeError, AttributeError, IndexError, AssertionError, zipfile.BadZipFile)
_HEADING_STYLE = re.compile(r"^heading (\d)$")
_LIST_STYLE = re.compile(r"^list (bullet|number|paragraph|continue)( (\d))?$")
_ORDERED_FORMATS = {"decimal", "upperRoman", "lowerRoman", "upperLetter", "lowerLetter", "decimalZero"}


def parse_docx(data: bytes, out: MarkdownWriter) -> str | None:
    """Write the document body; return its first level-1 heading (the caller prefers the core-properties title)."""
    try:
        document = docx.Document(io.BytesIO(data))
        styles = {style.style_id: style.name.lower() for style in document.styles if style.name}
        ordered = _ordered_lists(document)
        blocks = list(_blocks(document))
    except (etree.LxmlError, *_LIBRARY_ERRORS) as error:
        raise ParseError("corrupt", f"unreadable Word document: {type(error).__name__}: {error}") from error
    first_heading: str | None = None
    items: list[str] = []
    for block in blocks:
        if isinstance(block, Table):
            out.block("\n".join(items))
            items.clear()
            out.table([cell_text(cell.text) for cell in row.cells] for row in block.rows)
            continue
        text = one_line(block.text)
        if not text:
            continue
        style = styles.get(block._p.style or "", "")
        listed = _list_item(block, style, ordered)
        if listed is not None:
            level, marker = listed
            items.append(f"{'   ' * level}{marker} {text}")
            continue
        out.block("\n".join(items))
        items.clear()
        level = _heading_level(style)
        if level:
            out.heading(level, text)
            first_heading = first_heading or (text if level == 1 else None)
        else:
            out.block(text)
    out.block("\n".join(items))
    return first_heading


def _blocks(document: docx.document.Document) -> Iterator[Paragraph | Table]:
    """Paragraphs and tables of the body in order, including those inside content controls (`w:sdt`)."""

    def walk(element: etree._Element) -> Iterator[Paragraph | Table]:
        for child in element:
            if child.tag == qn("w:p"):
                yield Paragraph(child, document)
            elif child.tag == qn("w:tbl"):
                yield Table(child, document)
            elif child.tag == qn("w:sdt"):
                content = child.find(qn("w:sdtContent"))
                if content is not None:
                    yield from walk(content)

    yield from walk(document.element.body)


def _heading_level(style: str) -> int:
    if style == "title":
        return 1
    if style == "subtitle":
        return 2
    match = _HEADING_STYLE.match(style)
    return min(int(match.group(1)), 6) if match else 0


def _list_item(paragraph: Paragraph, style: str, ordered: dict[tuple[str, str], bool]) -> tuple[int, str] | None:
    """(level, marker) when the paragraph is a list item: numbered in its own properties or by a list style."""
    numbering = paragraph._p.find(f"{qn('w:pPr')}/{qn('w:numPr')}")
    if numbering is not None:
        number_id, raw_level = _val(numbering.find(qn("w:numId"))), _val(numbering.find(qn("w:ilvl")))
        if number_id not in ("", "0"):  # numId 0 switches numbering off
            depth = min(int(raw_level), 8) if raw_level.isdigit() else 0
            return depth, "1." if ordered.get((number_id, str(depth))) else "-"
    match = _LIST_STYLE.match(style)
    if match is None:
        return None
    level = int(match.group(3)) - 1 if match.group(3) else 0
    return min(level, 8), "1." if match.group(1) == "number" else "-"


def _val(element: etree._Element | None) -> str:
    return str(element.get(qn("w:val"), "")) if element is not None else ""


def _ordered_lists(document: docx.document.Document) -> dict[tuple[str, str], bool]:
    """Whether each (numbering id, level) counts (1. a. i.) rather than bullets, from the numbering part."""
    try:
        numbering = document.part.numbering_part.element
    except (KeyError, NotImplementedError):
        return {}
    formats: dict[str, dict[str, bool]] = {}
    for abstract in numbering.findall(qn("w:abstractNum")):
        levels = formats.setdefault(abstract.get(qn("w:abstractNumId"), ""), {})
        for level in abstract.findall(qn("w:lvl")):
            number_format = level.find(qn("w:numFmt"))
            value = number_format.get(qn("w:val"), "") if number_format is not None else ""
            levels[level.get(qn("w:ilvl"), "0")] = value in _ORDERED_FORMATS
    ordered: dict[tuple[str, str], bool] = {}
    for number in numbering.findall(qn("w:num")):
        abstract_id = number.find(qn("w:abstractNumId"))
        if abstract_id is None:
            continue
        for level, is_ordered in formats.get(abstract_id.get(qn("w:val"), ""), {}).items():
            ordered[(number.get(qn("w:numId"), ""), level)] = is_ordered
    return ordered


def parse_pptx(data: bytes, out: MarkdownWriter) -> tuple[int, str | None]:
    """Write the slides; return the slide count and the first slide's title."""
    try:
        deck = pptx.Presentation(io.BytesIO(data))
        slides = list(deck.slides)
    except (pptx.exc.PythonPptxError, *_LIBRARY_ERRORS) as error:
        raise ParseError("corrupt", f"unreadable presentation: {type(error).__name__}: {error}") from error
    first_title: str | None = None
    try:
        for number, slide in enumerate(slides, start=1):
            if number > out.limits.max_pages or out.budget.spent():
                out.truncated = True
                break
            title_shape = slide.shapes.title
            title = one_line(title_shape.text_frame.text) if title_shape is not None else ""
            first_title = first_title or title or None
            out.heading(2, title or f"Slide {number}")
            body = [shape for shape in slide.shapes if title_shape is None or shape.shape_id != title_shape.shape_id]
            _shapes(body, out)
            if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
                notes = slide.notes_slide.notes_text_frame.text.strip()
                if notes:
                    out.block(f"Notes: {notes}")
    except OutputFull:
        pass  # the writer is full and marked truncated; the slide count still holds
    return len(slides), first_title


def _shapes(shapes: Iterable[BaseShape], out: MarkdownWriter) -> None:
    # Reading order: top to bottom, then left to right (shapes without a position last).
    ordered = sorted(shapes, key=lambda shape: (shape.top is None, shape.top or 0, shape.left or 0))
    for shape in ordered:
        if isinstance(shape, GroupShape):
            _shapes(shape.shapes, out)
        elif getattr(shape, "has_table", False):
            table = shape.table  # type: ignore[attr-defined]
            out.table([cell_text(cell.text) for cell in row.cells] for row in table.rows)
        elif getattr(shape, "has_text_frame", False):
            _text_frame(shape, out)


def _text_frame(shape: BaseShape, out: MarkdownWriter) -> None:
    bulleted = shape.is_placeholder  # body placeholders show bullets; plain text boxes do not
    lines = []
    for paragraph in shape.text_frame.paragraphs:  # type: ignore[attr-defined]
        text = one_line("".join(run.text for run in paragraph.runs) or paragraph.text)
        if text:
            lines.append(f"{'  ' * paragraph.level}- {text}" if bulleted else text)
    out.block("\n".join(lines) if bulleted else "\n\n".join(lines))

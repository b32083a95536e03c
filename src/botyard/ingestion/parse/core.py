"""`parse_bytes`: one file to a `ParsedDocument`, in this process. The sandbox runs it in a child process; call it
directly only where a hostile file cannot hurt (tests, tools)."""

from __future__ import annotations

import warnings
import zipfile
from dataclasses import dataclass

from botyard.ingestion.parse import guard, sniff
from botyard.ingestion.parse import text as plain
from botyard.ingestion.parse.doc import parse_doc
from botyard.ingestion.parse.html import parse_html
from botyard.ingestion.parse.model import ParsedDocument, ParseError, ParseLimits
from botyard.ingestion.parse.office import parse_docx, parse_pptx
from botyard.ingestion.parse.pdf import parse_pdf
from botyard.ingestion.parse.sheets import parse_csv, parse_xls, parse_xlsx
from botyard.ingestion.parse.tex import parse_tex
from botyard.ingestion.parse.writer import MarkdownWriter, OutputFull

FORMATS = ("pdf", "docx", "doc", "pptx", "xlsx", "xls", "csv", "md", "txt", "html", "json", "tex")


@dataclass
class _Found:
    """What is known of the file so far; kept when a full writer stops the parser half-way."""

    kind: str = ""
    title: str | None = None
    pages: int | None = None


def parse_bytes(
    data: bytes, file_name: str, content_type: str | None = None, limits: ParseLimits | None = None
) -> ParsedDocument:
    """Parse one file. The format is sniffed from the bytes (see `sniff`); the name only gives the extension.

    Raises `ParseError`; a limit that cuts the output (characters, pages, columns, time) gives a document marked
    `truncated` instead. `MemoryError` and `RecursionError` from the libraries become `memory` and `too large`."""
    limits = limits or ParseLimits()
    name = sniff.safe_name(file_name)
    if not data:
        raise ParseError("no text", "empty file")
    out = MarkdownWriter(limits)
    found = _Found()
    try:
        with warnings.catch_warnings():
            # Libraries warn about oddities of the file (a missing style, an unknown extension): noise here.
            warnings.simplefilter("ignore")
            _parse(data, name, content_type, limits, out, found)
    except OutputFull:
        pass
    except MemoryError as error:
        raise ParseError("memory", "the file needs more memory than the limit") from error
    except RecursionError as error:
        raise ParseError("too large", "nested too deeply") from error
    markdown = out.text()
    if not markdown.strip():
        raise ParseError("no text", f"no text found in this {found.kind or 'file'}")
    return ParsedDocument(markdown, found.title, found.kind, found.pages, out.truncated)


def _parse(
    data: bytes, name: str, content_type: str | None, limits: ParseLimits, out: MarkdownWriter, found: _Found
) -> None:
    container = sniff.binary_kind(data)
    if container == "zip":
        with guard.open_zip(data, limits) as archive:
            found.kind = sniff.zip_kind(archive, guard.read_member(archive, "[Content_Types].xml", guard.MIB))
            guard.refuse_dtds(archive)
            found.title = guard.core_title(archive)
        try:
            _ooxml(data, out, found)
        except zipfile.BadZipFile as error:  # a member whose bytes do not match its CRC or size
            raise ParseError("corrupt", f"damaged zip member: {error}") from error
        return
    found.kind = sniff.ole_kind(data) if container == "ole" else container or sniff.text_kind(data, name, content_type)
    if found.kind == "pdf":
        found.pages, found.title = parse_pdf(data, out)
    elif found.kind == "doc":
        found.title = parse_doc(data, out)
    elif found.kind == "xls":
        parse_xls(data, out)
    else:
        found.title = _text(found.kind, sniff.decode_text(data), name, out)


def _ooxml(data: bytes, out: MarkdownWriter, found: _Found) -> None:
    if found.kind == "docx":
        heading = parse_docx(data, out)
        found.title = found.title or heading
    elif found.kind == "pptx":
        found.pages, first_title = parse_pptx(data, out)
        found.title = found.title or first_title
    else:
        parse_xlsx(data, out)


def _text(kind: str, text: str, name: str, out: MarkdownWriter) -> str | None:
    if kind == "html":
        return parse_html(text, out)
    if kind == "tex":
        return parse_tex(text, out)
    if kind == "json":
        return plain.parse_json(text, out)
    if kind == "md":
        return plain.parse_md(text, out)
    if kind == "csv":
        parse_csv(text, name, out)
    else:
        plain.parse_txt(text, out)
    return None

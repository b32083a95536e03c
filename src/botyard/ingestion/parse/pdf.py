"""PDF: PDFium (pypdfium2) reads the text, fast and hardened; pdfplumber finds ruled tables, but only on pages that
draw enough lines to hold one (it is forty times slower). Headings come from font size: lines clearly larger
than the body text (the size most characters have, from their glyph boxes, so scaled text counts too) become
`#`, `##`, ... by rank. Pages beyond `max_pages` are not read; `pages` still counts them all."""

from __future__ import annotations

import contextlib
import io
import itertools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import pdfplumber
import pdfplumber.page
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pdfminer.pdfpage import PDFPage
from pdfplumber.table import Table as TableFinderTable

from botyard.ingestion.parse.model import ParseError, Reason
from botyard.ingestion.parse.writer import MarkdownWriter, OutputFull, cell_text, one_line

HEADING_RATIO = 1.15  # a line this much larger than the body text is a heading
HEADING_MAX_CHARS = 200
SAMPLE_PAGES = 30  # pages read before the body size and heading sizes are fixed
MIN_RULES = 4  # a page with fewer path objects holds no ruled table
_BULLET = re.compile(r"^[•●▪◦‣∙·■□➢►✓*-]\s+")
_SKIPPED = {0xFFFE, 0xFFFF, 0}
_Box = tuple[float, float, float, float]  # x0, y0, x1, y1


@dataclass
class _Line:
    text: str
    top: float
    bottom: float
    size: float
    hyphen: bool = False


@dataclass
class _Table:
    top: float
    rows: list[list[str]]


def parse_pdf(data: bytes, out: MarkdownWriter) -> tuple[int, str | None]:
    """Write the pages' text and tables; return the page count and the metadata title."""
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        reason: Reason = "encrypted" if "password" in str(error).lower() else "corrupt"
        raise ParseError(reason, f"unreadable PDF: {error}") from error
    try:
        total = len(document)
        if total == 0:
            raise ParseError("corrupt", "a PDF without pages")
        title = _title(document)
        # A full writer stops the reading, not the answer: the page count and title still hold.
        with contextlib.suppress(OutputFull):
            _pages(document, data, total, out)
        return total, title
    finally:
        document.close()


def _pages(document: pdfium.PdfDocument, data: bytes, total: int, out: MarkdownWriter) -> None:
    """Read the pages in order; the first `SAMPLE_PAGES` are held until the text sizes are known."""
    plumber: _Plumber | None = None
    try:
        styles = _Styles()
        pending: list[list[_Line | _Table]] = []
        for index in range(total):
            if index >= out.limits.max_pages or out.budget.spent():
                out.truncated = True
                break
            try:
                page = document[index]
            except pdfium.PdfiumError:  # a broken page (a loop in the page tree, a missing object): skip it
                continue
            try:
                tables = []
                if page.get_rotation() == 0 and _has_rules(page):
                    plumber = plumber or _Plumber(data)
                    tables = plumber.tables(index, page.get_width(), page.get_height())
                items = _items(page, tables)
            except pdfium.PdfiumError:
                continue
            finally:
                page.close()
            if styles.fixed:
                _render(items, styles, out)
                continue
            pending.append(items)
            styles.learn(items)
            if len(pending) >= SAMPLE_PAGES:
                styles.fix()
                for held in pending:
                    _render(held, styles, out)
                pending.clear()
        styles.fix()
        for held in pending:
            _render(held, styles, out)
    finally:
        if plumber is not None:
            plumber.close()


def _title(document: pdfium.PdfDocument) -> str | None:
    try:
        title = one_line(document.get_metadata_dict().get("Title", ""))
    except (pdfium.PdfiumError, UnicodeDecodeError):
        return None
    # Producers often leave a file name or an application name here: not a title worth having.
    if not title or title.lower().endswith((".doc", ".docx", ".pdf", ".tex")) or title.lower() == "untitled":
        return None
    return title


def _has_rules(page: pdfium.PdfPage) -> bool:
    paths = page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=2)
    return sum(1 for _ in itertools.islice(paths, MIN_RULES)) >= MIN_RULES


class _Plumber:
    """pdfplumber over the same file, opened on the first page that may hold a table. Its pages are walked
    lazily, in step with PDFium's: `PDF.pages` would build every page of a huge file to reach one."""

    def __init__(self, data: bytes) -> None:
        self.pdf = pdfplumber.open(io.BytesIO(data))
        self._walk = PDFPage.create_pages(self.pdf.doc)
        self._index = -1
        self._page: PDFPage | None = None

    def tables(self, index: int, width: float, height: float) -> list[tuple[_Box, _Table]]:
        """Ruled tables of one page, with boxes in PDF space (origin bottom left, like PDFium's); none when the
        two libraries disagree about the page (a damaged page tree) or pdfminer cannot read it."""
        try:
            while self._index < index:
                self._page = next(self._walk, None)
                self._index += 1
            if self._page is None:
                return []
            page = pdfplumber.page.Page(self.pdf, self._page, page_number=index + 1)
            try:
                if abs(page.width - width) > 1 or abs(page.height - height) > 1:
                    return []
                return [_table(table, height) for table in page.find_tables() if _is_table(table)]
            finally:
                page.close()
        except (MemoryError, RecursionError):
            raise
        except Exception:  # pdfminer fails in many ways on damaged pages; PDFium still gives the page's text
            return []

    def close(self) -> None:
        self.pdf.close()


def _is_table(table: TableFinderTable) -> bool:
    return len(table.cells) > 1  # a single ruled box is a frame, not a table


def _table(table: TableFinderTable, height: float) -> tuple[_Box, _Table]:
    x0, top, x1, bottom = table.bbox
    rows = [[cell_text(cell) for cell in row] for row in table.extract()]
    return (x0, height - bottom, x1, height - top), _Table(height - top, rows)


def _items(page: pdfium.PdfPage, tables: list[tuple[_Box, _Table]]) -> list[_Line | _Table]:
    """The page's lines in content order, with its tables placed before the first line below their top edge."""
    textpage = page.get_textpage()
    try:
        lines = list(_lines(textpage, [box for box, _ in tables]))
    finally:
        textpage.close()
    items: list[_Line | _Table] = []
    waiting = sorted((table for _, table in tables), key=lambda table: -table.top)
    for line in lines:
        while waiting and line.top < waiting[0].top:
            items.append(waiting.pop(0))
        items.append(line)
    items.extend(waiting)
    return items


def _lines(textpage: pdfium.PdfTextPage, boxes: list[_Box]) -> Iterator[_Line]:
    raw = textpage.raw
    chars: list[str] = []
    first = -1
    for index in range(textpage.count_chars()):
        code = pdfium_c.FPDFText_GetUnicode(raw, index)
        if code == 0x0A or code == 0x02:  # a line break; 0x02 marks a line ending in a hyphen
            if first >= 0:
                yield _line(textpage, first, "".join(chars), hyphen=code == 0x02)
            chars.clear()
            first = -1
            continue
        if code in _SKIPPED or code == 0x0D:
            continue
        if boxes and _inside(textpage.get_charbox(index), boxes):
            continue
        char = chr(code) if code < 0xD800 or code > 0xDFFF else "\ufffd"
        if first < 0 and not char.isspace():
            first = index
        if first >= 0:
            chars.append(char)
    if first >= 0:
        yield _line(textpage, first, "".join(chars))


def _line(textpage: pdfium.PdfTextPage, first: int, text: str, *, hyphen: bool = False) -> _Line:
    _, bottom, _, top = textpage.get_charbox(first, loose=True)
    return _Line(one_line(text), top, bottom, round(top - bottom, 1), hyphen)


def _inside(box: _Box, areas: list[_Box]) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in areas)


class _Styles:
    """The body text size and the heading sizes, learnt from the first pages, then fixed."""

    def __init__(self) -> None:
        self.sizes: Counter[float] = Counter()
        self.body = 0.0
        self.headings: list[float] = []
        self.fixed = False

    def learn(self, items: list[_Line | _Table]) -> None:
        for item in items:
            if isinstance(item, _Line):
                self.sizes[item.size] += len(item.text)

    def fix(self) -> None:
        if self.fixed:
            return
        self.fixed = True
        self.body = self.sizes.most_common(1)[0][0] if self.sizes else 0.0
        for size in sorted((size for size in self.sizes if self.is_heading(size)), reverse=True):
            if not self.headings or size < self.headings[-1] * 0.95:
                self.headings.append(size)

    def is_heading(self, size: float) -> bool:
        return self.body > 0 and size >= self.body * HEADING_RATIO

    def level(self, size: float) -> int:
        return min(1 + sum(1 for known in self.headings if known > size * 1.05), 4)


def _render(items: list[_Line | _Table], styles: _Styles, out: MarkdownWriter) -> None:
    paragraph: list[_Line] = []

    def flush() -> None:
        if not paragraph:
            return
        text, joiner = "", ""
        for line in paragraph:  # a line that ended in a hyphen joins the next without it
            text, joiner = f"{text}{joiner}{line.text}", "" if line.hyphen else " "
        text = text + ("-" if paragraph[-1].hyphen else "")
        size = paragraph[0].size
        if styles.is_heading(size) and len(text) <= HEADING_MAX_CHARS and any(ch.isalpha() for ch in text):
            out.heading(styles.level(size), text)
        else:
            out.block(_BULLET.sub("- ", text))
        paragraph.clear()

    for item in items:
        if isinstance(item, _Table):
            flush()
            out.table(item.rows)
            continue
        if not item.text:
            continue
        if paragraph and _breaks(paragraph[-1], item):
            flush()
        paragraph.append(item)
    flush()


def _breaks(previous: _Line, line: _Line) -> bool:
    """Whether `line` starts a new paragraph after `previous`."""
    height = max(previous.top - previous.bottom, 1.0)
    gap = previous.bottom - line.top
    return (
        abs(line.size - previous.size) > 0.1 * previous.size
        or gap > 0.5 * height
        or gap < -height  # moved up: a new column or a new text box
        or bool(_BULLET.match(line.text))
        or (line.text[:1].isdigit() and line.text[1:3].startswith((".", ")")))
    )

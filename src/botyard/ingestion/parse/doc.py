"""Legacy Word (.doc, Word 97 to 2003), read in pure Python: no converter to install on the host.

olefile opens the compound file; the text comes from the piece table in the `Clx` of the table stream
([MS-DOC] 2.8.35, 2.9.38): each piece is cp1252 ("compressed") or UTF-16 text in the `WordDocument` stream.
Only the main story is read (`ccpText` characters: no headers, footnotes or comments). Field instructions are
dropped and their results kept. Tables are recovered from cell marks (`\\x07`, a second one ending the row);
without the paragraph properties a row with an empty last cell and a first cell of several paragraphs can be
misread. Paragraph styles are not read, so a .doc yields no headings. Word 95 and older are refused."""

from __future__ import annotations

import io
import struct

import olefile

from botyard.ingestion.parse.model import ParseError
from botyard.ingestion.parse.writer import MarkdownWriter, one_line

WORD_MAGIC = 0xA5EC
MIN_NFIB = 0x00C0  # Word 97
F_ENCRYPTED = 0x0100
F_WHICH_TABLE = 0x0200
FC_CLX_INDEX = 33  # of the FibRgFcLcb97 pairs
_DROPPED = dict.fromkeys([*range(0x00, 0x07), 0x08, *range(0x0F, 0x13), *range(0x16, 0x1E)])
_MAPPED = {0x0B: "\n", 0x0C: "\r", 0x0E: "\r", 0x1E: "-", 0x1F: None, 0xA0: " "}


def parse_doc(data: bytes, out: MarkdownWriter) -> str | None:
    """Write the main story; return the title from the summary information."""
    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            word = _stream(ole, "WordDocument")
            flags, fc_clx, lcb_clx, ccp_text = _fib(word)
            table = _stream(ole, "1Table" if flags & F_WHICH_TABLE else "0Table")
            title = _title(ole)
    except ParseError:
        raise
    except Exception as error:  # olefile raises many types on a damaged file
        raise ParseError("corrupt", f"unreadable Word document: {type(error).__name__}") from error
    text = _main_text(word, table, fc_clx, lcb_clx, ccp_text)
    _write(_without_fields(text), out)
    return title


def _stream(ole: olefile.OleFileIO, name: str) -> bytes:
    if not ole.exists(name):
        raise ParseError("corrupt", f"Word document without its {name} stream")
    return bytes(ole.openstream(name).read())


def _fib(word: bytes) -> tuple[int, int, int, int]:
    """flags, fcClx, lcbClx and ccpText from the file information block."""
    try:
        ident, nfib = struct.unpack_from("<HH", word, 0)
        (flags,) = struct.unpack_from("<H", word, 10)
        (csw,) = struct.unpack_from("<H", word, 32)
        rg_lw = 34 + csw * 2 + 2
        (cslw,) = struct.unpack_from("<H", word, rg_lw - 2)
        (ccp_text,) = struct.unpack_from("<i", word, rg_lw + 12)
        blob = rg_lw + cslw * 4 + 2
        fc_clx, lcb_clx = struct.unpack_from("<II", word, blob + FC_CLX_INDEX * 8)
    except struct.error as error:
        raise ParseError("corrupt", "truncated Word file information block") from error
    if ident != WORD_MAGIC:
        raise ParseError("corrupt", "not a Word document")
    if nfib < MIN_NFIB:
        raise ParseError("unsupported type", "Word 95 or older; save it as .docx")
    if flags & F_ENCRYPTED:
        raise ParseError("encrypted", "password-protected Word document")
    return flags, fc_clx, lcb_clx, max(ccp_text, 0)


def _main_text(word: bytes, table: bytes, fc_clx: int, lcb_clx: int, ccp_text: int) -> str:
    """The first `ccp_text` characters of the document, assembled from the piece table."""
    plc = _piece_table(table[fc_clx : fc_clx + lcb_clx])
    count = (len(plc) - 4) // 12
    cps = struct.unpack_from(f"<{count + 1}i", plc, 0)
    parts: list[str] = []
    remaining = ccp_text
    for index in range(count):
        length = min(cps[index + 1] - cps[index], remaining)
        if length <= 0:
            continue
        (fc_raw,) = struct.unpack_from("<I", plc, 4 * (count + 1) + 8 * index + 2)
        fc = fc_raw & 0x3FFFFFFF
        if fc_raw & 0x40000000:  # compressed: one byte a character, at half the stored offset
            chunk = word[fc // 2 : fc // 2 + length]
            text = chunk.decode("cp1252", errors="replace")
        else:
            chunk = word[fc : fc + 2 * length]
            text = chunk.decode("utf-16-le", errors="replace")
        if len(text) < length:
            raise ParseError("corrupt", "a text piece lies outside the Word document stream")
        parts.append(text)
        remaining -= length
    return "".join(parts)


def _piece_table(clx: bytes) -> bytes:
    position = 0
    while position < len(clx):
        kind = clx[position]
        if kind == 0x01:  # a Prc (property modifiers): skip it
            (size,) = struct.unpack_from("<H", clx, position + 1)
            position += 3 + size
        elif kind == 0x02:  # the Pcdt: the piece table itself
            (size,) = struct.unpack_from("<I", clx, position + 1)
            plc = clx[position + 5 : position + 5 + size]
            if len(plc) != size or size < 16 or (size - 4) % 12:
                break
            return plc
        else:
            break
    raise ParseError("corrupt", "Word document without a valid piece table")


def _without_fields(text: str) -> str:
    """Drop field instructions (between 0x13 and 0x14), keep field results (between 0x14 and 0x15)."""
    if "\x13" not in text:
        return text
    kept: list[str] = []
    levels: list[bool] = []  # per open field: still in its instruction part
    hidden = 0
    for char in text:
        if char == "\x13":
            levels.append(True)
            hidden += 1
        elif char == "\x14" and levels:
            hidden -= levels[-1]
            levels[-1] = False
        elif char == "\x15" and levels:
            hidden -= levels.pop()
        elif not hidden:
            kept.append(char)
    return "".join(kept)


def _write(text: str, out: MarkdownWriter) -> None:
    text = text.translate({**_DROPPED, **_MAPPED})
    rows: list[list[str]] = []
    row: list[str] = []
    cell: list[str] = []  # paragraphs of the cell being read
    unit: list[str] = []
    after_cell_mark = False
    for char in text:
        if char not in "\r\x07":
            unit.append(char)
            continue
        paragraph = "".join(unit).strip()
        unit.clear()
        if char == "\x07":
            if not paragraph and not cell and after_cell_mark:  # the row's end mark
                rows.append(row)
                row = []
            else:
                row.append(one_line(" ".join([*cell, paragraph])))
                cell.clear()
            after_cell_mark = True
            continue
        after_cell_mark = False
        if row:  # a paragraph inside a cell
            if paragraph:
                cell.append(paragraph)
            continue
        if rows:  # a paragraph after a row: the table ended
            out.table(rows)
            rows = []
        out.block(paragraph)
    if row:
        rows.append(row)
    if rows:
        out.table(rows)
    out.block("".join(unit))


def _title(ole: olefile.OleFileIO) -> str | None:
    try:
        raw = ole.get_metadata().title
    except Exception:  # a damaged property stream only costs us the title
        return None
    if isinstance(raw, bytes):
        raw = raw.decode("cp1252", errors="replace")
    return one_line(raw or "").strip("\x00") or None

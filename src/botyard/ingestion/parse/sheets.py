"""Spreadsheets and CSV: each sheet is a `## <sheet name>` section holding one Markdown table, its first non-empty
row as the header. Empty rows and trailing empty columns are dropped; columns beyond `max_columns` are cut."""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import zipfile
from collections.abc import Iterator, Sequence

import openpyxl
import xlrd

from botyard.ingestion.parse.model import ParseError, Reason
from botyard.ingestion.parse.writer import MarkdownWriter

CSV_DELIMITERS = ",;\t|"
SNIFF_BYTES = 64 * 1024


def parse_xlsx(data: bytes, out: MarkdownWriter) -> int:
    """Write every worksheet (values as last computed by Excel, not formulas); return the sheet count."""
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True, keep_links=False)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError, zipfile.BadZipFile, SyntaxError) as error:
        raise ParseError("corrupt", f"unreadable workbook: {type(error).__name__}: {error}") from error
    try:
        sheets = [sheet for sheet in workbook.worksheets if hasattr(sheet, "iter_rows")]  # not chart sheets
        for sheet in sheets:
            if out.budget.spent():
                out.truncated = True
                break
            sheet.reset_dimensions()  # the declared dimensions are often wrong, and openpyxl would cut rows to them
            rows = sheet.iter_rows(values_only=True)
            _sheet(out, str(sheet.title), (tuple(_value(cell) for cell in row) for row in rows))
        return len(sheets)
    finally:
        workbook.close()


def parse_xls(data: bytes, out: MarkdownWriter) -> int:
    """Write every sheet of a legacy Excel workbook; return the sheet count."""
    try:
        book = xlrd.open_workbook(file_contents=data, on_demand=True, logfile=io.StringIO())
    except xlrd.XLRDError as error:
        reason: Reason = "encrypted" if "encrypt" in str(error).lower() else "corrupt"
        raise ParseError(reason, f"unreadable workbook: {error}") from error
    except Exception as error:  # xlrd raises assertion, struct and index errors on damaged files
        raise ParseError("corrupt", f"unreadable workbook: {type(error).__name__}") from error
    try:
        for index in range(book.nsheets):
            if out.budget.spent():
                out.truncated = True
                break
            sheet = book.sheet_by_index(index)
            width = min(sheet.ncols, out.limits.max_columns + 1)
            rows = (
                [_xls_value(book, sheet.cell(row, col)) for col in range(min(width, sheet.row_len(row)))]
                for row in range(sheet.nrows)
            )
            _sheet(out, sheet.name, rows)
            book.unload_sheet(index)
        return int(book.nsheets)
    finally:
        book.release_resources()


def parse_csv(text: str, name: str, out: MarkdownWriter) -> None:
    """One table; the delimiter is sniffed (`,` `;` tab `|`), a `.tsv` name means tab."""
    sample = text[:SNIFF_BYTES]
    dialect: type[csv.Dialect] | csv.Dialect
    if name.lower().endswith(".tsv"):
        dialect = csv.excel_tab
    else:
        try:
            dialect = csv.Sniffer().sniff(sample, delimiters=CSV_DELIMITERS)
        except csv.Error:
            dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        out.table(reader)
    except csv.Error as error:
        raise ParseError("corrupt", f"invalid CSV: {error}") from error


def _sheet(out: MarkdownWriter, title: str, rows: Iterator[Sequence[object]]) -> None:
    first = next((row for row in rows if any(cell not in (None, "") for cell in row)), None)
    if first is None:
        return
    out.heading(2, title)
    out.table(itertools.chain([first], rows))


def _value(cell: object) -> object:
    if isinstance(cell, dt.datetime):
        return cell.isoformat(sep=" ", timespec="seconds").removesuffix(" 00:00:00")
    if isinstance(cell, dt.date | dt.time):
        return cell.isoformat()
    return cell


def _xls_value(book: xlrd.Book, cell: xlrd.sheet.Cell) -> object:
    if cell.ctype == xlrd.XL_CELL_DATE:
        try:
            return _value(xlrd.xldate.xldate_as_datetime(cell.value, book.datemode))
        except (ValueError, OverflowError, xlrd.xldate.XLDateError):
            return cell.value
    if cell.ctype == xlrd.XL_CELL_BOOLEAN:
        return bool(cell.value)
    if cell.ctype == xlrd.XL_CELL_ERROR:
        return xlrd.error_text_from_code.get(cell.value, "#ERR")
    return cell.value

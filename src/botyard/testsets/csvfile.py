"""A test set as CSV, both ways. Columns (a header row names them, in any order):

- `question` (required);
- `expect_any`: the texts a right answer holds one of, separated by `|`;
- `expect`: `refuse` when the bot must say it does not know (then `expect_any` stays empty).

A row with neither is refused: a question nothing is expected of tests nothing. The file is read whole within
limits (`MAX_BYTES`, `MAX_CASES`); any bad row fails the import with every bad row named, and nothing is stored.
Exported cells that a spreadsheet would run as a formula (`= + - @` first) are prefixed with `'`; importing strips
that prefix again.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from botyard.errors import AppError, ErrorCode, validation_error

MAX_BYTES = 2 * 1024 * 1024
MAX_CASES = 2000
MAX_QUESTION = 4000
REFUSE = "refuse"
_FORMULA = ("=", "+", "-", "@")


@dataclass(frozen=True)
class Case:
    question: str
    expect_any: tuple[str, ...]
    expect_refuse: bool


def parse(data: bytes) -> list[Case]:
    """The cases of a CSV file (UTF-8, with or without a byte-order mark); 422 naming every bad row, or 413."""
    if len(data) > MAX_BYTES:
        raise AppError(ErrorCode.PAYLOAD_TOO_LARGE, f"A test set's CSV may hold at most {MAX_BYTES} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise validation_error("The CSV is not UTF-8 text: save it as UTF-8 and upload it again") from error
    rows = csv.DictReader(io.StringIO(text, newline=""))
    columns = {name.strip().casefold() for name in rows.fieldnames or []}
    if "question" not in columns:
        raise validation_error("The CSV needs a header row with a `question` column (and `expect_any` or `expect`)")
    cases: list[Case] = []
    bad: list[dict[str, object]] = []
    for number, row in enumerate(rows, start=2):
        cells = {str(key).strip().casefold(): _cell(value) for key, value in row.items() if key is not None}
        found = _case(cells)
        if isinstance(found, str):
            bad.append({"row": number, "error": found})
        elif found is not None:
            cases.append(found)
    if bad:
        raise validation_error(f"{len(bad)} rows of the CSV are not test cases; nothing was stored", bad)
    if not cases:
        raise validation_error("The CSV holds no question")
    if len(cases) > MAX_CASES:
        raise validation_error(f"A test set holds at most {MAX_CASES} questions; split the CSV")
    return cases


def _cell(value: object) -> str:
    text = value.strip() if isinstance(value, str) else ""
    return text[1:] if text.startswith("'") and text[1:2] in _FORMULA and text[1:2] else text


def _case(cells: dict[str, str]) -> Case | str | None:
    """The row's case, None for an empty row, or what is wrong with it."""
    question = cells.get("question", "")
    expected = tuple(part.strip() for part in cells.get("expect_any", "").split("|") if part.strip())
    expect = cells.get("expect", "").casefold()
    if not question and not expected and not expect:
        return None
    if not question:
        return "no question"
    if len(question) > MAX_QUESTION:
        return f"the question is longer than {MAX_QUESTION} characters"
    if expect not in ("", REFUSE):
        return f"`expect` is `{expect}`: leave it empty or write `refuse`"
    if expect == REFUSE and expected:
        return "both `expect_any` and `expect: refuse`: a right answer cannot do both"
    if expect != REFUSE and not expected:
        return "nothing expected: give `expect_any` (texts separated by `|`) or `expect` = `refuse`"
    return Case(question, expected, expect == REFUSE)


def export(cases: list[Case]) -> str:
    """The cases as CSV with the header `question,expect_any,expect`."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["question", "expect_any", "expect"])
    for case in cases:
        writer.writerow([_safe(case.question), _safe("|".join(case.expect_any)), REFUSE if case.expect_refuse else ""])
    return out.getvalue()


def _safe(text: str) -> str:
    return "'" + text if text.startswith(_FORMULA) else text

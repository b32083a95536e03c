"""The parse stage: every format to Markdown with its headings and tables, files lying about their type, and hostile
files (bombs, loops, hangs) that must end as one clean `ParseError` while this process carries on."""

from __future__ import annotations

import asyncio
import io
import os
import resource
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from botyard.ingestion.parse import (
    ParsedDocument,
    ParseError,
    ParseLimits,
    Sandbox,
    parse_file,
)
from botyard.ingestion.parse.core import parse_bytes
from botyard.ingestion.parse.sniff import safe_name
from tests.support import documents as samples
from tests.support.waiting import wait_for

MIB = 1024 * 1024
WORD_TEXT = (
    "Quarterly report\r"
    'Revenue grew in all regions, see \x13 HYPERLINK "http://example.com" \x14our site\x15.\r'
    "Region\x07Sales\x07\x07North\x0710\x07\x07South\x0720\x07\x07"
    "Prices stay the same: café, naïve.\r"
)
HTML = (
    "<!doctype html><html><head><title>FAQ</title></head><body><nav>Home | Blog</nav><main>"
    "<h1>Frequently asked questions</h1><p>Everything you wanted to know about our plans and prices.</p>"
    "<h2>Prices</h2><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>10</td></tr>"
    "<tr><td>Pro</td><td>20</td></tr></table><p>Prices are per month and exclude tax.</p></main></body></html>"
)
TEX = r"""\documentclass{article}
\title{Pricing \emph{notes}}
\begin{document}
\maketitle
\section{Plans} % the comment goes
Our plans are simple, caf\'e included -- see below.
\begin{itemize}
\item Cancel any time
\item No setup fee
\end{itemize}
\begin{tabular}{|l|r|}
\hline
Plan & Price \\ \hline
Basic & 10 \\
Pro & 20 \\
\end{tabular}
\end{document}
"""
JSON = (
    b'{"title": "Settings", "product": "Botyard", "regions": ["eu", "us"], '
    b'"plans": [{"Plan": "Basic", "Price": 10}, {"Plan": "Pro", "Price": 20}], '
    b'"support": {"email": "help@example.com"}}'
)


def _text(value: str) -> Callable[[], bytes]:
    return lambda: value.encode()


# name, content, a heading line, a table line (None where the format has none), the title
FORMATS: list[tuple[str, Callable[[], bytes], str, str | None, str | None]] = [
    ("report.pdf", samples.pdf_report, "# Quarterly report", "| Basic | 10 |", "Quarterly report"),
    ("guide.docx", samples.docx_document, "## Plans", "| Basic | 10 |", "Pricing guide"),
    ("report.doc", lambda: samples.word97_document(WORD_TEXT), "Quarterly report", "| North | 10 |", None),
    ("deck.pptx", samples.pptx_deck, "## Why Botyard", "| Basic | 10 |", "Why Botyard"),
    ("plans.xlsx", samples.xlsx_workbook, "## Regions", "| Basic | 10 |", None),
    ("plans.xls", samples.xls_workbook, "## Plans", "| Basic | 10 |", None),
    ("plans.csv", _text("Plan;Price\nBasic;10\nPro;20\n"), "| Plan | Price |", "| Basic | 10 |", None),
    (
        "guide.md",
        _text("# Guide\n\n| Plan | Price |\n| --- | --- |\n| Basic | 10 |\n"),
        "# Guide",
        "| Basic | 10 |",
        "Guide",
    ),
    ("notes.txt", _text("OPENING HOURS\r\nMonday to Friday\x01.\n"), "## OPENING HOURS", None, None),
    ("faq.html", _text(HTML), "## Prices", "| Basic | 10 |", "Frequently asked questions"),
    ("settings.json", lambda: JSON, "# plans", "| Basic | 10 |", "Settings"),
    ("paper.tex", _text(TEX), "# Plans", "| Basic | 10 |", "Pricing notes"),
]


def test_plain_text_keeps_its_paragraphs_and_its_lines_in_capitals_are_headings() -> None:
    text = "SATURDAYS\nWe open from 9 to 1.\nCall first.\n\nNo car park.\n\n"
    text += "CAUTION: SHOUTING IS NOT A HEADING IF IT IS LONG, REALLY LONG, FAR LONGER THAN A TITLE EVER IS.\n"
    document = parse_bytes(text.encode(), "notes.txt")
    blocks = document.markdown.split("\n\n")
    assert blocks[:3] == ["## SATURDAYS", "We open from 9 to 1.\nCall first.", "No car park."]
    assert blocks[3].startswith("CAUTION")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    box = Sandbox()
    box.start()
    yield box
    box.close()


def sandboxed(sandbox: Sandbox, data: bytes, name: str, limits: ParseLimits | None = None) -> ParsedDocument:
    return asyncio.run(parse_file(data, name, limits or ParseLimits(), sandbox=sandbox))


def refused(sandbox: Sandbox, data: bytes, name: str, limits: ParseLimits | None = None) -> ParseError:
    with pytest.raises(ParseError) as caught:
        sandboxed(sandbox, data, name, limits)
    return caught.value


@pytest.mark.parametrize(("name", "build", "heading", "table", "title"), FORMATS, ids=[row[0] for row in FORMATS])
def test_each_format_keeps_headings_and_tables(
    name: str, build: Callable[[], bytes], heading: str, table: str | None, title: str | None
) -> None:
    document = parse_bytes(build(), name)
    lines = document.markdown.splitlines()
    assert heading in lines, document.markdown
    if table is not None:
        assert table in lines, document.markdown
        header = lines.index(table) - 2
        assert set(lines[header + 1].replace("|", "").split()) == {"---"}, "a table needs its header separator"
    assert document.title == title
    assert document.format == name.rsplit(".", 1)[1]
    assert not document.truncated
    assert "\x00" not in document.markdown and "\x01" not in document.markdown


def test_details_survive_conversion() -> None:
    docx = parse_bytes(samples.docx_document(), "guide.docx").markdown
    assert "- Cancel any time\n- No setup fee\n1. Sign up" in docx
    deck = parse_bytes(samples.pptx_deck(), "deck.pptx")
    assert deck.pages == 2
    assert "- Self-hosted" in deck.markdown and "Notes: Mention the offline mode." in deck.markdown
    word = parse_bytes(samples.word97_document(WORD_TEXT), "report.doc").markdown
    assert "see our site." in word and "HYPERLINK" not in word and "café, naïve" in word
    html = parse_bytes(HTML.encode(), "faq.html").markdown
    assert "Home | Blog" not in html, "navigation is not main text"
    tex = parse_bytes(TEX.encode(), "paper.tex").markdown
    assert (
        "- Cancel any time\n- No setup fee" in tex and "café included \u2013 see below" in tex and "comment" not in tex
    )
    json = parse_bytes(JSON, "settings.json").markdown
    assert "- **regions**: eu, us" in json and "## support" not in json and "# support" in json


def test_sheets_ignore_wrong_dimensions() -> None:
    workbook = samples.xlsx_workbook()
    sheet = zipfile.ZipFile(io.BytesIO(workbook)).read("xl/worksheets/sheet1.xml")
    assert b'<dimension ref="A1:B3"/>' in sheet
    lying = samples.replace_member(workbook, "xl/worksheets/sheet1.xml", sheet.replace(b"A1:B3", b"A1"))
    assert "| Pro | 20 |" in parse_bytes(lying, "plans.xlsx").markdown


def test_sandbox_returns_what_parse_bytes_returns(sandbox: Sandbox) -> None:
    for name, build in (("report.pdf", samples.pdf_report), ("deck.pptx", samples.pptx_deck)):
        data = build()
        assert sandboxed(sandbox, data, name) == parse_bytes(data, name)


@pytest.mark.parametrize(
    ("name", "build", "outcome"),
    [
        ("scan.txt", samples.pdf_report, "pdf"),
        ("guide.pdf", samples.docx_document, "docx"),
        ("export.xls", lambda: HTML.encode(), "html"),  # web apps export HTML tables as .xls
        ("notes.pdf", lambda: b"Plain text saved with the wrong name.", "txt"),
        ("invoice.pdf", lambda: b"MZ\x90\x00\x03" + bytes(200), "unsupported type"),
        ("archive.txt", lambda: _zip({"a.txt": b"hello"}), "unsupported type"),
        ("photo.csv", lambda: b"\x89PNG\r\n\x1a\n" + bytes(100), "unsupported type"),
        ("blob.txt", lambda: bytes(range(256)) * 8, "unsupported type"),
        ("letter.doc", lambda: b"{\\rtf1\\ansi Hello}", "unsupported type"),
    ],
)
def test_content_decides_the_format(name: str, build: Callable[[], bytes], outcome: str) -> None:
    try:
        result = parse_bytes(build(), name).format
    except ParseError as error:
        result = error.reason
    assert result == outcome


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("../../etc/passwd.txt", "passwd.txt"),
        ("..\\..\\windows\\win.ini", "win.ini"),
        ("/etc/shadow", "shadow"),
        ("evil\x00.pdf.txt", "evil.pdf.txt"),
        ("..", "file"),
        ("", "file"),
        ("a/b/\x01\x02", "b"),
        ("\x01\x02", "file"),
    ],
)
def test_file_names_are_base_names_only(raw: str, name: str) -> None:
    assert safe_name(raw) == name


def test_hostile_names_never_reach_the_file_system(sandbox: Sandbox, tmp_path: Path) -> None:
    for raw in ("../../etc/passwd.txt", "/etc/passwd", "evil\x00.txt", "../" * 50 + "x.md"):
        assert sandboxed(sandbox, b"just these words", raw).markdown == "just these words\n"


@pytest.mark.parametrize("build", [samples.docx_document, samples.xlsx_workbook], ids=["docx", "xlsx"])
def test_zip_bombs_are_refused_before_inflating(sandbox: Sandbox, build: Callable[[], bytes]) -> None:
    error = refused(sandbox, samples.zip_bomb(build()), "bomb.docx")
    assert error.reason == "too large" and "zip bomb" in error.detail


def test_zip_packages_over_size_or_member_caps_are_refused(sandbox: Sandbox) -> None:
    padded = samples.replace_member(samples.docx_document(), "word/media/noise.bin", os.urandom(3 * MIB))
    assert refused(sandbox, padded, "big.docx", ParseLimits(max_unzipped_mb=2)).reason == "too large"
    assert refused(sandbox, samples.docx_document(), "many.docx", ParseLimits(max_zip_members=5)).reason == "too large"


@pytest.mark.parametrize(
    ("build", "member"),
    [(samples.docx_document, "word/document.xml"), (samples.xlsx_workbook, "xl/worksheets/sheet1.xml")],
    ids=["docx", "xlsx"],
)
def test_xml_entity_expansion_is_refused(sandbox: Sandbox, build: Callable[[], bytes], member: str) -> None:
    hostile = samples.replace_member(build(), member, samples.BILLION_LAUGHS)
    assert refused(sandbox, hostile, "laughs.docx").reason == "unsafe"


def test_malformed_pdfs_are_corrupt(sandbox: Sandbox) -> None:
    assert refused(sandbox, b"%PDF-1.7\n" + bytes(range(256)) * 40, "bad.pdf").reason == "corrupt"
    assert refused(sandbox, samples.raw_pdf([b"<< /Type /Catalog >>"]), "empty.pdf").reason == "corrupt"


def test_cyclic_pdf_structures_end(sandbox: Sandbox) -> None:
    started = time.monotonic()
    document = sandboxed(sandbox, samples.cyclic_pdf(), "loop.pdf", ParseLimits(wall_seconds=10))
    assert document.markdown.strip() == "Loop"
    assert time.monotonic() - started < 5


def test_long_pdfs_are_cut_at_max_pages(sandbox: Sandbox) -> None:
    document = sandboxed(sandbox, samples.many_pages_pdf(5000), "long.pdf")
    assert document.pages == 5000 and document.truncated
    assert document.markdown.count("A page of the long report.") == ParseLimits().max_pages


def test_a_million_columns_are_cut(sandbox: Sandbox) -> None:
    header = ",".join(f"c{index}" for index in range(1_000_000))
    document = sandboxed(sandbox, f"{header}\n{'1,' * 999_999}1\n".encode(), "wide.csv")
    assert document.truncated
    first = document.markdown.splitlines()[0]
    assert first.count("|") == ParseLimits().max_columns + 1 and first.endswith("| c255 |")


def test_output_is_cut_at_max_chars(sandbox: Sandbox) -> None:
    document = sandboxed(sandbox, b"word " * 100_000, "long.txt", ParseLimits(max_chars=1000))
    assert document.truncated and len(document.markdown) <= 1001


def _big_html(paragraphs: int = 20_000) -> bytes:
    body = "".join(f"<p>Paragraph {i} with words.</p><table><tr><td>{i}</td></tr></table>" for i in range(paragraphs))
    return f"<html><body>{body}</body></html>".encode()


def test_cpu_hog_times_out(sandbox: Sandbox) -> None:
    error = refused(sandbox, _big_html(), "slow.html", ParseLimits(cpu_seconds=1))
    assert error.reason == "timeout" and "CPU" in error.detail


def test_hang_is_killed_at_the_wall_clock_limit(sandbox: Sandbox) -> None:
    started = time.monotonic()
    error = refused(sandbox, _big_html(), "slow.html", ParseLimits(wall_seconds=1))
    assert error.reason == "timeout" and "wall-clock" in error.detail
    assert time.monotonic() - started < 3


def test_memory_bomb_hits_the_memory_limit(sandbox: Sandbox) -> None:
    bomb = b"[" + b"[]," * 3_000_000 + b"[]]"  # 9 MB of text, over 200 MB of Python lists
    assert refused(sandbox, bomb, "bomb.json", ParseLimits(memory_mb=300)).reason == "memory"


def test_one_bad_file_fails_alone(sandbox: Sandbox) -> None:
    async def batch() -> list[ParsedDocument | BaseException]:
        jobs = [
            parse_file(_big_html(), "slow.html", ParseLimits(wall_seconds=1), sandbox=sandbox),
            parse_file(b"[" + b"[]," * 3_000_000 + b"[]]", "bomb.json", ParseLimits(memory_mb=300), sandbox=sandbox),
            parse_file(samples.zip_bomb(samples.docx_document()), "bomb.docx", sandbox=sandbox),
            parse_file(samples.pdf_report(), "report.pdf", sandbox=sandbox),
        ]
        return await asyncio.gather(*jobs, return_exceptions=True)

    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    slow, memory, bomb, report = asyncio.run(batch())
    assert [getattr(error, "reason", error) for error in (slow, memory, bomb)] == ["timeout", "memory", "too large"]
    assert isinstance(report, ParsedDocument) and "# Quarterly report" in report.markdown
    # The bombs went off in children: this process's peak (shared with the tests before it) did not grow by theirs.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 < peak_before + 256 * MIB


def test_other_refusals(sandbox: Sandbox) -> None:
    assert refused(sandbox, b"   \n\t ", "blank.txt").reason == "no text"
    assert refused(sandbox, b'{"a": [1, 2', "cut.json").reason == "corrupt"
    assert refused(sandbox, b"[" * 100_000 + b"]" * 100_000, "deep.json").reason == "too large"
    assert refused(sandbox, samples.word97_document("Secret\r", encrypted=True), "secret.doc").reason == "encrypted"
    assert refused(sandbox, samples.docx_document()[:2000], "cut.docx").reason == "corrupt"
    with pytest.raises(ParseError, match="no text"):
        parse_bytes(b"", "empty.txt")


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="memory_mb"):
        ParseLimits(memory_mb=0)


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _descendants(pid: int) -> set[int]:
    found = _children(pid)
    return found | {grandchild for child in found for grandchild in _children(child)}


@pytest.fixture
def fresh_sandbox() -> Iterator[Sandbox]:
    """A sandbox of the test's own, started: its zygote's children are the test's alone to count."""
    box = Sandbox()
    box.start()
    yield box
    box.close()


def test_cancelling_kills_the_child(fresh_sandbox: Sandbox) -> None:
    sandbox = fresh_sandbox

    async def cancel_midway() -> None:
        task = asyncio.create_task(parse_file(_big_html(), "slow.html", sandbox=sandbox))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    assert sandbox.pid is not None
    asyncio.run(cancel_midway())
    wait_for(lambda: not _descendants(sandbox.pid), 30, what="the parsing child killed")


def test_a_warm_child_parses_the_next_file_and_a_failed_one_is_replaced(fresh_sandbox: Sandbox) -> None:
    sandbox = fresh_sandbox
    assert sandbox.pid is not None
    assert sandboxed(sandbox, b"first", "a.txt").markdown == "first\n"
    [supervisor] = _children(sandbox.pid)
    [child] = _children(supervisor)
    assert sandboxed(sandbox, b"second", "b.txt").markdown == "second\n"
    assert _children(supervisor) == {child}  # the same process parsed both files
    bomb = b"[" + b"[]," * 3_000_000 + b"[]]"
    assert refused(sandbox, bomb, "bomb.json", ParseLimits(memory_mb=300)).reason == "memory"
    assert _children(supervisor) == set()  # it failed: retired
    assert sandboxed(sandbox, b"third", "c.txt").markdown == "third\n"
    [fresh] = _children(supervisor)
    assert fresh != child
    # Each file gets its own CPU budget, counted from what the warm child already spent.
    error = refused(sandbox, _big_html(), "slow.html", ParseLimits(cpu_seconds=1))
    assert error.reason == "timeout" and "CPU" in error.detail


def _wait_dead(pid: int) -> None:
    """Until `pid` has exited (a zombie counts: it runs no more), or fail after thirty seconds."""

    def dead() -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
        except OSError:
            return True  # reaped

    wait_for(dead, 30, what=f"process {pid} exiting", every=0.01)


def test_a_kept_connection_whose_supervisor_died_is_replaced(fresh_sandbox: Sandbox) -> None:
    sandbox = fresh_sandbox
    assert sandbox.pid is not None
    assert sandboxed(sandbox, b"first", "a.txt").markdown == "first\n"
    [supervisor] = _children(sandbox.pid)
    os.kill(supervisor, 9)
    _wait_dead(supervisor)
    assert sandboxed(sandbox, b"second", "b.txt").markdown == "second\n"
    assert supervisor not in _children(sandbox.pid) and len(_children(sandbox.pid)) == 1


def test_a_dead_zygote_is_replaced() -> None:
    box = Sandbox(idle_connections=0)  # a kept connection would outlive the zygote and serve the second file
    try:
        assert sandboxed(box, b"first", "a.txt").markdown == "first\n"
        assert box.pid is not None
        os.kill(box.pid, 9)
        _wait_dead(box.pid)
        assert sandboxed(box, b"second", "b.txt").markdown == "second\n"
    finally:
        box.close()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()

"""Large documents benchmark (issue 17, item 1): how long one large upload takes to reach `success` or `error:...`
through the API, and the server's peak memory meanwhile.

Three documents, each uploaded alone to a fresh `botyard serve` on a fresh database:

- `text`: `--text-mb` MB of prose (paragraphs of generated sentences) as a .txt file;
- `pdf`: a PDF of about `--pdf-mb` MB (uncompressed text pages, generated with fpdf2);
- `xlsx`: a workbook of `--sheets` sheets of `--rows` rows (generated with openpyxl, about 11 MB by default).

Printed per document: its size, the time from the POST to the final status, the final status, the chunks stored,
the server's resident set when idle (just before the upload, models loaded), its peak while the document is
ingested (VmHWM, reset just before the upload so that start-up does not count), the difference (issue 39 item 8:
at most 300 MB), and the largest peak of its children (the parser sandbox). Run from the repository root, in its
virtualenv:

    python bench/large_documents.py                         # the three documents, the default embedder
    python bench/large_documents.py --embedder none --only text
    python bench/large_documents.py --only text --text-mb 0.3 0.6 1.1   # one fresh server per size
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import openpyxl
from _content import paragraph
from _harness import (
    Database,
    MemorySampler,
    PostgresDatabase,
    Server,
    SqliteDatabase,
    load_average,
    postgres_database,
    reset_peak,
    resident_kb,
)
from fpdf import FPDF

POLL_SECONDS = 0.5
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
_WORDS = ["price", "stock", "order", "delivery", "north", "south", "east", "west", "widget", "gadget"]


@dataclass(frozen=True)
class Document:
    kind: str
    name: str
    content: bytes
    content_type: str


def prose_text(megabytes: float) -> Document:
    rng = random.Random(1)
    parts: list[str] = []
    size, serial = 0, 0
    while size < megabytes * 1_000_000:
        parts.append(paragraph(rng, serial, 120))
        size += len(parts[-1]) + 2
        serial += 1
    return Document("text", "handbook.txt", "\n\n".join(parts).encode(), "text/plain")


def pdf_file(megabytes: float) -> Document:
    rng = random.Random(2)
    pdf = FPDF()
    pdf.set_compression(False)  # about 8 KB a page: a large file of real text, not of images
    page = 0
    while page * 8_000 < megabytes * 1_000_000:
        pdf.add_page()
        pdf.set_font("helvetica", "B", 12)
        pdf.cell(0, 8, f"Chapter {page}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", "", 9)
        for line in textwrap.wrap(paragraph(rng, page, 850), width=110):
            pdf.cell(0, 4, line, new_x="LMARGIN", new_y="NEXT")
        page += 1
    return Document("pdf", "manual.pdf", bytes(pdf.output()), "application/pdf")


def workbook(sheets: int, rows: int) -> Document:
    rng = random.Random(3)
    book = openpyxl.Workbook(write_only=True)
    for index in range(sheets):
        sheet = book.create_sheet(f"Sheet {index}")
        sheet.append(["id", "name", "region", "amount", "note"])
        for row in range(rows):
            name, note = " ".join(rng.choices(_WORDS, k=3)), " ".join(rng.choices(_WORDS, k=8))
            sheet.append([row, name, rng.choice(_WORDS), rng.random() * 1000, note])
    buffer = io.BytesIO()
    book.save(buffer)
    return Document("xlsx", "stock.xlsx", buffer.getvalue(), XLSX)


def measure(document: Document, settings: dict[str, str], timeout: float, postgres_url: str | None) -> str:
    with tempfile.TemporaryDirectory(prefix="botyard-large-") as directory, _database(postgres_url) as postgres:
        data_dir = Path(directory)
        database: Database = postgres or SqliteDatabase(data_dir)
        server = Server(data_dir, settings | database.env)
        key = server.create_key()
        with (
            server.running(),
            httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {key}"}, timeout=120) as api,
        ):
            bot = api.post("/api/v1/chatbot/create", json={"name": "large"}).raise_for_status().json()["uuid"]
            load = load_average()
            idle_kb = resident_kb(server.pid)
            reset_peak(server.pid)
            with MemorySampler(server.pid) as memory:
                started = time.monotonic()
                files = {"file": (document.name, document.content, document.content_type)}
                created = api.post(f"/api/v1/chatbot/{bot}/data-source/upload", files=files).raise_for_status().json()
                status = _wait(api, created["uuid"], started + timeout)
                elapsed = time.monotonic() - started
            shown = api.get(f"/api/v1/data-source/{created['uuid']}").json()
            [(chunks,)] = database.query("SELECT count(*) FROM chunk")
        peaks = memory.peaks
        return (
            f"{document.kind:5} {len(document.content) / 1e6:5.2f} MB {elapsed:7.1f} s  {status:10} "
            f"tokens {shown.get('tokens', 0):>8} chunks {chunks:>5}  server idle {idle_kb / 1024:4.0f} MB "
            f"peak {peaks.server_hwm_kb / 1024:5.0f} MB (+{(peaks.server_hwm_kb - idle_kb) / 1024:4.0f})  "
            f"parser peak {peaks.child_hwm_kb / 1024:4.0f} MB  load before {load:.2f}"
        )


def _wait(api: httpx.Client, uuid: str, deadline: float) -> str:
    while True:
        status = str(api.get(f"/api/v1/data-source/{uuid}").json()["status"])
        if status == "success" or status.startswith("error"):
            return status
        if time.monotonic() > deadline:
            return f"still {status} (gave up waiting)"
        time.sleep(POLL_SECONDS)


def _database(postgres_url: str | None) -> contextlib.AbstractContextManager[PostgresDatabase | None]:
    return postgres_database(postgres_url) if postgres_url else contextlib.nullcontext()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["text", "pdf", "xlsx"], action="append", help="documents to run")
    parser.add_argument("--text-mb", type=float, nargs="+", default=[5.0], help="sizes of the text: one run each")
    parser.add_argument("--pdf-mb", type=float, default=20.0)
    parser.add_argument("--sheets", type=int, default=240)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--embedder", default=None, help="BOTYARD_EMBEDDER for the server (default: its default)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for one document")
    parser.add_argument("--postgres-url", default=None, help="an admin URL: run on a fresh PostgreSQL database")
    args = parser.parse_args()
    settings = {"BOTYARD_EMBEDDER": args.embedder} if args.embedder else {}
    makers = {
        "text": lambda: [prose_text(megabytes) for megabytes in args.text_mb],
        "pdf": lambda: [pdf_file(args.pdf_mb)],
        "xlsx": lambda: [workbook(args.sheets, args.rows)],
    }
    for kind in args.only or list(makers):
        for document in makers[kind]():
            print(measure(document, settings, args.timeout, args.postgres_url), flush=True)


if __name__ == "__main__":
    main()

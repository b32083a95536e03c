"""Hostile origins and hostile files through the whole pipeline: each ends as `error:<reason>` for its own source,
the caps hold, the other sources finish, and the API keeps answering meanwhile."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from botyard.config import Settings
from botyard.egress import EgressClient
from botyard.ingestion.parse import ParseLimits
from botyard.sources.processing.pipeline import IngestionConfig, SourceProcessor
from tests.support import documents as samples
from tests.support.api import Api
from tests.support.egress_servers import Site
from tests.support.fake_dns import FakeDns
from tests.support.jobs import run_jobs


@pytest.fixture(scope="module")
def hostile() -> Iterator[Site]:
    site = Site()
    yield site
    site.close()


@pytest.fixture
def bot(alice: Api) -> str:
    uuid: str = alice.chatbot()["uuid"]
    return uuid


def tight_processor(settings: Settings, fake_dns: FakeDns, limits: ParseLimits | None = None) -> SourceProcessor:
    """Caps small enough for a test to hit them in a second: 2 MB bodies, 1 s per fetch."""
    capped = settings.model_copy(
        update={"egress_max_response_bytes": 2_000_000, "egress_read_timeout": 1.0, "egress_total_timeout": 1.0}
    )
    config = IngestionConfig(parse_limits=limits or ParseLimits(), max_fetch_bytes=2_000_000)
    return SourceProcessor(EgressClient(capped, fake_dns), config)


def status(api: Api, uuid: str) -> str:
    value: str = api.ok(api.get(f"/data-source/{uuid}"))["status"]
    return value


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/bomb", "error:response too large"),
        ("/endless", "error:response too large"),
        ("/sized?n=1000000000", "error:response too large"),
        ("/trickle?every=0.2", "error:timeout"),
        ("/stall", "error:timeout"),
        ("/headers?kb=80", "error:headers too large"),
        ("/loop", "error:redirect loop"),
        ("/chain/6", "error:too many redirects"),
    ],
)
def test_response_abuse_is_cut_at_the_caps(
    alice: Api, bot: str, settings: Settings, fake_dns: FakeDns, hostile: Site, path: str, reason: str
) -> None:
    abused = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": hostile.url(path)}))
    fine = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": hostile.url("/page")}))
    started = time.monotonic()
    run_jobs(alice.client, [tight_processor(settings, fake_dns)])
    assert status(alice, abused["uuid"]) == reason
    assert status(alice, fine["uuid"]) == "success"
    # Retries of passing failures (timeouts) included, the caps keep the whole run short.
    assert time.monotonic() - started < 30


def upload(api: Api, bot: str, name: str, content: bytes) -> str:
    response = api.client.post(
        f"/api/v1/chatbot/{bot}/data-source/upload", headers=api.auth, files={"file": (name, content)}
    )
    uuid: str = api.ok(response)["uuid"]
    return uuid


def test_hostile_files_fail_alone_while_the_api_answers(
    alice: Api, bot: str, settings: Settings, fake_dns: FakeDns
) -> None:
    hostile_files = {
        "bomb.docx": (samples.zip_bomb(samples.docx_document()), "error:too large"),
        "laughs.xlsx": (
            samples.replace_member(samples.xlsx_workbook(), "xl/worksheets/sheet1.xml", samples.BILLION_LAUGHS),
            "error:unsafe",
        ),
        "broken.pdf": (b"%PDF-1.7\n" + bytes(range(256)) * 40, "error:corrupt"),
        "deep.json": (b"[" + b"[]," * 3_000_000 + b"[]]", "error:memory"),
        "slow.html": (
            "".join(f"<p>Paragraph {i}.</p><table><tr><td>{i}</td></tr></table>" for i in range(20_000)).encode(),
            # Slow and greedy at once: under these limits the wall clock and the memory cap fire within a fraction
            # of a second of each other, so either reason is right (test_parse pins each limit on its own).
            ("error:timeout", "error:memory"),
        ),
    }
    uuids = {name: upload(alice, bot, name, content) for name, (content, _) in hostile_files.items()}
    report = upload(alice, bot, "report.pdf", samples.pdf_report())
    limits = ParseLimits(wall_seconds=2, memory_mb=300)

    latencies: list[float] = []
    worker = threading.Thread(target=run_jobs, args=(alice.client, [tight_processor(settings, fake_dns, limits)]))
    worker.start()
    while worker.is_alive():
        started = time.monotonic()
        assert alice.get(f"/chatbot/{bot}/data-sources").status_code == 200
        latencies.append(time.monotonic() - started)
        time.sleep(0.05)
    worker.join()

    for name, (_, reason) in hostile_files.items():
        assert status(alice, uuids[name]) in ((reason,) if isinstance(reason, str) else reason), name
    assert status(alice, report) == "success"
    assert latencies and max(latencies) < 5  # answered all along, not frozen behind a parse


def test_long_and_wide_files_are_cut_not_refused(alice: Api, bot: str, settings: Settings, fake_dns: FakeDns) -> None:
    header = ",".join(f"c{index}" for index in range(1_000_000))
    wide = upload(alice, bot, "wide.csv", f"{header}\n{'1,' * 999_999}1\n".encode())
    long = upload(alice, bot, "long.pdf", samples.many_pages_pdf(5000))
    run_jobs(alice.client, [tight_processor(settings, fake_dns)])
    for uuid in (wide, long):
        assert status(alice, uuid) == "success"
        assert alice.ok(alice.get(f"/data-source/{uuid}"))["tokens"] > 0


@pytest.mark.parametrize(
    ("name", "stored"),
    [("../../etc/passwd.txt", "passwd.txt"), ("/etc/passwd.md", "passwd.md"), ("..\\..\\boot.ini.txt", "boot.ini.txt")],
)
def test_hostile_file_names_are_stored_as_base_names(alice: Api, bot: str, name: str, stored: str) -> None:
    response = alice.client.post(
        f"/api/v1/chatbot/{bot}/data-source/upload", headers=alice.auth, files={"file": (name, b"plain words")}
    )
    assert alice.ok(response)["file_name"] == stored


def test_a_nul_in_a_file_name_never_reaches_storage(alice: Api, bot: str) -> None:
    # Raw multipart: httpx would percent-encode the NUL.
    part = b'Content-Disposition: form-data; name="file"; filename="nul\x00name.txt"'
    body = b"--b\r\n" + part + b"\r\n\r\nplain words\r\n--b--\r\n"
    headers = {**alice.auth, "Content-Type": "multipart/form-data; boundary=b"}
    response = alice.client.post(f"/api/v1/chatbot/{bot}/data-source/upload", headers=headers, content=body)
    assert alice.ok(response)["file_name"] == "nulname.txt"

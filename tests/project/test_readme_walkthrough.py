"""The curl examples of the README and of every page of `docs/` run as written, in order, against `botyard serve`.

The rule: a ```sh block of README.md or of a `docs/*.md` page whose fence is preceded by the line
`<!-- test: runs -->` is run here, each block on its own in `bash` with `set -euo pipefail` (so each must define every
variable it uses), from a directory laid out as the repository (`.venv` is this test's virtualenv). A ```sh block that
calls curl must carry that marker or `<!-- test: not run, <why> -->`, so a new API example cannot escape. Each page
gets a server of its own, set up the same way, and its blocks run in the page's order (so a block may build on the one
before it on the same page, never on another page's). What the test supplies, and nothing else:
- `BOTYARD_URL`, the server's address (the blocks read it, default `http://127.0.0.1:8000`);
- the account the setup link makes, claimed with the page's `EMAIL` before its blocks run;
- `manual.pdf` ("any PDF of yours"), generated;
- `https://example.com` in a block's text is replaced by a loopback web site (egress allowlisted), the only edit;
- `curl` on the PATH adds `--fail-with-body --show-error` and a newline after each response, so an HTTP error or
  a missing file fails the block, and each answer starts a line of the output;
- a `TMPDIR` of its own, for the files a block makes with `mktemp`.
The blocks clean up after themselves: afterwards the directory they ran in holds only what the test supplied, the
temporary directory is empty, and no chatbot they left has a re-sync schedule.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx
import pytest
from fpdf import FPDF

from botyard.config import Settings
from botyard.identity.accounts import setup
from tests.support.paths import REPO
from tests.support.processes import spawn, stop
from tests.support.servers import Server
from tests.support.web_site import Page, WebSite

ROOT = REPO
PAGES = ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]
RUNS = "<!-- test: runs -->"
NOT_RUN = re.compile(r"<!-- test: not run, .+ -->")
EMAIL = re.compile(r"^EMAIL=([^\s;]+)", re.MULTILINE)
CURL = "#!/bin/sh\nexec {curl} --fail-with-body --show-error --write-out '\\n' \"$@\"\n"
SUPPLIED = {".venv", "manual.pdf"}
"""What the checkout directory holds before the blocks run (and must hold, and only that, after them)."""

FAQ = b"""<html><head><title>FAQ</title></head><body><main><h1>Shipping</h1>
<p>Every order ships within two working days from our warehouse in Leeds, by tracked parcel post.</p>
</main></body></html>"""
SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>{base}/guide/start</loc></url><url><loc>{base}/guide/changelog</loc></url></urlset>"""


@dataclass
class Block:
    page: str
    line: int
    """Where its fence is in the page (1-based), to name it in a failure."""
    marker: str
    text: str


def sh_blocks(page: str) -> list[Block]:
    """Every ```sh block of the page (a path from the repository root) with the line just before its fence."""
    lines = (ROOT / page).read_text().splitlines()
    blocks, index = [], 0
    while index < len(lines):
        if lines[index].strip() == "```sh":
            end = next(after for after in range(index + 1, len(lines)) if lines[after].strip() == "```")
            marker = lines[index - 1].strip() if index else ""
            blocks.append(Block(page, index + 1, marker, "\n".join(lines[index + 1 : end]) + "\n"))
            index = end
        index += 1
    return blocks


def runs(page: str) -> list[Block]:
    return [block for block in sh_blocks(page) if block.marker == RUNS]


def test_every_curl_block_is_run_or_says_why_not() -> None:
    unmarked = [
        f"{b.page}:{b.line}"
        for page in PAGES
        for b in sh_blocks(page)
        if "curl " in b.text and b.marker != RUNS and not NOT_RUN.fullmatch(b.marker)
    ]
    assert not unmarked, f"```sh blocks calling curl at {unmarked} need {RUNS!r} (or a reason)"
    counted = {page: len(runs(page)) for page in PAGES}
    assert counted["README.md"] >= 1, "the first answer"
    assert counted["docs/api-walkthrough.md"] >= 3, "the walkthrough, the crawls and the webhooks, at least"
    assert counted["docs/operations.md"] >= 1, "the health checks"
    assert set(CHECKS) <= {page for page, count in counted.items() if count}, "a page checked below lost its blocks"


def manual_pdf() -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Warranty\n\nEvery kettle we sell carries a two-year warranty covering parts and labour.")
    return bytes(pdf.output())


@dataclass
class Ran:
    """What a page's blocks left: each block's output (by its text), the account's chatbots, the web site."""

    outputs: dict[str, str]
    chatbots: list[dict[str, object]]
    site: WebSite


@pytest.mark.parametrize("page", [page for page in PAGES if runs(page)])
def test_the_blocks_run_as_written(page: str, tmp_path: Path) -> None:
    blocks = runs(page)
    emails = {match for b in blocks for match in EMAIL.findall(b.text)}
    assert len(emails) <= 1, f"the blocks of {page} should all use the setup link's account, not {emails}"
    site = web_site()
    server = Server(Settings(data_dir=tmp_path / "data", database_url=None))
    server.env["BOTYARD_EGRESS_ALLOWED_PORTS"] = f"80,443,{site.port}"
    server.start()
    try:
        token = setup.token_path(Settings(data_dir=tmp_path / "data")).read_text()
        email = emails.pop() if emails else "you@example.com"
        claimed = httpx.post(f"{server.base}/api/v1/setup", json={"token": token, "email": email})
        assert claimed.status_code == 200, claimed.text
        temporary = tmp_path / "tmp"
        temporary.mkdir()
        env = server.env | {
            "BOTYARD_URL": server.base,
            "PATH": f"{shims(tmp_path)}{os.pathsep}{os.environ['PATH']}",
            "TMPDIR": str(temporary),
        }
        cwd, logs = checkout(tmp_path), tmp_path / "logs"
        logs.mkdir()
        outputs = [run(block, site.url(""), cwd, logs, env) for block in blocks]
        owners = {"Authorization": f"Bearer {claimed.json()['key']}"}
        chatbots = httpx.get(f"{server.base}/api/v1/chatbots", headers=owners).json()
        schedules = [
            (chatbot["name"], httpx.get(f"{server.base}/api/v1/chatbot/{chatbot['uuid']}/sync", headers=owners).json())
            for chatbot in chatbots
        ]
    finally:
        server.stop()
        site.close()
    assert [(name, sync["schedule"]) for name, sync in schedules if sync["schedule"] != "off"] == [], (
        f"{page} leaves a chatbot with a re-sync schedule"
    )
    assert {path.name for path in cwd.iterdir()} == SUPPLIED, f"{page} leaves files where it ran"
    assert list(temporary.iterdir()) == [], f"{page} leaves temporary files"
    check = CHECKS.get(page)
    if check is not None:
        check(Ran(dict(zip((b.text for b in blocks), outputs, strict=True)), chatbots, site))


def check_first_answer(ran: Ran) -> None:
    output = next(ran.outputs[text] for text in ran.outputs if "message/stream" in text).splitlines()
    assert any(line.startswith("9 to 5, Monday to Friday") for line in output), "the first answer, streamed"
    assert ran.chatbots == [], "the first answer deletes its chatbot"


def check_health(ran: Ran) -> None:
    assert [ran.outputs[text] for text in ran.outputs if "/healthz" in text] == ['{"status":"ok"}\n{"status":"ok"}\n']


def check_walkthrough(ran: Ran) -> None:
    walkthrough = next(ran.outputs[text] for text in ran.outputs if "message/stream" in text).splitlines()
    assert any(line.startswith("9 to 5, Monday to Friday") for line in walkthrough), "the first answer, streamed"
    assert "event: delta" in walkthrough and "event: end" in walkthrough, "an answer streamed as SSE"
    assert any(line.startswith("On Monday morning, Sarah's") for line in walkthrough), "the answer from story.txt"
    listing = next(json.loads(line) for line in walkthrough if line.startswith('[{"uuid"') and '"status":' in line)
    statuses = {(source["type"], source["status"]) for source in listing}
    assert statuses == {("qa", "success"), ("link", "success"), ("upload", "success")}, statuses
    assert "event: live_chat_started" in walkthrough, "the operator's feed heard the take-over"
    assert ran.site.hits["/faq"] >= 1  # (the crawl may be cancelled before it reads the sitemap)
    # The walkthrough deletes its chatbot; the crawl's stays (its schedule back to off), in the account of the setup
    # link (its dashboard).
    assert [chatbot["name"] for chatbot in ran.chatbots] == ["Docs"]


def check_generic_channel(ran: Ran) -> None:
    """The signed event was answered on the callback (the stand-in for the owner's system), and the page's receiving
    block, run on that reply as the callback got it, accepts it and refuses it altered."""
    output = next(ran.outputs[text] for text in ran.outputs if "/inbound" in text).splitlines()
    assert '{"ok":true}' in output, "the signed event was taken"
    created = next(json.loads(line) for line in output if '"signing_secret"' in line)
    assert "'name': 'Helpdesk', 'conversations': 1, 'messages': 1" in "\n".join(output), "counted on its channel"
    # The callback also gets the channel's `typing` event, before the reply.
    [reply] = [post for post in ran.site.posts if post.path == "/helpdesk/botyard" and post.event["type"] == "message"]
    event = reply.event
    assert (event["type"], event["user"], event["thread"]) == ("message", {"id": "u-7"}, "t-1")
    assert "nine to five" in event["text"] and reply.headers["webhook-id"] == event["id"]
    [receiving] = [block for block in sh_blocks("docs/channels.md") if '"$BODY"' in block.text]
    assert verify(receiving, created["signing_secret"], reply.headers, reply.body) == "signed by the channel"
    refused = verify(receiving, created["signing_secret"], reply.headers, reply.body.replace(b"nine", b"ten"))
    assert refused == "not signed by the channel: refuse it"


def verify(block: Block, secret: str, headers: dict[str, str], body: bytes) -> str:
    """What the receiving block says of a request (its exit status must agree)."""
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "body.json").write_bytes(body)
        names = {"ID": "webhook-id", "TS": "webhook-timestamp", "SIG": "webhook-signature"}
        env = {name: headers[header] for name, header in names.items()}
        env |= {"SECRET": secret, "BODY": str(Path(directory) / "body.json"), "PATH": os.environ["PATH"]}
        bash = shutil.which("bash")
        assert bash is not None, "bash is not installed"
        done = subprocess.run(
            [bash, "-c", "set -euo pipefail\n" + block.text], env=env, capture_output=True, text=True, timeout=60
        )
    said = done.stdout.strip()
    assert done.returncode == (0 if said == "signed by the channel" else 1), (done.returncode, said, done.stderr)
    return said


CHECKS: dict[str, Callable[[Ran], None]] = {
    "README.md": check_first_answer,
    "docs/operations.md": check_health,
    "docs/api-walkthrough.md": check_walkthrough,
    "docs/channels.md": check_generic_channel,
}
"""What each page's blocks must have shown, beyond running and cleaning up."""


def web_site() -> WebSite:
    """What `https://example.com` stands for: the FAQ page and a sitemap of the guide."""
    site = WebSite()
    site.pages["/faq"] = Page(FAQ)
    site.pages["/sitemap.xml"] = Page(SITEMAP.replace(b"{base}", site.url("").encode()), "application/xml")
    site.pages["/guide/start"] = Page(b"<html><title>Start</title><body><p>Install the kettle app.</p></body></html>")
    return site


def checkout(tmp_path: Path) -> Path:
    """A directory laid out as the repository after `make serve`: `.venv`, and the reader's own `manual.pdf`."""
    directory = tmp_path / "checkout"
    directory.mkdir()
    (directory / ".venv").symlink_to(sys.prefix)
    (directory / "manual.pdf").write_bytes(manual_pdf())
    assert {path.name for path in directory.iterdir()} == SUPPLIED
    return directory


def shims(tmp_path: Path) -> Path:
    """A directory holding the strict `curl`, to put first on the PATH."""
    directory = tmp_path / "bin"
    directory.mkdir()
    real = shutil.which("curl")
    assert real is not None, "curl is not installed"
    (directory / "curl").write_text(CURL.format(curl=real))
    (directory / "curl").chmod(0o755)
    return directory


def run(block: Block, site: str, cwd: Path, logs: Path, env: dict[str, str]) -> str:
    script = "set -euo pipefail\n" + block.text.replace("https://example.com", site)
    out, err = logs / f"block-{block.line}.out", logs / f"block-{block.line}.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = spawn(
            ["bash", "-c", script],
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
        # It ends by itself, within a minute; then its process group is killed: a background feed left by a failed
        # block goes with it.
        ended = stop(process, None, grace=60)
    output = out.read_text()
    where = f"{block.page} block at line {block.line}"
    assert ended, f"{where} ran over a minute:\n{output[-3000:]}\n{err.read_text()}"
    assert process.returncode == 0, f"{where} failed:\n{output[-3000:]}\n{err.read_text()}"
    return output

"""The README's curl examples run as written, in order, against a real `botyard serve`.

The rule: a ```sh block of README.md whose fence is preceded by the line `<!-- test: runs -->` is run here, each
block on its own in `bash` with `set -euo pipefail` (so each must define every variable it uses), from a directory
laid out as the repository (`.venv` is this test's virtualenv). A ```sh block that calls curl must carry that marker
or `<!-- test: not run, <why> -->`, so a new API example cannot escape. What the test supplies, and nothing else:
- `BOTYARD_URL`, the server's address (the README's blocks read it, default `http://127.0.0.1:8000`);
- the account the setup link makes, claimed with the README's `EMAIL` before the blocks run;
- `manual.pdf` ("any PDF of yours"), generated;
- `https://example.com` in a block's text is replaced by a loopback web site (egress allowlisted), the only edit;
- `curl` on the PATH adds `--fail-with-body --show-error` and a newline after each response, so an HTTP error or
  a missing file fails the block, and each answer starts a line of the output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx
from fpdf import FPDF

from botyard.accounts import setup
from botyard.config import Settings
from tests.support.processes import spawn, stop
from tests.support.servers import Server
from tests.support.web_site import Page, WebSite

ROOT = Path(__file__).resolve().parent.parent
RUNS = "<!-- test: runs -->"
NOT_RUN = re.compile(r"<!-- test: not run, .+ -->")
EMAIL = re.compile(r"^EMAIL=([^\s;]+)", re.MULTILINE)
CURL = "#!/bin/sh\nexec {curl} --fail-with-body --show-error --write-out '\\n' \"$@\"\n"

FAQ = b"""<html><head><title>FAQ</title></head><body><main><h1>Shipping</h1>
<p>Every order ships within two working days from our warehouse in Leeds, by tracked parcel post.</p>
</main></body></html>"""
SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>{base}/guide/start</loc></url><url><loc>{base}/guide/changelog</loc></url></urlset>"""


@dataclass
class Block:
    line: int
    """Where its fence is in README.md (1-based), to name it in a failure."""
    marker: str
    text: str


def sh_blocks(readme: str) -> list[Block]:
    """Every ```sh block of the README with the line just before its fence."""
    lines = readme.splitlines()
    blocks, index = [], 0
    while index < len(lines):
        if lines[index].strip() == "```sh":
            end = next(after for after in range(index + 1, len(lines)) if lines[after].strip() == "```")
            marker = lines[index - 1].strip() if index else ""
            blocks.append(Block(index + 1, marker, "\n".join(lines[index + 1 : end]) + "\n"))
            index = end
        index += 1
    return blocks


def test_every_curl_block_is_run_or_says_why_not() -> None:
    blocks = sh_blocks((ROOT / "README.md").read_text())
    unmarked = [b.line for b in blocks if "curl " in b.text and b.marker != RUNS and not NOT_RUN.fullmatch(b.marker)]
    assert not unmarked, f"README.md: ```sh blocks calling curl at lines {unmarked} need {RUNS!r} (or a reason)"
    assert len([b for b in blocks if b.marker == RUNS]) >= 2  # the walkthrough and the crawls, at least


def manual_pdf() -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Warranty\n\nEvery kettle we sell carries a two-year warranty covering parts and labour.")
    return bytes(pdf.output())


def test_the_readme_blocks_run_as_written(tmp_path: Path) -> None:
    blocks = [b for b in sh_blocks((ROOT / "README.md").read_text()) if b.marker == RUNS]
    emails = {match for b in blocks for match in EMAIL.findall(b.text)}
    assert len(emails) == 1, f"the blocks should all use the setup link's account, not {emails}"
    site = web_site()
    server = Server(Settings(data_dir=tmp_path / "data", database_url=None))
    server.env["BOTYARD_EGRESS_ALLOWED_PORTS"] = f"80,443,{site.port}"
    server.start()
    try:
        token = setup.token_path(Settings(data_dir=tmp_path / "data")).read_text()
        claimed = httpx.post(f"{server.base}/api/v1/setup", json={"token": token, "email": emails.pop()})
        assert claimed.status_code == 200, claimed.text
        env = server.env | {"BOTYARD_URL": server.base, "PATH": f"{shims(tmp_path)}{os.pathsep}{os.environ['PATH']}"}
        outputs = [run(block, site.url(""), checkout(tmp_path), env) for block in blocks]
        owners = {"Authorization": f"Bearer {claimed.json()['key']}"}
        chatbots = httpx.get(f"{server.base}/api/v1/chatbots", headers=owners).json()
    finally:
        server.stop()
        site.close()
    ran = dict(zip((block.text for block in blocks), outputs, strict=True))
    assert [ran[text] for text in ran if "/healthz" in text] == ['{"status":"ok"}\n{"status":"ok"}\n']
    walkthrough = next(ran[text] for text in ran if "message/stream" in text).splitlines()
    assert any(line.startswith("9 to 5, Monday to Friday") for line in walkthrough), "the first answer, streamed"
    assert "event: delta" in walkthrough and "event: end" in walkthrough, "an answer streamed as SSE"
    assert any(line.startswith("On Monday morning, Sarah's") for line in walkthrough), "the answer from story.txt"
    listing = next(json.loads(line) for line in walkthrough if line.startswith('[{"uuid"') and '"status":' in line)
    statuses = {(source["type"], source["status"]) for source in listing}
    assert statuses == {("qa", "success"), ("link", "success"), ("upload", "success")}, statuses
    assert "event: live_chat_started" in walkthrough, "the operator's feed heard the take-over"
    assert site.hits["/faq"] >= 1  # (the crawl may be cancelled before it reads the sitemap)
    # The walkthrough deletes its chatbot; the crawl's stays, in the account of the setup link (its dashboard).
    assert [chatbot["name"] for chatbot in chatbots] == ["Docs"]


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
    if not directory.exists():
        directory.mkdir()
        (directory / ".venv").symlink_to(sys.prefix)
        (directory / "manual.pdf").write_bytes(manual_pdf())
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


def run(block: Block, site: str, cwd: Path, env: dict[str, str]) -> str:
    script = "set -euo pipefail\n" + block.text.replace("https://example.com", site)
    out, err = cwd / f"block-{block.line}.out", cwd / f"block-{block.line}.err"
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
    assert ended, f"README.md block at line {block.line} ran over a minute:\n{output[-3000:]}\n{err.read_text()}"
    assert process.returncode == 0, f"README.md block at line {block.line} failed:\n{output[-3000:]}\n{err.read_text()}"
    return output

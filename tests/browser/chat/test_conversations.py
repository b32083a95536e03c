"""The dashboard's conversations in Chromium (issue 20, item 3): last activity, the first question's preview, the
refused filter, CSV and JSON exports downloaded and read back, a delete with confirmation, the retention period.
Screenshots: `tests/artifacts/conversations-*.png`."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import Service
from tests.support.dashboard import QUESTION, Dashboard, make_chatbot, row_of

OFF_TOPIC = "Which team won the football world cup final of 1954?"


def downloaded(page: Page, button: str) -> tuple[str, str]:
    """Click an export button; the downloaded file's suggested name and text."""
    with page.expect_download() as started:
        page.get_by_role("button", name=button, exact=True).click()
    download = started.value
    return download.suggested_filename, Path(download.path()).read_text(encoding="utf-8")


def test_conversations_preview_filter_export_and_delete(server: Service, board: Dashboard, artifacts: Path) -> None:
    bot = make_chatbot(server, "History bot")
    answered = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    server.api("POST", f"/session/{answered}/message/non-stream", {"query": QUESTION})
    refused = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    server.api("POST", f"/session/{refused}/message/non-stream", {"query": OFF_TOPIC})

    page = board.open(f"/bot/{bot}/conversations", "Conversations: History bot")
    sessions = page.get_by_role("table").locator("tbody tr")
    expect(sessions).to_have_count(2)
    expect(sessions.first).to_contain_text(OFF_TOPIC)  # latest activity first
    expect(row_of(page, QUESTION).locator("td.preview")).to_have_text(QUESTION)
    expect(row_of(page, OFF_TOPIC)).to_contain_text("Refused 1")
    last_activity = row_of(page, QUESTION).locator("td").nth(1)
    expect(last_activity).not_to_be_empty()
    page.screenshot(path=artifacts / "conversations-list.png", full_page=True)

    page.get_by_label("Refused answers").select_option("1")
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(1)
    expect(sessions.first).to_contain_text(OFF_TOPIC)
    page.get_by_label("Refused answers").select_option("")
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(2)

    name, text = downloaded(page, "Export CSV")
    assert name.startswith("conversations-") and name.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(row["session_uuid"], row["role"]) for row in rows] == [
        (answered, "user"),
        (answered, "assistant"),
        (refused, "user"),
        (refused, "assistant"),
    ]
    assert rows[0]["text"] == QUESTION and "9 to 5" in rows[1]["text"]
    assert (rows[1]["refused"], rows[3]["refused"]) == ("false", "true")
    name, text = downloaded(page, "Export JSON")
    assert name.endswith(".json")
    assert [conversation["uuid"] for conversation in json.loads(text)] == [answered, refused]

    row_of(page, QUESTION).get_by_role("button", name="Delete conversation", exact=False).click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(sessions).to_have_count(1)
    assert [item["uuid"] for item in server.api("GET", f"/chatbot/{bot}/sessions")] == [refused]

    page.get_by_label("Keep conversations for (days)").fill("30")
    page.get_by_role("button", name="Save retention").click()
    expect(page.get_by_text("Conversations idle for 30 days are deleted.")).to_be_visible()
    assert server.api("GET", f"/chatbot/{bot}/conversations/retention")["retention_days"] == 30
    page.screenshot(path=artifacts / "conversations-after-delete.png", full_page=True)

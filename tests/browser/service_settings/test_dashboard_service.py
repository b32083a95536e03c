"""The dashboard says what the service runs, and the agent editor which settings need a language model; a failed
agent save says so (never "Agent saved."); the Knowledge page's tag counts follow a tagging at once. Chromium,
against the offline service. Screenshots: `tests/artifacts/dashboard-service-*.png`."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Route, expect

from tests.support.browser import Service
from tests.support.dashboard import Dashboard, make_chatbot, row_of

LLM_ONLY = "Used only with a language model (its base URL in Settings, or BOTYARD_LLM_BASE_URL)"


def general_agent(server: Service, bot: str) -> str:
    (general,) = [a for a in server.api("GET", f"/chatbot/{bot}/agents") if a["name"] == "General Q&A"]
    uuid: str = general["uuid"]
    return uuid


def test_the_header_names_the_answerer_and_the_editor_marks_model_settings(
    server: Service, board: Dashboard, artifacts: Path
) -> None:
    page = board.page
    line = page.get_by_label("Service")
    expect(line).to_have_text("Answers: offline (no language model) · Embeddings: none (keyword search)")
    expect(line).to_have_attribute("title", re.compile(r"^Botyard \d"))

    bot = make_chatbot(server, "Hints bot", with_qa=False)
    board.open(f"/bot/{bot}/agents/{general_agent(server, bot)}", "Agent: General Q&A")
    for label in ("Prompt", "Model", "Temperature"):
        expect(page.get_by_label(label, exact=True)).to_have_accessible_description(re.compile(re.escape(LLM_ONLY)))
    expect(page.locator(".llm-only").first).to_contain_text(LLM_ONLY)
    expect(page.get_by_label("Name", exact=True)).not_to_have_accessible_description(re.compile("language model"))
    functions = page.get_by_role("region", name="Tool functions")
    expect(functions.locator(".llm-only")).to_contain_text(LLM_ONLY)
    expect(page.get_by_label("Function name")).to_have_accessible_description(re.compile(re.escape(LLM_ONLY)))
    page.screenshot(path=artifacts / "dashboard-service-agent-hints.png", full_page=True)


def test_a_failed_agent_save_shows_the_error_not_agent_saved(server: Service, board: Dashboard) -> None:
    bot = make_chatbot(server, "Saving bot", with_qa=False)
    agent = general_agent(server, bot)
    server.api("POST", f"/agent/{agent}/update", {"temperature": 0.25})  # not a multiple of the field's old step
    page = board.open(f"/bot/{bot}/agents/{agent}", "Agent: General Q&A")
    saved = page.get_by_role("status").filter(has_text="Agent saved.")
    page.get_by_role("button", name="Save agent").click()
    expect(saved).to_be_visible()

    # Refused by the browser (out of range): the message names the field, the earlier success is gone.
    page.get_by_label("Temperature").fill("1.5")
    page.get_by_role("button", name="Save agent").click()
    expect(page.get_by_role("alert")).to_contain_text("Not saved: Temperature")
    expect(saved).to_have_count(0)
    assert server.api("GET", f"/agent/{agent}")["meta"]["temperature"] == 0.25

    # Refused by the server.
    page.get_by_label("Temperature").fill("0.5")
    page.get_by_role("button", name="Save agent").click()
    expect(saved).to_be_visible()

    def refuse(route: Route) -> None:
        body = '{"error": "name: too long", "code": "validation_error"}'
        route.fulfill(status=422, headers={"Content-Type": "application/json"}, body=body)

    page.route(re.compile(r"/api/v1/agent/[0-9a-f]+/update$"), refuse)
    page.get_by_role("button", name="Save agent").click()
    expect(page.get_by_role("alert")).to_have_text("name: too long")
    expect(saved).to_have_count(0)


def test_a_tags_source_count_follows_the_tagging(server: Service, board: Dashboard, artifacts: Path) -> None:
    bot = make_chatbot(server, "Tag count bot")
    page = board.open(f"/bot/{bot}/knowledge", "Knowledge: Tag count bot")
    page.get_by_label("Tag name").fill("Hours")
    page.get_by_role("button", name="Create tag").click()
    tag = page.get_by_role("list", name="Source tags").get_by_role("listitem").filter(has_text="Hours")
    expect(tag).to_contain_text("0 sources")
    row_of(page, "What are your opening hours?").get_by_role("checkbox").check()
    page.get_by_role("combobox", name="Tag").select_option(label="Hours")
    page.get_by_role("button", name="Add tag").click()
    expect(tag).to_contain_text("1 source")
    page.get_by_role("button", name="Remove tag").click()
    expect(tag).to_contain_text("0 sources")
    page.screenshot(path=artifacts / "dashboard-service-tag-count.png", full_page=True)

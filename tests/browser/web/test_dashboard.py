"""The owner's dashboard (`/dashboard`) in Chromium, against the real service.

Each test signs in with the owner's key in a fresh browser context and works on chatbots of its own; in the inbox
test a widget user (a second context, on the customer's site) hands a conversation to the operator. Every page leaves
a screenshot in `tests/artifacts/` (`dashboard-*.png`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Route, expect

from tests.support.browser import HostSite, Service
from tests.support.dashboard import (
    INGESTION,
    QUESTION,
    SOURCE_LINK,
    Dashboard,
    header_menu,
    make_chatbot,
    nav_link,
    row_of,
)
from tests.support.waiting import wait_for

KEY_STORE = "botyard.key"


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1280, "height": 800})
    yield opened
    opened.close()


@pytest.fixture
def dashboard(context: BrowserContext, server: Service) -> Iterator[Dashboard]:
    opened = Dashboard(context, server)
    opened.sign_in()
    yield opened
    assert opened.problems == []


def test_sign_in_keeps_the_key_in_session_storage_only(
    server: Service, context: BrowserContext, artifacts: Path
) -> None:
    board = Dashboard(context, server)
    page = board.page
    page.goto(f"{server.base}/dashboard")
    expect(page).to_have_url(re.compile(r"#/signin$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in to Botyard")
    expect(page.get_by_role("navigation", name="Main").get_by_role("link")).to_have_count(0)
    page.screenshot(path=artifacts / "dashboard-sign-in.png")

    page.get_by_text("Sign in with an API key instead").click()
    page.get_by_label("API key").fill("by_not-a-real-key")
    page.get_by_role("button", name="Use the key").click()
    expect(page.get_by_role("alert")).to_contain_text("not accepted")
    assert page.evaluate("() => sessionStorage.length") == 0

    board.sign_in()
    assert page.evaluate(f"() => sessionStorage.getItem('{KEY_STORE}')") == server.key
    assert page.evaluate("() => localStorage.length") == 0
    assert context.cookies() == []
    page.reload()  # the key lives as long as the tab
    expect(page.get_by_role("heading", level=1)).to_have_text("Chatbots")

    header_menu(page, "account")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in to Botyard")
    assert page.evaluate("() => sessionStorage.length") == 0

    # A key the server stops accepting (revoked) signs the tab out at its next call, with a reason.
    page.evaluate(f"() => sessionStorage.setItem('{KEY_STORE}', 'by_revoked')")
    page.goto(f"{server.base}/dashboard#/chatbots")
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in to Botyard")
    expect(page.get_by_role("alert")).to_contain_text("sign in again")
    assert page.evaluate("() => sessionStorage.length") == 0
    assert board.problems == []


def test_create_configure_embed_and_delete_a_chatbot(
    server: Service, dashboard: Dashboard, context: BrowserContext, host_site: HostSite, artifacts: Path
) -> None:
    page = dashboard.page
    page.get_by_label("Name", exact=True).fill("Acme support")
    page.get_by_role("button", name="Create chatbot").click()
    expect(page.get_by_role("status").filter(has_text="Created Acme support")).to_be_visible()
    created = [bot for bot in server.api("GET", "/chatbots") if bot["name"] == "Acme support"]
    assert len(created) == 1
    uuid = created[0]["uuid"]
    expect(row_of(page, "Acme support")).to_contain_text("private")
    page.screenshot(path=artifacts / "dashboard-chatbots.png", full_page=True)

    page.get_by_role("link", name="Settings of Acme support").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Chatbot: Acme support")
    page.get_by_label("Messages").fill("5")
    page.get_by_label("Per seconds").fill("60")
    page.get_by_label("Rate limit message").fill("Slow down, please.")
    page.get_by_label("Show citations in answers").uncheck()
    page.get_by_label("Visibility").select_option("public")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status").filter(has_text="Settings saved.")).to_be_visible()
    meta = server.api("GET", f"/chatbot/{uuid}")["meta"]
    assert meta == {
        "rate_limit": [5, 60],
        "rate_limit_message": "Slow down, please.",
        "show_citations": False,
        "visibility": "public",
    }
    sections = page.get_by_role("navigation", name="Chatbot sections")
    sections.get_by_role("link", name="Embed").click()
    share = f"{server.base}/chat/{uuid}"
    expect(page.get_by_role("link", name=share)).to_have_attribute("href", share)

    embed = f'<script src="{server.base}/widget.js" data-chatbot="{uuid}" async></script>'
    expect(page.get_by_label("Embed code")).to_have_value(embed)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base)
    page.get_by_role("button", name="Copy embed code").click()
    expect(page.get_by_role("status").filter(has_text="copied")).to_be_visible()
    assert page.evaluate("() => navigator.clipboard.readText()") == embed

    sections.get_by_role("link", name="Widget").click()
    page.get_by_label("Title", exact=True).fill("Acme help desk")
    page.get_by_label("Primary colour").fill("#0f766e")
    page.get_by_label("Welcome message").fill("Hello from Acme!")
    page.get_by_label("Suggested questions").fill(f"{QUESTION}\nWhere are you?")
    page.get_by_label("Allowed websites").fill(host_site.origin)
    page.get_by_label("Image hosts").fill("docs.acme.example")
    page.get_by_role("button", name="Save widget").click()
    expect(page.get_by_role("status").filter(has_text="Widget saved.")).to_be_visible()
    widget = server.api("GET", f"/chatbot/{uuid}/widget")
    assert widget["title"] == "Acme help desk"
    assert widget["primary_color"].lower() == "#0f766e"
    assert widget["welcome_message"] == "Hello from Acme!"
    assert widget["suggested_questions"] == [QUESTION, "Where are you?"]
    assert widget["allowed_origins"] == [host_site.origin]
    assert widget["image_hosts"] == ["docs.acme.example"]
    page.screenshot(path=artifacts / "dashboard-chatbot-settings.png", full_page=True)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Chatbots").click()
    page.get_by_role("button", name="Delete Acme support").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    expect(row_of(page, "Acme support")).to_have_count(1)
    page.get_by_role("button", name="Delete Acme support").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(row_of(page, "Acme support")).to_have_count(0)
    assert uuid not in {bot["uuid"] for bot in server.api("GET", "/chatbots")}


def test_knowledge_uploads_with_progress_and_live_statuses(
    server: Service, dashboard: Dashboard, artifacts: Path, tmp_path: Path
) -> None:
    bot = make_chatbot(server, "Knowledge bot", with_qa=False)
    page = dashboard.open(f"/bot/{bot}/knowledge", "Knowledge: Knowledge bot")

    page.get_by_label("Question").fill("Do you ship abroad?")
    page.get_by_label("Answer").fill("Yes, to every country in the European Union.")
    page.get_by_role("button", name="Add Q&A").click()
    shipping = row_of(page, "Do you ship abroad?").locator("[data-status]")
    expect(shipping).to_have_attribute("data-status", "success", timeout=INGESTION)

    # Two files through the file input, one dropped on the drop zone, one the server refuses.
    notes = tmp_path / "returns.md"
    notes.write_text("# Returns\n\nReturn any item within 30 days for a full refund.\n")
    prices = tmp_path / "prices.txt"
    prices.write_text("Prices\n\nThe basic plan costs 10 euros a month; the team plan costs 25 euros a month.\n")
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02binary")
    page.get_by_label("Choose files").set_input_files([notes, prices, blob])
    dropped = page.evaluate_handle(
        """() => {
            const transfer = new DataTransfer();
            const text = "Warranty\\n\\nEvery product has a two-year warranty.\\n";
            transfer.items.add(new File([text], "warranty.txt", {type: "text/plain"}));
            return transfer;
        }"""
    )
    page.dispatch_event(".dropzone", "dragover", {"dataTransfer": dropped})
    page.dispatch_event(".dropzone", "drop", {"dataTransfer": dropped})
    uploads = page.get_by_role("list", name="Files to upload").get_by_role("listitem")
    expect(uploads).to_have_count(4)
    page.get_by_role("button", name="Upload", exact=True).click()
    for name in ("returns.md", "prices.txt", "warranty.txt"):
        item = uploads.filter(has_text=name)
        expect(item).to_contain_text("Uploaded")
        expect(item.get_by_role("progressbar")).to_have_js_property("value", 1)
    expect(uploads.filter(has_text="blob.bin")).to_contain_text("Failed: Upload refused, file type not allowed")
    expect(page.get_by_role("alert").filter(has_text="Not uploaded: blob.bin")).to_be_visible()
    for name in ("returns.md", "prices.txt", "warranty.txt"):
        expect(row_of(page, name).locator("[data-status]")).to_have_attribute(
            "data-status", "success", timeout=INGESTION
        )

    # A file that cannot be parsed ends as `error:<reason>`, and the table shows the reason.
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not really a pdf\n")
    page.get_by_label("Choose files").set_input_files(broken)
    page.get_by_role("button", name="Upload", exact=True).click()
    status = row_of(page, "broken.pdf").locator("[data-status]")
    expect(status).to_have_attribute("data-status", re.compile(r"^error:"), timeout=INGESTION)
    (stored,) = [
        s["status"] for s in server.api("GET", f"/chatbot/{bot}/data-sources") if s["file_name"] == "broken.pdf"
    ]
    expect(status).to_have_text(f"error {stored.removeprefix('error:')}")  # error:corrupt, unless the parse timed out
    expect(page.get_by_text("processing…")).to_have_count(0)
    page.screenshot(path=artifacts / "dashboard-knowledge.png", full_page=True)

    # Rename.
    page.get_by_role("button", name="Rename Do you ship abroad?").click()
    page.get_by_label("New title for Do you ship abroad?").fill("Shipping")
    page.get_by_role("button", name="Save title").click()
    expect(row_of(page, "Shipping")).to_have_count(1)
    titles = {s["title"] for s in server.api("GET", f"/chatbot/{bot}/data-sources")}
    assert "Shipping" in titles

    # Tags: create one and give it to two selected sources.
    page.get_by_label("Tag name").fill("Pricing")
    page.get_by_role("button", name="Create tag").click()
    expect(page.get_by_role("status").filter(has_text="Created the tag Pricing")).to_be_visible()
    row_of(page, "prices.txt").get_by_role("checkbox").check()
    row_of(page, "Shipping").get_by_role("checkbox").check()
    page.get_by_role("combobox", name="Tag").select_option(label="Pricing")
    page.get_by_role("button", name="Add tag").click()
    expect(row_of(page, "prices.txt").locator(".tags")).to_have_text("Pricing")
    expect(row_of(page, "Shipping").locator(".tags")).to_have_text("Pricing")
    (tag,) = server.api("GET", f"/chatbot/{bot}/source-tags")
    assert len(tag["data_source_uuids"]) == 2

    # Only web pages can be re-scraped: the server says why the others were not.
    page.get_by_role("button", name="Re-scrape selected").click()
    expect(page.get_by_role("status").filter(has_text="Re-scraping 0 sources; 2 not re-scraped")).to_be_visible()

    # Delete many at once (the two still selected).
    page.get_by_role("button", name="Delete selected").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(row_of(page, "prices.txt")).to_have_count(0)
    expect(row_of(page, "Shipping")).to_have_count(0)
    left = sorted(s["file_name"] for s in server.api("GET", f"/chatbot/{bot}/data-sources"))
    assert left == ["broken.pdf", "returns.md", "warranty.txt"]


def test_playground_streams_a_cited_answer_and_names_the_agent(
    server: Service, dashboard: Dashboard, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Playground bot")
    page = dashboard.open(f"/bot/{bot}/playground", "Playground: Playground bot")
    page.evaluate(
        """() => {
            window.seen = [];
            new MutationObserver(() => {
                const entry = document.querySelector("article.msg-assistant");
                if (entry) window.seen.push(entry.dataset.state);
            }).observe(document.querySelector("main"), {subtree: true, childList: true, attributes: true});
        }"""
    )
    with page.expect_request(re.compile(r"/message/stream$")) as sent:
        page.get_by_label("Message").fill(QUESTION)
        page.get_by_role("button", name="Send", exact=True).click()
    assert sent.value.headers["accept"] == "text/event-stream"
    assert sent.value.headers["authorization"] == f"Bearer {server.key}"
    answer = page.locator("article.msg-assistant[data-state=done]")
    expect(answer.locator("strong")).to_have_text("9 to 5")
    expect(answer.locator("a.citation")).to_have_attribute("href", SOURCE_LINK)
    expect(answer.locator("a.citation")).to_have_text("[1]")
    expect(answer.get_by_role("list", name="Sources").get_by_role("link")).to_have_text(QUESTION)
    expect(answer.locator(".agent-line")).to_contain_text("Answered by General Q&A (user-facing)")
    assert "streaming" in page.evaluate("() => window.seen")
    page.screenshot(path=artifacts / "dashboard-playground.png", full_page=True)

    # The exchange is stored like a user's: one session with the question and the answer.
    (session,) = server.api("GET", f"/chatbot/{bot}/sessions")
    (message,) = server.api("GET", f"/session/{session['uuid']}/messages")
    assert message["query"] == QUESTION
    assert "9 to 5" in message["response"]


def test_hit_testing_shows_chunks_with_their_sources_and_scores(
    server: Service, dashboard: Dashboard, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Retrieval bot")
    page = dashboard.open(f"/bot/{bot}/hit-testing", "Hit testing: Retrieval bot")
    page.get_by_label("Query").fill("opening hours")
    page.get_by_role("button", name="Search").click()
    rows = page.get_by_role("table").locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first.get_by_role("rowheader")).to_have_text(QUESTION)
    expect(rows.first.locator(".score")).to_have_text(re.compile(r"^0\.\d{3}$"))
    expect(rows.first).to_contain_text("bm25:")
    expect(rows.first).to_contain_text("9 to 5")
    expect(page.locator(".decision.answers")).to_contain_text("Would answer.")
    expect(page.locator(".decision")).to_contain_text(re.compile(r"similarity 0\.\d\d \+ coverage"))
    page.screenshot(path=artifacts / "dashboard-hit-testing.png", full_page=True)

    page.get_by_label("Query").fill("zebra migration patterns")
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".decision.declines")).to_contain_text("Would decline")


def test_agents_create_toggle_edit_and_tool_functions(server: Service, dashboard: Dashboard, artifacts: Path) -> None:
    bot = make_chatbot(server, "Agents bot", with_qa=False)
    page = dashboard.open(f"/bot/{bot}/agents", "Agents: Agents bot")
    expect(page.get_by_role("article", name=re.compile("General Q&A"))).to_be_visible()

    page.get_by_label("Name", exact=True).fill("Billing")
    page.get_by_label("Type").select_option("user-facing")
    page.get_by_label("Description").fill("Questions about invoices and payments")
    page.get_by_role("button", name="Create agent").click()
    billing = page.get_by_role("article", name=re.compile("Billing"))
    switch = billing.get_by_role("switch", name="Enabled (Billing)")
    expect(switch).not_to_be_checked()
    switch.check()
    expect(page.get_by_role("status").filter(has_text="Billing enabled.")).to_be_visible()
    agents = {agent["name"]: agent for agent in server.api("GET", f"/chatbot/{bot}/agents")}
    assert agents["Billing"]["enabled"] == 1
    switch.uncheck()
    expect(page.get_by_role("status").filter(has_text="Billing disabled.")).to_be_visible()
    billing_uuid = agents["Billing"]["uuid"]
    assert server.api("GET", f"/agent/{billing_uuid}")["enabled"] == 0

    # Every type can be created; a second human-escalation agent is refused with the server's message.
    kinds = [
        ("Closed", "pre-canned"),
        ("Guard", "spam-defense"),
        ("Tagger", "background"),
        ("Hand-off", "human-escalation"),
    ]
    for name, kind in kinds:
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_label("Type").select_option(kind)
        page.get_by_role("button", name="Create agent").click()
        expect(page.get_by_role("article", name=re.compile(name))).to_contain_text(kind)
    page.get_by_label("Name", exact=True).fill("Second hand-off")
    page.get_by_label("Type").select_option("human-escalation")
    page.get_by_role("button", name="Create agent").click()
    expect(page.get_by_role("alert")).to_contain_text("only one human-escalation agent")
    page.screenshot(path=artifacts / "dashboard-agents.png", full_page=True)

    # Type-specific settings of a pre-canned agent.
    page.get_by_role("link", name="Edit Closed").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Agent: Closed")
    page.get_by_label("Reply", exact=True).fill("We are closed for the holidays.")
    page.get_by_label("Bias").fill("0.5")
    page.get_by_role("button", name="Save agent").click()
    expect(page.get_by_role("status").filter(has_text="Agent saved.")).to_be_visible()
    closed = next(a for a in server.api("GET", f"/chatbot/{bot}/agents") if a["name"] == "Closed")
    assert closed["meta"]["default_message"] == "We are closed for the holidays."
    assert closed["meta"]["bias"] == 0.5

    # A user-facing agent: variables (validated JSON) and a tool function.
    dashboard.open(f"/bot/{bot}/agents/{billing_uuid}", "Agent: Billing")
    variables = page.get_by_label("Variables (JSON)")
    variables.fill("[{")
    expect(variables).to_have_attribute("aria-invalid", "true")
    page.get_by_role("button", name="Save agent").click()
    expect(page.get_by_role("alert").filter(has_text="not valid JSON")).to_be_visible()
    variables.fill(json.dumps([{"name": "email", "type": "string", "description": "The customer's email"}]))
    page.get_by_role("button", name="Save agent").click()
    expect(page.get_by_role("status").filter(has_text="Agent saved.")).to_be_visible()
    assert server.api("GET", f"/agent/{billing_uuid}")["variables"][0]["name"] == "email"

    page.get_by_label("Function name").fill("order_status")
    page.get_by_label("Function URL").fill("https://shop.example.com/api/orders")
    page.get_by_label("Function description").fill("Look up an order")
    parameters = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}
    page.get_by_label("Parameters (JSON schema)").fill(json.dumps(parameters))
    page.get_by_role("button", name="Add function").click()
    expect(row_of(page, "order_status")).to_contain_text("https://shop.example.com/api/orders")
    row_of(page, "order_status").get_by_role("button", name="Edit order_status").click()
    page.get_by_label("Method").select_option("POST")
    page.get_by_role("button", name="Save function").click()
    expect(row_of(page, "order_status")).to_contain_text("POST")
    row_of(page, "order_status").get_by_role("checkbox", name="order_status enabled").uncheck()
    expect(page.get_by_role("status").filter(has_text="order_status disabled.")).to_be_visible()
    (function,) = server.api("GET", f"/agent/{billing_uuid}")["tool_functions"]
    assert (function["name"], function["method"], function["enabled"]) == ("order_status", "POST", 0)
    assert function["parameters"]["required"] == ["order_id"]
    page.get_by_role("button", name="Delete order_status").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(row_of(page, "order_status")).to_have_count(0)
    assert server.api("GET", f"/agent/{billing_uuid}")["tool_functions"] == []


def test_conversations_filter_sessions_and_show_a_transcript(
    server: Service, dashboard: Dashboard, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Conversations bot")
    tag = {"name": "refund", "criteria": "asks for a refund", "color": "#DC2626"}
    tagger = server.api("POST", f"/chatbot/{bot}/agent/create", {"name": "Tagger", "type": "background", "tags": [tag]})
    server.api("POST", f"/agent/{tagger['uuid']}/update", {"enabled": True})
    session = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    server.api("POST", f"/session/{session}/message/non-stream", {"query": QUESTION})
    refund = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    server.api("POST", f"/session/{refund}/message/non-stream", {"query": "Can I get a refund for my order?"})
    # A background job assigns it.
    wait_for(lambda: server.api("GET", f"/session/{refund}")["meta"]["tags"] == ["refund"], what="the tag assigned")
    page = dashboard.open(f"/bot/{bot}/conversations", "Conversations: Conversations bot")
    sessions = page.get_by_role("table").locator("tbody tr")
    expect(sessions).to_have_count(2)

    page.get_by_label("Tags").fill("refund")
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(1)
    expect(sessions.first).to_contain_text("refund")
    page.get_by_label("Tags").fill("")

    page.get_by_label("Human requested").select_option("1")
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(0)
    page.get_by_label("Human requested").select_option("")
    yesterday = page.evaluate(
        "() => { const d = new Date(Date.now() - 86400000); return d.toLocaleDateString('en-CA'); }"
    )
    page.get_by_label("To", exact=True).fill(yesterday)
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(0)
    page.get_by_label("To", exact=True).fill("")
    page.get_by_label("From", exact=True).fill(yesterday)
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(2)

    sessions.filter(has_not_text="refund").get_by_role("button", name=re.compile("^Open conversation")).click()
    transcript = page.get_by_role("log", name="Transcript")
    expect(transcript.locator("article.msg-user")).to_have_text(re.compile(QUESTION))
    answer = transcript.locator("article.msg-assistant")
    expect(answer.locator("strong")).to_have_text("9 to 5")
    expect(answer.locator("a.citation")).to_have_attribute("href", SOURCE_LINK)
    expect(answer).to_contain_text("Answered by General Q&A (user-facing)")
    expect(page).to_have_url(re.compile(f"#/bot/{bot}/conversations/{session}$"))
    page.screenshot(path=artifacts / "dashboard-conversations.png", full_page=True)


def test_inbox_takes_over_a_widget_conversation(
    server: Service, host_site: HostSite, browser: Browser, dashboard: Dashboard, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Inbox bot", visibility="public")
    hand_off = server.api(
        "POST",
        f"/chatbot/{bot}/agent/create",
        {"name": "Hand-off", "type": "human-escalation", "description": "Talk to a real person"},
    )
    server.api("POST", f"/agent/{hand_off['uuid']}/update", {"enabled": True})
    for agent in server.api("GET", f"/chatbot/{bot}/agents"):
        if agent["type"] == "user-facing":  # the only enabled agent answers every query: the hand-off
            server.api("POST", f"/agent/{agent['uuid']}/update", {"enabled": False})
    page = dashboard.open(f"/bot/{bot}/inbox", "Inbox: Inbox bot")
    expect(page.get_by_text("Live updates on.")).to_be_visible()
    waiting = page.get_by_role("list", name="Sessions waiting for a person")
    expect(waiting).to_contain_text("Nobody is waiting")

    visitor = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        site = visitor.new_page()
        site.goto(host_site.page_url(bot))
        site.get_by_role("button", name="Open chat").click()
        chat = site.frame_locator("#botyard-widget iframe")
        # The textarea is in the page's HTML; the close button appears once chat.js has bound the form (typing
        # earlier would submit it natively, reloading the frame).
        expect(chat.get_by_role("button", name="Close chat")).to_be_visible()
        box = chat.get_by_role("textbox", name="Message")
        box.fill("I want to talk to a human")
        box.press("Enter")
        expect(chat.locator("article.msg-assistant[data-state=done]")).to_contain_text("let our team know")

        # The event stream brings the flagged session in, with the visitor's message.
        entry = waiting.locator("button[data-session]")
        expect(entry).to_have_count(1)
        expect(entry).to_contain_text("waiting")
        expect(page.get_by_role("log", name="Activity")).to_contain_text("asked for a person")
        entry.click()
        transcript = page.get_by_role("log", name="Transcript")
        expect(transcript.locator("article.msg-user")).to_contain_text("I want to talk to a human")
        expect(transcript).to_contain_text("Answered by Hand-off (human-escalation)")

        page.get_by_role("button", name="Take over").click()
        expect(page.get_by_text("You are chatting live")).to_be_visible()
        expect(chat.locator("article.msg-announcement")).to_contain_text("You are now chatting with a person.")
        page.get_by_label("Reply").fill("Hi, Sam here. How can I help?")
        page.get_by_role("button", name="Send reply").click()
        expect(chat.locator("article.msg-operator")).to_contain_text("Sam here")

        box.fill("My order 1234 is late")
        box.press("Enter")
        expect(transcript.locator("article.msg-user").last).to_contain_text("My order 1234 is late")
        page.screenshot(path=artifacts / "dashboard-inbox.png", full_page=True)

        page.get_by_role("button", name="End live chat").click()
        expect(page.get_by_role("button", name="Take over")).to_be_visible()
        expect(chat.locator("article.msg-announcement").last).to_contain_text("The person has left the chat.")
        assert server.api("GET", f"/chatbot/{bot}/sessions", params={"human_requested": 1}) == []
    finally:
        visitor.close()


def test_inbox_reconnects_with_last_event_id(server: Service, dashboard: Dashboard) -> None:
    bot = make_chatbot(server, "Reconnecting bot", with_qa=False)
    asked: list[str | None] = []

    def events(route: Route) -> None:
        asked.append(route.request.headers.get("last-event-id"))
        if len(asked) == 1:  # the first connection sends one event, then the stream ends (a restart, a proxy...)
            body = "id: 41\nevent: ping\ndata: {}\n\n"
            route.fulfill(status=200, headers={"Content-Type": "text/event-stream"}, body=body)
        else:
            route.continue_()

    page = dashboard.page
    page.route(re.compile(r"/api/v1/chatbot/[0-9a-f]+/events"), events)
    with page.expect_request(lambda request: request.headers.get("last-event-id") == "41"):
        dashboard.open(f"/bot/{bot}/inbox", "Inbox: Reconnecting bot")
    assert asked[0] is None  # the first connection starts from "now"
    expect(page.get_by_text("Live updates on.")).to_be_visible()


@pytest.mark.parametrize("route", ["/chatbots", "/bot/{bot}/knowledge", "/bot/{bot}/inbox", "/bot/{bot}/unanswered"])
def test_pages_fit_a_phone(server: Service, browser: Browser, route: str) -> None:
    bot = make_chatbot(server, "Phone bot", with_qa=False)
    phone = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        board = Dashboard(phone, server)
        page = board.sign_in()
        page.goto(f"{server.base}/dashboard#{route.format(bot=bot)}")
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        expect(nav_link(page, "Hit testing")).to_be_visible()  # in the Menu's list
        width: Any = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360
        assert board.problems == []
    finally:
        phone.close()

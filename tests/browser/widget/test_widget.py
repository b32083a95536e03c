"""The embeddable widget and the chat page in Chromium (docs-web-contract.md).

Each test makes its own chatbot and browser context. The customer's site (`host_site`) embeds the widget with the
one-line script; the chat itself runs in the widget's cross-origin iframe, which the tests reach with a frame
locator (Playwright's CSS pierces the widget's open shadow root).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Frame, FrameLocator, Page, Request, Response, expect

from tests.support.browser import HostSite, Service
from tests.support.dashboard import wait_for_sources
from tests.support.paths import SOURCE

QUESTION = "What are your opening hours?"
ANSWER = "We are open **9 to 5** from Monday to Friday, and on Saturdays from ten until two in the afternoon."
SOURCE_LINK = "https://docs.acme.example/opening-hours"
FRAME = "#botyard-widget iframe"
ANSWERED = "article.msg-assistant[data-state=done]"


def make_chatbot(server: Service, *, visibility: str = "public", qa: dict[str, str] | None = None, **meta: Any) -> str:
    """A chatbot with citations shown and, by default, one Q&A source (ingested before this returns)."""
    settings = {"name": "Acme help", "show_citations": True, "visibility": visibility, **meta}
    uuid: str = server.api("POST", "/chatbot/create", settings)["uuid"]
    pair = qa or {"question": QUESTION, "answer": ANSWER, "reference_source_link": SOURCE_LINK}
    server.api("POST", f"/chatbot/{uuid}/data-source/qa", pair)
    wait_for_sources(server, uuid)
    return uuid


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1280, "height": 800})
    yield opened
    opened.close()


def open_page(context: BrowserContext) -> tuple[Page, list[str]]:
    """A new page and the uncaught script errors of its frames (which every test expects to stay empty)."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def bubble(page: Page) -> Any:
    return page.get_by_role("button", name="Open chat")


def open_widget(page: Page, url: str) -> FrameLocator:
    """Loads the host page, opens the widget and waits for the chat page inside it."""
    page.goto(url)
    bubble(page).click()
    chat = page.frame_locator(FRAME)
    expect(chat.get_by_role("button", name="Send")).to_be_enabled()  # the page's script is ready (and restored)
    return chat


def chat_frame(page: Page) -> Frame:
    frame = page.frame(url=re.compile(r"/chat/"))
    assert frame is not None
    return frame


def ask(chat: FrameLocator | Page, question: str) -> None:
    expect(chat.get_by_role("button", name="Send")).to_be_enabled()  # ready for a question
    box = chat.get_by_role("textbox", name="Message")
    box.fill(question)
    box.press("Enter")


def test_widget_streams_an_answer_with_citation_links(
    server: Service, host_site: HostSite, context: BrowserContext, artifacts: Path
) -> None:
    bot = make_chatbot(server)
    look = {
        "title": "Acme support",
        "primary_color": "#0f766e",
        "welcome_message": "Hi! Ask me about **Acme**.",
        "suggested_questions": [QUESTION, "Where are you?"],
    }
    server.api("POST", f"/chatbot/{bot}/widget", look)
    page, errors = open_page(context)
    streams: list[Response] = []
    page.on("response", lambda response: streams.append(response) if "/message/stream" in response.url else None)

    page.goto(host_site.page_url(bot))
    expect(bubble(page)).to_have_attribute("aria-expanded", "false")
    expect(bubble(page)).to_have_css("background-color", "rgb(15, 118, 110)")
    page.screenshot(path=artifacts / "widget-closed.png")

    bubble(page).click()
    expect(bubble(page)).to_have_attribute("aria-expanded", "true")
    chat = page.frame_locator(FRAME)
    expect(page.locator(FRAME)).to_have_attribute("title", "Acme support chat")
    expect(chat.get_by_role("heading", level=1)).to_have_text("Acme support")
    expect(chat.locator(".welcome strong")).to_have_text("Acme")
    # Record, inside the chat page, the states the answer entry and the Send button go through while it streams.
    chat_frame(page).evaluate(
        """() => {
            window.seen = {states: [], sendDisabled: []};
            const send = document.querySelector("button[type=submit]");
            new MutationObserver(() => {
                const entry = document.querySelector("article.msg-assistant");
                if (entry) window.seen.states.push(entry.dataset.state);
                window.seen.sendDisabled.push(send.disabled);
            }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
        }"""
    )
    expect(chat.get_by_role("button", name="Send")).to_be_enabled()
    chat.get_by_role("button", name=QUESTION).click()

    answer = chat.locator(ANSWERED)
    expect(answer).to_contain_text("We are open 9 to 5 from Monday to Friday")
    expect(chat.locator("article.msg-user")).to_have_text(QUESTION)
    expect(answer.locator("strong")).to_have_text("9 to 5")
    citation = answer.locator("a.citation")
    expect(citation).to_have_text("[1]")
    expect(citation).to_have_attribute("href", SOURCE_LINK)
    expect(citation).to_have_attribute("target", "_blank")
    expect(citation).to_have_attribute("rel", "noopener noreferrer nofollow")
    expect(answer.locator("ol.sources li a")).to_have_attribute("href", SOURCE_LINK)
    expect(chat.locator("button.suggestion")).to_have_count(2)
    expect(chat.locator(".suggestions")).to_be_hidden()
    seen = chat_frame(page).evaluate("window.seen")
    assert seen["states"][0] == "streaming" and seen["states"][-1] == "done", seen["states"]
    assert True in seen["sendDisabled"] and seen["sendDisabled"][-1] is False
    # Token by token: the answer came as an SSE stream of several deltas.
    assert len(streams) == 1 and streams[0].headers["content-type"].startswith("text/event-stream")
    assert streams[0].text().count("event: delta") >= 2
    page.screenshot(path=artifacts / "widget-open-answer.png")
    assert errors == []


def test_no_api_key_reaches_the_browser(server: Service, host_site: HostSite, context: BrowserContext) -> None:
    bot = make_chatbot(server)
    page, errors = open_page(context)
    requests: list[Request] = []
    responses: list[Response] = []
    context.on("request", lambda request: requests.append(request))
    context.on("response", lambda response: responses.append(response))

    chat = open_widget(page, host_site.page_url(bot))
    ask(chat, QUESTION)
    expect(chat.locator(ANSWERED)).to_be_visible()

    frame = chat_frame(page)
    seen = [page.content(), frame.content(), frame.url, page.evaluate(STORAGE), frame.evaluate(STORAGE)]
    assert any("botyard:session:" in text for text in seen)  # the check looks where the widget keeps its state
    for request in requests:
        headers = request.all_headers()
        assert "authorization" not in headers, request.url
        seen += [request.url, json.dumps(headers), request.post_data or ""]
    # The bodies too (but not the live-chat event stream's, which never ends).
    bodies = [r for r in responses if r.url.startswith(server.base) and not r.url.endswith("/events")]
    seen += [response.text() for response in bodies]
    assert any("/message/stream" in text for text in seen)
    assert [text for text in seen if server.key in text] == []
    assert errors == []


STORAGE = """() => ["localStorage", "sessionStorage"].map((name) => {
    try {
        return JSON.stringify({...window[name]});
    } catch {
        return "";  // a framed third party's storage may be refused
    }
}).join()"""


def test_reload_keeps_the_conversation(server: Service, host_site: HostSite, context: BrowserContext) -> None:
    bot = make_chatbot(server)
    page, errors = open_page(context)
    chat = open_widget(page, host_site.page_url(bot))
    ask(chat, QUESTION)
    expect(chat.locator(ANSWERED)).to_be_visible()
    # The widget keeps the session in its host page's storage: the frame's own may be refused to a third party.
    key = f"botyard:session:{bot}"
    session = page.evaluate("key => localStorage.getItem(key)", key)
    assert session

    page.reload()
    chat = open_widget(page, host_site.page_url(bot))
    expect(chat.locator("article.msg-user")).to_have_text(QUESTION)
    restored = chat.locator(ANSWERED)
    expect(restored).to_contain_text("We are open 9 to 5")
    expect(restored.locator("a.citation")).to_have_attribute("href", SOURCE_LINK)
    assert page.evaluate("key => localStorage.getItem(key)", key) == session
    assert [s["uuid"] for s in server.api("GET", f"/chatbot/{bot}/sessions")] == [session]

    ask(chat, "And on Saturdays?")  # the conversation goes on in the same session
    expect(chat.locator(ANSWERED)).to_have_count(2)
    assert len(server.api("GET", f"/session/{session}/messages")) == 2
    assert errors == []


def test_share_link_keeps_the_conversation(server: Service, context: BrowserContext) -> None:
    """On the share link (first-party) the chat page keeps its session in its own localStorage."""
    bot = make_chatbot(server)
    page, errors = open_page(context)
    page.goto(f"{server.base}/chat/{bot}")
    expect(page.get_by_role("button", name="Close chat")).to_be_hidden()  # not framed: nothing to close
    ask(page, QUESTION)
    expect(page.locator(ANSWERED)).to_be_visible()
    session = page.evaluate("key => localStorage.getItem(key)", f"botyard:session:{bot}")
    assert page.evaluate("() => localStorage.getItem('botyard:device')")

    page.reload()
    expect(page.locator("article.msg-user")).to_have_text(QUESTION)
    expect(page.locator(ANSWERED)).to_contain_text("We are open 9 to 5")
    assert [s["uuid"] for s in server.api("GET", f"/chatbot/{bot}/sessions")] == [session]
    assert errors == []


def test_an_arabic_chatbot_reads_right_to_left_and_each_message_in_its_own_direction(
    server: Service, context: BrowserContext, artifacts: Path
) -> None:
    """The knowledge is Arabic, so the chat page is (its language detected): right to left, its own words Arabic;
    a message takes its own text's direction, so an English question in it stays left to right."""
    hours = {"question": "ما هي ساعات العمل؟", "answer": "نفتح يوميًا من الساعة التاسعة صباحًا حتى الخامسة مساءً."}
    bot = make_chatbot(server, qa=hours)
    page, errors = open_page(context)
    page.goto(f"{server.base}/chat/{bot}")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    send = page.get_by_role("button", name="إرسال")
    for question in (hours["question"], "What are your opening hours?"):
        expect(send).to_be_enabled()
        page.get_by_role("textbox", name="رسالة").fill(question)
        send.click()
    expect(page.locator(ANSWERED)).to_have_count(2)
    arabic, english = page.locator("article.msg-user").all()
    expect(arabic).to_have_css("direction", "rtl")
    expect(page.locator(ANSWERED).first).to_have_css("direction", "rtl")
    expect(english).to_have_css("direction", "ltr")
    page.screenshot(path=artifacts / "chat-arabic.png")
    assert errors == []


def test_rate_limit_message_is_shown(
    server: Service, host_site: HostSite, context: BrowserContext, artifacts: Path
) -> None:
    limited = "Easy there! One question a minute."
    bot = make_chatbot(server, rate_limit=[1, 60], rate_limit_message=limited)
    page, errors = open_page(context)
    chat = open_widget(page, host_site.page_url(bot))
    ask(chat, QUESTION)
    expect(chat.locator(ANSWERED)).to_be_visible()
    expect(chat.get_by_role("alert")).to_have_text("")

    ask(chat, "And on Saturdays?")
    expect(chat.get_by_role("alert")).to_have_text(limited)
    # Nothing was stored: the question leaves the conversation and goes back into the box, to be sent later.
    expect(chat.locator("article.msg-user")).to_have_count(1)
    expect(chat.get_by_role("textbox", name="Message")).to_have_value("And on Saturdays?")
    expect(chat.get_by_role("textbox", name="Message")).to_be_focused()
    page.screenshot(path=artifacts / "widget-rate-limited.png")
    assert errors == []


def test_disallowed_origin_is_refused(
    server: Service, host_site: HostSite, other_site: HostSite, context: BrowserContext
) -> None:
    bot = make_chatbot(server)
    server.api("POST", f"/chatbot/{bot}/widget", {"allowed_origins": [host_site.origin]})
    page, errors = open_page(context)

    with page.expect_console_message(lambda message: "Botyard widget not shown" in message.text) as warning:
        page.goto(other_site.page_url(bot))
    assert warning.value.type == "warning"
    expect(page.locator("#botyard-widget")).to_have_count(0)
    expect(page.locator("iframe")).to_have_count(0)

    # The page's own scripts cannot use the widget API either: no CORS grant, so the browser refuses the answer.
    refused = page.evaluate(
        """async (base) => {
            const results = [];
            for (const [path, init] of base) {
                try {
                    const response = await fetch(path, init);
                    results.push(response.status);
                } catch (error) {
                    results.push(error.name);
                }
            }
            return results;
        }""",
        [
            [f"{server.base}/api/v1/widget/{bot}", {}],
            [
                f"{server.base}/api/v1/widget/{bot}/session",
                {"method": "POST", "headers": {"Content-Type": "application/json"}, "body": '{"device_id":"abcdefgh"}'},
            ],
        ],
    )
    assert refused == ["TypeError", "TypeError"]
    assert server.api("GET", f"/chatbot/{bot}/sessions") == []
    # Nor may it frame the chat page itself.
    with page.expect_response(re.compile(rf"/chat/{bot}$")) as framed:
        page.evaluate(
            "url => document.body.append(Object.assign(document.createElement('iframe'), {src: url}))",
            f"{server.base}/chat/{bot}",
        )
    assert framed.value.status == 403

    # The allowed site still gets its widget.
    chat = open_widget(page, host_site.page_url(bot))
    expect(chat.get_by_role("heading", level=1)).to_have_text("Acme help")
    assert errors == []


def test_hybrid_embeds_only_and_private_shows_nothing(
    server: Service, host_site: HostSite, context: BrowserContext
) -> None:
    hybrid = make_chatbot(server, visibility="hybrid")
    page, errors = open_page(context)
    response = page.goto(f"{server.base}/chat/{hybrid}")
    assert response is not None and response.status == 404
    chat = open_widget(page, host_site.page_url(hybrid))
    ask(chat, QUESTION)
    expect(chat.locator(ANSWERED)).to_contain_text("We are open 9 to 5")

    private = make_chatbot(server, visibility="private")
    response = page.goto(f"{server.base}/chat/{private}")
    assert response is not None and response.status == 404
    with page.expect_console_message(lambda message: "Botyard widget not shown" in message.text):
        page.goto(host_site.page_url(private))
    expect(page.locator("#botyard-widget")).to_have_count(0)
    expect(page.locator("iframe")).to_have_count(0)
    assert errors == []


UNSAFE = """# Heading

Raw <img src=x onerror="window.attack='img'"> and <script>window.attack='script'</script> stay text.
A [bad link](javascript:window.attack='link') and [good link](https://acme.example/page) and `<b>code</b>`.
![tracker](https://evil.example/pixel.png) ![diagram](https://docs.acme.example/diagram.png)

- **bold** item [1.1]
- *em* item [2.1]

```
<iframe src=javascript:alert(1)>
```"""


def test_markdown_renders_nothing_live(server: Service, context: BrowserContext) -> None:
    page, errors = open_page(context)
    # A blank page on the service's origin (no CSP, so anything live would run) that imports the shared module.
    blank = f"{server.base}/markdown-test"
    page.route(blank, lambda route: route.fulfill(body="<!doctype html><body></body>", content_type="text/html"))
    page.goto(blank)
    page.evaluate(
        """async (text) => {
            const { renderMarkdown } = await import("/static/shared/markdown.js");
            const root = document.createElement("div");
            root.id = "root";
            const citations = new Map([["1.1", {url: "https://acme.example/source", title: "Source one"}]]);
            root.append(renderMarkdown(text, {imageHosts: ["docs.acme.example"], citations}));
            document.body.append(root);
        }""",
        UNSAFE,
    )
    root = page.locator("#root")
    expect(root.locator("h3")).to_have_text("Heading")
    expect(root).to_contain_text("""Raw <img src=x onerror="window.attack='img'"> and <script>""")
    expect(root.locator("script, iframe, [onerror]")).to_have_count(0)
    expect(root.locator("img")).to_have_count(1)
    expect(root.locator("img")).to_have_attribute("src", "https://docs.acme.example/diagram.png")
    expect(root).to_contain_text("tracker")
    expect(root.locator("a:not(.citation)")).to_have_count(1)
    expect(root.locator("a:not(.citation)")).to_have_attribute("href", "https://acme.example/page")
    expect(root.get_by_text("bad link")).to_be_visible()
    expect(root.locator("code").first).to_have_text("<b>code</b>")
    expect(root.locator("pre code")).to_have_text("<iframe src=javascript:alert(1)>")
    expect(root.locator("li strong")).to_have_text("bold")
    expect(root.locator("li em")).to_have_text("em")
    expect(root.locator("a.citation")).to_have_text("[1]")
    expect(root.locator("a.citation")).to_have_attribute("href", "https://acme.example/source")
    expect(root.locator("span.citation")).to_have_text("[2]")
    assert page.evaluate("window.attack") is None
    assert errors == []


def test_unsafe_answer_renders_as_text_in_the_chat(server: Service, context: BrowserContext) -> None:
    """The same through the whole path: a Q&A answer with HTML and unsafe links, answered on the share link."""
    answer = "Open <img src=x onerror=\"window.attack='img'\"> [here](javascript:window.attack='link') ![x](https://evil.example/p.png)"
    bot = make_chatbot(server, qa={"question": QUESTION, "answer": answer})
    page, errors = open_page(context)
    page.goto(f"{server.base}/chat/{bot}")
    ask(page, QUESTION)
    entry = page.locator(ANSWERED)
    expect(entry).to_contain_text("Open <img src=x onerror=")
    expect(entry.locator("img, a:not(.citation), [onerror]")).to_have_count(0)
    expect(entry).to_contain_text("here")
    assert page.evaluate("window.attack") is None
    assert errors == []


def test_fits_a_360_pixel_screen(server: Service, host_site: HostSite, browser: Browser, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        page, errors = open_page(context)
        chat = open_widget(page, host_site.page_url(make_chatbot(server)))
        # Below 480 px the panel is the whole screen, and the chat page's own close button replaces the bubble.
        panel = page.locator(FRAME).bounding_box()
        assert panel == {"x": 0, "y": 0, "width": 360, "height": 740}
        expect(bubble(page)).to_be_hidden()
        ask(chat, QUESTION)
        expect(chat.locator(ANSWERED)).to_contain_text("We are open 9 to 5")
        frame = chat_frame(page)
        assert frame.evaluate("document.documentElement.scrollWidth") <= 360  # nothing sticks out sideways
        for control in (chat.get_by_role("textbox", name="Message"), chat.get_by_role("button", name="Send")):
            box = control.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
            assert box["y"] + box["height"] <= 740
        page.screenshot(path=artifacts / "widget-360.png")

        chat.get_by_role("button", name="Close chat").click()
        expect(page.locator(FRAME)).to_be_hidden()
        expect(bubble(page)).to_be_visible()
        expect(bubble(page)).to_have_attribute("aria-expanded", "false")
        assert errors == []
    finally:
        context.close()


def test_keyboard_use(server: Service, host_site: HostSite, context: BrowserContext) -> None:
    bot = make_chatbot(server)
    page, errors = open_page(context)
    page.goto(host_site.page_url(bot))
    expect(bubble(page)).to_be_visible()

    page.keyboard.press("Tab")
    expect(bubble(page)).to_be_focused()
    page.keyboard.press("Enter")
    expect(bubble(page)).to_have_attribute("aria-expanded", "true")
    chat = page.frame_locator(FRAME)
    box = chat.get_by_role("textbox", name="Message")
    expect(box).to_be_focused()

    page.keyboard.type("Hello")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("there")
    expect(box).to_have_value("Hello\nthere")
    page.keyboard.press("Control+A")
    page.keyboard.type(QUESTION)
    page.keyboard.press("Enter")
    expect(chat.locator(ANSWERED)).to_contain_text("We are open 9 to 5")
    expect(box).to_have_value("")
    expect(box).to_be_focused()

    page.keyboard.press("Escape")
    expect(page.locator(FRAME)).to_be_hidden()
    expect(bubble(page)).to_have_attribute("aria-expanded", "false")
    expect(bubble(page)).to_be_focused()
    page.keyboard.press("Enter")  # opens again, conversation intact, focus back in the box
    expect(box).to_be_focused()
    expect(chat.locator("article.msg-user")).to_have_text(QUESTION)
    assert errors == []


def test_live_chat_shows_announcements_and_operator_replies(
    server: Service, host_site: HostSite, context: BrowserContext
) -> None:
    bot = make_chatbot(server)
    page, errors = open_page(context)
    chat = open_widget(page, host_site.page_url(bot))
    with page.expect_response(re.compile(r"/events$")):  # the event stream is open before the operator acts
        ask(chat, QUESTION)
    expect(chat.locator(ANSWERED)).to_be_visible()
    session = page.evaluate("key => localStorage.getItem(key)", f"botyard:session:{bot}")

    server.api("POST", f"/session/{session}/live-chat/start")
    expect(chat.locator("article.msg-announcement")).to_have_count(1)
    server.api("POST", f"/session/{session}/live-chat/message", {"text": "Hi, Sam here. **How** can I help?"})
    operator = chat.locator("article.msg-operator")
    expect(operator).to_have_text("Hi, Sam here. How can I help?")
    expect(operator.locator("strong")).to_have_text("How")

    # While the operator has the session, a message goes to them: no assistant entry appears for it.
    ask(chat, "I need a refund")
    expect(chat.locator("article.msg-user")).to_have_count(2)
    expect(chat.get_by_role("button", name="Send")).to_be_enabled()
    expect(chat.locator("article.msg-assistant")).to_have_count(1)
    server.api("POST", f"/session/{session}/live-chat/end")
    expect(chat.locator("article.msg-announcement")).to_have_count(2)

    page.reload()  # the transcript comes back in order, the operator's reply once
    chat = open_widget(page, host_site.page_url(bot))
    roles = ["user", "assistant", "announcement", "operator", "user", "announcement"]
    expect(chat.locator("article.msg")).to_have_class([re.compile(rf"msg-{role}\b") for role in roles])
    assert errors == []


def test_widget_script_is_small() -> None:
    """The contract's budget for the one-line embed: under 30 KB gzipped."""
    import gzip

    script = SOURCE / "web" / "static" / "widget.js"
    assert len(gzip.compress(script.read_bytes())) < 30_000


@pytest.mark.parametrize("width", [1280, 360])
def test_each_new_answer_is_scrolled_into_view(server: Service, browser: Browser, width: int) -> None:
    """After a few messages the log overflows; each new answer, its feedback bar included, ends in view (the empty
    answer bubble and the feedback bar once landed outside the stay-at-bottom logic, below the fold)."""
    long_answer = " ".join(["Our opening hours are nine to five from Monday to Friday."] * 8)
    bot = make_chatbot(server, qa={"question": QUESTION, "answer": long_answer})
    context = browser.new_context(viewport={"width": width, "height": 640})
    try:
        page, errors = open_page(context)
        page.goto(f"{server.base}/chat/{bot}")
        for number in range(1, 5):
            ask(page, QUESTION)
            answers = page.locator(ANSWERED)
            expect(answers).to_have_count(number)
            newest = answers.nth(number - 1)
            expect(newest.get_by_role("button", name=re.compile("helpful", re.IGNORECASE)).first).to_be_visible()
            # The log is scrolled to its end: the newest answer's last line and its feedback bar are in view.
            gap = page.evaluate(
                """() => {
                    const log = document.querySelector(".log") || document.querySelector("[role=log]");
                    return log.scrollHeight - log.scrollTop - log.clientHeight;
                }"""
            )
            assert gap < 2, (number, gap)
            assert newest.evaluate(
                """(entry) => {
                    const log = entry.closest(".log") || entry.closest("[role=log]");
                    const box = entry.getBoundingClientRect(), view = log.getBoundingClientRect();
                    return box.bottom <= view.bottom + 1 && box.bottom > view.top;
                }"""
            )
        assert errors == []
    finally:
        context.close()

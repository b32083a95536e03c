"""The widget's server side: owner settings, the public widget API (no key, public and hybrid chatbots only),
allowed origins (server check and CORS), the per-device rate limit, the session's live-chat events, and the pages
(`/chat/{uuid}`, `/widget.js`, `/dashboard`) with their Content-Security-Policy. Real app, both databases."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.agents.rules import DEFAULT_HUMAN_ESCALATION_SETTINGS
from botyard.web.router import content_security_policy
from tests.support.api import Api, assert_error, assert_not_found, assert_timestamp
from tests.support.chat import sse_events
from tests.support.jobs import process
from tests.support.widget import DEVICE, calling_from, widget_ask, widget_session
from tests.support.widget import open_bot as public_bot

SITE = "https://shop.example.com"
RETURNS = "Returns are accepted within 30 days of delivery with the original receipt."


# --- owner settings -------------------------------------------------------------------------------------------------


def test_settings_start_at_the_defaults_and_change_field_by_field(alice: Api) -> None:
    bot = public_bot(alice)
    settings = alice.ok(alice.get(f"/chatbot/{bot}/widget"))
    assert settings["allowed_origins"] == [] and settings["title"] == "" and settings["modified_at"] is None
    assert settings["primary_color"] == "#2563eb" and settings["suggested_questions"] == []

    changed = alice.ok(
        alice.post(
            f"/chatbot/{bot}/widget",
            {"allowed_origins": ["HTTPS://Shop.Example.com:443/", "http://localhost:8080"], "title": "Acme help"},
        )
    )
    assert changed["allowed_origins"] == [SITE, "http://localhost:8080"]  # normalised: case, default port, slash
    assert changed["title"] == "Acme help" and changed["primary_color"] == "#2563eb"
    assert_timestamp(changed["modified_at"])
    again = alice.ok(alice.post(f"/chatbot/{bot}/widget", {"primary_color": "#112233", "suggested_questions": ["A?"]}))
    assert again["allowed_origins"] == [SITE, "http://localhost:8080"] and again["title"] == "Acme help"
    assert again["primary_color"] == "#112233" and again["suggested_questions"] == ["A?"]
    assert alice.ok(alice.get(f"/chatbot/{bot}/widget")) == again


@pytest.mark.parametrize(
    "body",
    [
        {"allowed_origins": ["javascript:alert(1)"]},
        {"allowed_origins": ["https://shop.example.com/path"]},
        {"allowed_origins": ["shop.example.com"]},
        {"primary_color": "red"},
        {"suggested_questions": ["a?"] * 7},
        {"image_hosts": ["https://images.example.com"]},
        {"image_hosts": ["cdn.acme.io; script-src *"]},  # would add a directive to the chat page's CSP
        {"image_hosts": ["*"]},
        {"image_hosts": ["cdn\x07acme.io"]},
        {"image_hosts": ["cdn\u2028acme.io"]},
        {"image_hosts": ["-cdn.acme.io"]},
        {"title": "x" * 201},
    ],
)
def test_bad_settings_are_refused_and_change_nothing(alice: Api, body: dict[str, Any]) -> None:
    bot = public_bot(alice)
    alice.ok(alice.post(f"/chatbot/{bot}/widget", {"title": "Kept"}))
    before = alice.ok(alice.get(f"/chatbot/{bot}/widget"))
    assert_error(alice.post(f"/chatbot/{bot}/widget", body), 422, "validation_error")
    assert alice.ok(alice.get(f"/chatbot/{bot}/widget")) == before


def test_another_accounts_widget_settings_answer_404(alice: Api, bob: Api) -> None:
    bot = public_bot(alice)
    assert_not_found(bob.get(f"/chatbot/{bot}/widget"))
    assert_not_found(bob.post(f"/chatbot/{bot}/widget", {"title": "Mine now"}))
    assert alice.ok(alice.get(f"/chatbot/{bot}/widget"))["title"] == ""


def test_settings_go_with_their_chatbot(alice: Api) -> None:
    bot = public_bot(alice)
    alice.ok(alice.post(f"/chatbot/{bot}/widget", {"title": "Gone soon"}))
    alice.ok(alice.delete(f"/chatbot/{bot}/delete"))
    assert_not_found(alice.get(f"/chatbot/{bot}/widget"))


# --- the public widget API ------------------------------------------------------------------------------------------


def test_public_and_hybrid_chatbots_open_to_the_widget_private_ones_do_not(alice: Api, client: TestClient) -> None:
    public, hybrid, private = public_bot(alice, name="Acme"), public_bot(alice, "hybrid"), public_bot(alice, "private")
    alice.ok(
        alice.post(f"/chatbot/{public}/widget", {"welcome_message": "Hello there", "image_hosts": ["cdn.acme.io"]})
    )
    config = client.get(f"/api/v1/widget/{public}").json()
    assert config == {
        "chatbot_uuid": public,
        "name": "Acme",
        "title": "Acme",  # an empty title shows the chatbot's name
        "primary_color": "#2563eb",
        "background_color": "#ffffff",
        "text_color": "#111827",
        "welcome_message": "Hello there",
        "suggested_questions": [],
        "placeholder": "Ask a question…",
        "image_hosts": ["cdn.acme.io"],
        "show_citations": False,
        "language": "en",  # no knowledge yet
        "direction": "ltr",
        "texts": config["texts"],  # the widget's own words: tests/test_language.py
    }
    assert client.get(f"/api/v1/widget/{hybrid}").status_code == 200
    assert_not_found(client.get(f"/api/v1/widget/{private}"))
    assert_not_found(client.post(f"/api/v1/widget/{private}/session", json={"device_id": DEVICE}))
    assert_not_found(client.get("/api/v1/widget/" + "0" * 32))


def test_a_widget_user_chats_with_citations_and_finds_the_conversation_again(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice, show_citations=True)
    link = "https://help.example.com/returns"
    qa = {"question": "What is the return policy?", "answer": RETURNS, "reference_source_link": link}
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", qa))
    process(client)
    chat = widget_session(client, bot)

    answer = widget_ask(client, chat, "What is the return policy?")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
    events = sse_events(answer.text)
    assert events[0][0] == "start" and events[-1][0] == "end"
    text = "".join(data["text"] for name, data in events if name == "delta")
    assert "30 days" in text and "[1.1]" in text
    assert [data["reference_source_link"] for name, data in events if name == "citation"] == [link]

    shown = client.get(f"/api/v1/widget/session/{chat}/messages").json()
    assert [(entry["role"], entry["text"]) for entry in shown] == [
        ("user", "What is the return policy?"),
        ("assistant", text),
    ]
    assert shown[1]["citations"] == {"1.1": {"title": "What is the return policy?", "url": link, "type": "qa"}}
    # The session is an ordinary one: the owner sees it with the message.
    assert [s["uuid"] for s in alice.ok(alice.get(f"/chatbot/{bot}/sessions"))] == [chat]


def test_the_widget_api_never_opens_a_private_chatbots_sessions(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot)
    alice.ok(alice.post(f"/chatbot/{bot}/update", {"visibility": "private"}))
    assert_not_found(client.get(f"/api/v1/widget/session/{chat}/messages"))
    assert_not_found(widget_ask(client, chat, "Still there?"))
    assert_not_found(client.get(f"/api/v1/widget/session/{chat}/events"))
    owner_session = alice.ok(alice.post(f"/chatbot/{bot}/session/create"))["uuid"]
    assert_not_found(client.get(f"/api/v1/widget/session/{owner_session}/messages"))
    assert alice.ok(alice.get(f"/session/{chat}/messages")) == []  # nothing was stored by the refused message


@pytest.mark.parametrize("device", ["short", "has space!", "x" * 65])
def test_a_bad_device_id_is_refused(alice: Api, client: TestClient, device: str) -> None:
    bot = public_bot(alice)
    response = client.post(f"/api/v1/widget/{bot}/session", json={"device_id": device})
    assert_error(response, 422, "validation_error")
    assert alice.ok(alice.get(f"/chatbot/{bot}/sessions")) == []


def test_the_rate_limit_counts_per_client_address(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice, rate_limit=[2, 60], rate_limit_message="Slow down, please")
    chat = widget_session(client, bot)
    assert widget_ask(client, chat, "one").status_code == 200
    assert widget_ask(client, chat, "two").status_code == 200
    refused = widget_ask(client, chat, "three")
    assert refused.json() == {"error": "Slow down, please", "code": "rate_limited"}
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    # The device id and the session are the client's to choose: another of either changes nothing.
    assert widget_ask(client, chat, "four", device="device-0002").status_code == 429
    assert widget_ask(client, widget_session(client, bot, device="device-0003"), "five").status_code == 429
    # Another address has a window of its own.
    with calling_from(client, "198.51.100.7"):
        assert widget_ask(client, chat, "six", device="device-0002").status_code == 200
    queries = [m["query"] for m in alice.ok(alice.get(f"/session/{chat}/messages"))]
    assert queries == ["one", "two", "six"]


def test_new_sessions_count_against_the_rate_limit_too(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice, rate_limit=[2, 60])
    widget_session(client, bot)
    widget_session(client, bot)
    assert_error(client.post(f"/api/v1/widget/{bot}/session", json={"device_id": DEVICE}), 429, "rate_limited")
    assert len(alice.ok(alice.get(f"/chatbot/{bot}/sessions"))) == 2


# --- allowed origins ------------------------------------------------------------------------------------------------


def test_only_allowed_origins_may_use_the_widget_api(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice)
    chat = widget_session(client, bot, Origin="https://anywhere.example")  # no list yet: any website
    alice.ok(alice.post(f"/chatbot/{bot}/widget", {"allowed_origins": [SITE]}))

    allowed = client.get(f"/api/v1/widget/{bot}", headers={"Origin": SITE})
    assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == SITE
    assert "Origin" in allowed.headers["vary"]
    for refused in (
        client.get(f"/api/v1/widget/{bot}", headers={"Origin": "https://evil.example"}),
        client.post(f"/api/v1/widget/{bot}/session", json={"device_id": DEVICE}, headers={"Origin": "null"}),
        widget_ask(client, chat, "hello", Origin="https://evil.example"),
        client.get(f"/api/v1/widget/session/{chat}/messages", headers={"Origin": "http://shop.example.com"}),
    ):
        assert_error(refused, 403, "origin_not_allowed")
        assert "access-control-allow-origin" not in refused.headers  # the browser refuses it too
    assert alice.ok(alice.get(f"/session/{chat}/messages")) == []
    assert len(alice.ok(alice.get(f"/chatbot/{bot}/sessions"))) == 1
    # The service's own pages (the framed chat) and clients that send no Origin get through.
    assert client.get(f"/api/v1/widget/{bot}", headers={"Origin": "http://testserver"}).status_code == 200
    assert client.get(f"/api/v1/widget/{bot}").status_code == 200


def test_preflights_are_answered_and_a_rate_limited_answer_stays_readable(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice, rate_limit=[1, 60])
    alice.ok(alice.post(f"/chatbot/{bot}/widget", {"allowed_origins": [SITE]}))
    preflight = client.options(
        f"/api/v1/widget/{bot}/session",
        headers={
            "Origin": SITE,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == SITE
    assert "POST" in preflight.headers["access-control-allow-methods"]
    chat = widget_session(client, bot, Origin=SITE)
    assert widget_ask(client, chat, "one", Origin=SITE).status_code == 200
    limited = widget_ask(client, chat, "two", Origin=SITE)
    assert limited.status_code == 429 and limited.headers["access-control-allow-origin"] == SITE
    assert "Retry-After" in limited.headers["access-control-expose-headers"]


# --- live chat as the widget sees it --------------------------------------------------------------------------------


def test_the_widget_follows_its_sessions_live_chat(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice)
    chat, other = widget_session(client, bot), widget_session(client, bot, device="device-0002")
    alice.ok(alice.post(f"/session/{other}/live-chat/start"))  # another session's events stay out
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    waiting = widget_ask(client, chat, "Hello, anyone?")
    assert [name for name, _ in sse_events(waiting.text)] == ["start", "end"]  # no AI answer: it went to a person
    alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "Hi, Sam here."}))
    alice.ok(alice.post(f"/session/{chat}/live-chat/end"))

    events = []
    with client.stream("GET", f"/api/v1/widget/session/{chat}/events", params={"after": 0}) as body:
        assert body.headers["content-type"].startswith("text/event-stream")
        for line in body.iter_lines():
            if line.startswith("event: ") and line[7:] != "ping":
                events.append(line[7:])
            if line.startswith("data: ") and events:
                events[-1] += " " + json.loads(line[6:])["text"]
            if events and events[-1].startswith("live_chat_ended "):
                break
    announcements = DEFAULT_HUMAN_ESCALATION_SETTINGS
    assert events == [
        f"live_chat_started {announcements['live_chat_start_announcement']}",
        "operator_message Hi, Sam here.",
        f"live_chat_ended {announcements['live_chat_end_announcement']}",
    ]
    shown = client.get(f"/api/v1/widget/session/{chat}/messages").json()
    assert [entry["role"] for entry in shown] == ["announcement", "user", "operator", "announcement"]
    assert shown[2]["text"] == "Hi, Sam here."


# --- pages ----------------------------------------------------------------------------------------------------------


def _config_of(page: str) -> dict[str, Any]:
    start = page.index('id="botyard-config">') + len('id="botyard-config">')
    config: dict[str, Any] = json.loads(page[start : page.index("</script>", start)])
    return config


def test_the_share_link_serves_public_chatbots_only(alice: Api, client: TestClient) -> None:
    public = public_bot(alice, name="Acme </script><script>alert(1)</script>")
    hybrid, private = public_bot(alice, "hybrid"), public_bot(alice, "private")
    page = client.get(f"/chat/{public}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    config = _config_of(page.text)
    assert config["chatbot_uuid"] == public and config["embedded"] is False
    assert config["title"] == "Acme </script><script>alert(1)</script>"  # escaped in the page, intact as data
    assert "<script>alert(1)" not in page.text
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors *" in csp and "unsafe-inline" not in csp
    assert client.get(f"/chat/{hybrid}").status_code == 404  # hybrid: no share link...
    framed = client.get(f"/chat/{hybrid}", headers={"Sec-Fetch-Dest": "iframe"})
    assert framed.status_code == 200 and _config_of(framed.text)["embedded"] is True  # ...but the widget's frame
    assert client.get(f"/chat/{private}").status_code == 404
    assert client.get(f"/chat/{private}", headers={"Sec-Fetch-Dest": "iframe"}).status_code == 404
    assert client.get("/chat/" + "0" * 32).status_code == 404


def test_only_allowed_websites_may_frame_the_chat(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice, "hybrid")
    alice.ok(alice.post(f"/chatbot/{bot}/widget", {"allowed_origins": [SITE], "image_hosts": ["cdn.acme.io"]}))
    frame = {"Sec-Fetch-Dest": "iframe"}
    allowed = client.get(f"/chat/{bot}", headers=frame | {"Referer": f"{SITE}/products/1"})
    assert allowed.status_code == 200
    csp = allowed.headers["content-security-policy"]
    assert f"frame-ancestors 'self' {SITE}" in csp and "https://cdn.acme.io" in csp
    refused = client.get(f"/chat/{bot}", headers=frame | {"Referer": "https://evil.example/page"})
    assert refused.status_code == 403 and "botyard-config" not in refused.text


def test_the_widget_script_is_small_and_the_dashboard_is_served(client: TestClient) -> None:
    script = client.get("/widget.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert 0 < len(gzip.compress(script.content)) < 30 * 1024
    dashboard = client.get("/dashboard")
    assert dashboard.status_code == 200 and "frame-ancestors 'none'" in dashboard.headers["content-security-policy"]
    assert client.get("/", follow_redirects=False).headers["location"] == "/dashboard"
    module = client.get("/static/chat/chat.js")
    assert module.status_code == 200 and module.headers["cache-control"] == "no-cache"  # revalidated after upgrades


@pytest.mark.parametrize("resume", ["²", "9" * 5000, str(2**63), "-1", "1e3"])
def test_a_resume_id_that_is_no_id_streams_from_now(alice: Api, client: TestClient, resume: str) -> None:
    # "²" passed str.isdigit and 5,000 digits int's limit: both answered 500; 2**63 failed the stream's query.
    chat = widget_session(client, public_bot(alice))
    path = f"/api/v1/widget/session/{chat}/events"
    with client.stream("GET", path, headers={"Last-Event-ID": resume.encode("latin-1")}) as body:
        assert body.status_code == 200 and next(body.iter_lines()) == ": events"
    assert_error(client.get(path, params={"after": 2**63}), 422, "validation_error")


def test_image_hosts_are_names_the_policy_can_hold(alice: Api, client: TestClient) -> None:
    bot = public_bot(alice)
    hosts = ["Bücher.Example", "*.cdn.acme.io", "10.0.0.7"]
    saved = alice.ok(alice.post(f"/chatbot/{bot}/widget", {"image_hosts": hosts}))
    assert saved["image_hosts"] == ["xn--bcher-kva.example", "*.cdn.acme.io", "10.0.0.7"]
    csp = client.get(f"/chat/{bot}").headers["content-security-policy"]
    assert "https://xn--bcher-kva.example" in csp and "https://*.cdn.acme.io" in csp
    # A row stored before hosts were checked this strictly never shapes the policy.
    policy = content_security_policy(image_hosts=["cdn.acme.io; script-src *", "*", "ok.example"])
    assert "script-src *" not in policy and " * " not in policy and "https://ok.example" in policy

"""Two accounts, every operation, every id-carrying field: another account's object answers exactly like a missing
one, nothing of it is read or written, and it is unchanged afterwards."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Message
from tests.support.api import MISSING, Api
from tests.support.database import Db


def _build(api: Api, db: Db, label: str) -> dict[str, str]:
    """A chatbot with one object of every kind; returns their uuids."""
    bot = api.chatbot(f"{label} bot")["uuid"]
    agent = api.ok(api.post(f"/chatbot/{bot}/agent/create", {"name": f"{label} agent", "type": "user-facing"}))
    function = api.ok(
        api.post(
            f"/agent/{agent['uuid']}/function/create",
            {"name": "lookup", "external_url": "https://example.com/lookup", "method": "POST"},
        )
    )
    qa = api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": f"{label}?", "answer": "yes"}))
    link = api.ok(api.post(f"/chatbot/{bot}/data-source/url", {"url": f"https://example.com/{label}"}))
    upload = api.ok(
        api.client.post(
            f"/api/v1/chatbot/{bot}/data-source/upload",
            headers=api.auth,
            files={"file": (f"{label}.txt", f"{label} notes".encode(), "text/plain")},
        )
    )
    tag = api.ok(
        api.post(
            f"/chatbot/{bot}/source-tag/create",
            {"name": f"{label} tag", "color": "#112233", "data_source_uuids": [qa["uuid"]]},
        )
    )
    session = api.ok(api.post(f"/chatbot/{bot}/session/create"))["uuid"]

    async def add_message(db_session: AsyncSession) -> str:
        message = Message(session_uuid=session, query=f"{label} question", response=f"{label} answer")
        db_session.add(message)
        await db_session.flush()
        return message.uuid

    message = db.run(add_message)
    return {
        "chatbot": bot,
        "agent": agent["uuid"],
        "function": function["uuid"],
        "qa": qa["uuid"],
        "link": link["uuid"],
        "upload": upload["uuid"],
        "tag": tag["uuid"],
        "session": session,
        "message": message,
    }


def _snapshot(api: Api, ids: dict[str, str]) -> dict[str, Any]:
    """Everything the owner can read about the objects."""
    bot = ids["chatbot"]
    return {
        "chatbot": api.ok(api.get(f"/chatbot/{bot}")),
        "agents": api.ok(api.get(f"/chatbot/{bot}/agents")),
        "agent": api.ok(api.get(f"/agent/{ids['agent']}")),
        "sources": api.ok(api.get(f"/chatbot/{bot}/data-sources")),
        "tags": api.ok(api.get(f"/chatbot/{bot}/source-tags")),
        "sessions": api.ok(api.get(f"/chatbot/{bot}/sessions")),
        "session": api.ok(api.get(f"/session/{ids['session']}")),
        "messages": api.ok(api.get(f"/session/{ids['session']}/messages")),
    }


# (method, path, body); `{x}` is replaced by the victim's object of kind x (or by a missing uuid).
PATH_OPERATIONS: list[tuple[str, str, Any]] = [
    ("GET", "/chatbot/{chatbot}", None),
    ("POST", "/chatbot/{chatbot}/update", {"name": "hijacked"}),
    ("DELETE", "/chatbot/{chatbot}/delete", None),
    ("GET", "/chatbot/{chatbot}/agents", None),
    ("POST", "/chatbot/{chatbot}/agent/create", {"name": "intruder", "type": "user-facing"}),
    ("GET", "/agent/{agent}", None),
    ("POST", "/agent/{agent}/update", {"name": "hijacked", "enabled": True}),
    ("DELETE", "/agent/{agent}/delete", None),
    ("POST", "/agent/{agent}/function/create", {"name": "steal", "external_url": "https://evil.example/x"}),
    ("POST", "/function/{function}/update", {"external_url": "https://evil.example/x"}),
    ("POST", "/function/{function}/delete", None),
    ("POST", "/chatbot/{chatbot}/data-source/qa", {"question": "q", "answer": "a"}),
    ("POST", "/chatbot/{chatbot}/data-source/url", {"url": "https://evil.example/page"}),
    ("GET", "/chatbot/{chatbot}/data-sources", None),
    ("GET", "/data-source/{qa}", None),
    ("POST", "/data-source/{qa}/update", {"title": "hijacked"}),
    ("POST", "/data-source/{link}/delete", None),
    ("POST", "/data-source/{upload}/delete", None),
    ("GET", "/chatbot/{chatbot}/source-tags", None),
    ("POST", "/chatbot/{chatbot}/source-tag/create", {"name": "t", "color": "#000000"}),
    ("GET", "/source-tag/{tag}", None),
    ("POST", "/source-tag/{tag}/update", {"name": "hijacked", "data_source_uuids": []}),
    ("DELETE", "/source-tag/{tag}/delete", None),
    ("POST", "/chatbot/{chatbot}/session/create", None),
    ("GET", "/chatbot/{chatbot}/sessions", None),
    ("GET", "/session/{session}", None),
    ("GET", "/session/{session}/messages", None),
    ("GET", "/session/{session}/messages/plain-text", None),
    ("POST", "/session/{session}/delete", None),
    ("GET", "/message/{message}", None),
    ("POST", "/message/{message}/delete", None),
]


def _call(api: Api, method: str, path: str, body: Any) -> Any:
    return api.client.request(method, f"/api/v1{path}", headers=api.auth, json=body)


@pytest.fixture
def world(alice: Api, bob: Api, db: Db) -> tuple[dict[str, str], dict[str, str]]:
    return _build(alice, db, "alice"), _build(bob, db, "bob")


def test_every_path_operation_on_a_foreign_object_answers_like_a_missing_one(
    alice: Api, bob: Api, world: tuple[dict[str, str], dict[str, str]]
) -> None:
    _, bobs = world
    before = _snapshot(bob, bobs)
    for method, template, body in PATH_OPERATIONS:
        foreign = _call(alice, method, template.format(**bobs), body)
        missing = _call(alice, method, template.format(**dict.fromkeys(bobs, MISSING)), body)
        assert foreign.status_code == 404, (method, template, foreign.status_code, foreign.text)
        assert (foreign.status_code, foreign.json()) == (missing.status_code, missing.json()), template
    upload = alice.client.post(
        f"/api/v1/chatbot/{bobs['chatbot']}/data-source/upload",
        headers=alice.auth,
        files={"file": ("x.txt", b"intruder", "text/plain")},
    )
    assert upload.status_code == 404
    assert _snapshot(bob, bobs) == before


def test_foreign_ids_inside_bodies_are_refused_and_nothing_changes(
    alice: Api, bob: Api, world: tuple[dict[str, str], dict[str, str]]
) -> None:
    alices, bobs = world
    before_bob = _snapshot(bob, bobs)
    before_alice = _snapshot(alice, alices)
    # An agent or a tag naming another account's data source: 404, as for a missing source.
    for source in ("qa", "link", "upload"):
        for path, body in (
            (f"/agent/{alices['agent']}/update", {"data_source_uuids": [bobs[source]], "use_all_sources": False}),
            (f"/source-tag/{alices['tag']}/update", {"data_source_uuids": [alices["qa"], bobs[source]]}),
            (
                f"/chatbot/{alices['chatbot']}/source-tag/create",
                {"name": "x", "color": "#000000", "data_source_uuids": [bobs[source]]},
            ),
        ):
            foreign = alice.post(path, body)
            missing = alice.post(path, {**body, "data_source_uuids": [MISSING]})
            assert foreign.status_code == 404, (path, foreign.text)
            assert foreign.json() == missing.json()
    # Bulk operations report the foreign uuid like an unknown one and delete nothing.
    for path, label in (("/data-sources/delete", "source"), ("/messages/delete", "message")):
        victim = bobs["qa"] if label == "source" else bobs["message"]
        own = alices["qa"] if label == "source" else alices["message"]
        response = alice.post(path, {"uuids": [own, victim]})
        assert response.status_code == 422, response.text
        assert response.json()["code"] == "unknown_uuids"
        assert [detail["uuid"] for detail in response.json()["details"]] == [victim]
    rescrape = alice.ok(alice.post("/data-sources/url/re-scrape", {"uuids": [bobs["link"], alices["link"]]}))
    assert rescrape == [
        {"uuid": bobs["link"], "error": "invalid data source"},
        {"uuid": alices["link"], "status": "restarted scraping"},
    ]
    restart = alice.client.post("/api/data-sources/restart", headers=alice.auth, json={"uuids": [bobs["upload"]]})
    assert restart.status_code == 200
    assert restart.json() == [{"uuid": bobs["upload"], "error": "invalid data source"}]
    assert _snapshot(bob, bobs) == before_bob
    after_alice = _snapshot(alice, alices)
    for key in ("chatbot", "agents", "agent", "tags", "sessions", "messages"):
        assert after_alice[key] == before_alice[key], key


def test_another_chatbots_source_of_the_same_account_is_refused(
    alice: Api, world: tuple[dict[str, str], dict[str, str]]
) -> None:
    alices, _ = world
    other_bot = alice.chatbot("second")["uuid"]
    other = alice.ok(alice.post(f"/chatbot/{other_bot}/data-source/qa", {"question": "q2", "answer": "a2"}))
    response = alice.post(f"/agent/{alices['agent']}/update", {"data_source_uuids": [other["uuid"]]})
    assert response.status_code == 404
    response = alice.post(f"/source-tag/{alices['tag']}/update", {"data_source_uuids": [other["uuid"]]})
    assert response.status_code == 404
    assert alice.ok(alice.get(f"/agent/{alices['agent']}"))["data_source_uuids"] == []


def test_lists_never_show_another_accounts_objects(
    alice: Api, bob: Api, world: tuple[dict[str, str], dict[str, str]]
) -> None:
    _, bobs = world
    everything_alice_sees = " ".join(
        [alice.get("/chatbots").text, alice.get("/account/api-keys").text]
        + [alice.get(f"/chatbot/{bot['uuid']}/data-sources").text for bot in alice.ok(alice.get("/chatbots"))]
    )
    for uuid in bobs.values():
        assert uuid not in everything_alice_sees

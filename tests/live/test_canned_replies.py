"""The account's canned replies over HTTP: anyone of the team reads them, those who answer conversations write them
(audited); a shortcut is unique in the account (409) and well-formed (422); other accounts get 404. Real app, both
databases."""

from __future__ import annotations

from starlette.testclient import TestClient

from botyard.models import Role
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.people import person

GREETING = {"shortcut": "hello", "text": "Hello {{contact.name}}, thanks for writing to us."}


def test_canned_replies_are_written_read_and_unique_per_account(alice: Api, bob: Api) -> None:
    made = alice.ok(alice.post("/canned-reply/create", GREETING))
    assert {key: made[key] for key in ("shortcut", "text")} == GREETING
    assert set(made) == {"uuid", "shortcut", "text", "created_at", "modified_at"}
    refund = alice.ok(alice.post("/canned-reply/create", {"shortcut": "refund_2-days", "text": "Two days."}))
    assert [reply["shortcut"] for reply in alice.ok(alice.get("/canned-replies"))] == ["hello", "refund_2-days"]
    assert_error(alice.post("/canned-reply/create", GREETING), 409, "canned_reply_exists")
    for shortcut in ("Hello", "with space", "", "x" * 65, "/hello"):
        body = {"shortcut": shortcut, "text": "x"}
        assert_error(alice.post("/canned-reply/create", body), 422, "validation_error")
    assert_error(alice.post("/canned-reply/create", {"shortcut": "empty", "text": "  "}), 422, "validation_error")

    assert bob.ok(bob.get("/canned-replies")) == []  # another account's are not bob's
    assert bob.ok(bob.post("/canned-reply/create", GREETING))["shortcut"] == "hello"  # unique per account only

    changed = alice.ok(alice.post(f"/canned-reply/{made['uuid']}/update", {"text": "Hi there!"}))
    assert changed["shortcut"] == "hello" and changed["text"] == "Hi there!"
    clash = {"shortcut": "refund_2-days"}
    assert_error(alice.post(f"/canned-reply/{made['uuid']}/update", clash), 409, "canned_reply_exists")
    same = alice.ok(alice.post(f"/canned-reply/{made['uuid']}/update", {"shortcut": "hello"}))  # its own: fine
    assert same["text"] == "Hi there!"
    for api, uuid in ((bob, refund["uuid"]), (alice, "0" * 32)):
        assert_error(api.post(f"/canned-reply/{uuid}/update", {"text": "x"}), 404, "not_found")
        assert_error(api.post(f"/canned-reply/{uuid}/delete"), 404, "not_found")
    assert alice.ok(alice.post(f"/canned-reply/{refund['uuid']}/delete")) == {"uuid": refund["uuid"], "deleted": True}
    assert [reply["uuid"] for reply in alice.ok(alice.get("/canned-replies"))] == [made["uuid"]]

    logged = alice.ok(alice.get("/account/audit", params={"object_type": "canned_reply"}))
    actions = sorted(event["action"] for event in logged["events"])
    assert actions == ["created", "created", "deleted", "updated", "updated"]


def test_operators_write_canned_replies_and_viewers_only_read_them(alice: Api, client: TestClient, db: Db) -> None:
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    vera = person(client, db, "alice@example.com", "vera@example.com", Role.VIEWER)
    made = anna.ok(anna.post("/canned-reply/create", GREETING))
    assert [reply["uuid"] for reply in vera.ok(vera.get("/canned-replies"))] == [made["uuid"]]
    assert_error(vera.post("/canned-reply/create", {"shortcut": "mine", "text": "x"}), 403, "forbidden_role")
    assert_error(vera.post(f"/canned-reply/{made['uuid']}/delete"), 403, "forbidden_role")
    assert anna.ok(anna.post(f"/canned-reply/{made['uuid']}/delete"))["deleted"]

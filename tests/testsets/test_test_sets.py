"""Test sets through the API on both databases, offline with the bundled embedder: made from CSV (every row or none)
or JSON, exported again, run against the chatbot's current knowledge outside conversations, analytics and rate
limits, judged, with what changed since the previous run and a `test_run_finished` webhook event; another account's
sets and runs are missing ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import utcnow
from botyard.jobs.kinds import JobKind
from botyard.models import Job, WebhookDelivery
from botyard.runtime import Runtime
from botyard.testsets.runner import TestRunner
from botyard.testsets.watch import look
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_uuid
from tests.support.database import Db
from tests.support.jobs import process, run_jobs
from tests.support.sources import qa, upload

VOUCHERS = ("Do you sell gift vouchers?", "Yes, gift vouchers of 25, 50 or 100 EUR are sold at reception.")
CLINIC = b"""# Discounts

Patients over 65 get a senior discount of 10 percent on every treatment at our Harbour Street clinic.
"""
CSV = b"""question,expect_any,expect
Do you sell gift vouchers?,25 EUR|100 EUR,
What discount do patients over 65 get?,10 percent,
Do you offer botox injections?,,refuse
How much is a botox session?,150 EUR,
"""


@pytest.fixture
def clinic(alice: Api) -> str:
    bot: str = alice.chatbot("Clinic", rate_limit=[1, 360])["uuid"]
    qa(alice, bot, *VOUCHERS)
    upload(alice, bot, "clinic.md", CLINIC)
    process(alice.client)
    return bot


def imported(api: Api, bot: str, data: bytes, name: str = "Smoke") -> Any:
    files = {"file": ("set.csv", data, "text/csv")}
    return api.post(f"/chatbot/{bot}/test-sets/import", files=files, data={"name": name})


def finished_run(api: Api, set_uuid: str) -> dict[str, Any]:
    """Start a run and run its job alone (a webhook's delivery to a host no test serves would retry meanwhile)."""
    started = api.ok(api.post(f"/test-set/{set_uuid}/run"))
    assert started["status"] == "queued" and started["results"] == []
    runtime: Runtime = api.client.app.state.runtime  # type: ignore[attr-defined]
    run_jobs(api.client, [TestRunner(runtime.answers)])
    run: dict[str, Any] = api.ok(api.get(f"/test-run/{started['uuid']}"))
    return run


def live_answers_counted() -> float:
    """The live answers this process's `/metrics` has counted: their first bytes and their outcomes."""
    names = {"botyard_answer_first_chunk_seconds_count", "botyard_answers_total"}
    return sum(sample.value for metric in REGISTRY.collect() for sample in metric.samples if sample.name in names)


def test_a_set_from_csv_is_run_and_judged_outside_conversations_analytics_and_limits(
    alice: Api, clinic: str, db: Db
) -> None:
    alice.ok(alice.post(f"/chatbot/{clinic}/webhook/create", {"url": "https://hooks.example.com/in"}))
    counted = live_answers_counted()
    made = alice.ok(imported(alice, clinic, CSV))
    assert_uuid(made["uuid"])
    assert (made["name"], made["case_count"], made["run_after_changes"]) == ("Smoke", 4, False)
    assert made["cases"][2] == {
        "uuid": made["cases"][2]["uuid"],
        "question": "Do you offer botox injections?",
        "expect_any": [],
        "expect_refuse": True,
    }
    assert made["cases"][0]["expect_any"] == ["25 EUR", "100 EUR"]
    run = finished_run(alice, made["uuid"])
    assert (run["status"], run["total"], run["passed"], run["trigger"]) == ("done", 4, 3, "api")
    verdicts = [(result["question"], result["passed"], result["change"]) for result in run["results"]]
    assert verdicts == [
        ("Do you sell gift vouchers?", True, None),
        ("What discount do patients over 65 get?", True, None),
        ("Do you offer botox injections?", True, None),  # said it does not know
        ("How much is a botox session?", False, None),
    ]
    assert "100 EUR" in run["results"][0]["reply"] and run["results"][0]["confidence"] == "high"
    # Four questions at a rate limit of one in six minutes: none counted; no conversation; analytics saw nothing.
    assert alice.ok(alice.get(f"/chatbot/{clinic}/conversations")) == []
    assert alice.ok(alice.get(f"/chatbot/{clinic}/analytics"))["totals"]["messages"] == 0
    assert alice.ok(alice.get(f"/chatbot/{clinic}/review"))["groups"] == []
    assert live_answers_counted() == counted  # nor did /metrics: no first byte, no answer counted

    async def finished(session: AsyncSession) -> list[str]:
        kind = WebhookDelivery.event_type == "test_run_finished"
        return list(await session.scalars(select(WebhookDelivery.body).where(kind)))

    [body] = db.run(finished)
    sent = json.loads(body)["data"]
    assert sent == {
        "test_set_uuid": made["uuid"], "test_run_uuid": run["uuid"], "status": "done",
        "total": 4, "passed": 3, "fixed": 0, "broken": 0,
    }  # fmt: skip


def test_a_second_run_shows_what_changed(alice: Api, clinic: str) -> None:
    made = alice.ok(imported(alice, clinic, CSV))
    first = finished_run(alice, made["uuid"])
    qa(alice, clinic, "How much is a botox session?", "A botox session costs 150 EUR.")
    bot_case = {"question": "Do you offer botox injections?", "expect_refuse": True}
    assert alice.ok(
        alice.post(f"/test-set/{made['uuid']}/cases", {"question": "Is there parking?", "expect_any": ["car park"]})
    )
    process(alice.client)
    second = finished_run(alice, made["uuid"])
    changes = {result["question"]: result["change"] for result in second["results"]}
    assert changes["How much is a botox session?"] == "fixed"
    assert changes["Is there parking?"] == "new"
    assert changes[bot_case["question"]] in (None, "broken")
    assert second["fixed"] == 1 and second["total"] == 5
    runs = alice.ok(alice.get(f"/test-set/{made['uuid']}/runs"))
    assert [found["uuid"] for found in runs] == [second["uuid"], first["uuid"]]
    assert all(found["results"] == [] for found in runs)


def test_a_bad_csv_names_every_bad_row_and_stores_nothing(alice: Api, clinic: str) -> None:
    bad = b"question,expect_any,expect\nok?,yes,\n,,refuse\nboth?,yes,refuse\nnothing?,,\nodd?,,maybe\n"
    error = assert_error(imported(alice, clinic, bad), 422, "validation_error")
    assert [detail["row"] for detail in error["details"]] == [3, 4, 5, 6]
    assert "expect_any" in error["details"][2]["error"]
    assert_error(imported(alice, clinic, b"q,a\nx,y\n"), 422, "validation_error")
    assert_error(imported(alice, clinic, "question,expect_any\nb\xe4d,x\n".encode("latin-1")), 422, "validation_error")
    assert_error(imported(alice, clinic, b"question,expect_any\n" + b"x" * (2 * 1024 * 1024)), 413, "payload_too_large")
    for body in (
        {"name": "x", "cases": [{"question": "a?", "expect_any": ["b"], "expect_refuse": True}]},
        {"name": "x", "cases": [{"question": "a?"}]},
        {"name": " ", "cases": []},
    ):
        assert_error(alice.post(f"/chatbot/{clinic}/test-sets", body), 422, "validation_error")
    assert alice.ok(alice.get(f"/chatbot/{clinic}/test-sets")) == []


def test_a_set_exports_as_csv_that_imports_again(alice: Api, clinic: str) -> None:
    cases = [
        {"question": "=HYPERLINK(1)?", "expect_any": ["a, b", "c"]},
        {"question": "Do you offer botox?", "expect_refuse": True},
    ]
    made = alice.ok(alice.post(f"/chatbot/{clinic}/test-sets", {"name": "Édition 2", "cases": cases}))
    exported = alice.get(f"/test-set/{made['uuid']}/export")
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    assert exported.headers["content-disposition"] == 'attachment; filename="Edition-2.csv"'
    assert exported.text.splitlines()[1].startswith("'=HYPERLINK(1)?")  # a spreadsheet never runs it
    again = alice.ok(imported(alice, clinic, exported.content, "Again"))
    assert [(case["question"], case["expect_any"], case["expect_refuse"]) for case in again["cases"]] == [
        ("=HYPERLINK(1)?", ["a, b", "c"], False),
        ("Do you offer botox?", [], True),
    ]


def test_another_accounts_sets_and_runs_are_missing(alice: Api, bob: Api, clinic: str) -> None:
    made = alice.ok(imported(alice, clinic, CSV))
    run = alice.ok(alice.post(f"/test-set/{made['uuid']}/run"))
    assert_not_found(imported(bob, clinic, CSV))
    assert_not_found(bob.get(f"/chatbot/{clinic}/test-sets"))
    for path in (f"/test-set/{made['uuid']}", f"/test-set/{made['uuid']}/export", f"/test-set/{made['uuid']}/runs"):
        assert_not_found(bob.get(path))
    assert_not_found(bob.get(f"/test-run/{run['uuid']}"))
    assert_not_found(bob.post(f"/test-set/{made['uuid']}/run"))
    assert_not_found(bob.post(f"/test-set/{made['uuid']}/cases", {"question": "x?", "expect_refuse": True}))
    assert_not_found(bob.post(f"/test-set/{made['uuid']}/delete"))
    assert_not_found(alice.get(f"/test-set/{MISSING}"))
    assert alice.ok(alice.get(f"/test-set/{made['uuid']}"))["case_count"] == 4
    alice.ok(alice.post(f"/test-set/{made['uuid']}/delete"))
    assert_not_found(alice.get(f"/test-run/{run['uuid']}"))


def test_a_set_run_after_changes_runs_when_the_knowledge_changes(alice: Api, clinic: str, db: Db) -> None:
    cases = [{"question": VOUCHERS[0], "expect_any": ["100 EUR"]}]
    body = {"name": "Guard", "cases": cases, "run_after_changes": True}
    made = alice.ok(alice.post(f"/chatbot/{clinic}/test-sets", body))

    async def watches(session: AsyncSession) -> list[str]:
        found = select(Job.status).where(Job.kind == JobKind.WATCH_TEST_SETS, Job.chatbot_uuid == clinic)
        return list(await session.scalars(found))

    assert db.run(watches) == ["queued"]  # the first look is due now

    def looked() -> list[dict[str, Any]]:
        assert db.run(lambda session: look(session, clinic, utcnow())) is True
        runs: list[dict[str, Any]] = alice.ok(alice.get(f"/test-set/{made['uuid']}/runs"))
        return runs

    [baseline] = looked()  # no run yet: a first one, the baseline
    assert (baseline["trigger"], baseline["status"]) == ("knowledge", "queued")
    assert len(looked()) == 1  # the knowledge did not change: no second run
    qa(alice, clinic, "Is there parking?", "Yes, behind the clinic.")
    process(alice.client)
    runs = looked()
    assert len(runs) == 2 and runs[0]["trigger"] == "knowledge"
    alice.ok(alice.post(f"/test-set/{made['uuid']}/update", {"run_after_changes": False}))
    assert db.run(lambda session: look(session, clinic, utcnow())) is False  # nothing watched: the chain ends

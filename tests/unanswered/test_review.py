"""The review queue through the API on both databases, offline with the bundled embedder: refused, unsure, handed-off
and rated-down answers are listed with the bot's reply and their conversation, grouped by meaning and ordered by how
many visitors met them; a fix adds (or edits) a Q&A pair that answers the next visitor, "this answer is right"
closes a group without a change, a thumbs-down after a fix brings its answer back; another account's objects are
missing ones; bad input loses nothing."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.unanswered.grouping import normalised
from tests.support.agents import PERSON, agent
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp
from tests.support.jobs import process
from tests.support.review import asked, queue, rated_down
from tests.support.sources import qa, sources, upload
from tests.support.widget import give_feedback, widget_session

VOUCHERS = ("Do you sell gift vouchers?", "Yes, gift vouchers of 25, 50 or 100 EUR are sold at reception.")
CLINIC = b"""# Discounts

Patients over 65 get a senior discount of 10 percent on every treatment at our Harbour Street clinic.
"""
BOTOX = "Do you offer botox injections?"
STUDENT = "Is there a student discount?"


@pytest.fixture
def clinic(alice: Api) -> str:
    bot: str = alice.chatbot("Clinic", visibility="public")["uuid"]
    qa(alice, bot, *VOUCHERS)
    upload(alice, bot, "clinic.md", CLINIC)
    process(alice.client)
    return bot


def test_refused_unsure_handed_off_and_rated_down_answers_are_in_the_queue(
    alice: Api, clinic: str, client: TestClient
) -> None:
    answered = asked(alice, clinic, VOUCHERS[0])
    refused = asked(alice, clinic, BOTOX)
    unsure = asked(alice, clinic, STUDENT)
    agent(alice, clinic, "human-escalation", "Human hand-off", PERSON)
    handed = asked(alice, clinic, "I want to talk to a real person please")
    chat, down = rated_down(client, clinic, "Which vouchers can I buy?")
    found = queue(alice, clinic)
    assert found["items"] == 4 and found["capped"] is False, found
    items = [item for group in found["groups"] for item in group["items"]]
    by_reason = {item["reason"]: item for item in items}
    assert set(by_reason) == {"refused", "unsure", "handed_off", "thumbs_down"}
    assert {reason for group in found["groups"] for reason in group["reasons"]} == set(by_reason)
    item = by_reason["refused"]
    assert item == {
        "question": BOTOX,
        "reply": DEFAULT_NO_ANSWER_MESSAGE,
        "session_uuid": refused["session_uuid"],
        "message_uuid": refused["uuid"],
        "reason": "refused",
        "asked_at": item["asked_at"],
        "qa_source_uuid": None,
        "operator_reply": None,
        "qa_pair": None,
    }
    assert_timestamp(item["asked_at"])
    [botox] = [group for group in found["groups"] if group["items"] == [item]]
    assert botox["uuid"] == refused["uuid"] and botox["question"] == BOTOX
    assert botox["count"] == botox["visitors"] == 1 and botox["reasons"] == ["refused"]
    assert by_reason["unsure"]["message_uuid"] == unsure["uuid"]
    assert by_reason["unsure"]["reply"].startswith("I couldn't find anything about “student”")
    assert by_reason["handed_off"]["message_uuid"] == handed["uuid"]
    rated = by_reason["thumbs_down"]
    assert rated["message_uuid"] == down and rated["session_uuid"] == chat and "100 EUR" in rated["reply"]
    [pair] = [each for each in sources(alice, clinic) if each["type"] == "qa"]
    assert rated["qa_source_uuid"] == pair["uuid"]  # the pair that answered: what a fix may edit
    assert rated["qa_pair"]["uuid"] == pair["uuid"] and rated["qa_pair"]["same_question"] is True
    assert answered["uuid"] not in {item["message_uuid"] for item in items}


def test_the_same_question_in_other_words_and_languages_is_one_group_ordered_by_visitors(
    alice: Api, clinic: str
) -> None:
    asked(alice, clinic, "Do you have parking?")
    for question in (BOTOX, "do you offer botox injections", "Can I get Botox injections here?"):
        asked(alice, clinic, question)
    asked(alice, clinic, "Bieten Sie Botox-Injektionen an?")
    groups = queue(alice, clinic)["groups"]
    assert [group["visitors"] for group in groups] == [4, 1]
    botox = groups[0]
    assert (
        normalised(botox["question"]) == normalised(BOTOX) and botox["count"] == 4 and botox["reasons"] == ["refused"]
    )
    assert len({item["session_uuid"] for item in botox["items"]}) == 4
    assert queue(alice, clinic, limit=1, offset=1)["groups"][0]["question"] == "Do you have parking?"


def test_a_fix_answers_the_next_visitor_and_closes_its_group(alice: Api, clinic: str, client: TestClient) -> None:
    first, second = asked(alice, clinic, BOTOX), asked(alice, clinic, "Can I get Botox injections here?")
    [group] = queue(alice, clinic)["groups"]
    uuids = [item["message_uuid"] for item in group["items"]]
    fixed = alice.ok(
        alice.post(f"/chatbot/{clinic}/review/fix", {"message_uuids": uuids, "answer": "No, we do not offer botox."})
    )
    assert fixed["closed"] == 2 and fixed["data_source"]["type"] == "qa"
    assert {first["uuid"], second["uuid"]} == set(uuids)
    assert queue(alice, clinic)["groups"] == []
    process(alice.client)
    assert "we do not offer botox" in asked(alice, clinic, BOTOX)["response"]
    assert queue(alice, clinic)["groups"] == []  # the next visitor was answered


def test_a_fix_edits_the_pair_that_answered_badly(alice: Api, clinic: str, client: TestClient) -> None:
    _, down = rated_down(client, clinic, VOUCHERS[0])
    [group] = queue(alice, clinic)["groups"]
    pair = group["items"][0]["qa_source_uuid"]
    better = "Yes: gift vouchers of 25, 50, 100 or 200 EUR, at reception or online."
    body = {"message_uuids": [down], "answer": better, "data_source_uuid": pair}
    fixed = alice.ok(alice.post(f"/chatbot/{clinic}/review/fix", body))
    assert fixed["data_source"]["uuid"] == pair and fixed["closed"] == 1
    assert len([each for each in sources(alice, clinic) if each["type"] == "qa"]) == 1  # edited, not added
    process(alice.client)
    assert "200 EUR" in asked(alice, clinic, VOUCHERS[0])["response"]
    # Rated down again after the fix: the answer is back in the queue.
    chat = widget_session(client, clinic)
    assert give_feedback(client, chat, down, {"rating": "down"}).status_code == 404  # another session's answer
    _, again = rated_down(client, clinic, VOUCHERS[0])
    [group] = queue(alice, clinic)["groups"]
    assert [item["message_uuid"] for item in group["items"]] == [again]


def test_this_answer_is_right_closes_a_group_without_a_change(alice: Api, clinic: str, client: TestClient) -> None:
    _, down = rated_down(client, clinic, VOUCHERS[0])
    before = sources(alice, clinic)
    accepted = alice.ok(alice.post(f"/chatbot/{clinic}/review/accept", {"message_uuids": [down]}))
    assert accepted == {"closed": 1}
    assert queue(alice, clinic)["groups"] == [] and sources(alice, clinic) == before
    assert alice.ok(alice.post(f"/chatbot/{clinic}/review/accept", {"message_uuids": [down]})) == {"closed": 0}


def test_any_answer_of_a_transcript_can_be_fixed(alice: Api, clinic: str) -> None:
    answered = asked(alice, clinic, VOUCHERS[0])  # confident: never in the queue
    body = {"message_uuids": [answered["uuid"]], "answer": "Vouchers are sold online only."}
    fixed = alice.ok(alice.post(f"/chatbot/{clinic}/review/fix", body))
    assert fixed["closed"] == 0 and fixed["data_source"]["type"] == "qa"
    assert len([each for each in sources(alice, clinic) if each["type"] == "qa"]) == 2


def test_another_accounts_queue_answers_and_pairs_are_missing(alice: Api, bob: Api, clinic: str) -> None:
    refused = asked(alice, clinic, BOTOX)
    body = {"message_uuids": [refused["uuid"]], "answer": "No."}
    assert_not_found(bob.get(f"/chatbot/{clinic}/review"))
    assert_not_found(bob.post(f"/chatbot/{clinic}/review/fix", body))
    assert_not_found(bob.post(f"/chatbot/{clinic}/review/accept", {"message_uuids": [refused["uuid"]]}))
    assert_not_found(alice.get(f"/chatbot/{MISSING}/review"))
    bobs = bob.chatbot()["uuid"]
    assert_not_found(bob.post(f"/chatbot/{bobs}/review/fix", body))  # alice's answer in bob's chatbot
    bobs_pair = qa(bob, bobs)["uuid"]
    assert_not_found(alice.post(f"/chatbot/{clinic}/review/fix", {**body, "data_source_uuid": bobs_pair}))
    assert len(queue(alice, clinic)["groups"]) == 1  # nothing was closed
    assert len([each for each in sources(alice, clinic) if each["type"] == "qa"]) == 1  # nothing was added


def test_bad_input_gets_a_clear_error_and_changes_nothing(alice: Api, clinic: str) -> None:
    refused = asked(alice, clinic, BOTOX)
    fix = f"/chatbot/{clinic}/review/fix"
    for body in (
        {"message_uuids": [], "answer": "No."},
        {"message_uuids": [refused["uuid"]], "answer": "   "},
        {"message_uuids": ["not a uuid"], "answer": "No."},
        {"message_uuids": [refused["uuid"]]},
    ):
        assert_error(alice.post(fix, body), 422, "validation_error")
    assert_error(alice.get(f"/chatbot/{clinic}/review", params={"limit": 0}), 422, "validation_error")
    assert_not_found(alice.post(fix, {"message_uuids": [MISSING], "answer": "No."}))
    assert len(queue(alice, clinic)["groups"]) == 1


def test_what_a_person_replied_in_live_chat_comes_with_the_item(alice: Api, clinic: str) -> None:
    refused = asked(alice, clinic, BOTOX)
    session = refused["session_uuid"]
    alice.ok(alice.post(f"/session/{session}/live-chat/start"))
    alice.ok(alice.post(f"/session/{session}/live-chat/message", {"text": "We do not offer botox, sorry."}))
    [group] = queue(alice, clinic)["groups"]
    [item] = group["items"]
    assert item["operator_reply"] == "We do not offer botox, sorry."

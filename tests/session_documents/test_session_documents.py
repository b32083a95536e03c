"""Session documents without a language model (the default): upload, attach to messages, the budget's exact
replies, the offline answer from a document, and the messages' `session_documents`."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from botyard.session_documents.budget import TOO_LONG, TOO_LONG_WITH_EARLIER
from tests.support.api import Api, assert_error, assert_timestamp, assert_uuid
from tests.support.chat import messages, new_session
from tests.support.session_documents import PNG, STORY, send, upload_document, upload_response

QUESTION = "Whose stapler vanished?"
SECRET = "Our kitchen notes.\n\nThe secret ingredient of the house burger is goat cheese."


def reading_chatbot(api: Api, model: str = "gpt-4o-mini-32k", **fields: str) -> str:
    """A chatbot whose only agent answers with `model`: session documents need one of at least 16k context."""
    bot: str = api.chatbot(**fields)["uuid"]
    [agent] = api.ok(api.get(f"/chatbot/{bot}/agents"))
    api.ok(api.post(f"/agent/{agent['uuid']}/update", {"model": model}))
    return bot


def test_an_upload_answers_the_document_with_its_token_count(alice: Api) -> None:
    body = alice.ok(upload_response(alice, "story.txt", STORY.encode()))
    assert set(body) == {"uuid", "name", "content_type", "size", "tokens", "created_at"}
    assert_uuid(body["uuid"])
    assert_timestamp(body["created_at"])
    assert body["name"] == "story.txt" and body["size"] == len(STORY.encode())
    assert 540 <= body["tokens"] <= 600  # the parser's Markdown of a 563-token story


@pytest.mark.parametrize("name", ["hello.pdf", "faq.html", "prices.csv"])
def test_documents_are_read_with_the_ingestion_parsers(alice: Api, sample_dir: Path, name: str) -> None:
    body = alice.ok(upload_response(alice, name, (sample_dir / name).read_bytes(), "application/octet-stream"))
    assert body["name"] == name and body["tokens"] > 0


def test_the_form_field_names_the_file(alice: Api) -> None:
    response = alice.client.post(
        "/api/v1/session-document/upload",
        headers=alice.auth,
        files={"file": ("upload.bin", b"Minutes of the meeting.", "text/plain")},
        data={"filename": "minutes.txt"},
    )
    assert alice.ok(response)["name"] == "minutes.txt"


def test_an_image_is_kept_for_vision_models(alice: Api) -> None:
    body = alice.ok(upload_response(alice, "photo.png", PNG, "image/png"))
    assert body["content_type"] == "image/png" and body["tokens"] > 0


@pytest.mark.parametrize(
    ("name", "content", "status", "code"),
    [
        ("tool.exe", b"MZ\x90\x00", 415, "file_type_not_allowed"),  # a type we do not read
        ("notes.txt", PNG, 415, "file_type_not_allowed"),  # a text name on an image's bytes
        ("photo.png", b"not an image at all", 415, "file_type_not_allowed"),
        ("empty.txt", b"", 422, "validation_error"),
    ],
)
def test_unreadable_uploads_are_refused_clearly(alice: Api, name: str, content: bytes, status: int, code: str) -> None:
    assert_error(upload_response(alice, name, content), status, code)


def test_an_upload_needs_a_file_and_a_key(alice: Api, client: TestClient) -> None:
    missing = alice.client.post("/api/v1/session-document/upload", headers=alice.auth, data={"filename": "x.txt"})
    assert_error(missing, 422, "validation_error")
    anonymous = client.post("/api/v1/session-document/upload", files={"file": ("a.txt", b"text", "text/plain")})
    assert_error(anonymous, 401, "unauthorized")


def test_offline_the_answer_quotes_the_uploaded_story(alice: Api) -> None:
    bot = reading_chatbot(alice)
    chat = new_session(alice, bot)
    story = upload_document(alice)
    first = send(alice, chat, QUESTION, story)
    assert first.status_code == 200 and "Sarah" in first.text
    # A later message without documents still sees the story.
    again = send(alice, chat, "Who found a note in her drawer on Tuesday?")
    assert again.status_code == 200 and "Sarah" in again.text
    listed = messages(alice, chat)
    assert [message["session_documents"] for message in listed] == [[{"uuid": story, "name": "story.txt"}]] * 2
    assert listed[0]["response"] == first.text


def test_documents_from_another_account_or_unknown_are_refused_and_nothing_is_stored(
    alice: Api, bob: Api, client: TestClient
) -> None:
    bot = alice.chatbot(visibility="public")["uuid"]
    chat = new_session(alice, bot)
    bobs = upload_document(bob)
    for uuids in ([bobs], ["0" * 32], ["not-a-uuid"]):
        body = assert_error(send(alice, chat, QUESTION, *uuids), 422, "unknown_uuids")
        assert body["details"] == [{"uuid": uuids[0], "error": "unknown session document"}]
    # Without a key (a public chatbot's visitor) no document is anyone's to attach.
    alices = upload_document(alice)
    anonymous = client.post(
        f"/api/v1/session/{chat}/message/stream", json={"query": QUESTION, "session_document_uuids": [alices]}
    )
    assert_error(anonymous, 422, "unknown_uuids")
    assert messages(alice, chat) == []


def test_too_long_documents_get_the_exact_replies_and_the_session_goes_on(alice: Api) -> None:
    """With `gpt-4o-mini-16k`: sixteen copies of the story (9k tokens) fit, thirty do not, and sixteen more do not
    fit beside the first sixteen."""
    bot = reading_chatbot(alice, "gpt-4o-mini-16k")
    chat = new_session(alice, bot)
    huge = upload_document(alice, "huge.txt", "\n\n".join([STORY] * 30))
    refused = send(alice, chat, QUESTION, huge)
    assert refused.status_code == 200 and refused.text == TOO_LONG
    first = upload_document(alice, "first.txt", "\n\n".join([STORY] * 16))
    assert "Sarah" in send(alice, chat, QUESTION, first).text
    second = upload_document(alice, "second.txt", "\n\n".join([STORY] * 16))
    assert send(alice, chat, QUESTION, second).text == TOO_LONG_WITH_EARLIER
    after = send(alice, chat, QUESTION)
    assert "Sarah" in after.text
    listed = messages(alice, chat)
    assert [message["response"] for message in listed[:3]] == [TOO_LONG, listed[1]["response"], TOO_LONG_WITH_EARLIER]
    first_only = [{"uuid": first, "name": "first.txt"}]
    assert [message["session_documents"] for message in listed] == [[], first_only, [], first_only]


def test_the_non_streamed_answer_takes_documents_too(alice: Api) -> None:
    bot = reading_chatbot(alice)
    chat = new_session(alice, bot)
    story = upload_document(alice)
    response = alice.post(f"/session/{chat}/message/non-stream", {"query": QUESTION, "session_document_uuids": [story]})
    assert "Sarah" in alice.ok(response)["response"]


@pytest.mark.parametrize("model", ["gpt-4o-mini-4k", "gpt-4o-mini-8k"])
def test_a_model_under_16k_context_answers_as_if_no_document_was_sent(alice: Api, model: str) -> None:
    """The hosted rule the official SDK tests (`test_chat_session_file_upload_ignored`): no error, no document, and
    the document does not join the session for later answers either."""
    bot = reading_chatbot(alice, model)
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "Where are you?", "answer": "In Leeds."}))
    chat = new_session(alice, bot)
    secret = upload_document(alice, "kitchen.txt", SECRET)
    reply = send(alice, chat, "What is the secret ingredient of the house burger?", secret)
    assert reply.status_code == 200
    assert "goat" not in reply.text.lower() and "error" not in reply.text.lower()
    [agent] = alice.ok(alice.get(f"/chatbot/{bot}/agents"))
    alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"model": "gpt-4o-mini-32k"}))
    later = send(alice, chat, "What is the secret ingredient of the house burger?")
    assert "goat" not in later.text.lower()
    assert [message["session_documents"] for message in messages(alice, chat)] == [[], []]
    # The same document with a 16k model is read.
    alice.ok(alice.post(f"/agent/{agent['uuid']}/update", {"model": "gpt-4o-mini-16k"}))
    assert "goat cheese" in send(alice, chat, "What is the secret ingredient of the house burger?", secret).text

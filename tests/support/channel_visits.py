"""Conversations on channels for the dashboard's tests: two generic channels of a chatbot (replies to a loopback
receiver), messages POSTed to them signed as Standard Webhooks sign (written from the specification, not with the
service's code), and a conversation of the API beside them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from tests.support.browser import Service
from tests.support.channels import signed_headers
from tests.support.dashboard import QUESTION
from tests.support.waiting import wait_for

OFF_TOPIC = "Which team won the football world cup final of 1954?"
"""A question the Q&A chatbot does not answer: the no-answer reply."""
VISITS = (("helpdesk", "u-1", "Ada Lovelace", QUESTION), ("helpdesk", "u-2", "Grace Hopper", OFF_TOPIC))
VISITS += (("shop", "u-3", "Linus", QUESTION),)
"""(channel, user id, user name, question): one conversation each."""


@dataclass(frozen=True)
class Channels:
    helpdesk: dict[str, Any]
    shop: dict[str, Any]


def generic(server: Service, bot: str, name: str, callback_url: str) -> dict[str, Any]:
    """A generic channel answering at once (no burst to wait out); its `signing_secret` kept."""
    body = {"type": "generic", "name": name, "credentials": {"callback_url": callback_url}}
    made: dict[str, Any] = server.api(
        "POST", f"/chatbot/{bot}/channel/create", body | {"settings": {"burst_seconds": 0}}
    )
    return made


def say(server: Service, channel: dict[str, Any], user: str, name: str, text: str) -> None:
    event = {"id": f"evt-{user}", "type": "message", "user": {"id": user, "name": name}, "thread": user, "text": text}
    body = json.dumps(event).encode()
    headers = signed_headers(channel["signing_secret"], event["id"], body)
    answer = httpx.post(f"{server.base}/channels/{channel['uuid']}/inbound", content=body, headers=headers, timeout=30)
    assert answer.status_code == 200 and answer.json() == {"ok": True}, answer.text


def channel_day(server: Service, bot: str, callback_url: str) -> Channels:
    """A Helpdesk and a Shop chat channel; `VISITS` on them and one question in a session of the API, each
    conversation answered (its outcome stored) before this returns."""
    channels = Channels(generic(server, bot, "Helpdesk", callback_url), generic(server, bot, "Shop chat", callback_url))
    web = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    server.api("POST", f"/session/{web}/message/non-stream", {"query": QUESTION})
    for place, user, name, text in VISITS:
        say(server, getattr(channels, place), user, name, text)

    def answered() -> bool:
        conversations = server.api("GET", f"/chatbot/{bot}/conversations")
        return len(conversations) == 1 + len(VISITS) and all(item["outcome"] for item in conversations)

    wait_for(answered, 60, what="every conversation answered")
    return channels

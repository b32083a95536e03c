"""The channels benchmark's WhatsApp side: a channel on the loopback Graph API (the recorder answers Meta's calls),
and signed deliveries as Meta sends them, each one customer's message (a new number each: no burst joins them)."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import httpx

APP_SECRET = "bench-app-secret"  # noqa: S105 (the loopback Meta app's)
PHONE_NUMBER_ID = "100200300400"


def graph_answer(path: str) -> dict[str, Any]:
    """What the loopback Graph API answers: the number's profile (GET), a sent message's id (POST)."""
    if path.split("?")[0].endswith("/messages"):
        return {"messaging_product": "whatsapp", "messages": [{"id": "wamid.bench"}]}
    return {"id": PHONE_NUMBER_ID, "display_phone_number": "+1 555 0100", "verified_name": "Bench"}


def connect(client: httpx.Client, bot: str, burst: float) -> str:
    """A WhatsApp channel of the chatbot with this burst wait: its uuid."""
    credentials = {"access_token": "EAAG-bench", "app_secret": APP_SECRET, "phone_number_id": PHONE_NUMBER_ID}
    body = {"type": "whatsapp", "credentials": credentials, "settings": {"burst_seconds": burst}}
    uuid: str = client.post(f"/api/v1/chatbot/{bot}/channel/create", json=body).raise_for_status().json()["uuid"]
    return uuid


def delivery(number: int) -> tuple[bytes, dict[str, str]]:
    """One customer's text as Meta's signed webhook POST: its body and headers."""
    wa_id = str(15_550_000_000 + number)
    message = {"from": wa_id, "id": f"wamid.bench{number}", "timestamp": "1764680000", "type": "text",
               "text": {"body": "hello"}}  # fmt: skip
    value = {"messaging_product": "whatsapp", "metadata": {"phone_number_id": PHONE_NUMBER_ID},
             "contacts": [{"profile": {"name": "Bench"}, "wa_id": wa_id}], "messages": [message]}  # fmt: skip
    body = {"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [{"value": value}]}]}
    raw = json.dumps(body).encode()
    digest = hmac.new(APP_SECRET.encode(), raw, hashlib.sha256).hexdigest()
    return raw, {"X-Hub-Signature-256": f"sha256={digest}", "Content-Type": "application/json"}

"""A small shop's knowledge as Q&A pairs created through the API and processed: what retrieval tests search."""

from __future__ import annotations

from tests.support.api import Api
from tests.support.jobs import process

KNOWLEDGE = {
    "hours": (
        "When is the shop open?",
        "The shop in Springfield is open from nine in the morning to five in the afternoon, Monday to Friday, "
        "and from ten to two on Saturdays. It is closed on Sundays.",
    ),
    "refunds": (
        "Can I return a product?",
        "Unused products can be sent back within 30 days of delivery. We refund the full price to the original "
        "payment method within five working days of receiving the parcel.",
    ),
    "shipping": (
        "Do you ship abroad?",
        "We deliver to every country of the European Union. International shipping takes three to seven days and "
        "costs twelve euros per order.",
    ),
    "password": (
        "How do I reset my password?",
        "Open the login page, choose 'Forgot password' and enter your e-mail address. We send you a link that "
        "lets you choose a new password; it expires after one hour.",
    ),
}


def add_qa(api: Api, bot: str, key: str) -> str:
    question, answer = KNOWLEDGE[key]
    created = api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": question, "answer": answer}))
    uuid: str = created["uuid"]
    return uuid


def knowledge_bot(api: Api, keys: list[str] | None = None) -> tuple[str, dict[str, str]]:
    """A chatbot with the Q&A pairs `keys` (all by default), processed; and their source uuids by key."""
    bot: str = api.chatbot()["uuid"]
    sources = {key: add_qa(api, bot, key) for key in keys or list(KNOWLEDGE)}
    process(api.client)
    for uuid in sources.values():
        assert api.ok(api.get(f"/data-source/{uuid}"))["status"] == "success"
    return bot, sources

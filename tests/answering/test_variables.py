"""Agent variables: filled from the user's messages by the offline extractor, seeded by `initial_variables`, static
ones fixed, the values in the session's `meta.variables` and in the agent's prompt. Both databases."""

from __future__ import annotations

from typing import Any

from botyard.answering.model.prompt import fill_variables
from botyard.answering.routing.variables import extract
from tests.support.api import Api
from tests.support.chat import ask

EMAIL = {"name": "email", "description": "The customer's email address", "type": "string"}
PHONE = {"name": "phone", "description": "A phone number to call back", "type": "string"}
ORDER = {"name": "order_number", "description": "The order number", "type": "number"}
NEWSLETTER = {"name": "newsletter", "description": "Wants the newsletter", "type": "boolean"}
CAP = {"name": "max_items", "type": "number", "default_value": {"content": "3", "static": 1}}
NAME = {"name": "customer_name", "description": "The customer's name", "type": "string"}


def test_the_typed_extractor() -> None:
    variables = [EMAIL, PHONE, ORDER, NEWSLETTER, CAP, NAME]
    found = extract(variables, "Reach me at ann.lee@example.com or +44 20 7946 0958 about order 1234")
    assert found == {"email": "ann.lee@example.com", "phone": "+44 20 7946 0958", "order_number": "1234"}
    assert extract(variables, "Yes please") == {"newsletter": "true"}
    assert extract(variables, "No, thanks") == {"newsletter": "false"}
    assert extract(variables, "I am Ann") == {}  # a free-text string needs a model; "max_items" is static
    assert extract([CAP], "make it 12 items") == {}
    assert extract([PHONE], "call 12 34") == {}  # too few digits for a phone number


def test_placeholders_in_either_form() -> None:
    assert (
        fill_variables("Help {{ customer_name }} of {company}; {unknown}", {"customer_name": "Ann", "company": "ACME"})
        == "Help Ann of ACME; {unknown}"
    )


def general_agent(api: Api, bot: str) -> dict[str, Any]:
    [general] = api.ok(api.get(f"/chatbot/{bot}/agents"))
    return dict(general)


def test_messages_fill_the_sessions_variables_and_static_ones_stay(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    general = general_agent(alice, bot)
    alice.ok(alice.post(f"/agent/{general['uuid']}/update", {"variables": [EMAIL, ORDER, CAP, NAME]}))
    seed = {"customer_name": "Ann", "max_items": "9"}
    chat = alice.ok(alice.post(f"/chatbot/{bot}/session/create", {"initial_variables": seed}))["uuid"]
    assert ask(alice, chat, "My email is ann@example.com and my order number is 1234").status_code == 200
    variables = alice.ok(alice.get(f"/session/{chat}"))["meta"]["variables"]
    assert variables == {"customer_name": "Ann", "max_items": "9", "email": "ann@example.com", "order_number": "1234"}
    ask(alice, chat, "Sorry, I meant order 5678, and I want 12 items")
    variables = alice.ok(alice.get(f"/session/{chat}"))["meta"]["variables"]
    assert variables["order_number"] == "5678" and variables["max_items"] == "9"  # the static one is never filled
    assert variables["email"] == "ann@example.com"  # kept from before

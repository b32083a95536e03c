"""The hand-off every chatbot has without a human-escalation agent: a visitor who asks for a person ("Can I speak to
a real person?", in any language of `intents`) is handed to the account's people who take conversations, as such an
agent would hand them, while the chatbot keeps the one default agent it was made with. The owner turns it off with
the chatbot's `hand_off_requests` setting (`chatbots.handoff`); a human-escalation agent of the owner's replaces it.

It promises a person only when one of the account's people who take conversations (the `live` permission) is there:
with nobody (an account of API keys alone) or everyone away, the visitor gets the after-hours message and the
contact form (`answering.prepare`), never "my reference documents"."""

from __future__ import annotations

from botyard.agents.rules import HUMAN_ESCALATION
from botyard.answering.supervisor import AgentCard
from botyard.models import AgentMeta, EscalationSettings

HAND_OFF = AgentCard(
    uuid="",  # no agent row: the message's meta names no agent, and the supervisor tells it from the owner's
    name="Hand-off to a person",
    type=HUMAN_ESCALATION,
    description="Talk to a real person from our team",
    prompt="",
    meta=AgentMeta(),
    variables=[],
    escalation=EscalationSettings.of(None),
    source_uuids=[],
)
"""The built-in hand-off's card: routed as a human-escalation agent with the default settings."""


def with_hand_off(cards: list[AgentCard], *, enabled: bool) -> list[AgentCard]:
    """The routed cards, with the built-in hand-off when it is on and no agent of the owner's hands off."""
    if not enabled or not cards or any(card.type == HUMAN_ESCALATION for card in cards):
        return cards
    return [*cards, HAND_OFF]

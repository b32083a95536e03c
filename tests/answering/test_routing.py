"""The supervisor over HTTP: which agent answers each query, from names and descriptions, with `bias`, `stickness`,
disabled agents, the fixed replies of pre-canned, spam-defense and human-escalation agents, and the spam rules.
Real app, real bundled embedding model, both databases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from botyard import i18n
from botyard.answering.routing.evidence import Reading, UnitIntent
from botyard.answering.routing.intents import PROTOTYPES, Intent, clauses
from botyard.answering.routing.rules import Candidate, Decision, best, decide, rated, small_talk, spam_reason
from botyard.i18n import Language
from tests.support.agents import SHIPPING, agent, disable_default
from tests.support.api import Api
from tests.support.chat import ask, messages, new_session

BILLING = "Invoices, payments, refunds, prices and charges on your card."
JOBS = "Careers and job openings: applying to work with us."
HIRING_REPLY = "Thank you for your interest! Please send your CV to jobs@example.com."


def answered_by(api: Api, chat: str, query: str) -> tuple[str, dict[str, Any]]:
    """The reply to `query`, and the meta of its stored message."""
    response = ask(api, chat, query)
    assert response.status_code == 200, response.text
    meta: dict[str, Any] = json.loads(messages(api, chat)[-1]["meta_json"])
    return response.text, meta


@pytest.fixture
def shop(alice: Api) -> str:
    """A chatbot with two user-facing agents instead of the default one."""
    bot: str = alice.chatbot()["uuid"]
    disable_default(alice, bot)
    agent(alice, bot, "user-facing", "Billing", BILLING)
    agent(alice, bot, "user-facing", "Shipping", SHIPPING)
    return bot


def test_each_query_goes_to_the_agent_whose_description_fits(alice: Api, shop: str) -> None:
    chat = new_session(alice, shop)
    _, meta = answered_by(alice, chat, "When will my parcel arrive?")
    assert (meta["agent_name"], meta["routing"]) == ("Shipping", {"forced": False, "reason": "scored"})
    _, meta = answered_by(alice, chat, "I was charged twice for the same invoice")
    assert meta["agent_name"] == "Billing" and meta["agent_type"] == "user-facing"


def test_a_third_agent_and_a_pre_canned_one_take_their_queries(alice: Api, shop: str) -> None:
    agent(alice, shop, "pre-canned", "Jobs", JOBS, meta={"default_message": HIRING_REPLY})
    chat = new_session(alice, shop)
    text, meta = answered_by(alice, chat, "Are you hiring? I would like to apply for a job")
    assert text == HIRING_REPLY and meta["agent_name"] == "Jobs"
    assert messages(alice, chat)[-1]["cite_data_json"] in ("{}", "[]", "null")
    _, meta = answered_by(alice, chat, "How do I track my parcel?")
    assert meta["agent_name"] == "Shipping"


def test_a_disabled_agent_never_answers(alice: Api, shop: str) -> None:
    [shipping] = [a for a in alice.ok(alice.get(f"/chatbot/{shop}/agents")) if a["name"] == "Shipping"]
    alice.ok(alice.post(f"/agent/{shipping['uuid']}/update", {"enabled": False}))
    _, meta = answered_by(alice, new_session(alice, shop), "When will my parcel arrive?")
    assert meta["agent_name"] == "Billing" and meta["routing"] == {"forced": True, "reason": "only agent"}


def test_bias_favours_an_agent_and_stickness_keeps_the_last_one(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    disable_default(alice, bot)
    agent(alice, bot, "user-facing", "Desk A", SHIPPING, stickness=1.0)
    agent(alice, bot, "user-facing", "Desk B", SHIPPING)
    chat = new_session(alice, bot)
    assert answered_by(alice, chat, "Where is my parcel?")[1]["agent_name"] == "Desk A"  # equals: the first
    [desk_b] = [a for a in alice.ok(alice.get(f"/chatbot/{bot}/agents")) if a["name"] == "Desk B"]
    alice.ok(alice.post(f"/agent/{desk_b['uuid']}/update", {"bias": 0.4}))
    # Desk A answered last and sticks (1.0 x 0.25) more than Desk B's bias pulls (0.4 x 0.25)...
    assert answered_by(alice, chat, "Where is my parcel?")[1]["agent_name"] == "Desk A"
    # ...while in a new conversation nothing sticks, and the bias decides.
    assert answered_by(alice, new_session(alice, bot), "Where is my parcel?")[1]["agent_name"] == "Desk B"


def test_spam_goes_to_the_spam_guard_without_scoring(alice: Api, shop: str) -> None:
    agent(alice, shop, "spam-defense", "Guard", "Spam and abuse", meta={"default_message": "No, thank you."})
    chat = new_session(alice, shop)
    flood = "cheap pills http://a.example http://b.example http://c.example"
    text, meta = answered_by(alice, chat, flood)
    assert text == "No, thank you." and meta["routing"] == {"forced": True, "reason": "spam: links"}
    _, meta = answered_by(alice, chat, "When will my parcel arrive?")
    assert meta["agent_name"] == "Shipping"


def test_asking_for_a_person_flags_the_session(alice: Api, shop: str) -> None:
    hand_off = agent(
        alice, shop, "human-escalation", "Human hand-off", "Talk to a real person, a human operator, staff"
    )
    chat = new_session(alice, shop)
    assert alice.ok(alice.get(f"/session/{chat}"))["meta"]["human_requested"] is False
    text, meta = answered_by(alice, chat, "I want to talk to a real person please")
    assert text.startswith("I have let our team know") and meta["agent_type"] == "human-escalation"
    assert alice.ok(alice.get(f"/session/{chat}"))["meta"]["human_requested"] is True
    # Our default reply speaks the visitor's language; an owner's own words stay as written.
    german, _ = answered_by(alice, new_session(alice, shop), "Ich möchte bitte mit einem Menschen sprechen")
    assert german.startswith("Ich habe unser Team informiert."), german
    own = {"human_escalation_settings": {"human_requested_message": "Moment, Sam kommt gleich."}}
    alice.ok(alice.post(f"/agent/{hand_off}/update", own))
    german, _ = answered_by(alice, new_session(alice, shop), "Ich möchte bitte mit einem Menschen sprechen")
    assert german == "Moment, Sam kommt gleich."


def test_the_choice_that_goes_with_the_offer_of_a_person_reaches_the_hand_off(alice: Api, shop: str) -> None:
    """A button pressed is asked as its text: "Talk to a person" must read as a request for a person in each
    language the intents know it in."""
    agent(alice, shop, "human-escalation", "Human hand-off", "Talk to a real person, a human operator, staff")
    for language in ("en", "de", "es", "fr", "zh"):
        choice = i18n.talk_to_person(Language(language))
        _, meta = answered_by(alice, new_session(alice, shop), choice)
        assert meta.get("agent_type") == "human-escalation", (language, choice, meta.get("routing"))


def test_the_spam_rules() -> None:
    assert spam_reason("When will my parcel arrive?") is None
    assert spam_reason("see https://example.com for the manual") is None
    assert spam_reason("x" * 2001) == "oversize"
    assert spam_reason("buy www.a.example www.b.example www.c.example") == "links"
    assert spam_reason("help!!!!!!!!!!!!!!!!!!!!!!!!") == "repetition"
    assert spam_reason(" ".join(["win"] * 12)) == "repetition"
    assert spam_reason("zork blip quux zork blip quux zork blip quux") == "repetition"  # a few words over and over
    assert spam_reason("Can I return the shoes I bought last week if they turn out to be too small?") is None


def test_scores_add_bias_and_stickness_to_closeness() -> None:
    a, b = Candidate("a", "A", "", bias=0.0, stickness=0.8), Candidate("b", "B", "", bias=0.5)
    assert best([a, b], [0.5, 0.5], previous_uuid=None) == 1  # bias
    assert best([a, b], [0.5, 0.5], previous_uuid="a") == 0  # stickness outweighs it
    assert best([a, b], [0.9, 0.5], previous_uuid=None) == 0  # closeness first
    assert best([Candidate("x", "X", ""), Candidate("y", "Y", "")], [0.3, 0.3], None) == 0  # equals: the first


def test_a_chatbot_without_an_enabled_agent_says_so(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    disable_default(alice, bot)
    agent(alice, bot, "background", "Tagger", "Tags conversations")  # enabled, but it never replies
    text, meta = answered_by(alice, new_session(alice, bot), "When will my parcel arrive?")
    assert text == "Sorry, this chatbot cannot answer right now."
    assert meta["routing"] == {"forced": True, "reason": "no enabled agent"} and "agent_uuid" not in meta


GATED = [
    Candidate("p", "Person", "Talk to a person", type="human-escalation"),
    Candidate("g", "Guard", "Spam", type="spam-defense"),
    Candidate("n", "Notice", "Storm closure", type="pre-canned"),
    Candidate("d", "Desk", "Orders and delivery"),
    Candidate("s", "Sales", "Prices and quotes"),
]


def reading(*units: tuple[Intent, float, float], closeness: list[float] | None = None) -> Reading:
    """A reading of as many units as given (intent, similarity, lead), each with the same `closeness`."""
    row = closeness or [0.3, 0.3, 0.3, 0.3, 0.3]
    return Reading([row for _ in units], [UnitIntent(intent, sim, lead, lead, None) for intent, sim, lead in units])


def test_the_special_agents_need_clear_evidence_and_the_default_agent_takes_the_rest() -> None:
    asks = decide(GATED, "q", reading((Intent.QUESTION, 0.5, 0.1), (Intent.PERSON, 0.6, 0.2)), None)
    assert asks == Decision(0, Intent.PERSON)  # one clause asks for a person
    assert decide(GATED, "q", reading((Intent.PERSON, 0.6, 0.01)), None) == Decision(3, "scored")  # not clearly
    assert decide(GATED, "q", reading((Intent.COMPLAINT, 0.7, 0.3)), None) == Decision(3, "scored")
    attack = reading((Intent.PERSON, 0.6, 0.2), (Intent.INJECTION, 0.6, 0.2))
    assert decide(GATED, "q", attack, None) == Decision(1, "spam: prompt injection")  # an attack before a request
    topic = reading((Intent.QUESTION, 0.5, 0.1), closeness=[0.1, 0.1, 0.6, 0.4, 0.3])
    assert decide(GATED, "q", topic, None) == Decision(2, "topic")
    near = reading((Intent.QUESTION, 0.5, 0.1), closeness=[0.1, 0.1, 0.45, 0.4, 0.3])
    assert decide(GATED, "q", near, None) == Decision(3, "scored")  # its topic, but not clearly more than Desk's


def test_small_talk_must_be_clearly_nearer_its_kind_than_any_question() -> None:
    hello = next(p for p in PROTOTYPES if p.intent == Intent.SMALL_TALK and p.text == "hello")

    def chat(similarity: float, question_lead: float) -> Decision | None:
        unit = UnitIntent(Intent.SMALL_TALK, similarity, 0.3, question_lead, hello)
        return small_talk(GATED, "hi", Reading([[0.3] * len(GATED)], [unit]))

    assert chat(0.8, 0.4) == Decision(3, Intent.SMALL_TALK, "Hello! How can I help you today?")
    assert chat(0.55, 0.08) is None  # about as near a question: it asks something ("how is the weather today?")
    assert chat(0.45, 0.4) is None  # not near enough small talk at all


def test_another_user_facing_agent_needs_a_clear_lead_and_more_so_against_the_last_one() -> None:
    slight = reading((Intent.QUESTION, 0.5, 0.1), closeness=[0.1, 0.1, 0.1, 0.40, 0.43])
    assert decide(GATED, "q", slight, None).index == 3  # the default keeps what it may answer as well
    clear = reading((Intent.QUESTION, 0.5, 0.1), closeness=[0.1, 0.1, 0.1, 0.40, 0.50])
    assert decide(GATED, "q", clear, None).index == 4
    assert decide(GATED, "q", clear, previous_uuid="d").index == 3  # a follow-up stays with Desk
    assert decide(GATED, "q", slight, previous_uuid="s").index == 4  # ...or with Sales


def test_without_vectors_one_word_never_reaches_another_type() -> None:
    person = [Candidate("p", "Person", "talk to a person, help", type="human-escalation"), Candidate("d", "Desk", "")]
    assert decide(person, "help", None, None) == Decision(1, "scored")
    assert decide(person, "please let me talk to a person", None, None) == Decision(0, "scored")


def test_the_models_equal_ratings_go_to_the_default_agent() -> None:
    assert rated(GATED, [0.5, 0.5, 0.5, 0.5, 0.5], None) == Decision(3, "rated")
    assert rated(GATED, [0.9, 0.5, 0.5, 0.5, 0.5], None) == Decision(0, "rated")


def test_a_description_has_facets_and_a_message_has_clauses() -> None:
    shop = Candidate("s", "Shop", "Orders: delivery, returns (30 days) and gift cards.")
    assert shop.facets == ["Orders", "delivery", "returns", "30 days", "and gift cards"]
    assert clauses("ok, can I talk to someone? Thanks") == ["ok,", "can I talk to someone?", "Thanks"]

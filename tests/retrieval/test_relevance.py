"""The relevance decision: its rules on made-up evidence, the bundled model's `reads`, and what hit testing and the
answer settings show of it through the API on both databases."""

from __future__ import annotations

import pytest

from botyard.embedding.minilm import MiniLMEmbedder
from botyard.retrieval.relevance import REQUIRED, Evidence, Reason, Strictness, assess, coverage
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.jobs import process
from tests.support.sources import qa


def test_nothing_found_is_not_relevant() -> None:
    decision = assess([])
    assert (decision.relevant, decision.reason, decision.best) == (False, Reason.NOTHING_FOUND, None)
    assert decision.explanation == "Nothing in the knowledge matched the question."


def test_similarity_and_coverage_add_up_and_the_best_of_the_judged_hits_decides() -> None:
    evidence = [Evidence(0.2, 0.1), Evidence(0.3, 0.15), Evidence(0.1, 0.0), Evidence(0.0, 0.0), Evidence(0.9, 0.9)]
    decision = assess(evidence)
    # The fifth hit is not judged (the offline answerer quotes from the best four only).
    assert decision.best == 1 and decision.score == pytest.approx(0.45)
    assert decision.relevant and decision.reason is Reason.MATCHED
    assert "similarity 0.30 + coverage of the question's words 0.15 = 0.45, at least the 0.40" in decision.explanation


def test_the_bar_rises_with_what_unrelated_questions_find_in_the_knowledge() -> None:
    evidence = [Evidence(0.5, 0.5)]  # 1.0
    small = [0.05, 0.1, 0.1, 0.2, 0.25]  # a few pages: unrelated questions find nothing
    large = [0.6, 0.7, 0.8, 0.9, 1.1, 1.2]  # thousands of web passages: their words are always somewhere
    assert assess(evidence, Strictness.BALANCED, small).required == REQUIRED[Strictness.BALANCED]
    crowded = assess(evidence, Strictness.BALANCED, large)
    assert crowded.required == pytest.approx(1.05) and not crowded.relevant
    assert assess(evidence, Strictness.LOOSE, large).required == pytest.approx(0.85)
    assert assess(evidence, Strictness.STRICT, large).required == pytest.approx(1.2)


def test_each_strictness_asks_for_more_evidence() -> None:
    evidence = [Evidence(0.35, 0.1)]  # 0.45
    verdicts = {strictness: assess(evidence, strictness).relevant for strictness in Strictness}
    assert verdicts == {Strictness.LOOSE: True, Strictness.BALANCED: True, Strictness.STRICT: False}
    assert REQUIRED[Strictness.LOOSE] < REQUIRED[Strictness.BALANCED] < REQUIRED[Strictness.STRICT]
    weak = assess(evidence, Strictness.STRICT)
    assert weak.reason is Reason.WEAK_MATCH and "below the 0.55" in weak.explanation


def test_coverage_weighs_each_word_by_how_specific_it_is() -> None:
    weights = {"botox": 3.0, "offer": 1.0}
    assert coverage(weights, {"offer", "whiten"}) == pytest.approx(0.25)  # the specific word is what is missing
    assert coverage(weights, {"botox"}) == pytest.approx(0.75)
    assert coverage({}, {"anything"}) == 0.0


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(
    ("text", "reads"),
    [
        ("How long does delivery to Austria take?", True),
        ("emergency number?", True),
        ("Wie lange dauert die Lieferung nach Österreich?", False),
        ("寄到新疆邮费多少？", False),  # noqa: RUF001 (a Chinese question mark)
        ("", False),
    ],
)
def test_the_english_model_reads_english_only(minilm: MiniLMEmbedder, text: str, reads: bool) -> None:
    assert minilm.reads(text) is reads


@pytest.fixture
def bot(alice: Api) -> str:
    uuid: str = alice.chatbot("Hit testing")["uuid"]
    qa(alice, uuid, "When is the shop open?", "From nine to five, Monday to Friday; Saturdays ten to two.")
    process(alice.client)
    return uuid


def retrieve(alice: Api, bot: str, query: str, **body: object) -> dict[str, object]:
    found: dict[str, object] = alice.ok(alice.post(f"/chatbot/{bot}/retrieve", {"query": query, **body}))
    return found


def test_hit_testing_shows_the_decision_answering_makes(alice: Api, bot: str) -> None:
    found = retrieve(alice, bot, "What are your opening hours on Saturday?")
    decision = found["decision"]
    assert isinstance(decision, dict) and isinstance(found["chunks"], list)
    assert decision["relevant"] is found["relevant"] is True and decision["reason"] == "matched"
    assert decision["required"] == REQUIRED[Strictness.BALANCED] and decision["score"] >= decision["required"]
    assert decision["best_chunk"] == found["chunks"][0]["uuid"]
    assert f"= {decision['score']:.2f}" in decision["explanation"]
    assert 0 < found["chunks"][0]["coverage"] <= 1

    declined = retrieve(alice, bot, "Who won the football world cup in 1998?")["decision"]
    assert isinstance(declined, dict)
    assert declined["relevant"] is False and declined["reason"] == "weak_match"
    assert declined["score"] < declined["required"]


def test_answer_settings_make_a_chatbot_stricter_and_hit_testing_follows(alice: Api, bot: str) -> None:
    path = f"/chatbot/{bot}/answer-settings"
    assert alice.ok(alice.get(path))["strictness"] == "balanced"
    assert alice.ok(alice.post(path, {"strictness": "strict"}))["strictness"] == "strict"
    assert alice.ok(alice.get(path))["strictness"] == "strict"
    decision = retrieve(alice, bot, "opening hours")["decision"]
    assert isinstance(decision, dict) and decision["required"] == REQUIRED[Strictness.STRICT]
    tried = retrieve(alice, bot, "opening hours", strictness="loose")["decision"]
    assert isinstance(tried, dict) and tried["required"] == REQUIRED[Strictness.LOOSE]
    # The hosted chatbot object keeps its exact keys.
    assert set(alice.ok(alice.get(f"/chatbot/{bot}"))["meta"]) == {
        "rate_limit",
        "rate_limit_message",
        "show_citations",
        "visibility",
    }


def test_answer_settings_refuse_bad_values_and_other_accounts(alice: Api, bob: Api, bot: str) -> None:
    path = f"/chatbot/{bot}/answer-settings"
    error = assert_error(alice.post(path, {"strictness": "paranoid"}), 422, "validation_error")
    assert error["details"][0]["field"] == "strictness"
    assert alice.ok(alice.get(path))["strictness"] == "balanced"  # nothing written
    assert_not_found(bob.get(path))
    assert_not_found(bob.post(path, {"strictness": "loose"}))
    assert_not_found(alice.get("/chatbot/" + "f" * 32 + "/answer-settings"))

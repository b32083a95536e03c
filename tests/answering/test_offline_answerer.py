# ruff: noqa: RUF001  (Chinese punctuation is what Chinese texts are written with)
"""The offline answerer, citations numbering, query rewriting for follow-ups and the JSON guard, without HTTP."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

from botyard.answering.base import AnswerRequest, Finished, Turn
from botyard.answering.context import search_query
from botyard.answering.offline.answerer import WORDS_PER_DELTA, OfflineAnswerer, compose
from botyard.answering.offline.asked import Kind, asked_kinds, asking_words, stated_kinds
from botyard.answering.text import word_groups
from botyard.answering.turn.citations import CitedSource, cite_data, markers_in, number_hits
from botyard.answering.turn.json_guard import NOT_JSON, json_guard
from botyard.i18n import Language
from botyard.llm.provider import TextDelta
from botyard.passages import PassageKind
from botyard.passages import passages as sentences
from botyard.retrieval.base import QUOTED_HITS, Hit

HOURS = """# Opening hours

The shop in Springfield is open from nine in the morning to five in the afternoon, Monday to Friday. On Saturdays it
opens from ten to two. It is closed on Sundays and on public holidays.

## Holiday season

During December the shop stays open until eight in the evening on weekdays. Gift wrapping is free of charge."""

SHIPPING = """# Shipping

We ship to every country of the European Union. Parcels arrive within three to five working days. Shipping is free
for orders above fifty euros; below that it costs four euros ninety."""


def hit(text: str, source: str, kind: str = "upload", score: float = 1.0, **meta: Any) -> Hit:
    return Hit(f"c-{source}-{len(text)}", source, f"Title {source}", kind, "", text, score, source_meta=meta)


def qa(question: str, answer: str, source: str) -> Hit:
    return hit(f"{question}\n\n{answer}", source, "qa", question=question, answer=answer)


def request(query: str, *hits: Hit, show: bool = True, history: list[Turn] | None = None) -> AnswerRequest:
    return AnswerRequest(query=query, hits=number_hits(list(hits)), history=history or [], show_citations=show)


def run(answer_request: AnswerRequest) -> tuple[list[str], Finished]:
    async def go() -> tuple[list[str], Finished]:
        deltas: list[str] = []
        async for event in OfflineAnswerer().answer(answer_request):
            if isinstance(event, TextDelta):
                deltas.append(event.text)
            else:
                return deltas, event
        raise AssertionError("no Finished")

    return asyncio.run(go())


def test_numbering_is_by_source_then_chunk_in_ranking_order() -> None:
    hits = [hit("a", "s1"), hit("b", "s2"), hit("c", "s1"), hit("d", "s3"), hit("e", "s2")]
    assert [cited.marker for cited in number_hits(hits)] == ["1.1", "2.1", "1.2", "3.1", "2.2"]


def test_a_matching_qa_pair_answers_with_its_answer() -> None:
    pair = qa("Do you deliver on Sundays?", "No, deliveries run Monday to Saturday.", "q1")
    text = compose(request("do you deliver on sunday", pair, hit(SHIPPING, "s2")))
    assert text == "No, deliveries run Monday to Saturday [1.1]."
    assert compose(request("do you deliver on sunday", pair, show=False)) == "No, deliveries run Monday to Saturday."


def test_a_qa_pair_below_a_page_answers_when_its_question_matches() -> None:
    pair = qa("How much is shipping?", "Shipping costs 4.90 euros, free above 50 euros.", "q1")
    text = compose(request("How much does shipping cost?", hit(HOURS, "s1"), pair))
    assert text.startswith("Shipping costs 4.90 euros") and "[2.1]" in text


def test_a_qa_pair_whose_answer_only_shares_words_is_quoted_beside_what_answers() -> None:
    records = qa(
        "Can you get my records from my previous dentist?",
        "Yes. Give reception the name and address of your previous practice and we request your records.",
        "q1",
    )
    page = hit("Northgate opened in 2021 at 220 Northgate Road. It has six surgeries.", "s2")
    # Meaning as retrieval gives it: the page is about the question, the pair much less.
    hits = [replace(records, scores={"dense": 0.2}), replace(page, scores={"dense": 0.5})]
    weights = {"address": 1.0, "northgat": 1.0, "practic": 1.0}  # the question's terms, as retrieval weighs them
    text = compose(replace(request("What's the address of your Northgate practice?", *hits), term_weights=weights))
    assert "220 Northgate Road" in text  # not the pair's answer alone, which the best-matching sentence is in
    assert compose(request("Can you get my records from my previous dentist?", *hits)).startswith("Yes. Give")


def test_the_answer_is_the_sentences_about_the_question_not_the_chunk() -> None:
    text = compose(request("When is the shop open on Saturdays?", hit(HOURS, "s1"), hit(SHIPPING, "s2")))
    assert "On Saturdays it opens from ten to two" in text
    assert "#" not in text and "Opening hours" not in text  # no Markdown, no headings quoted
    assert "ship" not in text.lower()  # the other chunk says nothing about the question
    assert len(text.split()) <= 90
    assert markers_in(text) == ["1.1"]


def test_sentences_from_two_chunks_each_carry_their_marker() -> None:
    text = compose(request("Is gift wrapping free and is shipping free?", hit(HOURS, "s1"), hit(SHIPPING, "s2")))
    assert "Gift wrapping is free of charge [1.1]." in text
    assert "[2.1]" in text


def test_the_stream_is_word_groups_that_join_to_the_answer_with_usage() -> None:
    answer_request = request("When is the shop open?", hit(HOURS, "s1"))
    deltas, finished = run(answer_request)
    assert len(deltas) > 1 and all(len(d.split()) <= WORDS_PER_DELTA for d in deltas)
    assert "".join(deltas) == compose(answer_request)
    assert finished.finish_reason == "stop"
    assert finished.usage.prompt_tokens > 0 and finished.usage.completion_tokens > 0


def test_word_groups_keep_newlines_and_every_character() -> None:
    text = "Line one has words.\n\n- item ünïcødé 🎉\n- second   item\n"
    assert "".join(word_groups(text)) == text


def test_markdown_structure_does_not_leak_into_passages() -> None:
    found = [s.text for s in sentences("| a | b |\n|---|---|\n| 1 | **two** |\n\n- [link](http://x) here")]
    assert found == ["1: two", "link here"]  # the header row is no passage; a row with one value reads "what: value"


def test_a_table_row_is_its_cells_with_their_column_names() -> None:
    table = "| Country | Delivery time | Standard shipping |\n|---|---|---|\n| Austria | 3-4 business days | 6.95 EUR |"
    found = sentences(table)
    assert [p.text for p in found] == ["Austria — Delivery time: 3-4 business days, Standard shipping: 6.95 EUR"]
    assert found[0].kind is PassageKind.ROW


def test_follow_ups_borrow_the_last_turns_key_terms() -> None:
    history = [Turn("When is the shop in Springfield open?", "Monday to Friday, nine to five.")]
    assert search_query("What about Saturdays?", history) == "What about Saturdays? shop springfield open"
    assert search_query("And is it open on Sundays?", history).startswith("And is it open on Sundays? shop")
    standalone = "How much does shipping to Germany cost for large parcels?"
    assert search_query(standalone, history) == standalone
    assert search_query("What about Saturdays?", []) == "What about Saturdays?"


def test_follow_ups_borrow_back_to_the_last_question_that_named_its_subject() -> None:
    returns = Turn("Can I return something I bought?", "Within 30 days.")
    shipping = Turn("How much does shipping cost?", "Twelve euros.")
    borrowed = search_query("And how long does it take?", [returns, shipping]).split("?", 1)[1].split()
    assert "shipping" in borrowed and "return" not in borrowed
    saturdays = Turn("And on Saturdays?", "Ten to two.")
    opening = Turn("When is the shop open?", "Nine to five.")
    borrowed = search_query("And on Sundays?", [opening, saturdays]).split("?", 1)[1].split()
    assert {"saturdays", "shop", "open"} <= set(borrowed)


def test_a_follow_up_is_answered_from_the_context() -> None:
    history = [Turn("When is the shop open?", "Monday to Friday, nine to five.")]
    text = compose(request("What about Saturdays?", hit(HOURS, "s1"), history=history))
    assert "Saturdays it opens from ten to two" in text


PLANS = """| Plan | Free | Starter | Business |
|---|---|---|---|
| Price per user / month, billed monthly | $0 | $10 | $19 |
| Price per user / month, billed annually | $0 | $8 | $16 |
| Storage per workspace | 2 GB | 100 GB | 1 TB |"""


def test_a_follow_up_is_not_answered_again_with_what_it_was_shown() -> None:
    """The stemmer reads "monthly" as "month", which both rows hold; the annual row was brought by the first
    question's words, and only the follow-up's own words may bring it again."""
    first = "How much is the Starter plan per user on annual billing?"
    shown = "Price per user / month, billed annually — Free: $0, Starter: $8, Business: $16 [1.1]"
    # A price table says "month" in every row and "pay" nowhere: the rarer word weighs more (its idf).
    idf = {"month": 1.0, "pay": 2.0, "starter": 1.0, "plan": 1.0, "user": 1.0, "annual": 3.0, "bill": 1.0}
    again = replace(
        request("and if we pay monthly instead?", hit(PLANS, "p1"), history=[Turn(first, shown)]), term_weights=idf
    )
    assert compose(again).startswith("Price per user / month, billed monthly — Free: $0, Starter: $10")


def test_cite_data_names_only_the_markers_in_the_text() -> None:
    cited = number_hits([hit("Alpha text", "s1"), hit("Beta text", "s2", "link")])
    sources = {
        "s1": CitedSource("Guide", "guide.pdf", "upload", {"reference_source_link": "https://example.com/guide"}),
        "s2": CitedSource("Page", "https://example.com/page", "link", {}),
    }
    data = cite_data("See this [2.1] and [9.9].", cited, sources, show_citations=True)
    assert data == {
        "2.1": {
            "data_source_uuid": "s2",
            "title": "Page",
            "text": "Beta text",
            "file_name": "https://example.com/page",
            "type": "link",
        }
    }
    with_link = cite_data("[1.1]", cited, sources, show_citations=True)
    assert with_link["1.1"]["reference_source_link"] == "https://example.com/guide"
    assert cite_data("[1.1]", cited, sources, show_citations=False) == {}


def test_the_json_guard_makes_json_looking_answers_not_json() -> None:
    for answer in ["42", '"x"', "true", "null", "[1, 2]", '{"a": 1}', " 3.5 \n", "NaN", "-Infinity"]:
        guard = json_guard(answer)
        assert guard == NOT_JSON
        body = answer + guard
        try:
            json.loads(body)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{body!r} is still JSON")
        assert body.strip().endswith(NOT_JSON)  # invisible, and not whitespace: strip() keeps it
    for answer in ["", "The shop opens at nine.", "42 is the answer.", "- one\n- two"]:
        assert json_guard(answer) == ""


def test_the_kind_of_value_a_question_asks_for_is_read_in_several_languages() -> None:
    assert asked_kinds("trial length?") == {Kind.DURATION}
    assert asked_kinds("How much is the Starter plan?") == {Kind.PRICE}
    assert asked_kinds("Bis wann am Nachmittag muss das Rad bei euch sein?") == {Kind.CLOCK}
    assert asked_kinds("Was kostet eine Inspektion?") == {Kind.PRICE}
    assert (
        asked_kinds("Is there a good-value deal at noon?") == asked_kinds("Wo ist es am günstigsten?") == {Kind.PRICE}
    )
    assert asked_kinds("买回去的茶最多能存放多长时间？") == {Kind.DURATION}
    assert asked_kinds("寄到新疆邮费多少钱？") == {Kind.PRICE}
    assert asked_kinds("What's your phone number?") == {Kind.PHONE}
    assert asked_kinds("Do you have wheelchair access?") == set()
    assert asked_kinds("Wo genau ist eure Werkstatt?") == asked_kinds("你们店在哪里？") == {Kind.ADDRESS}
    assert asked_kinds("Old Town address?") == {Kind.ADDRESS}
    # Where an order is asks for no address.
    assert asked_kinds("Where is my parcel?") == asked_kinds("我的快递在哪？") == set()
    kinds = set(Kind)
    assert stated_kinds("free for 14 days", kinds) == {Kind.DURATION}
    assert stated_kinds("Reparaturen nehmen wir bis 17:30 an.", kinds) == {Kind.CLOCK}
    assert stated_kinds("Die Stunde kostet 68 €.", kinds) == {Kind.PRICE}
    assert stated_kinds("本店茶叶的保质期为18个月。", kinds) == {Kind.DURATION}
    assert stated_kinds("Call 01632 960 455.", kinds) == {Kind.PHONE}
    assert stated_kinds("At the end of the trial the workspace moves to the Free plan.", kinds) == set()
    for address in ("at 220 Northgate Road", "Am Kettenhof 12 (Hinterhof)", "04229 Leipzig", "Port Aldric PA3 9NR"):
        assert stated_kinds(address, kinds) == {Kind.ADDRESS}, address
    assert stated_kinds("杭州市西湖区龙井路18号", {Kind.ADDRESS}) == {Kind.ADDRESS}
    assert stated_kinds("The 3 Road trips we run", kinds) == set()


TRIAL = (
    "New workspaces can try the Business plan free for 14 days, with no credit card. "
    "At the end of the trial the workspace moves to the Free plan unless you choose a paid plan. "
    "You can only run one trial per workspace."
)


def test_the_passage_that_states_the_asked_kind_of_value_answers() -> None:
    # "length" is in no text, so it weighs most; only the first sentence says how long, none says "length".
    asked = replace(request("trial length?", hit(TRIAL, "s1")), term_weights={"trial": 1.2, "length": 2.5})
    assert "14 days" in compose(asked)
    storage = "茶叶请存放在阴凉、干燥、避光的地方。除普洱茶以外，本店所有茶叶的保质期均为18个月。"
    asked = replace(
        request("买回去的茶最多能存放多长时间？", hit(storage, "s2")), term_weights={"存放": 1.0, "时间": 2.0}
    )
    assert "18个月" in compose(asked)
    workshop = "Der Abholservice gilt im Umkreis von 15 km um unsere Werkstatt. Sie finden uns Am Kettenhof 12 im Hof."
    asked = replace(
        request("Wo genau ist eure Werkstatt?", hit(workshop, "s3")), term_weights={"genau": 2.0, "werkstatt": 1.0}
    )
    assert compose(asked).startswith("Sie finden uns Am Kettenhof 12")
    # A question asking for no kind of value reads the words alone.
    assert compose(replace(request("Is there a trial?", hit(TRIAL, "s1")), term_weights={"trial": 1.2})).startswith(
        "At the end of the trial"
    )


def test_the_answer_may_come_from_a_lower_ranked_chunk_than_the_judged_ones() -> None:
    # The relevance decision judges the best 4; the passage that answers is in the 6th hit, and it is the one whose
    # own cosine with the question says so.
    others = [hit(f"{HOURS} Branch {number}.", f"s{number}") for number in range(5)]
    lower = replace(hit(SHIPPING, "s5"), passage_similarity=(0.1, 0.8, 0.2))
    others = [replace(other, passage_similarity=tuple(0.1 for _ in sentences(other.text))) for other in others]
    asked = replace(request("How many days until my parcel gets here?", *others, lower), term_weights={"parcel": 2.0})
    assert len(sentences(SHIPPING)) == 3 and QUOTED_HITS >= 6
    assert compose(asked).startswith("Parcels arrive within three to five working days.")


def test_the_asked_kinds_are_read_in_french_spanish_italian_portuguese_and_arabic() -> None:
    assert asked_kinds("Combien coûte la livraison ?") == {Kind.PRICE}
    assert asked_kinds("Combien de temps dure la garantie ?") == {Kind.DURATION}
    assert asked_kinds("¿Cuánto cuesta el envío?") == asked_kinds("Quanto costa la spedizione?") == {Kind.PRICE}
    assert asked_kinds("¿Cuánto tiempo tarda la reparación?") == {Kind.DURATION}
    assert asked_kinds("Qual é o endereço da loja?") == {Kind.ADDRESS}
    assert asked_kinds("كم سعر الشحن؟") == {Kind.PRICE}
    assert asked_kinds("كم من الوقت يستغرق التوصيل؟") == {Kind.DURATION}
    kinds = set(Kind)
    assert stated_kinds("La garantie couvre la batterie pendant 1 an.", kinds) == {Kind.DURATION}
    assert stated_kinds("El envío tarda 3 días y cuesta 5 €.", kinds) == {Kind.DURATION, Kind.PRICE}
    assert stated_kinds("التوصيل خلال ٣ أيام", kinds) == {Kind.DURATION}
    assert asking_words("Combien de temps dure la garantie ?", {Kind.DURATION}) == "Combien de temps"


PRICES = """# Services

| Service | Price |
|---|---|
| Full service | 89 euros |
| E-bike service (including motor diagnostics) | 119 euros |"""


def test_table_rows_are_one_fact_a_line_and_the_best_passage_leads() -> None:
    helmets = "# Rentals\n\nHelmets are included free of charge with every rental."
    text = compose(request("How much is an e-bike service and a full service?", hit(helmets, "r"), hit(PRICES, "p")))
    lines = text.splitlines()
    assert lines[0] == "E-bike service (including motor diagnostics): 119 euros", text  # the best fact leads
    assert lines[1].startswith("Full service: 89 euros"), text  # one fact a line
    assert "Helmets" not in lines[0], text


def test_a_qa_pair_that_only_points_elsewhere_gives_way_to_the_fact() -> None:
    pointer = qa("How much does it cost to rent an e-bike?", "Please see our rental terms for prices.", "q")
    terms = hit("# Rental terms\n\nAn e-bike rents for 35 euros a day, with 20 percent off for a week.", "t")
    text = compose(request("How much does it cost to rent an e-bike?", pointer, terms))
    assert "35 euros a day" in text and "see our rental terms" not in text, text
    # A pair that states the price still answers alone.
    priced = qa("How much does it cost to rent an e-bike?", "An e-bike costs 35 euros a day.", "q")
    assert compose(request("How much does it cost to rent an e-bike?", priced, terms)).startswith("An e-bike costs")


def test_an_unsure_reply_names_the_lacking_words_apart_and_never_a_whole_chinese_sentence() -> None:
    discounts = hit("# Discounts\n\nPatients over 65 get a discount of 10 percent.", "d")
    weights = {"student": 4.0, "friend": 4.0, "discount": 1.0}
    asked = replace(
        request("Is there a student discount for a friend?", discounts, show=False),
        term_weights=weights,
        unseen_terms=frozenset({"student", "friend"}),
    )
    deltas, finished = run(asked)
    assert "".join(deltas).startswith("I couldn't find anything about “student, friend”. The closest I found:")
    assert finished.meta["confidence"] == "low"
    tea = hit("# 茶叶\n\n只卖当季、当年的绿茶，不卖陈茶。", "t")
    chinese = replace(
        request("你们卖紫砂壶之类的茶具吗？", tea, show=False),
        term_weights={"紫砂": 4.0, "茶具": 4.0},
        unseen_terms=frozenset({"紫砂", "茶具"}),
        language=Language.ZH,
    )
    deltas, _ = run(chinese)
    assert "".join(deltas).startswith("我不确定我的资料能回答这个问题。"), deltas  # not the question quoted back

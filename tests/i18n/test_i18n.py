# ruff: noqa: RUF001  (Chinese punctuation and Turkish letters are what those texts are written with)
"""The languages a chatbot speaks (`botyard.i18n`): which language a text is in, a knowledge base's main language,
and Botyard's own texts in each language (complete, the English ones byte for byte the hosted service's)."""

from __future__ import annotations

import json
import re

import pytest

from botyard import i18n
from botyard.agents.rules import DEFAULT_MESSAGES
from botyard.answering.routing.intents import PROTOTYPES, Intent, friendly_reply
from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from botyard.chatbots.defaults import DEFAULT_AGENT_PROMPT
from botyard.i18n import Language
from botyard.models.agent_meta import DEFAULT_ESCALATION_SETTINGS
from botyard.widget.schemas import DEFAULTS
from tests.support.paths import SOURCE

SRC = SOURCE
TEXTS = json.loads((SRC / "i18n" / "texts.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("How much does shipping to Canada cost?", "en"),
        ("Was kostet der Versand nach Österreich?", "de"),
        ("Quanto costa la spedizione?", "it"),
        ("Сколько стоит доставка?", "ru"),
        ("运费是多少？我们的茶叶什么时候发货？", "zh"),
        ("送料はいくらですか？", "ja"),
        ("배송비는 얼마인가요?", "ko"),
        ("ما هي ساعات العمل؟", "ar"),
        ("هزینه ارسال چقدر است؟", "fa"),
        ("شپنگ کی قیمت کیا ہے؟", "ur"),
        ("כמה עולה המשלוח?", "he"),
        ("ค่าจัดส่งเท่าไหร่", "th"),
        ("शिपिंग कितनी है?", "hi"),
        ("Ile kosztuje wysyłka do Łodzi? Przesyłka jest płatna.", "pl"),
        ("Siparişimi ne zaman alırım? Kargo ücreti ne kadar?", "tr"),
        # No language of their own: a name, a number, a word no stop word list holds.
        ("Eiffel 1889?", None),
        ("Öffnungszeiten?", None),
        ("", None),
    ],
)
def test_the_language_of_a_text(text: str, language: str | None) -> None:
    assert i18n.language_of(text) == (Language(language) if language else None)


def test_a_borrowed_name_does_not_change_a_texts_language() -> None:
    assert i18n.language_of("Our new shop in Łódź opens on Monday, and the one in Kraków on Friday.") == "en"
    assert (
        i18n.language_of("The tea is called 碧螺春 and it comes from Suzhou, where it has been grown for ages.") == "en"
    )


def test_the_main_language_of_a_knowledge_base_is_weighed_by_size() -> None:
    german = "Die Räder werden jeden Morgen in unserer Werkstatt geprüft und sind ab neun Uhr bereit."
    chinese = "我们的茶庄每天上午九点到晚上八点营业。"
    assert i18n.main_language([(german, 40), (chinese, 30), ("1 2 3", 500)]) == "de"  # numbers show no language
    assert i18n.main_language([(german, 40), (chinese, 30), (chinese, 30)]) == "zh"
    assert i18n.main_language([("1 2 3", 10)]) is None
    assert i18n.main_language([]) is None


def test_the_reply_language_is_the_questions_when_it_shows_one() -> None:
    assert i18n.reply_language("Wie hoch ist der Eiffelturm?", Language.ZH) == "de"
    assert i18n.reply_language("Eiffel 1889?", Language.ZH) == "zh"


def test_right_to_left_languages_and_tags() -> None:
    assert {language for language in Language if i18n.direction(language) == "rtl"} == {"ar", "he", "fa", "ur"}
    assert [i18n.primary_subtag(tag) for tag in ("pt-BR", "zh_Hant", "DE", " en ")] == ["pt", "zh", "de", "en"]


def test_every_language_has_every_text() -> None:
    assert set(TEXTS) == {language.value for language in Language}
    english = TEXTS["en"]
    for language, texts in TEXTS.items():
        assert set(texts) == set(english), language
        for table in ("small_talk", "widget", "agent_replies"):
            assert set(texts[table]) == set(english[table]), (language, table)
            assert all(value.strip() for value in texts[table].values()), (language, table)
        assert "{title}" in texts["widget"]["chat_title"], language
        assert "{topic}" in texts["unsure_about"] and texts["unsure"].strip() and texts["offer_person"].strip()
        assert 0 < len(texts["talk_to_person"].strip()) <= 75, language  # a button's label on every channel
        if language != "en":  # each its own words, not English left in place
            assert texts["no_answer"] != english["no_answer"] and texts["widget"]["send"] != "Send", language
            assert texts["unsure"] != english["unsure"] and texts["offer_person"] != english["offer_person"], language
            assert texts["talk_to_person"] != english["talk_to_person"], language
            assert all(texts["agent_replies"][kind] != text for kind, text in english["agent_replies"].items())


def test_the_english_texts_are_the_hosted_services_and_the_widgets_defaults() -> None:
    assert i18n.no_answer(Language.EN) == DEFAULT_NO_ANSWER_MESSAGE
    assert DEFAULT_NO_ANSWER_MESSAGE in DEFAULT_AGENT_PROMPT
    words = i18n.widget(Language.EN)
    assert (words["welcome"], words["placeholder"]) == (DEFAULTS["welcome_message"], DEFAULTS["placeholder"])
    # The agents' default fixed replies are ours: the English ones are the defaults an agent is created with.
    hand_off = DEFAULT_ESCALATION_SETTINGS["human_requested_message"]
    assert i18n.agent_reply("human-escalation", Language.EN) == hand_off
    for kind, text in DEFAULT_MESSAGES.items():
        assert i18n.agent_reply(kind, Language.EN) == text


def test_the_chat_pages_english_fallback_matches_the_english_texts() -> None:
    source = (SRC / "web" / "static" / "chat" / "words.js").read_text(encoding="utf-8")
    fallback = dict(re.findall(r'^  (\w+): "([^"]*)",$', source, re.MULTILINE))
    assert fallback and all(i18n.widget(Language.EN)[name] == text for name, text in fallback.items())


@pytest.mark.parametrize(
    ("language", "marker"),
    [
        ("de", "keine informationen"),
        ("zh", "没有找到相关信息"),
        ("ar", "لم أجد"),
        ("es", "no encuentro"),
        ("fr", "je ne trouve pas"),
    ],
)
def test_the_no_answer_reply_says_so_in_words_a_reader_recognises(language: str, marker: str) -> None:
    assert marker in i18n.no_answer(Language(language)).casefold()


def test_small_talk_is_answered_in_the_messages_language_else_the_prototypes() -> None:
    hello = next(p for p in PROTOTYPES if p.intent == Intent.SMALL_TALK and p.text == "hello")
    assert friendly_reply(hello, "hello") == "Hello! How can I help you today?"
    assert friendly_reply(hello, "مرحبا، كيف حالك؟") == i18n.small_talk("greeting", Language.AR)
    hallo = next(p for p in PROTOTYPES if p.text == "hallo")
    assert friendly_reply(hallo, "hallo") == "Hallo! Wie kann ich Ihnen helfen?"

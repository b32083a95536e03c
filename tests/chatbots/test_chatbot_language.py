# ruff: noqa: RUF001  (Chinese punctuation and Turkish letters are what those texts are written with)
"""A chatbot's language through the API, on both databases: the setting (`answer-settings`), its detection from
uploaded German, Chinese and Arabic knowledge, the no-answer reply in it over the streamed message API, and the
widget's config and page in it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.answering.routing.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from tests.support.agents import set_agent_meta
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.chat import ask, new_session
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.sources import upload

KNOWLEDGE = {
    "de": (
        "Fahrradverleih am See. Unsere Fahrräder können Sie täglich von neun bis achtzehn Uhr mieten. Ein "
        "Stadtrad kostet zwölf Euro am Tag, ein E-Bike fünfundzwanzig Euro. Helme und Schlösser sind im Preis "
        "inbegriffen. Die Räder werden jeden Morgen von unserer Werkstatt geprüft, und bei einer Panne holen wir "
        "Sie innerhalb einer Stunde ab."
    ),
    "zh": (
        "西湖茶庄简介。我们的茶庄位于杭州西湖边，每天上午九点到晚上八点营业。店里主要销售明前龙井、碧螺春和"
        "白茶，龙井每斤的价格从八百元到两千元不等。顾客可以在店内免费品茶，我们也提供全国包邮的快递服务，一般三天"
        "内送达。"
    ),
    "ar": (
        "مخبز الياسمين. يفتح مخبزنا أبوابه كل يوم من الساعة السادسة صباحًا حتى الساعة العاشرة مساءً. نخبز الخبز "
        "العربي والكعك والمعجنات الطازجة كل صباح، ونستخدم الطحين المحلي والزيت البلدي. يمكن للزبائن طلب الكعك "
        "للمناسبات قبل يومين، ونوصل الطلبات داخل المدينة مجانًا."
    ),
}
OFF_TOPIC = {
    "de": "Wie hoch ist der Eiffelturm in Paris und wann wurde er gebaut?",
    "zh": "埃菲尔铁塔有多高，是什么时候建造的？",
    "ar": "كم يبلغ ارتفاع برج إيفل في باريس ومتى تم بناؤه؟",
}
REFUSAL = {"de": "keine Informationen", "zh": "没有找到相关信息", "ar": "لم أجد"}


def settings_path(bot: str) -> str:
    return f"/chatbot/{bot}/answer-settings"


def bot_with_knowledge(api: Api, client: TestClient, language: str, **fields: Any) -> str:
    bot: str = api.chatbot(**fields)["uuid"]
    upload(api, bot, f"about-{language}.txt", KNOWLEDGE[language].encode())
    process(client)
    return bot


def test_the_language_setting_round_trips_and_leaves_strictness_alone(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    path = settings_path(bot)
    assert alice.ok(alice.get(path)) == {
        "strictness": "balanced",
        "language": None,
        "effective_language": "en",
        "language_source": "default",  # no knowledge to tell
    }
    alice.ok(alice.post(path, {"strictness": "strict"}))
    chosen = alice.ok(alice.post(path, {"language": "de-AT"}))  # a BCP 47 tag: its language
    assert chosen == {
        "strictness": "strict",
        "language": "de",
        "effective_language": "de",
        "language_source": "setting",
    }
    assert alice.ok(alice.get(path)) == chosen
    assert alice.ok(alice.post(path, {})) == chosen  # nothing given, nothing changed
    assert alice.ok(alice.post(path)) == chosen  # no body at all
    assert alice.ok(alice.post(path, {"language": "AR"}))["language"] == "ar"
    back = alice.ok(alice.post(path, {"language": None}))  # null: the knowledge's language again
    assert back == {"strictness": "strict", "language": None, "effective_language": "en", "language_source": "default"}
    # The hosted chatbot object keeps its exact keys.
    assert set(alice.ok(alice.get(f"/chatbot/{bot}"))["meta"]) == {
        "rate_limit",
        "rate_limit_message",
        "show_citations",
        "visibility",
    }


@pytest.mark.parametrize("value", ["xx", "klingon", "", 7, ["de"]])
def test_an_unknown_language_is_refused_and_nothing_is_written(alice: Api, bob: Api, value: object) -> None:
    bot = alice.chatbot()["uuid"]
    path = settings_path(bot)
    error = assert_error(alice.post(path, {"strictness": "strict", "language": value}), 422, "validation_error")
    assert error["details"][0]["field"] == "language"
    assert alice.ok(alice.get(path))["strictness"] == "balanced"  # the valid field was not written either
    assert alice.ok(alice.get(path))["language"] is None
    assert_not_found(bob.post(path, {"language": "de"}))


@pytest.mark.parametrize("language", ["de", "zh", "ar"])
def test_the_language_is_detected_from_the_knowledge_until_one_is_set(
    alice: Api, client: TestClient, language: str
) -> None:
    bot = bot_with_knowledge(alice, client, language)
    path = settings_path(bot)
    detected = alice.ok(alice.get(path))
    assert detected["language"] is None
    assert (detected["effective_language"], detected["language_source"]) == (language, "knowledge")
    assert alice.ok(alice.post(path, {"language": "fr"}))["effective_language"] == "fr"


def test_the_detected_language_follows_the_knowledge(alice: Api, client: TestClient) -> None:
    bot = bot_with_knowledge(alice, client, "de")
    [source] = alice.ok(alice.get(f"/chatbot/{bot}/data-sources"))
    upload(alice, bot, "more.txt", (KNOWLEDGE["zh"] * 3).encode())  # three times the German text's length
    process(client)
    assert alice.ok(alice.get(settings_path(bot)))["effective_language"] == "zh"
    alice.ok(alice.post(f"/data-source/{source['uuid']}/delete"))
    assert alice.ok(alice.get(settings_path(bot)))["effective_language"] == "zh"


@pytest.mark.parametrize("language", ["de", "zh", "ar"])
def test_the_no_answer_reply_is_in_the_language_of_the_question_or_the_chatbot(
    alice: Api, client: TestClient, language: str
) -> None:
    bot = bot_with_knowledge(alice, client, language)
    chat = new_session(alice, bot)
    response = ask(alice, chat, OFF_TOPIC[language])
    assert response.status_code == 200 and response.headers["content-type"] == "text/plain; charset=utf-8"
    assert REFUSAL[language] in response.text
    # A question clearly in English gets the English reply, byte for byte the hosted service's...
    assert ask(alice, chat, "What is the airspeed velocity of an unladen swallow?").text == DEFAULT_NO_ANSWER_MESSAGE
    # ...one that shows no language (a name, a number) the chatbot's.
    assert REFUSAL[language] in ask(alice, chat, "Eiffel 1889?").text


def test_the_setting_decides_for_questions_that_show_no_language_and_the_agents_message_wins(
    alice: Api, db: Db
) -> None:
    bot = alice.chatbot()["uuid"]
    chat = new_session(alice, bot)
    assert ask(alice, chat, "Eiffel 1889?").text == DEFAULT_NO_ANSWER_MESSAGE  # no knowledge, no setting: English
    alice.ok(alice.post(settings_path(bot), {"language": "es"}))
    assert "no encuentro" in ask(alice, chat, "Eiffel 1889?").text
    # The non-streamed answer is the same reply.
    assert (
        "no encuentro" in alice.ok(alice.post(f"/session/{chat}/message/non-stream", {"query": "Eiffel?"}))["response"]
    )
    set_agent_meta(db, bot, no_answer_message="Solo sé de nuestra tienda.")
    assert ask(alice, chat, "Wie hoch ist der Eiffelturm?").text == "Solo sé de nuestra tienda."


def test_the_widget_speaks_the_chatbots_language(alice: Api, client: TestClient) -> None:
    bot = bot_with_knowledge(alice, client, "de", visibility="public")
    config = client.get(f"/api/v1/widget/{bot}").json()
    assert (config["language"], config["direction"]) == ("de", "ltr")
    assert config["texts"]["send"] == "Senden" and config["texts"]["too_many"].startswith("Zu viele Nachrichten")
    assert config["welcome_message"] == config["texts"]["welcome"] == "Hallo! Wie kann ich Ihnen helfen?"
    assert config["placeholder"] == "Stellen Sie eine Frage…"  # the defaults are in the chatbot's language...
    alice.ok(alice.post(f"/chatbot/{bot}/widget", {"welcome_message": "Servus!"}))
    config = client.get(f"/api/v1/widget/{bot}").json()
    assert config["welcome_message"] == "Servus!"  # ...the owner's own words stay as written
    assert config["placeholder"] == "Stellen Sie eine Frage…"

    alice.ok(alice.post(settings_path(bot), {"language": "ar"}))
    config = client.get(f"/api/v1/widget/{bot}").json()
    assert (config["language"], config["direction"], config["texts"]["send"]) == ("ar", "rtl", "إرسال")
    page = client.get(f"/chat/{bot}")
    assert page.status_code == 200
    embedded = page.text.split('id="botyard-config">', 1)[1].split("</script>", 1)[0]
    assert json.loads(embedded)["direction"] == "rtl"

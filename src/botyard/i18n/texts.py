"""The texts Botyard itself writes to a chatbot's users, in each `Language` (`texts.json`): the no-answer reply, the
frame of an unsure reply and the offer of a person (with its choice, `talk_to_person`), the small-talk replies, and
the widget's own words (its labels, buttons and error notices; the owner's welcome message and placeholder when left
at their defaults). A text missing in a language is the English one."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Literal

from botyard.i18n.languages import DEFAULT, Language

SmallTalk = Literal["greeting", "thanks", "goodbye", "ack"]


@functools.cache
def _texts() -> dict[str, dict[str, object]]:
    loaded: dict[str, dict[str, object]] = json.loads(
        resources.files("botyard.i18n").joinpath("texts.json").read_text(encoding="utf-8")
    )
    return loaded


def _text(language: Language, key: str) -> str:
    found = _texts().get(language.value, {}).get(key)
    return found if isinstance(found, str) else str(_texts()[DEFAULT.value][key])


def _table(language: Language, key: str) -> dict[str, str]:
    english = _texts()[DEFAULT.value][key]
    own = _texts().get(language.value, {}).get(key)
    assert isinstance(english, dict)
    return {name: str(text) for name, text in (english | (own if isinstance(own, dict) else {})).items()}


def no_answer(language: Language) -> str:
    """The offline answerer's reply when the knowledge has no answer (English: the hosted service's exact words)."""
    return _text(language, "no_answer")


def unsure(language: Language, topic: str | None) -> str:
    """The opening of an unsure reply, before the closest passage: that nothing about `topic` (the question's words
    the knowledge lacks, as written) was found, or, without a topic, that the documents may not answer."""
    return _text(language, "unsure_about").replace("{topic}", topic) if topic else _text(language, "unsure")


def offer_person(language: Language) -> str:
    """The offer of a person, closing an unsure reply when a human-escalation agent is enabled."""
    return _text(language, "offer_person")


def talk_to_person(language: Language) -> str:
    """The choice that goes with the offer of a person (a button on the channels that show them): pressed, it is
    asked as the visitor's message, so its words must read as a request for a person (`routing.intents`)."""
    return _text(language, "talk_to_person")


def agent_reply(agent_type: str, language: Language) -> str | None:
    """Our default fixed reply of a `human-escalation`, `pre-canned` or `spam-defense` agent in `language` (None
    for another type): what the visitor reads while the owner leaves the agent's message at its default."""
    return _table(language, "agent_replies").get(agent_type)


def small_talk(kind: SmallTalk, language: Language) -> str:
    """The friendly reply to a greeting, thanks, a goodbye or an acknowledgement."""
    return _table(language, "small_talk")[kind]


def widget(language: Language) -> dict[str, str]:
    """The widget's own words, by name (`welcome`, `placeholder`, `send`, ...)."""
    return _table(language, "widget")

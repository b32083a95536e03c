"""The languages a chatbot speaks to its users: the codes, which language a text is in, and Botyard's own texts in
each (the no-answer and small-talk replies, the widget's words)."""

from botyard.i18n.languages import (
    DEFAULT,
    RIGHT_TO_LEFT,
    Direction,
    Language,
    direction,
    language_of,
    main_language,
    primary_subtag,
    reply_language,
)
from botyard.i18n.texts import (
    SmallTalk,
    agent_reply,
    no_answer,
    offer_person,
    small_talk,
    talk_to_person,
    unsure,
    widget,
)

__all__ = [
    "DEFAULT",
    "RIGHT_TO_LEFT",
    "Direction",
    "Language",
    "SmallTalk",
    "agent_reply",
    "direction",
    "language_of",
    "main_language",
    "no_answer",
    "offer_person",
    "primary_subtag",
    "reply_language",
    "small_talk",
    "talk_to_person",
    "unsure",
    "widget",
]

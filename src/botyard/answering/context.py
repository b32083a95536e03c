# ruff: noqa: RUF001  (the Cyrillic and quotation characters of the follow-up words are meant)
"""Conversation context for retrieval without a language model: follow-ups borrow the last turns' key terms.

"What about Saturdays?" retrieves nothing useful alone; after "When is the shop open?" it should search for
"What about Saturdays? shop open". A query that names its own subject (no follow-up opener, no pronoun pointing
back, more than one content word) is searched as it is, so that a change of topic is not dragged back to the
previous one: borrowed terms that do not belong would pull retrieval towards the earlier answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from botyard.answering.base import Turn
from botyard.answering.text import content_words, words
from botyard.retrieval.language import is_stopword

# Words that point back to what was said before, and openers of a follow-up, in the languages Botyard speaks to
# (`i18n`): one list for all, since a follow-up is often too short to tell its language. Articles that double as
# pronouns (French "la", German "das", Dutch "het") and the polite "you" (German "Sie", "ihr") are left out: they
# would make every question lean back.
_POINTING_BACK = frozenset(
    " ".join(
        (
            "it its it's they them their theirs that this those these he she him her there then same",
            "es ihn ihm dies diese dieser dieses dort dann dafür dazu davon darauf damit dasselbe",
            "il elle ils elles lui leur leurs ça cela ceci celui celle ceux celles là même mêmes",
            "él ella ellos ellas lo le les eso esto esa ese esos esas allí allá ahí entonces mismo misma",
            "esso essa quello quella quelli quelle questo questa questi queste lì stesso stessa",
            "ele ela eles elas isso isto aquilo esse essa então mesmo mesma",
            "hij zij ze hem haar dat dit deze daar ervan erop hetzelfde",
            "هو هي هم هن ذلك هذا هذه تلك هناك نفس",
            "он она оно они его её их это этот эта эти там тогда тот та те",
        )
    ).split()
)
_FOLLOW_UP_OPENERS = (
    *("what about", "how about", "and ", "also", "what else", "anything else"),
    *("und ", "was ist mit", "wie ist es mit", "wie sieht es mit", "auch ", "sonst noch"),
    *("et ", "qu'en est-il", "quid de", "aussi"),
    *("y ", "qué hay de", "también"),
    *("e ", "che mi dici di", "anche"),
    *("e quanto", "também"),
    *("en ", "hoe zit het met", "wat dacht je van", "ook "),
    *("وماذا", "ماذا عن", "و "),
    *("а ", "и ", "а как насчёт", "а что насчёт", "также"),
    *("那", "还有", "另外", "那么"),
    *("では", "じゃあ", "それで", "あと"),
)
_OPENING_MARKS = "¿¡\"'«„“‘([ "
"""What may come before a follow-up's first word ("¿Y para niños?")."""
SELF_CONTAINED_WORDS = 3
"""A query with at least this many content words, no pronoun pointing back and no follow-up opener ("what about")
is taken to name its own subject; "Saturdays?" or "which formats can I choose?" alone does not. Borrowing for a
query that did name its subject costs little: the answerer weighs borrowed words at half its own."""
SUBJECT_WORDS = 2
"""An earlier turn with this many content words (and no pointing back) named its subject: older turns lend nothing."""
BORROWED_TERMS = 6
"""At most this many terms are borrowed from earlier turns."""
LOOK_BACK = 3
"""How many earlier turns may lend terms, the most recent first, stopping at the first that named its own subject
("How much is shipping?" then "And how long does it take?" must not borrow from the question before about returns)."""


def _leans_back(query: str) -> bool:
    lowered = query.strip().lower().lstrip(_OPENING_MARKS)
    # An elided pronoun is a word of its own: French "qu'elle", "l'a", Italian "dell'altro".
    pieces = {piece for word in words(query) for piece in (word, *word.split("'"))}
    return any(lowered.startswith(opener) for opener in _FOLLOW_UP_OPENERS) or bool(pieces & _POINTING_BACK)


def is_follow_up(query: str) -> bool:
    """Whether the query may lean on the conversation: it opens like a follow-up, points back, or is short."""
    return _leans_back(query) or len(_content(query)) < SELF_CONTAINED_WORDS


def names_subject(query: str) -> bool:
    """Whether an earlier turn named its own subject (older turns are then another topic): it does not lean back
    and has at least `SUBJECT_WORDS` content words ("How much does shipping cost?")."""
    return not _leans_back(query) and len(_content(query)) >= SUBJECT_WORDS


def _content(query: str) -> list[str]:
    """The query's content words, without the stop words of any language with a list ("und die Komfort-Variante?"
    names two things, not four)."""
    return [word for word in words(query) if len(word) > 1 and not is_stopword(word)]


def search_query(query: str, history: Sequence[Turn]) -> str:
    """The text to retrieve with: the query, plus the key terms of the last turns when it is a follow-up."""
    if not history or not is_follow_up(query):
        return query
    own = set(content_words(query))
    borrowed: list[str] = []
    for turn in reversed(history[-LOOK_BACK:]):
        for word in content_words(turn.query):
            if word not in own and word not in borrowed:
                borrowed.append(word)
        if names_subject(turn.query):
            break  # that turn named its own subject: anything older is another topic
    borrowed = borrowed[:BORROWED_TERMS]
    return f"{query} {' '.join(borrowed)}" if borrowed else query

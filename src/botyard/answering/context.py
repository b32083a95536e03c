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

_POINTING_BACK_TEXT = "it its it's they them their theirs that this those these he she him her there then same"
_POINTING_BACK = frozenset(_POINTING_BACK_TEXT.split())
_FOLLOW_UP_OPENERS = ("what about", "how about", "and ", "also", "what else", "anything else")
SELF_CONTAINED_WORDS = 2
"""A query with at least this many content words, no pronoun pointing back and no follow-up opener ("what about")
is taken to name its own subject; "Saturdays?" alone does not."""
BORROWED_TERMS = 6
"""At most this many terms are borrowed from earlier turns."""
LOOK_BACK = 3
"""How many earlier turns may lend terms, the most recent first, stopping at the first that named its own subject
("How much is shipping?" then "And how long does it take?" must not borrow from the question before about returns)."""


def is_follow_up(query: str) -> bool:
    lowered = query.strip().lower()
    if any(lowered.startswith(opener) for opener in _FOLLOW_UP_OPENERS):
        return True
    if any(word in _POINTING_BACK for word in words(query)):
        return True
    return len(content_words(query)) < SELF_CONTAINED_WORDS


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
        if not is_follow_up(turn.query):
            break  # that turn named its own subject: anything older is another topic
    borrowed = borrowed[:BORROWED_TERMS]
    return f"{query} {' '.join(borrowed)}" if borrowed else query

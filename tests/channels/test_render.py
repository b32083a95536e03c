"""A reply rendered for Telegram (`channels.render`), checked by the loopback Bot API's parser, which refuses what
Telegram refuses: only Telegram's tags, nested, every text escaped, each message at most 4,096 characters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from botyard.channels.answering import burst_of
from botyard.channels.render import Reply, telegram_parts
from botyard.models import ChannelEvent
from tests.support.telegram_api import visible_text

HOSTILE = (
    "# Prices <b>today</b>\n\nWe charge **5 < 6 & 7 > 3** *per* `item <x>` [1] and [2].\n\n"
    "- a <script>alert(1)</script> list\n"
    "- with [a link](https://example.com/?a=1&b=<2>) and [bad](javascript:alert(1))\n\n"
    "1. first\n2. second\n\n> quoted **bold\n\n```\n<pre> & </pre>\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "![an image](https://example.com/i.png) _under_score_ **unclosed"
)


def test_markdown_that_would_break_telegram_renders_as_markup_telegram_accepts() -> None:
    links = {"[1]": "https://shop.example/prices?x=1&y=2", "[2]": "javascript:alert(1)"}
    [part] = telegram_parts(Reply(HOSTILE, links), 4096)
    text = visible_text(part)  # raises where Telegram would refuse the message
    assert "<b>Prices &lt;b&gt;today&lt;/b&gt;</b>" in part
    assert "<b>5 &lt; 6 &amp; 7 &gt; 3</b>" in part and "<code>item &lt;x&gt;</code>" in part
    assert '<a href="https://shop.example/prices?x=1&amp;y=2">[1]</a>' in part
    assert 'href="javascript' not in part and "<script>" not in part  # a javascript: link stays text
    assert "[2]" in text and "a <script>alert(1)</script> list" in text  # shown as the text it is
    assert "• a" in text and "1. first" in text and "2. second" in text


def test_a_long_answer_is_split_between_paragraphs_into_messages_telegram_takes() -> None:
    paragraphs = [f"Paragraph {number}: " + "word " * 120 for number in range(12)]
    text = "\n\n".join(paragraphs)
    assert len(text) > 6000
    parts = telegram_parts(Reply(text, {}), 4096)
    assert len(parts) == 2
    assert all(len(visible_text(part)) <= 4096 for part in parts)
    assert " ".join(" ".join(visible_text(part).split()) for part in parts) == " ".join(text.split())
    assert all(part.startswith("Paragraph ") for part in parts)  # each message begins at a paragraph


def test_one_paragraph_longer_than_a_message_is_split_between_words() -> None:
    text = " ".join(f"w{number}" for number in range(3000))  # 6,000+ characters, no paragraph break
    parts = telegram_parts(Reply(text, {}), 4096)
    assert len(parts) >= 2 and all(len(part) <= 4096 for part in parts)
    assert " ".join(" ".join(visible_text(part).split()) for part in parts) == text


NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def event(uuid: str, seconds: float, position: int) -> ChannelEvent:
    return ChannelEvent(uuid=uuid, received_at=NOW + timedelta(seconds=seconds), position=position, text=uuid)


@pytest.mark.parametrize(
    ("arrivals", "asked", "answers"),
    [
        ([("a", 0, 1)], "a", ["a"]),
        ([("a", 0, 1), ("b", 0.5, 2)], "a", []),  # b came in a's burst: b's job answers
        ([("a", 0, 1), ("b", 0.5, 2)], "b", ["a", "b"]),
        ([("a", 0, 2), ("b", 0.5, 1)], "b", ["b", "a"]),  # joined in the provider's order
        ([("a", 0, 1), ("b", 5, 2)], "a", ["a"]),  # b came after the quiet time: a question of its own
        ([("a", 0, 1), ("b", 5, 2)], "b", ["b"]),
        ([("a", 0, 1), ("b", 0.9, 2), ("c", 1.8, 3)], "c", ["a", "b", "c"]),  # each restarts the wait
    ],
)
def test_a_burst_is_the_messages_each_less_than_the_quiet_time_after_the_one_before(
    arrivals: list[tuple[str, float, int]], asked: str, answers: list[str]
) -> None:
    pending = [event(*arrival) for arrival in arrivals]
    mine = next(other for other in pending if other.uuid == asked)
    assert [found.uuid for found in burst_of(mine, pending, timedelta(seconds=1))] == answers

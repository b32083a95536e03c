"""SMS segments counted as carriers count them (GSM-7 and UCS-2) and a long text cut into messages of at most 10
segments, between sentences where one fits, nothing lost."""

from __future__ import annotations

import pytest

from botyard.channels.sms import segments


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 1),
        ("a" * 160, 1),
        ("a" * 161, 2),
        ("a" * 306, 2),
        ("a" * 307, 3),
        ("€" * 80, 1),  # an extension character takes two units
        ("€" * 81, 2),
        ("a" * 152 + "€", 1),
        ("a" * 159 + "€", 2),  # 161 units; the escape pair is not split, so 152 + the pair + the rest
        ("é" * 160, 1),  # é is in GSM-7's basic set
        ("ê" * 70, 1),  # ê is not: UCS-2
        ("ê" * 71, 2),
        ("😀" * 35, 1),  # two UTF-16 units each
        ("😀" * 36, 2),
    ],
)
def test_segments_are_counted_as_carriers_count_them(text: str, expected: int) -> None:
    assert segments.count(text) == expected


def test_a_long_text_is_cut_between_sentences_into_messages_of_at_most_ten_segments() -> None:
    text = " ".join(f"Sentence number {number} says something useful." for number in range(100))
    parts = segments.messages(text)
    assert len(parts) > 1 and all(segments.count(part) <= 10 for part in parts)
    assert all(part.endswith(".") for part in parts)
    assert " ".join(parts) == text


def test_a_sentence_too_long_alone_is_cut_between_words_then_anywhere() -> None:
    words = " ".join(["word"] * 500)
    parts = segments.messages(words)
    assert all(segments.count(part) <= 10 for part in parts) and " ".join(parts) == words
    assert all(part.split(" ")[-1] == "word" for part in parts)
    blob = "x" * 4000
    assert [len(part) for part in segments.messages(blob)] == [1530, 1530, 940]
    emoji = "😀" * 1000
    cut = segments.messages(emoji)
    assert all(segments.count(part) <= 10 for part in cut) and "".join(cut) == emoji


def test_a_short_text_is_one_message_and_an_empty_one_none() -> None:
    assert segments.messages("  Open from nine to five.  ") == ["Open from nine to five."]
    assert segments.messages("   ") == []


def test_look_alikes_of_gsm_characters_are_written_as_those_so_a_message_stays_gsm_7() -> None:
    answer = "We\u2019re open \u2013 Monday to Friday\u2026 \u201cSaturdays\u201d too:\n\u2022 nine to five"
    written = segments.smart(answer)
    assert written == 'We\'re open - Monday to Friday... "Saturdays" too:\n- nine to five'
    assert segments.encoding(written) == segments.GSM7 and segments.encoding(answer) == segments.UCS2
    assert segments.smart("Crème brûlée 😀") == "Crème brûlée 😀"  # what has no look-alike stays

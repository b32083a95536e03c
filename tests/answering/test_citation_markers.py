"""Citation markers found as an answer's text arrives (`MarkerScanner`): each once, when complete, in order, and in
time linear in the answer's length (counted in characters examined, never timed)."""

from __future__ import annotations

import random

from botyard.answering.turn.citations import MarkerScanner, markers_in

FILLER = "Parcels leave the warehouse within two working days, and arrive three to five days later. "


def pieces(text: str, rng: random.Random) -> list[str]:
    """`text` cut into pieces of 1 to 7 characters, as a model's deltas come."""
    cut, at = [], 0
    while at < len(text):
        size = rng.randint(1, 7)
        cut.append(text[at : at + size])
        at += size
    return cut


def answer_with_markers(count: int, length: int) -> tuple[str, list[str]]:
    markers = [f"{number // 4 + 1}.{number % 4 + 1}" for number in range(count)]
    gap = length // count - 6
    text = "".join((FILLER * (gap // len(FILLER) + 1))[:gap] + f"[{marker}]" for marker in markers)
    return text.ljust(length, "."), markers


def test_markers_fed_in_small_pieces_are_found_in_order_in_linear_time() -> None:
    text, markers = answer_with_markers(40, 4000)
    assert len(text) == 4000
    cut = pieces(text, random.Random(47))
    assert any(piece.startswith(("]", ".")) or piece[:1].isdigit() for piece in cut)  # markers are split
    scanner = MarkerScanner()
    found = [marker for piece in cut for marker in scanner.feed(piece)]
    assert found == markers
    assert scanner.examined <= 2 * len(text)  # the new text, and a begun marker's few characters again


def test_a_marker_split_across_pieces_is_announced_once_when_complete() -> None:
    scanner = MarkerScanner()
    assert scanner.feed("Delivery takes two days [1") == []
    assert scanner.feed(".") == []
    assert scanner.feed("2") == []
    assert scanner.feed("] and returns thirty [1.2]") == ["1.2"]
    assert scanner.feed(" days [2.1][1.2]") == ["2.1"]
    assert scanner.feed(" again [2.1]") == []


def test_any_cut_finds_what_the_whole_text_holds() -> None:
    rng = random.Random(4)
    texts = ["[1.2.3] [[1.2] [1.] [.2] [3.4]x[", "[10.12][1.1] [1 .1] [2.2", "[[[1.1]]] [12.345]"]
    for text in texts:
        for _ in range(50):
            scanner = MarkerScanner()
            found = [marker for piece in pieces(text, rng) for marker in scanner.feed(piece)]
            assert found == markers_in(text), text

"""How a test case judges a reply (`testsets.judging`), the way the answer probes judge theirs: the normalisation
forgives what does not change a fact, and "must say it does not know" passes on the no-answer reply or an unsure
one."""

from __future__ import annotations

import pytest

from botyard.testsets.judging import normalised, passes


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The fee is £1,200.00 a year.", "1200"),  # digit grouping and empty decimals
        ("Open 9 \u2013 17 Uhr", "9-17"),  # dashes and spaces
        ("Call “Front Desk”", '"front desk"'),  # quotes and case
        ("\u0627\u0644\u0633\u0639\u0631 \u0661\u0665\u0660", "150"),  # Arabic-Indic digits
        ("\uff21\uff22\uff23\uff11\uff12\uff13", "abc123"),  # full-width forms
        ("Price: 62.00 EUR", "62 EUR"),
    ],
)
def test_a_reply_that_states_the_fact_passes_whatever_its_form(reply: str, expected: str) -> None:
    assert normalised(expected) in normalised(reply)
    assert passes(reply, "high", False, ["nothing like it", expected], False)


def test_a_reply_without_the_fact_fails() -> None:
    assert not passes("The fee is £1,300 a year.", "high", False, ["1200"], False)
    assert not passes("anything", "high", False, ["", "  "], False)  # an empty expectation matches nothing


def test_must_say_it_does_not_know_passes_on_a_refusal_or_an_unsure_reply_only() -> None:
    assert passes("Sorry, I cannot find related information.", "none", True, [], True)
    assert passes("I couldn't find anything about botox. The closest I found: ...", "low", False, [], True)
    assert not passes("Yes, we offer botox.", "high", False, [], True)

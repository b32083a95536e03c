"""The typing indicator while an answer is made: repeated for as long as the answer takes, stopped with it, and a
provider's refusal of it never reaches the answer."""

from __future__ import annotations

import asyncio

from botyard.channels.calls import ProviderFailed
from botyard.channels.indicator import shown


def test_the_indicator_is_repeated_while_the_answer_is_made_and_stops_with_it() -> None:
    async def scenario() -> tuple[int, int]:
        shows: list[int] = []
        three = asyncio.Event()

        async def show() -> None:
            shows.append(len(shows))
            if len(shows) == 3:
                three.set()

        async with shown(show, every=0.001):
            await asyncio.wait_for(three.wait(), 30)  # an answer that takes three indicators' time
        after = len(shows)
        for _ in range(20):
            await asyncio.sleep(0.002)
        return after, len(shows)

    after, later = asyncio.run(scenario())
    assert after >= 3 and later == after  # nothing is shown once the answer is made


def test_a_refused_indicator_is_not_repeated_and_the_answer_goes_on() -> None:
    async def scenario() -> tuple[int, str]:
        calls = 0

        async def show() -> None:
            nonlocal calls
            calls += 1
            raise ProviderFailed("Slack: not_allowed_token_type", passing=False)

        async with shown(show, every=0.001):
            for _ in range(20):
                await asyncio.sleep(0.002)
            answer = "made"
        return calls, answer

    assert asyncio.run(scenario()) == (1, "made")


def test_a_channel_without_an_indicator_runs_the_answer_alone() -> None:
    async def scenario() -> str:
        async with shown(None, None):
            return "made"

    assert asyncio.run(scenario()) == "made"

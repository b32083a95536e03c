"""One client process of bench/chat.py's LLM phase: it opens its share of the streams at their times and measures
each with `_chat_http.ask`, on its own event loop, so that one Python process reading every stream is not what is
measured.

Protocol (lines on stdin and stdout): this process prints `ready` once imported; it then reads one JSON job,
`{"base", "key", "start_at", "streams": [[number, session, question, offset], ...]}`, where `start_at` is a
`time.monotonic()` reading (one clock for every process of the machine) and stream `number` starts `offset`
seconds after it; when all have ended it prints one JSON line: `{"cpu": its CPU seconds from the job's start,
"lag_ms": the longest its event loop was late for a 10 ms tick, "answers": [[number, status, ttfb_ms, total_ms,
started, text, error], ...]}` (`started` a monotonic reading).
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import time
from typing import Any

import httpx
from _chat_http import Question, ask, auth

TICK = 0.01


async def run(job: dict[str, Any]) -> dict[str, Any]:
    streams = job["streams"]
    limits = httpx.Limits(max_connections=len(streams) + 16, max_keepalive_connections=len(streams) + 16)
    timeout = httpx.Timeout(300, pool=None)
    answers: list[list[Any]] = []
    lag = 0.0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal lag
        while not done.is_set():
            before = time.monotonic()
            await asyncio.sleep(TICK)
            lag = max(lag, time.monotonic() - before - TICK)

    async with httpx.AsyncClient(
        base_url=job["base"], headers=auth(job["key"]), timeout=timeout, limits=limits
    ) as client:

        async def stream(number: int, session: str, question: str, offset: float) -> None:
            await asyncio.sleep(max(0.0, job["start_at"] + offset - time.monotonic()))
            started = time.monotonic()
            answer = await ask(client, session, Question(question, on_topic=True))
            ttfb = answer.ttfb_ms if math.isfinite(answer.ttfb_ms) else None
            answers.append([number, answer.status, ttfb, answer.total_ms, started, answer.text, answer.error])

        ticking = asyncio.create_task(ticker())
        await asyncio.gather(*(stream(*spec) for spec in streams))
        done.set()
        await ticking
    return {"answers": answers, "lag_ms": lag * 1000}


def main() -> None:
    print("ready", flush=True)
    job = json.loads(sys.stdin.readline())
    cpu = time.process_time()
    result = asyncio.run(run(job))
    result["cpu"] = time.process_time() - cpu
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

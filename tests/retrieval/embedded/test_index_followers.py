"""Two `botyard serve` worker processes, each with its own cached search indexes, follow sources added, edited and
deleted through the API on both databases: once a change has answered, no worker finds a deleted source's chunk or
an edited pair's old text, and each finds the new one (issue 18: indexes catch up rather than rebuild)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.support.database import backend_params, fresh_settings
from tests.support.servers import Server
from tests.support.waiting import wait_for

ROUNDS = 6
ASKS = 8
"""Retrievals after each change, each on a new connection: the kernel spreads them over both workers' sockets."""


class Owner:
    def __init__(self, server: Server, key: str) -> None:
        self.api = f"{server.base}/api/v1"
        self.headers = {"Authorization": f"Bearer {key}"}

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        with httpx.Client(timeout=60) as client:  # a new connection: any worker may answer
            response = client.request(method, f"{self.api}{path}", headers=self.headers, json=body)
        assert response.status_code == 200, response.text
        return response.json()

    def qa(self, bot: str, question: str, answer: str) -> str:
        uuid: str = self.call("POST", f"/chatbot/{bot}/data-source/qa", {"question": question, "answer": answer})[
            "uuid"
        ]
        return uuid

    def settle(self, bot: str) -> None:
        def done() -> bool:
            return all(s["status"] == "success" for s in self.call("GET", f"/chatbot/{bot}/data-sources"))

        wait_for(done, 120, what="the sources finishing", every=0.2)

    def found(self, bot: str, query: str) -> list[str]:
        chunks = self.call("POST", f"/chatbot/{bot}/retrieve", {"query": query, "top_k": 50, "method": "bm25"})
        return [chunk["text"] for chunk in chunks["chunks"]]


@pytest.mark.parametrize("backend", backend_params())
def test_two_workers_follow_sources_added_edited_and_deleted(backend: str, tmp_path: Path) -> None:
    with fresh_settings(backend, tmp_path) as settings:
        server = Server(settings)
        server.start("--workers", "2", wait=False)
        try:
            server.wait_ready()
            owner = Owner(server, server.key())
            bot = owner.call("POST", "/chatbot/create", {"name": "followers"})["uuid"]
            for n in range(12):  # knowledge enough that the changes below are caught up on, not rebuilt
                owner.qa(bot, f"Lighthouse question {n}?", f"The lighthouse keeper logs day {n} at dawn.")
            edited = owner.qa(bot, "What does the walrus eat?", "walrus menu version zero")
            owner.settle(bot)
            assert any("lighthouse" in text for text in owner.found(bot, "lighthouse keeper dawn"))
            previous = None
            for round_ in range(1, ROUNDS + 1):
                added = owner.qa(bot, f"Walrus round {round_}?", f"walrus round marker {round_} arrived")
                owner.call("POST", f"/data-source/{edited}/qa/update", {"answer": f"walrus menu version {round_}"})
                if previous is not None:
                    owner.call("POST", f"/data-source/{previous}/delete")
                owner.settle(bot)
                for _ in range(ASKS):
                    found = owner.found(bot, "walrus round marker arrived menu version")
                    rounds = sorted(text for text in found if "marker" in text)
                    menus = [text for text in found if "menu version" in text]
                    assert rounds == [f"Walrus round {round_}?\n\nwalrus round marker {round_} arrived"], found
                    assert menus == [f"What does the walrus eat?\n\nwalrus menu version {round_}"], found
                previous = added
        finally:
            server.stop()

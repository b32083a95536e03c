"""Answer admission: a burst of concurrent answers beyond `answer_admission` waits its turn and is answered in full.

The app runs with an admission of one, so every answer's preparation and search take turns; a second acquisition
of the same slot inside one answer would deadlock here, and a slot not given back would stall the next answer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from tests.support.agents import agent, disable_default
from tests.support.api import Api
from tests.support.chat import messages, new_session
from tests.support.database import Db, backend_params, fresh_settings
from tests.support.fake_dns import FakeDns
from tests.support.jobs import process

ANSWER = "Parcels leave the warehouse within two working days and arrive three to five days later."


@pytest.fixture(scope="module", params=backend_params())
def narrow(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data_dir: Path = tmp_path_factory.mktemp("botyard-admission")
    overrides = {"jobs_in_process": False, "embedder": "none", "answer_admission": 1}
    with (
        fresh_settings(request.param, data_dir, **overrides) as settings,
        TestClient(create_app(settings, resolver=FakeDns()), raise_server_exceptions=False) as client,
    ):
        yield client


def test_a_burst_beyond_the_admission_is_answered_in_full(narrow: TestClient) -> None:
    key = Db(narrow).run(lambda session: issue_key(session, "burst@example.com")).key
    api = Api(narrow, key)
    bot = api.chatbot()["uuid"]
    api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": "How long does delivery take?", "answer": ANSWER}))
    process(narrow)
    sessions = [new_session(api, bot) for _ in range(8)]

    async def burst() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=narrow.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://botyard", headers=api.auth) as client:
            asks = [
                client.post(f"/api/v1/session/{chat}/message/stream", json={"query": "How long does delivery take?"})
                for chat in sessions
            ]
            return await asyncio.wait_for(asyncio.gather(*asks), timeout=60)

    assert narrow.portal is not None
    responses = narrow.portal.call(burst)
    assert [response.status_code for response in responses] == [200] * 8
    assert all("two working days" in response.text for response in responses)
    for chat in sessions:
        [stored] = messages(api, chat)
        assert "two working days" in stored["response"]


def test_every_way_an_answer_goes_gives_its_slot_back(narrow: TestClient) -> None:
    """With one slot, an answer that kept its slot would stall every later one: a preparation that fails (an
    unknown session: 404), a reply decided without a search (a pre-canned agent's) and an answered question, each
    several times in turn, all finish."""
    key = Db(narrow).run(lambda session: issue_key(session, "ways@example.com")).key
    api = Api(narrow, key)
    shop = api.chatbot()["uuid"]
    api.ok(api.post(f"/chatbot/{shop}/data-source/qa", {"question": "How long does delivery take?", "answer": ANSWER}))
    closed = api.chatbot()["uuid"]
    disable_default(api, closed)
    agent(api, closed, "pre-canned", "Closed", "Everything", meta={"default_message": "We are closed for stocktaking."})
    process(narrow)
    chats = [chat for _ in range(3) for chat in ("0" * 32, new_session(api, closed), new_session(api, shop))]

    async def in_turn() -> list[tuple[int, str]]:
        transport = httpx.ASGITransport(app=narrow.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://botyard", headers=api.auth) as client:
            found = []
            for chat in chats:
                path = f"/api/v1/session/{chat}/message/stream"
                response = await client.post(path, json={"query": "How long does delivery take?"})
                found.append((response.status_code, response.text))
            return found

    assert narrow.portal is not None
    found = narrow.portal.call(lambda: asyncio.wait_for(in_turn(), timeout=60))
    assert [status for status, _ in found] == [404, 200, 200] * 3
    assert [text for _, text in found[1::3]] == ["We are closed for stocktaking."] * 3
    assert all("two working days" in text for _, text in found[2::3])

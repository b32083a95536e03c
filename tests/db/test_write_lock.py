"""A unit of work waits for its turn to write only at its first statement (`db/writer.py`): a request that first
checks a URL, whose DNS may take seconds, lets the process's other writes through meanwhile. On SQLite the turn is
the process's writer lock and SQLite's own; on PostgreSQL there is none, and the same must hold."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from tests.support.api import Api
from tests.support.fake_dns import FakeDns

SLOW = "slow.example.com"


def test_a_url_check_waiting_on_dns_holds_up_no_other_write(alice: Api, fake_dns: FakeDns) -> None:
    bot = alice.chatbot()["uuid"]
    released = fake_dns.hold(SLOW)
    with ThreadPoolExecutor(2) as pool:
        try:
            adding = pool.submit(alice.post, f"/chatbot/{bot}/data-source/url", {"url": f"https://{SLOW}/prices"})
            deadline = time.monotonic() + 30
            while SLOW not in fake_dns.waiting:  # the source's URL check is waiting on DNS
                assert time.monotonic() < deadline and not adding.done(), "the URL check never asked DNS"
                time.sleep(0.01)
            meanwhile = pool.submit(alice.post, "/chatbot/create", {"name": "Meanwhile"})
            assert alice.ok(meanwhile.result(timeout=30))["name"] == "Meanwhile"  # waited for the DNS before
            assert not adding.done()
        finally:
            released.set()
        added = alice.ok(adding.result(timeout=30))
    assert added["uuid"] and [source["uuid"] for source in alice.ok(alice.get(f"/chatbot/{bot}/data-sources"))] == [
        added["uuid"]
    ]

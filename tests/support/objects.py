"""One object of each kind the API's path parameters name, for tests that walk the OpenAPI document."""

from __future__ import annotations

import re

from tests.support.api import Api


def objects(alice: Api) -> dict[str, str]:
    """One object of each kind the path parameters name, owned by `alice` (the key the requests carry)."""
    bot = alice.chatbot()["uuid"]
    agent = alice.ok(alice.get(f"/chatbot/{bot}/agents"))[0]["uuid"]
    source = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q", "answer": "a"}))["uuid"]
    tag = alice.ok(alice.post(f"/chatbot/{bot}/source-tag/create", {"name": "t", "color": "#112233"}))["uuid"]
    session = alice.ok(alice.post(f"/chatbot/{bot}/session/create", {}))["uuid"]
    function = alice.ok(
        alice.post(
            f"/agent/{agent}/function/create",
            {"name": "lookup", "description": "d", "external_url": "https://api.example.com/x", "method": "GET"},
        )
    )
    webhook = alice.ok(alice.post(f"/chatbot/{bot}/webhook/create", {"url": "https://hooks.example.com/in"}))
    # another key: revoking it keeps alice's
    prefix = alice.ok(alice.post("/account/api-key/create", {"name": "another"}))["prefix"]
    return {
        "chatbot": bot,
        "agent": agent,
        "data-source": source,
        "source-tag": tag,
        "session": session,
        "function": function.get("uuid", ""),
        "key": prefix,
        "webhook": webhook["uuid"],
    }


def real_path_parameters(path: str, objects: dict[str, str]) -> dict[str, str] | None:
    """The path parameters of `path` set to `alice`'s objects (the kind is the path segment before each)."""
    names = re.findall(r"([a-z-]+)/\{(\w+)\}", path)
    if not names:
        return None
    kinds = {"widget": "chatbot", "message": "session"}
    values = {}
    for segment, name in names:
        kind = "session" if name == "session_uuid" else kinds.get(segment, segment)
        if kind not in objects:
            return None
        values[name] = objects[kind]
    return values

"""Every number a client sends has bounds the database can hold: above an integer parameter's declared maximum the
answer is 422 `validation_error`, at it the request is served, and no number ever answers 500.

The test walks the app's own OpenAPI document, so a parameter added without a bound fails it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.support.api import Api, assert_error
from tests.support.objects import objects, real_path_parameters

SQL_BIGINT_MAX = 2**63 - 1
STREAMS = ("/events", "/message/stream")
"""Operations whose answer is a stream: at the bound they would hold the connection; only the refusal is sent."""


def _schemas(
    schema: dict[str, Any], components: dict[str, Any], free: bool = False, seen: tuple[str, ...] = ()
) -> Iterator[tuple[dict[str, Any], bool]]:
    """`schema` and every schema nested in it (references followed once), each with whether it is a value of a
    free-form JSON object (a session's `initial_variables`: stored as JSON text, never as a database integer)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name not in seen:
            yield from _schemas(components[name], components, free, (*seen, name))
        return
    yield schema, free
    nested = [*schema.get("anyOf", ()), *schema.get("oneOf", ()), *schema.get("allOf", ())]
    nested += [*schema.get("prefixItems", ()), *schema.get("properties", {}).values()]
    if isinstance(items := schema.get("items"), dict):
        nested.append(items)
    for part in nested:
        yield from _schemas(part, components, free, seen)
    if isinstance(values := schema.get("additionalProperties"), dict):
        yield from _schemas(values, components, True, seen)


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            yield method, path, operation


@pytest.fixture
def document(client: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = client.get("/openapi.json").json()
    return body


def _integer_parameters(document: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    components = document["components"]["schemas"]
    found = []
    for method, path, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            for schema, _ in _schemas(parameter["schema"], components):
                if schema.get("type") == "integer":
                    found.append((method, path, parameter["name"], schema))
    return found


def test_every_integer_a_client_sends_has_a_maximum_the_database_holds(document: dict[str, Any]) -> None:
    components = document["components"]["schemas"]
    unbounded = []
    for method, path, operation in _operations(document):
        bodies = [content["schema"] for content in operation.get("requestBody", {}).get("content", {}).values()]
        parameters = [(parameter["name"], parameter["schema"]) for parameter in operation.get("parameters", [])]
        for name, top in [*parameters, *(("body", body) for body in bodies)]:
            for schema, free in _schemas(top, components):
                if schema.get("type") != "integer" or free:
                    continue
                if not -SQL_BIGINT_MAX - 1 <= schema.get("minimum", -SQL_BIGINT_MAX - 1) <= SQL_BIGINT_MAX:
                    unbounded.append(f"{method.upper()} {path} {name}: minimum")
                if schema.get("maximum", SQL_BIGINT_MAX + 1) > SQL_BIGINT_MAX:
                    unbounded.append(f"{method.upper()} {path} {name}: maximum")
    assert unbounded == []


def test_above_its_maximum_every_integer_parameter_answers_422_and_at_it_never_500(
    client: TestClient, alice: Api, document: dict[str, Any]
) -> None:
    owned = objects(alice)
    checked = []
    for method, path, name, schema in _integer_parameters(document):
        real = {} if "{" not in path else real_path_parameters(path, owned)
        assert real is not None, path
        url = path.format(**real)
        above = client.request(method, url, params={name: schema["maximum"] + 1}, headers=alice.auth)
        body = assert_error(above, 422, "validation_error")
        assert [detail["field"] for detail in body["details"]] == [f"query.{name}"], body
        below = client.request(method, url, params={name: schema["minimum"] - 1}, headers=alice.auth)
        assert_error(below, 422, "validation_error")
        if not path.endswith(STREAMS):
            at = client.request(method, url, params={name: schema["maximum"]}, headers=alice.auth)
            assert at.status_code == 200, (method, path, name, at.status_code, at.text)
        checked.append(f"{path} {name}")
    # The offsets that answered 500 (issue 36) are among them.
    for path in ("/chatbot/{uuid}/feedback", "/chatbot/{uuid}/conversations", "/data-source/{uuid}/chunks"):
        assert f"/api/v1{path} offset" in checked


def test_any_number_in_a_timestamp_parameter_is_served_or_refused_never_500(
    client: TestClient, alice: Api, document: dict[str, Any]
) -> None:
    owned = objects(alice)
    components = document["components"]["schemas"]
    tried = 0
    for method, path, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            if not any(schema.get("type") == "number" for schema, _ in _schemas(parameter["schema"], components)):
                continue
            real = {} if "{" not in path else real_path_parameters(path, owned)
            assert real is not None, path
            for value in ("1e300", "-1e300", "253402300800", "-62135596801", "1e-300"):
                answer = client.request(
                    method, path.format(**real), params={parameter["name"]: value}, headers=alice.auth
                )
                assert answer.status_code in (200, 422), (path, parameter["name"], value, answer.text)
                if answer.status_code == 422:
                    assert_error(answer, 422, "validation_error")
                tried += 1
    assert tried >= 20


def test_a_huge_json_number_is_stored_as_sent(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    huge = 2**70
    created = alice.post(f"/chatbot/{bot}/session/create", {"initial_variables": {"order": huge}})
    session = alice.ok(created)["uuid"]
    stored = alice.ok(alice.get(f"/session/{session}"))
    assert huge in (
        stored["meta"].get("variables", {}).get("order"),
        stored["meta"].get("initial_variables", {}).get("order"),
    ), stored

"""The OpenAPI document declares every status an operation answers (issue 17, item 7).

Schemathesis generates requests for every operation of the app's own `/openapi.json` (valid ones and invalid ones),
they are sent to the app on its real SQLite database with a real key, and its status-code conformance check fails
on any status the operation does not declare. Outbound requests cannot happen: names resolve through the suite's
fake DNS, and jobs (fetches) do not run in the test app.
"""

from __future__ import annotations

import re
from typing import Any

import httpx2
import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, strategies
from schemathesis import GenerationMode
from schemathesis.checks import CheckFunction
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import status_code_conformance
from starlette.testclient import TestClient

from tests.support.api import Api
from tests.support.objects import objects, real_path_parameters

EXAMPLES = 8
"""Generated requests per operation and mode (valid, invalid); the run stays well under a minute on 2 cores."""

STREAMS = re.compile(r"/events$|/message/stream$")
"""Operations that answer a stream: with a real object they would hold the connection open (events) or run the
answerer; they get generated (unknown) identifiers only."""

CHECKS: list[CheckFunction] = [status_code_conformance]


def _send(client: TestClient, case: schemathesis.Case, key: str | None) -> Any:
    """The case as schemathesis would send it (encoded by `requests`), through the suite's client of the app."""
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    kwargs["headers"] = {name: value for name, value in kwargs["headers"].items() if name.lower() != "authorization"}
    if key is not None:
        kwargs["headers"]["Authorization"] = f"Bearer {key}"
    kwargs.pop("cookies", None)
    prepared = requests.Request(**kwargs).prepare()
    assert prepared.method is not None and prepared.url is not None
    return client.request(prepared.method, prepared.url, headers=dict(prepared.headers), content=prepared.body)


def _run(
    client: TestClient, operation: Any, key: str, mode: GenerationMode, path_parameters: dict[str, str] | None
) -> list[str]:
    """Undeclared statuses found in `EXAMPLES` generated requests (the first one is also sent without a key)."""
    found: list[str] = []
    strategy = operation.as_strategy(generation_mode=mode, path_parameters=path_parameters)

    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.given(case=strategy, anonymous=strategies.booleans())
    def check(case: schemathesis.Case, anonymous: bool) -> None:
        try:
            response = _send(client, case, None if anonymous else key)
        except httpx2.InvalidURL:  # over the client's 64 KiB (three 4,000-character query values, percent-encoded):
            hypothesis.reject()  # no client sends it, and a server's request line refuses it before the app

        try:
            case.validate_response(response, checks=CHECKS)
        except (FailureGroup, AssertionError) as error:
            found.append(f"{operation.label} answered {response.status_code}: {str(error).splitlines()[0]}")

    try:
        check()
    except hypothesis.errors.Unsatisfiable:  # no invalid request exists (a string path parameter, no body)
        assert mode is GenerationMode.NEGATIVE, operation.label
    return found


def test_every_answered_status_is_declared(client: TestClient, alice: Api) -> None:
    schema = schemathesis.openapi.from_dict(client.get("/openapi.json").json())
    owned = objects(alice)
    undeclared: set[str] = set()
    operations = 0
    every = [result.ok() for result in schema.get_all_operations()]
    # Deletions last, so that the other operations find alice's objects (the chatbot's deletion takes them all).
    for operation in sorted(every, key=lambda operation: "delete" in operation.path):
        operations += 1
        raw = operation.definition.raw
        negatable = bool(raw.get("parameters") or raw.get("requestBody"))  # else no request can be invalid
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if negatable else (GenerationMode.POSITIVE,):
            undeclared.update(_run(client, operation, alice.key, mode, None))
        real = None if STREAMS.search(operation.path) else real_path_parameters(operation.path, owned)
        if real is not None:
            undeclared.update(_run(client, operation, alice.key, GenerationMode.POSITIVE, real))
    assert operations >= 70
    assert not undeclared, "\n".join(sorted(undeclared))


def test_the_derived_statuses_are_declared(client: TestClient) -> None:
    """Every operation that reads the key declares 401; with parameters or a body, 422 (and 400 for a body); with a
    path parameter, 404; every method that may carry a body, 413; and every error answers the one error body."""
    document = client.get("/openapi.json").json()
    keyed = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            declared = set(operation["responses"])
            where = f"{method.upper()} {path}"
            if operation.get("security"):  # the key is required
                keyed += 1
                assert "401" in declared, where
            if operation.get("parameters") or operation.get("requestBody"):
                assert "422" in declared, where
            if operation.get("requestBody"):
                assert "400" in declared, where
            if "{" in path:
                assert "404" in declared, where
            if method != "get":
                assert "413" in declared, where
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert response["description"] not in ("", "Additional Response"), (where, status)
                    assert response["content"]["application/json"]["schema"], (where, status)
    assert keyed >= 60
    error = document["components"]["schemas"]["ErrorBody"]
    assert set(error["properties"]) == {"error", "code", "details"} and set(error["required"]) == {"error", "code"}
    assert "HTTPValidationError" not in document["components"]["schemas"]  # the service never answers that shape


def test_the_session_stream_declares_401_for_a_wrong_key(client: TestClient) -> None:
    """The anonymous-or-keyed stream (OptionalAccount) reads the key too, though it has no security requirement."""
    operation = client.get("/openapi.json").json()["paths"]["/api/v1/session/{uuid}/message/stream"]["post"]
    assert "401" in operation["responses"]

"""The HTTP edge: body caps, error bodies for unknown paths and methods, health, the OpenAPI document."""

from __future__ import annotations

from collections.abc import Iterator

from starlette.testclient import TestClient

from botyard.errors import STATUS, AppError, ErrorCode, error_response
from tests.support.api import Api, assert_error


def test_oversize_json_body_is_413_and_writes_nothing(alice: Api) -> None:
    big = {"name": "x", "rate_limit_message": "a" * (1024 * 1024 + 10)}
    assert_error(alice.post("/chatbot/create", big), 413, "payload_too_large")
    assert alice.ok(alice.get("/chatbots")) == []


def test_oversize_chunked_body_without_length_is_413(alice: Api) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "x", "rate_limit_message": "'
        for _ in range(20):
            yield b"a" * 65536
        yield b'"}'

    response = alice.client.post(
        "/api/v1/chatbot/create", headers={**alice.auth, "Content-Type": "application/json"}, content=chunks()
    )
    assert_error(response, 413, "payload_too_large")
    assert alice.ok(alice.get("/chatbots")) == []


def test_unknown_path_and_wrong_method_use_the_error_body(alice: Api) -> None:
    assert_error(alice.get("/no/such/path"), 404, "not_found")
    assert_error(alice.client.get("/nothing-here"), 404, "not_found")
    assert_error(alice.client.put("/api/v1/chatbot/create", headers=alice.auth), 405, "method_not_allowed")


def test_json_body_of_the_wrong_shape_is_422(alice: Api) -> None:
    for body in ([], "a string", 3, None):
        response = alice.client.post(
            "/api/v1/chatbot/create", headers={**alice.auth, "Content-Type": "application/json"}, json=body
        )
        assert_error(response, 422, "validation_error")


def test_health_endpoints(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ok"}


def test_openapi_describes_every_endpoint(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    operations = [(path, op) for path, item in document["paths"].items() for op in item.values()]
    assert len(operations) > 5
    for path, operation in operations:
        assert operation.get("description", "").strip(), f"{path} has no one-line description"
    assert client.get("/docs").status_code == 200
    security = document["components"]["securitySchemes"]
    assert any(scheme.get("scheme") == "bearer" for scheme in security.values())


def test_nul_characters_are_refused_anywhere_in_a_body(alice: Api) -> None:
    bot = alice.chatbot()
    for path, body in (
        ("/chatbot/create", {"name": "a\u0000b"}),
        (f"/chatbot/{bot['uuid']}/update", {"rate_limit_message": "x\u0000"}),
        (f"/chatbot/{bot['uuid']}/agent/create", {"name": "ok", "type": "background", "tags": [{"name": "\u0000"}]}),
        (f"/chatbot/{bot['uuid']}/data-source/qa", {"question": "q\u0000", "answer": "a"}),
    ):
        assert_error(alice.post(path, body), 422, "validation_error")
    assert [b["name"] for b in alice.ok(alice.get("/chatbots"))] == ["Support bot"]
    assert alice.ok(alice.get(f"/chatbot/{bot['uuid']}/data-sources")) == []


def test_every_response_forbids_sniffing_and_sends_no_referrer(alice: Api, client: TestClient) -> None:
    bot = alice.chatbot()["uuid"]
    answers = [
        alice.get("/chatbots"),  # JSON
        alice.get(f"/chatbot/{'0' * 32}"),  # an error body
        client.get("/api/v1/chatbots"),  # 401
        alice.post("/chatbot/create", {"name": 5}),  # 422
        client.get("/dashboard"),
        client.get("/healthz"),
        client.options(
            "/api/v1/widget/config", headers={"Origin": "https://a.example", "Access-Control-Request-Method": "GET"}
        ),
        alice.get(f"/chatbot/{bot}/sync"),
    ]
    for response in answers:
        # JSON responses used to go without nosniff, and the dashboard without a Referrer-Policy.
        assert response.headers["x-content-type-options"] == "nosniff", response.request.url
        assert response.headers["referrer-policy"] == "no-referrer", response.request.url


def test_every_error_code_has_its_one_status() -> None:
    """A code is raised by name alone and answers with its status: every code has one, and an error built from a
    code carries it (`ErrorBody.code` documents the same list)."""
    assert set(STATUS) == set(ErrorCode)
    assert all(400 <= status < 600 for status in STATUS.values())
    for code in ErrorCode:
        error = AppError(code, "message")
        assert error.status == code.status == STATUS[code]
        assert error_response(error).status_code == STATUS[code]

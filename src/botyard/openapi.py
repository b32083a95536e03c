"""The statuses `/openapi.json` declares: every one an operation can answer, with the one error body.

Routers declare what only they know (409 for a duplicate, 403 for a widget's origin, 415 for a file type, 429 for a
rate limit), with a description. What follows from the shape of a route is added here, from the route itself, so
that a new route cannot forget it:

- 401 and 403 when the route reads who signs it (a dependency on `CurrentAccount`, `OptionalAccount` or
  `CurrentPrincipal`): no key or session, or a role without the route's permission;
- 404 when the path names an object (a path parameter): a missing one and another account's answer alike;
- 400 and 422 when the request has a body or parameters (unreadable JSON; invalid values);
- 413 for any method that may carry a body (RequestBodyGuard caps every body, before any route is chosen).

Every error status gets the error body `{"error", "code", "details"?}` unless its router gave another one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts

from botyard.errors import ErrorBody
from botyard.identity.caller import reads_key

ERROR_SCHEMA = "#/components/schemas/ErrorBody"
_FASTAPI_VALIDATION = "#/components/schemas/HTTPValidationError"
_BODYLESS_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

DESCRIPTIONS = {
    400: "The body could not be read: not JSON (`invalid_json`), or a malformed form.",
    401: "No API key or dashboard session, or a malformed, revoked or ended one (`unauthorized`).",
    403: "Refused: the signed-in person's role lacks the permission the operation needs (`forbidden_role`), a change "
    "signed by the session cookie came without its cross-site token (`csrf_refused`), or see the description.",
    404: "No such object for this key's account (`not_found`); another account's object answers the same.",
    405: "Not answered by this method (`method_not_allowed`).",
    409: "Conflicts with the current state (see the operation's description).",
    413: "The body is larger than the service takes (`payload_too_large`).",
    415: "The file type is not taken (`file_type_not_allowed`).",
    422: "The request is not valid (`validation_error`, with `details` naming each field).",
    429: "Rate limited (`rate_limited`); `Retry-After` says when to try again.",
}
_GENERIC = frozenset({"", "Additional Response", "Validation Error"})


def install(app: FastAPI) -> None:
    """Make `app.openapi()` declare the derived statuses (once; FastAPI caches the document)."""
    generate = app.openapi
    declared: list[int] = []  # the id of the document last declared

    def openapi() -> dict[str, Any]:
        document = generate()
        if declared != [id(document)]:
            routes = [route for route in iter_route_contexts(app.routes) if isinstance(route.original_route, APIRoute)]
            declare(document, [route for route in routes if route.include_in_schema])
            declared[:] = [id(document)]
        return document

    app.openapi = openapi  # type: ignore[method-assign]


def declare(document: dict[str, Any], routes: list[RouteContext]) -> None:
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    error = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(error.pop("$defs", {}))
    schemas["ErrorBody"] = error
    for route in routes:
        dependant: Dependant = route.dependant
        for method in route.methods or ():
            operation = document["paths"][route.path_format][method.lower()]
            responses: dict[str, Any] = operation["responses"]
            for derived in derived_statuses(dependant, method):
                responses.setdefault(str(derived), {})
            for status, response in responses.items():
                if status.isdigit() and int(status) >= 400:
                    _describe(int(status), response)
    if not any(_FASTAPI_VALIDATION in str(item) for item in document["paths"].values()):
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)


def derived_statuses(route_dependant: Dependant, method: str) -> set[int]:
    """The statuses that follow from the route's shape alone (its parameters, body and dependencies)."""
    statuses = set()
    if reads_key(route_dependant):
        statuses |= {401, 403}
    tree = list(_walk(route_dependant))
    if any(dependant.path_params for dependant in tree):
        statuses.add(404)
    if any(dependant.body_params for dependant in tree):
        statuses |= {400, 422}
    if any(d.path_params or d.query_params or d.header_params or d.cookie_params for d in tree):
        statuses.add(422)
    if method not in _BODYLESS_METHODS:
        statuses.add(413)
    return statuses


def _walk(dependant: Dependant) -> Iterator[Dependant]:
    yield dependant
    for dependency in dependant.dependencies:
        yield from _walk(dependency)


def _describe(status: int, response: dict[str, Any]) -> None:
    if response.get("description", "") in _GENERIC:
        response["description"] = DESCRIPTIONS.get(status, "Refused (see the operation's description).")
    content = response.setdefault("content", {})
    json_content = content.get("application/json", {})
    schema = json_content.get("schema", {})
    if not schema or schema.get("$ref") == _FASTAPI_VALIDATION:
        content["application/json"] = {**json_content, "schema": {"$ref": ERROR_SCHEMA}}

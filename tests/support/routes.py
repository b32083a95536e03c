"""The app's `/api` routes as served, with their declarations (`identity/access.py`): what the permission and audit
tests read instead of a table kept by hand."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts

from botyard.identity.access import Access, access_of
from botyard.identity.caller import reads_key

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def api_routes(app: FastAPI) -> Iterator[tuple[str, str, APIRoute]]:
    """Every `/api` route of the app as served: method, path template, and the route."""
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and (context.path_format or "").startswith("/api/"):
            for method in sorted(context.methods or ()):
                yield method, context.path_format or "", route


def signs(route: APIRoute) -> bool:
    """Whether the route reads who signs it (and so answers 401 for a missing or wrong key)."""
    return reads_key(route.dependant)


def declared(app: FastAPI) -> dict[str, Access | None]:
    """`"METHOD /path"` of every `/api` route to its declaration (None where it declares nothing)."""
    return {f"{method} {path}": access_of(route) for method, path, route in api_routes(app)}

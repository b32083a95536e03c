"""Pages and static files: `/widget.js`, `/chat/{uuid}` (the share link and what the widget frames),
`/dashboard`, and `/static/...`.

Every page is served with a strict Content-Security-Policy: scripts and styles only from this service, no inline
script, requests only to this service. Answers are untrusted text (they quote scraped pages), so even a rendering
bug in the browser code could not run a script or send data elsewhere.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from botyard.deps import ReadDbSession
from botyard.errors import AppError
from botyard.models import Visibility
from botyard.widget import service
from botyard.widget.origins import normalise_host, origin_allowed, referrer_origin

STATIC = Path(__file__).parent / "static"
CONFIG_MARKER = "__BOTYARD_CONFIG__"
_SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}

router = APIRouter(include_in_schema=False)


def _is_host(value: str) -> bool:
    try:
        return normalise_host(value) == value
    except ValueError:
        return False


def content_security_policy(*, frame_ancestors: str = "'none'", image_hosts: list[str] | None = None) -> str:
    # Stored hosts are checked again: a row written before `normalise_host` was strict must not shape the policy.
    images = " ".join(f"https://{host} http://{host}" for host in image_hosts or [] if _is_host(host))
    return "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            f"img-src 'self' data: {images}".rstrip(),
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            f"frame-ancestors {frame_ancestors}",
        )
    )


@cache
def _page(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def _not_found() -> HTMLResponse:
    body = "<!doctype html><meta charset=utf-8><title>Not found</title><p>This chat does not exist.</p>"
    return HTMLResponse(body, status_code=404, headers={"Content-Security-Policy": content_security_policy()})


@router.get("/")
async def home() -> RedirectResponse:
    return RedirectResponse("/dashboard")


@router.get("/dashboard")
async def dashboard() -> FileResponse:
    headers = _SECURITY_HEADERS | {"Content-Security-Policy": content_security_policy(image_hosts=[])}
    return FileResponse(STATIC / "dashboard" / "index.html", headers=headers)


@router.get("/widget.js")
async def widget_script() -> FileResponse:
    return FileResponse(STATIC / "widget.js", media_type="text/javascript", headers=_SECURITY_HEADERS)


@router.get("/chat/{chatbot_uuid}")
async def chat_page(chatbot_uuid: str, request: Request, db: ReadDbSession) -> Response:
    """The full-page chat. `public` chatbots: the share link; `hybrid`: only inside the widget's frame."""
    try:
        opened = await service.open_chatbot(db, chatbot_uuid)
    except AppError:
        return _not_found()
    framed = request.headers.get("sec-fetch-dest") == "iframe"
    if opened.chatbot.visibility == Visibility.HYBRID and not framed:
        return _not_found()
    allowed = opened.allowed_origins
    embedder = referrer_origin(request) if framed else None
    if embedder is not None and not origin_allowed(embedder, allowed, request):
        body = "<!doctype html><meta charset=utf-8><title>Refused</title><p>This website may not embed this chat.</p>"
        return HTMLResponse(body, status_code=403, headers={"Content-Security-Policy": content_security_policy()})
    config = {**(await service.config(db, opened)), "embedded": framed}
    # A JSON data block is never executed; escaping <, > and & keeps "</script>" in a title from closing it.
    data = (
        json.dumps(config, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    )
    ancestors = "'self' " + " ".join(allowed) if allowed else "*"
    csp = content_security_policy(frame_ancestors=ancestors, image_hosts=opened.settings["image_hosts"])
    headers = _SECURITY_HEADERS | {"Content-Security-Policy": csp, "Referrer-Policy": "no-referrer"}
    return HTMLResponse(_page("chat/chat.html").replace(CONFIG_MARKER, data), headers=headers)


class _Revalidated(StaticFiles):
    """Static files a browser must revalidate (a cheap 304 when unchanged): after an upgrade, a cached script must
    never run against the new page or API."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def mount(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/static", _Revalidated(directory=STATIC), name="static")

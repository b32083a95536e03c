"""The API documentation pages, `/docs` (Swagger UI) and `/redoc` (ReDoc), with no request leaving the service.

FastAPI's own pages load their scripts and styles from a CDN, so on a machine without internet they are blank.
These are the same pages (FastAPI's `get_swagger_ui_html` and `get_redoc_html`) pointing at the copies of Swagger
UI, ReDoc and the favicon that the `fastapi-offline` package installs (MIT; its static files only, not its app),
served under `/docs/static`. ReDoc's Google fonts are left out, and its page allows images from the service only:
ReDoc's sidebar credit shows Redocly's logo from cdn.redoc.ly, which is then not fetched (its alt text shows).
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

STATIC = "/docs/static"
REDOC_POLICY = "img-src 'self' data:"


def install(app: FastAPI) -> None:
    """Serve the pages on an app created with `docs_url=None, redoc_url=None` (FastAPI's CDN pages turned off)."""
    assets = files("fastapi_offline") / "static"
    app.mount(STATIC, StaticFiles(directory=str(assets)), name="api-docs-static")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=f"{root}/docs/oauth2-redirect",
            swagger_js_url=f"{root}{STATIC}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{STATIC}/swagger-ui.css",
            swagger_favicon_url=f"{root}{STATIC}/favicon.png",
            # No "valid" badge fetched from validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None, **(app.swagger_ui_parameters or {})},
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def swagger_ui_oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{STATIC}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{STATIC}/favicon.png",
            with_google_fonts=False,
        )
        page.headers["Content-Security-Policy"] = REDOC_POLICY
        return page

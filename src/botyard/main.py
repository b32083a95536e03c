"""The application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from functools import partial

from fastapi import APIRouter, FastAPI, Request

from botyard import __version__
from botyard.about.router import router as about_router
from botyard.agents.router import router as agents_router
from botyard.agents.service import add_default_agent
from botyard.analytics.router import router as analytics_router
from botyard.answering.router import router as answering_router
from botyard.answering.turn.sweep import sweep_streaming
from botyard.api_docs import install as install_api_docs
from botyard.audit.recorder import AuditTrail, note
from botyard.audit.router import router as audit_router
from botyard.audit.service import AuditLog
from botyard.channels.erasure import erase_channel_records
from botyard.channels.ingress import router as channel_ingress_router
from botyard.channels.router import router as channels_router
from botyard.chat.feedback.router import router as feedback_router
from botyard.chat.history.router import router as history_router
from botyard.chat.router import router as chat_router
from botyard.chatbots.handoff.router import router as handoff_router
from botyard.chatbots.router import router as chatbots_router
from botyard.config import Settings
from botyard.contacts.router import router as contacts_router
from botyard.cors import Origins, ServiceCors
from botyard.crawl.router import router as crawl_router
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.egress import Resolver
from botyard.errors import install_error_handlers
from botyard.hit_testing.router import router as hit_testing_router
from botyard.identity.browser_sessions import devices
from botyard.identity.http.keys import router as keys_router
from botyard.identity.http.members import router as members_router
from botyard.identity.http.setup import router as setup_router
from botyard.identity.http.signin import router as signin_router
from botyard.identity.http.sso import router as sso_router
from botyard.identity.sso.setup import provider_of
from botyard.integrations.router import router as integrations_router
from botyard.live.canned.router import router as canned_router
from botyard.live.event_stream import StreamSlots
from botyard.live.inbox.router import router as inbox_router
from botyard.live.notes.router import router as notes_router
from botyard.live.router import router as live_router
from botyard.live.wakeup import EventWatch
from botyard.logs import RequestId
from botyard.metrics import RequestMetrics, RouteProbe
from botyard.middleware import RequestBodyGuard
from botyard.openapi import install as declare_statuses
from botyard.runtime import Runtime
from botyard.scrape import router as metrics_router
from botyard.security_headers import SecurityHeaders
from botyard.service_settings.router import router as service_settings_router
from botyard.session_documents.router import router as session_documents_router
from botyard.sources.router import restart_router
from botyard.sources.router import router as sources_router
from botyard.testsets.router import router as testsets_router
from botyard.unanswered.router import router as unanswered_router
from botyard.web.router import mount as mount_web
from botyard.webhooks.router import router as webhooks_router
from botyard.widget.cors import WidgetCors
from botyard.widget.router import router as widget_router

DESCRIPTION = """Self-hostable chatbot management service, compatible with the hosted chatbot API.

Every `/api/v1` request carries `Authorization: Bearer <key>` (create one with `botyard key create --email ...`).
Errors answer `{"error": "<message>", "code": "<stable code>"}`."""


def create_app(
    settings: Settings | None = None, resolver: Resolver | None = None, clock: Callable[[], datetime] = utcnow
) -> FastAPI:
    """The app. `resolver` replaces DNS for outbound requests (tests only: the one fake at that seam); `clock` is
    what rate limits count time by (tests move one by hand)."""
    settings = settings or Settings()
    origins = Origins(settings.cors_origins)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = Runtime.build(settings, resolver, clock, origins)
        app.state.runtime = runtime
        app.state.live_settings = runtime.live
        # What handlers depend on (deps.py), each by itself: no router sees the whole runtime.
        app.state.database = runtime.database
        app.state.egress = runtime.egress
        app.state.retriever = runtime.retriever
        app.state.answers = runtime.answers
        app.state.clock = runtime.clock
        app.state.oidc = provider_of(settings, runtime.egress)
        app.state.event_watch = EventWatch(runtime.database)
        app.state.stream_slots = StreamSlots(settings.streams_per_address)
        app.state.device_cookies = devices.DeviceCookies(partial(runtime.live.cipher.derived_key, devices.PURPOSE))
        try:
            await runtime.follow_settings()
            await sweep_streams(runtime)
            if settings.jobs_in_process:
                await runtime.start_jobs()
            yield
        finally:
            await app.state.event_watch.close()
            await runtime.close()

    # FastAPI's /docs and /redoc load their scripts from a CDN; api_docs serves them from the installed package.
    app = FastAPI(
        title="Botyard",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.audit_log = AuditLog(settings.audit_days)
    _hand_over(app)
    install_error_handlers(app)
    _include_routers(app, settings)
    declare_statuses(app)
    _add_middleware(app, settings, origins)
    return app


def _hand_over(app: FastAPI) -> None:
    """What a feature asks of the features above it, which it may not import: handed over here, at the top."""
    app.state.new_chatbot_parts = add_default_agent
    app.state.contact_erasers = (erase_channel_records,)  # what the channels keep of a person goes with them


def _include_routers(app: FastAPI, settings: Settings) -> None:
    api = APIRouter(prefix="/api/v1")
    routers = (
        answering_router,  # first: every message's request is matched against the routes in this order
        widget_router,
        setup_router,
        keys_router,
        signin_router,
        sso_router,
        members_router,
        audit_router,
        chatbots_router,
        agents_router,
        sources_router,
        crawl_router,
        chat_router,
        feedback_router,
        history_router,
        session_documents_router,
        live_router,
        inbox_router,
        contacts_router,
        notes_router,
        canned_router,
        handoff_router,
        hit_testing_router,
        webhooks_router,
        channels_router,
        integrations_router,
        about_router,
        service_settings_router,
        unanswered_router,
        testsets_router,
        analytics_router,
    )
    for router in routers:
        api.include_router(router)
    # The providers' deliveries (outside /api: signed, not keyed) first: they come hundreds a second, and no other
    # route's path begins with /channels/, so matching them before /api/v1's routes changes no request's route.
    app.include_router(channel_ingress_router)
    app.include_router(api)
    app.include_router(restart_router, prefix="/api")  # the SDK's unversioned path
    app.include_router(_health_router())
    if settings.metrics:
        app.include_router(metrics_router())
    mount_web(app)
    install_api_docs(app)


def _add_middleware(app: FastAPI, settings: Settings, origins: Origins) -> None:
    if settings.metrics:
        app.add_middleware(RouteProbe, routes=app.routes)  # innermost: it sees the route the router chose
    # Inside the body guard, which may copy the scope: the recorder reads the route and the signer the app noted.
    app.add_middleware(AuditTrail, settings=settings, audit_log=app.state.audit_log)
    app.state.audit_note = note  # what identity's sign-in routes write through (`identity/recording.py`)
    app.add_middleware(RequestBodyGuard, settings=settings)
    app.add_middleware(ServiceCors, origins=origins)  # `cors_origins`, which the dashboard's settings may change
    app.add_middleware(WidgetCors)  # the widget API's CORS follows each chatbot's allowed origins
    app.add_middleware(SecurityHeaders)  # around everything, errors and CORS preflights included
    app.add_middleware(RequestId)  # every line written while answering carries the request's id
    if settings.metrics:
        app.add_middleware(RequestMetrics)  # outermost: every answer counts, the other middleware's own included


async def sweep_streams(runtime: Runtime) -> None:
    """No message stays `streaming` after a crash: the ones a dead process left are stored as interrupted."""
    async with runtime.database.transaction() as session:
        await sweep_streaming(session, utcnow())


def _health_router() -> APIRouter:
    router = APIRouter(tags=["operations"])

    @router.get("/healthz")
    async def healthz() -> dict[str, str]:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @router.get("/readyz")
    async def readyz(request: Request) -> dict[str, str]:
        """Readiness: the database answers."""
        database: Database = request.app.state.database
        await database.ping()
        return {"status": "ok"}

    return router

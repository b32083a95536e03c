"""The one error type and the one error body.

Every failure a client sees is `{"error": "<human message>", "code": "<stable code>"}`, plus `details` for
validation errors. Business code raises `AppError`; HTTP-level failures (unknown path, wrong method, invalid
request) are translated here, so no handler anywhere builds an error body of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger(__name__)


class ErrorCode(StrEnum):
    """Stable machine-readable error codes; the human message may change, these never do."""

    UNAUTHORIZED = "unauthorized"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    VALIDATION_ERROR = "validation_error"
    INVALID_JSON = "invalid_json"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    CONFLICT = "conflict"
    AGENT_TYPE_LIMIT = "agent_type_limit"
    FILE_TYPE_NOT_ALLOWED = "file_type_not_allowed"
    URL_REFUSED = "url_refused"
    UNKNOWN_UUIDS = "unknown_uuids"
    NOT_A_QA_SOURCE = "not_a_qa_source"
    QA_PAIR_NOT_OFFERED = "qa_pair_not_offered"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_STREAMS = "too_many_streams"
    LIVE_CHAT_ACTIVE = "live_chat_active"
    LIVE_CHAT_INACTIVE = "live_chat_inactive"
    HUMAN_REQUEST_INACTIVE = "human_request_inactive"
    CONTACT_FORM_CLOSED = "contact_form_closed"
    ORIGIN_NOT_ALLOWED = "origin_not_allowed"
    SETUP_REFUSED = "setup_refused"
    SETUP_DONE = "setup_done"
    FORBIDDEN_ROLE = "forbidden_role"
    CSRF_REFUSED = "csrf_refused"
    NOT_A_PERSON = "not_a_person"
    SIGNIN_FAILED = "signin_failed"
    SIGNIN_THROTTLED = "signin_throttled"
    EMAIL_TAKEN = "email_taken"
    LAST_OWNER = "last_owner"
    LINK_INVALID = "link_invalid"
    SETTING_LOCKED = "setting_locked"
    LLM_API_KEY_REQUIRED = "llm_api_key_required"
    SIGNATURE_INVALID = "signature_invalid"
    PUBLIC_URL_REQUIRED = "public_url_required"
    CHANNEL_REFUSED = "channel_refused"
    CHANNEL_SEND_FAILED = "channel_send_failed"
    CHANNEL_BOT_IN_USE = "channel_bot_in_use"
    CHANNEL_WINDOW_CLOSED = "channel_window_closed"
    VERIFY_TOKEN_INVALID = "verify_token_invalid"  # noqa: S105 (an error code)
    MERGE_WITH_ITSELF = "merge_with_itself"
    SNOOZE_TIME_INVALID = "snooze_time_invalid"
    CANNED_REPLY_EXISTS = "canned_reply_exists"
    INTERNAL_ERROR = "internal_error"

    @property
    def status(self) -> int:
        """The HTTP status this code always answers with."""
        return STATUS[self]


STATUS: Final[Mapping[ErrorCode, int]] = {
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.VALIDATION_ERROR: 422,
    ErrorCode.INVALID_JSON: 400,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.CONFLICT: 409,
    ErrorCode.AGENT_TYPE_LIMIT: 409,
    ErrorCode.FILE_TYPE_NOT_ALLOWED: 415,
    ErrorCode.URL_REFUSED: 422,
    ErrorCode.UNKNOWN_UUIDS: 422,
    ErrorCode.NOT_A_QA_SOURCE: 422,
    ErrorCode.QA_PAIR_NOT_OFFERED: 409,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.TOO_MANY_STREAMS: 429,
    ErrorCode.LIVE_CHAT_ACTIVE: 409,
    ErrorCode.LIVE_CHAT_INACTIVE: 409,
    ErrorCode.HUMAN_REQUEST_INACTIVE: 409,
    ErrorCode.CONTACT_FORM_CLOSED: 409,
    ErrorCode.ORIGIN_NOT_ALLOWED: 403,
    ErrorCode.SETUP_REFUSED: 403,
    ErrorCode.SETUP_DONE: 409,
    ErrorCode.FORBIDDEN_ROLE: 403,
    ErrorCode.CSRF_REFUSED: 403,
    ErrorCode.NOT_A_PERSON: 409,
    ErrorCode.SIGNIN_FAILED: 401,
    ErrorCode.SIGNIN_THROTTLED: 429,
    ErrorCode.EMAIL_TAKEN: 409,
    ErrorCode.LAST_OWNER: 409,
    ErrorCode.LINK_INVALID: 410,
    ErrorCode.SETTING_LOCKED: 409,
    ErrorCode.LLM_API_KEY_REQUIRED: 422,
    ErrorCode.SIGNATURE_INVALID: 401,
    ErrorCode.PUBLIC_URL_REQUIRED: 422,
    ErrorCode.CHANNEL_REFUSED: 422,
    ErrorCode.CHANNEL_SEND_FAILED: 422,
    ErrorCode.CHANNEL_BOT_IN_USE: 409,
    ErrorCode.CHANNEL_WINDOW_CLOSED: 422,
    ErrorCode.VERIFY_TOKEN_INVALID: 403,
    ErrorCode.MERGE_WITH_ITSELF: 422,
    ErrorCode.SNOOZE_TIME_INVALID: 422,
    ErrorCode.CANNED_REPLY_EXISTS: 409,
    ErrorCode.INTERNAL_ERROR: 500,
}
"""Each code's one status: a code is raised by its name alone (`AppError(ErrorCode.CONFLICT, ...)`), so a code can
never travel with two statuses."""


Responses = dict[int | str, dict[str, Any]]
"""A route's OpenAPI `responses`."""


def error_responses(reasons: Mapping[ErrorCode, str]) -> Responses:
    """The OpenAPI `responses` of a route's refusals, each code under its own status (`STATUS`, so a code cannot be
    documented under a status it never answers with), described as "`code`: reason"; the codes of one status share
    one description, in the order given. `openapi.declare` gives each the error body (`ErrorBody`)."""
    described: dict[int | str, list[str]] = {}
    for code, reason in reasons.items():
        described.setdefault(code.status, []).append(f"`{code.value}`: {reason}")
    return {status: {"description": "; ".join(parts)} for status, parts in described.items()}


class ErrorBody(BaseModel):
    """The body of every error response (documentation only: `AppError.body` builds it)."""

    error: str = Field(description="A message for people; it may change.")
    code: ErrorCode = Field(description="A stable machine-readable code.")
    details: list[dict[str, Any]] | None = Field(
        default=None, description="Validation errors only: one entry per field or uuid at fault."
    )


class AppError(Exception):
    """A failure with a stable code (which carries its status) and a message meant for the client."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        details: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = code.status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.message, "code": self.code.value}
        if self.details is not None:
            body["details"] = self.details
        return body


def not_found(what: str) -> AppError:
    """The one answer for a missing object and for another account's object (they must be indistinguishable)."""
    return AppError(ErrorCode.NOT_FOUND, f"{what} not found")


def unknown_uuids(bad: list[str], *, noun: str, reason: str) -> AppError:
    """An all-or-nothing request named uuids that are not the account's `noun`: nothing was done, and each bad uuid
    is listed with `reason` (a foreign uuid exactly like an unknown one)."""
    details: list[dict[str, Any]] = [{"uuid": uuid, "error": reason} for uuid in bad]
    message = f"{len(bad)} of the uuids are not {noun} of this account; nothing was deleted"
    return AppError(ErrorCode.UNKNOWN_UUIDS, message, details)


def validation_error(message: str, details: list[dict[str, Any]] | None = None) -> AppError:
    return AppError(ErrorCode.VALIDATION_ERROR, message, details)


def unauthorized(message: str = "Invalid or missing API key") -> AppError:
    return AppError(ErrorCode.UNAUTHORIZED, message)


def error_response(error: AppError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if error.status == 401 else {}
    return JSONResponse(error.body(), status_code=error.status, headers=headers | (error.headers or {}))


def _validation_details(exc: RequestValidationError) -> list[dict[str, Any]]:
    details = []
    for err in exc.errors():
        loc = [str(part) for part in err.get("loc", ()) if part != "body"]
        if err.get("type") == "nul_character":  # raised for the whole body; the field is in its context
            loc += [str(err.get("ctx", {}).get("field", ""))]
        details.append({"field": ".".join(loc), "message": str(err.get("msg", "")), "type": str(err.get("type"))})
    return details


async def _app_error_handler(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    return error_response(exc)


async def _validation_handler(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    if any(err.get("type") == "json_invalid" for err in exc.errors()):
        return error_response(AppError(ErrorCode.INVALID_JSON, "Request body is not valid JSON"))
    details = _validation_details(exc)
    first = details[0] if details else {"field": "", "message": "invalid request"}
    where = f" ({first['field']})" if first["field"] else ""
    return error_response(validation_error(f"Invalid request{where}: {first['message']}", details))


_HTTP_CODES = {
    401: ErrorCode.UNAUTHORIZED,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    413: ErrorCode.PAYLOAD_TOO_LARGE,
}


async def _http_handler(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, ErrorCode.VALIDATION_ERROR)
    message = {404: "Not found", 405: "Method not allowed"}.get(exc.status_code, str(exc.detail))
    # Starlette's own status stays (a 400 of a malformed multipart body reads as a validation error).
    headers = {"WWW-Authenticate": "Bearer"} if exc.status_code == 401 else {}
    body = {"error": message, "code": code.value}
    return JSONResponse(body, status_code=exc.status_code, headers=headers | dict(exc.headers or {}))


async def _unexpected_handler(_: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error", exc_info=exc)
    return error_response(AppError(ErrorCode.INTERNAL_ERROR, "Internal server error"))


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AppError, _app_error_handler)
    app.add_exception_handler(RequestValidationError, _validation_handler)
    app.add_exception_handler(StarletteHTTPException, _http_handler)
    app.add_exception_handler(Exception, _unexpected_handler)

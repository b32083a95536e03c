"""The Settings page's "Test connection": one short prompt to the configured model, through the same provider the
answers use (`llm.registry`), so that what the test shows is what a visitor would get.

The model's endpoint is trusted as the environment's `BOTYARD_LLM_BASE_URL` is (it is often on the same machine or
network, like Ollama), so it goes through `egress.trusted_client`, not the guarded client of untrusted URLs: only the
instance's owner and admins may set it, the same people who may widen the egress allowlist.
"""

from __future__ import annotations

from contextlib import aclosing
from urllib.parse import urlsplit

from botyard.config import Settings, setting_name
from botyard.llm.provider import ChatMessage, StreamEnd, TextDelta
from botyard.llm.registry import ModelRegistry, UnknownModel, build_llm_provider
from botyard.service_settings.schemas import ConnectionResult

PROMPT = "This is a connection test. Reply with one short sentence."
MAX_TOKENS = 40
TIMEOUT = 30.0
BASE_URL = setting_name("llm_base_url", "Base URL")
API_KEY = setting_name("llm_api_key", "API key")
MODELS = setting_name("llm_models", "Model map")
DEFAULT_MODEL = setting_name("llm_default_model", "Default model")


async def check_connection(settings: Settings, model: str) -> ConnectionResult:
    """Ask the model of `settings` for one short reply; a failure is described, naming the setting to check."""
    if settings.llm_base_url is None:
        missing = f"No language model is configured: set {BASE_URL}"
        return ConnectionResult(ok=False, model="", host="", reply=None, error=missing)
    host = _host(settings.llm_base_url)
    try:
        provider_model = ModelRegistry.from_settings(settings).resolve(model).provider_model
    except (UnknownModel, ValueError) as failure:
        return ConnectionResult(ok=False, model=model, host=host, reply=None, error=str(failure))
    quick = {"llm_total_timeout": min(settings.llm_total_timeout, TIMEOUT), "llm_max_connections": 1}
    provider = build_llm_provider(settings.model_copy(update=quick))
    assert provider is not None  # a base URL is set
    pieces: list[str] = []
    error: str | None = None
    try:
        messages = [ChatMessage("user", PROMPT)]
        stream = provider.stream(messages, model=provider_model, temperature=0.0, max_tokens=MAX_TOKENS)
        async with aclosing(stream) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    pieces.append(event.text)
                elif isinstance(event, StreamEnd):
                    error = event.error
    finally:
        await provider.aclose()
    if error is not None:
        return ConnectionResult(
            ok=False, model=provider_model, host=host, reply=None, error=_explain(error, host, provider_model)
        )
    return ConnectionResult(ok=True, model=provider_model, host=host, reply="".join(pieces).strip(), error=None)


def _explain(error: str, host: str, model: str) -> str:
    """The provider's reason, and which setting would fix it."""
    if "HTTP 401" in error or "HTTP 403" in error:
        return f"{host} refused the key ({error}): check {API_KEY}"
    if "HTTP 404" in error:
        return (
            f"{host} has no model {model!r} ({error}): name one it serves in {MODELS} or {DEFAULT_MODEL}, "
            f"and check that {BASE_URL} ends where the API starts (often /v1)"
        )
    if "could not reach" in error or "connection" in error:
        return f"Could not reach {host} ({error}): check {BASE_URL} and that the server is running"
    return f"{host} did not answer as expected ({error})"


def _host(url: str) -> str:
    """Host and port only: a key may hide in a URL's user part or query."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return ""
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{port}" if port is not None else host

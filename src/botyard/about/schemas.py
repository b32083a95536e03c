from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict


class ServiceInfo(TypedDict):
    """What answers and what embeds in this service (never a key or a full URL)."""

    version: str
    answerer: Literal["offline", "llm"]
    """`llm` when `BOTYARD_LLM_BASE_URL` is set: a language model writes the answers, follows the agents' prompts,
    models and temperatures, and calls their tool functions; `offline`: answers are composed from the knowledge."""
    llm_host: str | None
    """The language model API's host (and port), without its path, credentials or key; null when offline."""
    llm_models: dict[str, str]
    """The operator's map from catalogue names to the provider's models (`BOTYARD_LLM_MODELS`)."""
    llm_default_model: str | None
    """The provider model for catalogue names not in the map (`BOTYARD_LLM_DEFAULT_MODEL`); null: the name's base."""
    public_url: str
    """`BOTYARD_PUBLIC_URL`, the address the service is reached at: a channel's inbound URL starts with it, and
    Telegram's webhook needs it to be a public `https://` address (else a channel polls)."""
    embedder: Literal["multilingual", "minilm", "none", "openai"]
    """`BOTYARD_EMBEDDER`."""
    embedder_model: str | None
    """The embedding model in use (what stored vectors are tagged with); null with `none` (keyword search only)."""

"""`BOTYARD_SECRET_KEY` is checked when the settings are read: a key that cannot encrypt stops the start with a
message that says what a key is, whether it is not base64 at all or base64 of the wrong length."""

from __future__ import annotations

import base64

import pytest
from cryptography.fernet import Fernet
from pydantic import ValidationError

from botyard.config import Settings


@pytest.mark.parametrize(
    "key",
    ["not base64 at all!", "QUJD", base64.urlsafe_b64encode(b"x" * 31).decode(), "A" * 43],
    ids=["not-base64", "three-bytes", "31-bytes", "no-padding"],
)
def test_a_key_that_cannot_encrypt_is_refused_with_what_a_key_is(key: str) -> None:
    with pytest.raises(ValidationError, match="not a Fernet key: 32 bytes in URL-safe base64"):
        Settings(secret_key=key)


def test_a_fernet_key_and_no_key_are_accepted() -> None:
    key = Fernet.generate_key().decode()
    assert Settings(secret_key=key).secret_key is not None
    assert Settings(secret_key=None).secret_key is None

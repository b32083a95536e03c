from __future__ import annotations

from botyard.errors import AppError, ErrorCode


def normalise_email(email: str) -> str:
    """The one form an email address is stored and compared in (trimmed, lower case), or 422."""
    email = email.strip().lower()
    if "@" not in email or email.startswith("@") or email.endswith("@") or len(email) > 320:
        raise AppError(ErrorCode.VALIDATION_ERROR, f"Not an email address: {email!r}")
    return email

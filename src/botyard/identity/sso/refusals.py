"""Why a single sign-on was refused, each with what the person can do about it.

The callback sends the browser back to the dashboard with the reason alone (`/dashboard#sso=<reason>`), never with
a text of its own: a link that anyone can craft must not put words of theirs on the sign-in page. The page shows
the message of `GET /api/v1/auth/oidc` for that reason.
"""

from __future__ import annotations

from enum import StrEnum


class Refusal(StrEnum):
    NOT_CONFIGURED = "not_configured"
    UNREACHABLE = "unreachable"
    EGRESS_REFUSED = "egress_refused"
    PROVIDER_ERROR = "provider_error"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    INVALID_TOKEN = "invalid_token"  # noqa: S105 - a reason, not a secret
    EMAIL_UNVERIFIED = "email_unverified"
    UNKNOWN_EMAIL = "unknown_email"
    LINKED_ELSEWHERE = "linked_elsewhere"
    SEVERAL_INVITATIONS = "several_invitations"
    LOOKALIKE_EMAIL = "lookalike_email"


_ADMIN = "if it goes on, tell whoever runs this Botyard"
MESSAGES: dict[Refusal, str] = {
    Refusal.NOT_CONFIGURED: "Single sign-on is not set up on this service: sign in with your email and password.",
    Refusal.UNREACHABLE: f"The sign-in provider could not be reached: try again in a moment ({_ADMIN}).",
    Refusal.EGRESS_REFUSED: "This service may not contact the sign-in provider: whoever runs it can allow its host "
    "with BOTYARD_EGRESS_ALLOWLIST (and its port with BOTYARD_EGRESS_ALLOWED_PORTS).",
    Refusal.PROVIDER_ERROR: f"The sign-in provider gave an answer this service cannot use: try again ({_ADMIN}; "
    "the service's log says what was wrong).",
    Refusal.CANCELLED: "The sign-in was cancelled or refused at the provider: try again.",
    Refusal.EXPIRED: "This sign-in was not started from this browser, or took longer than 10 minutes: start again.",
    Refusal.INVALID_TOKEN: "The sign-in provider's proof of who you are did not pass the checks: try again "
    f"({_ADMIN}).",
    Refusal.EMAIL_UNVERIFIED: "Your email address is not verified at the sign-in provider: verify it there, then "
    "sign in again.",
    Refusal.UNKNOWN_EMAIL: "No member of this service has your email address, and no account was created: ask an "
    "owner or admin of your team's account for an invitation to this email, then sign in again.",
    Refusal.LINKED_ELSEWHERE: "The member with your email address signs in with another account at this provider: "
    "sign in with that one, or ask an owner or admin of your team's account.",
    Refusal.SEVERAL_INVITATIONS: "Several accounts invited your email: open the invitation link of the one you "
    "want to join.",
    Refusal.LOOKALIKE_EMAIL: "Your email address at the sign-in provider has a character that passes for another "
    "letter (such as the Kelvin sign for K), so this service does not accept it: change it at the provider to the "
    "ordinary letters of your mailbox, or sign in with your email and password.",
}


class SignInRefused(Exception):
    """A single sign-on that ends without a session; `detail` is for the service's log (never a secret)."""

    def __init__(self, refusal: Refusal, detail: str = "") -> None:
        super().__init__(f"{refusal.value}: {detail}" if detail else refusal.value)
        self.refusal = refusal
        self.detail = detail

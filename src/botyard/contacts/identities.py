"""Which identities a channel gives of the person who writes, as pure functions: a contact is found by any of them.

| where they write                      | identity                                                   |
|---------------------------------------|------------------------------------------------------------|
| the widget                            | `visitor` (`chatbot_uuid:device_id`), `email` when given   |
| the after-hours form                  | `email`                                                    |
| WhatsApp, SMS                         | `phone` (E.164)                                            |
| email                                 | `email` (lower-cased)                                      |
| Telegram, Slack, Messenger, Instagram | the channel's user id, under the channel's name            |
| the generic channel                   | `webhook` (`channel_uuid:user`): its ids are the owner's   |

So the same person on WhatsApp and SMS, or on the widget (giving their email) and by email, is one contact.
"""

from __future__ import annotations

from dataclasses import dataclass

import phonenumbers

from botyard.contacts import phones
from botyard.models.channel import ChannelType
from botyard.models.kinds import IdentityKind

MAX_VALUE = 255
"""`contact_identity.value`'s length."""

_BY_USER_ID = {
    ChannelType.TELEGRAM: IdentityKind.TELEGRAM,
    ChannelType.SLACK: IdentityKind.SLACK,
    ChannelType.MESSENGER: IdentityKind.MESSENGER,
    ChannelType.INSTAGRAM: IdentityKind.INSTAGRAM,
}
_BY_PHONE = frozenset({ChannelType.WHATSAPP, ChannelType.SMS})


@dataclass(frozen=True)
class Identity:
    """One way a channel knows a person: `kind` and the `value` there, as stored (normalised)."""

    kind: IdentityKind
    value: str


def email(address: str) -> Identity | None:
    """The address, trimmed and lower-cased; None when it is not one (no `@` between two parts)."""
    text = address.strip().lower()
    local, at, domain = text.rpartition("@")
    if not at or not local or not domain or len(text) > MAX_VALUE or any(c.isspace() for c in text):
        return None
    return Identity(IdentityKind.EMAIL, text)


def phone(number: str) -> Identity | None:
    """The number in E.164; None when it is not one in international form (or too short or long to be one)."""
    try:
        e164 = phones.canonical(number)
    except phones.NotAPhoneNumber:
        return None
    return Identity(IdentityKind.PHONE, e164) if phonenumbers.is_possible_number(phonenumbers.parse(e164)) else None


def visitor(chatbot_uuid: str, device_id: str) -> list[Identity]:
    """The widget's visitor on this chatbot's widget (none without a device id)."""
    device = device_id.strip()
    return [Identity(IdentityKind.VISITOR, f"{chatbot_uuid}:{device}"[:MAX_VALUE])] if device else []


def of_channel(channel_type: str, channel_uuid: str, user_id: str) -> list[Identity]:
    """What a channel's user id says of the person: their phone, email or id there (none for an empty id)."""
    user = user_id.strip()
    if not user:
        return []
    kind = ChannelType(channel_type)
    if kind in _BY_PHONE:
        found = phone(user)
    elif kind is ChannelType.EMAIL:
        found = email(user)
    elif kind is ChannelType.GENERIC:
        found = Identity(IdentityKind.WEBHOOK, f"{channel_uuid}:{user}"[:MAX_VALUE])
    else:
        found = Identity(_BY_USER_ID[kind], user[:MAX_VALUE])
    return [] if found is None else [found]


def given(email_address: str = "", phone_number: str = "") -> list[Identity]:
    """The identities of an email address and a phone number a person gave (the ones that read as such)."""
    found = [email(email_address) if email_address else None, phone(phone_number) if phone_number else None]
    return [identity for identity in found if identity is not None]

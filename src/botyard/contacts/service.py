"""The rules of contacts: a person is recognised by any identity a channel gives (`recognise`, what conversations
call as they begin), read, searched, edited and merged by the team. Never commits: the caller's transaction does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import session_state
from botyard.chat.contact_sessions import service as contact_sessions
from botyard.chatbots import service as chatbots
from botyard.contacts import identities
from botyard.contacts.identities import Identity
from botyard.contacts.repository import ContactRepository, IdentityRepository
from botyard.errors import AppError, ErrorCode, validation_error
from botyard.models import Channel, ChatSession, Contact, ContactIdentity, IdentityKind

MAX_NAME = 200
MAX_ATTRIBUTES = 30
"""How many attributes a contact keeps (a site passes a few: company, plan, locale)."""
MAX_ATTRIBUTE_KEY = 64
MAX_ATTRIBUTE_VALUE = 500


@dataclass(frozen=True)
class ContactSummary:
    """What a conversation's context shows of its contact (the inbox)."""

    uuid: str
    name: str
    email: str
    phone: str
    identity_kinds: list[str]
    """Each kind once, in the order they were first known."""
    conversation_count: int


async def summary(db: AsyncSession, account_uuid: str, contact_uuid: str) -> ContactSummary | None:
    """The account's contact in brief; None when there is none of that uuid (or it is another account's)."""
    contact = await ContactRepository(db).owned(account_uuid, contact_uuid)
    if contact is None:
        return None
    known = (await IdentityRepository(db).of_contacts([contact.uuid]))[contact.uuid]
    count = (await contact_sessions.counts(db, [contact.uuid]))[contact.uuid]
    kinds = list(dict.fromkeys(identity.kind for identity in known))
    return ContactSummary(contact.uuid, contact.name, contact.email, contact.phone, kinds, count)


async def recognise(
    db: AsyncSession,
    account_uuid: str,
    session: ChatSession,
    seen: Sequence[Identity],
    *,
    now: datetime,
    name: str = "",
    email: str = "",
    phone: str = "",
    page: str = "",
    attributes: Mapping[str, str] | None = None,
) -> Contact:
    """The person who writes in `session`, known by `seen` (the channel's identities) and the email and phone they
    gave: the session's contact when it has one, else the contact of the first identity already known, else a new
    one. The identities it lacks are added (one
    already another contact's stays theirs: merging is the team's decision), empty name, email and phone are
    filled (never overwriting what was there, an operator's edit included), it was seen `now`, and the session is
    linked to it (with the widget's `page`)."""
    wanted = list(dict.fromkeys([*seen, *identities.given(email, phone)]))
    known = await IdentityRepository(db).find(account_uuid, wanted)
    contact = await _linked(db, account_uuid, session) or await _first_owner(db, account_uuid, wanted, known)
    if contact is not None:
        await _add_missing(db, account_uuid, contact.uuid, wanted, known, now)
    else:
        contact = await ContactRepository(db).add(Contact(account_uuid=account_uuid, attributes={}, created_at=now))
        if not await _add_missing(db, account_uuid, contact.uuid, wanted, known, now):
            # Another transaction recognised the same person meanwhile (PostgreSQL: its identity was committed
            # first): theirs is the contact, and the one made here would be left with no identity.
            known = await IdentityRepository(db).find(account_uuid, wanted)
            theirs = await _first_owner(db, account_uuid, wanted, known)
            if theirs is not None:
                await ContactRepository(db).remove(contact.uuid)
                contact = theirs
                await _add_missing(db, account_uuid, contact.uuid, wanted, known, now)
    fill = _filled(contact, name, wanted, attributes or {})
    await ContactRepository(db).update(contact, {**fill, "last_seen_at": now})
    session_state.link_contact(session, contact.uuid, page)
    return contact


async def recognise_on_channel(
    db: AsyncSession, account_uuid: str, session: ChatSession, channel: Channel, user: tuple[str, str], now: datetime
) -> Contact:
    """The channel's user (`user`: id and display name) who writes in `session`, by what the channel knows them by."""
    user_id, user_name = user
    seen = identities.of_channel(channel.type, channel.uuid, user_id)
    name = "" if user_name == user_id else user_name  # the email channel names a sender without a name by address
    return await recognise(db, account_uuid, session, seen, now=now, name=name)


async def gave_email(db: AsyncSession, session: ChatSession, email: str, now: datetime) -> Contact | None:
    """The visitor of `session` left an email address (the after-hours form): it joins their contact."""
    chatbot = await chatbots.by_uuid(db, session.chatbot_uuid)
    if chatbot is None:
        return None
    return await recognise(db, chatbot.account_uuid, session, [], email=email, now=now)


async def _linked(db: AsyncSession, account_uuid: str, session: ChatSession) -> Contact | None:
    if session.contact_uuid is None:
        return None
    return await ContactRepository(db).owned(account_uuid, session.contact_uuid)


async def _first_owner(
    db: AsyncSession, account_uuid: str, wanted: Sequence[Identity], known: Sequence[ContactIdentity]
) -> Contact | None:
    by_pair = {(identity.kind, identity.value): identity.contact_uuid for identity in known}
    for identity in wanted:
        owner = by_pair.get((identity.kind, identity.value))
        if owner is not None:
            return await ContactRepository(db).owned(account_uuid, owner)
    return None


async def _add_missing(
    db: AsyncSession,
    account_uuid: str,
    contact_uuid: str,
    wanted: Sequence[Identity],
    known: Sequence[ContactIdentity],
    now: datetime,
) -> bool:
    """Add the identities not stored yet; False when another transaction added one of them meanwhile (PostgreSQL):
    theirs stands."""
    stored = {(identity.kind, identity.value) for identity in known}
    added = True
    for identity in wanted:
        if (identity.kind, identity.value) in stored:
            continue
        row = ContactIdentity(
            account_uuid=account_uuid,
            contact_uuid=contact_uuid,
            kind=identity.kind,
            value=identity.value,
            created_at=now,
        )
        try:
            async with db.begin_nested():
                await IdentityRepository(db).add(row)
        except IntegrityError:
            added = False
    return added


def _filled(contact: Contact, name: str, known: Sequence[Identity], attributes: Mapping[str, str]) -> dict[str, object]:
    """The fields of the contact that were empty and are now told."""
    values: dict[str, object] = {}
    if not contact.name and name.strip():
        values["name"] = name.strip()[:MAX_NAME]
    for kind, field in ((IdentityKind.EMAIL, "email"), (IdentityKind.PHONE, "phone")):
        told = next((identity.value for identity in known if identity.kind is kind), "")
        if told and not getattr(contact, field):
            values[field] = told
    fresh = {key: value for key, value in attributes.items() if key not in (contact.attributes or {})}
    if fresh:
        values["attributes"] = bounded_attributes({**fresh, **(contact.attributes or {})})
    return values


def bounded_attributes(attributes: Mapping[str, str]) -> dict[str, str]:
    """At most `MAX_ATTRIBUTES` of them, keys and values cut to their limits."""
    items = list(attributes.items())[:MAX_ATTRIBUTES]
    return {str(key)[:MAX_ATTRIBUTE_KEY]: str(value)[:MAX_ATTRIBUTE_VALUE] for key, value in items}


async def get_owned(db: AsyncSession, account_uuid: str, contact_uuid: str) -> Contact:
    """The account's contact, or the 404 a missing one gets (another account's answers the same)."""
    return await ContactRepository(db).get_owned(account_uuid, contact_uuid)


async def search(db: AsyncSession, account_uuid: str, q: str, limit: int, offset: int) -> tuple[int, Sequence[Contact]]:
    """The account's contacts whose name, email or phone holds `q`, latest seen first, and their total."""
    return await ContactRepository(db).search(account_uuid, q, limit, offset)


async def identities_of(db: AsyncSession, contact_uuids: Sequence[str]) -> dict[str, list[ContactIdentity]]:
    return await IdentityRepository(db).of_contacts(contact_uuids)


async def update(db: AsyncSession, account_uuid: str, contact_uuid: str, values: Mapping[str, object]) -> Contact:
    """Change what the team edits of a contact (name, email, phone, note, attributes; the caller checked their
    sizes). A phone number is stored in E.164 (a 422 when it is not one in international form). The identities stay
    as the channels gave them: an edited address is what the team writes to, not a way the contact is found."""
    contact = await get_owned(db, account_uuid, contact_uuid)
    changed = dict(values)
    if changed.get("phone"):
        number = identities.phone(str(changed["phone"]))
        if number is None:
            raise validation_error(
                "phone: not a phone number in international form: write it with its country code (+44 20 ...)",
                [{"field": "phone", "message": "not a phone number in international form", "type": "value_error"}],
            )
        changed["phone"] = number.value
    return await ContactRepository(db).update(contact, changed)


async def merge(db: AsyncSession, account_uuid: str, into_uuid: str, other_uuid: str) -> Contact:
    """The other contact joins `into`: its identities and conversations move, `into`'s empty fields (and missing
    attributes) are filled from it, and it is deleted; all in the caller's transaction."""
    into = await get_owned(db, account_uuid, into_uuid)
    if into_uuid == other_uuid:
        raise AppError(ErrorCode.MERGE_WITH_ITSELF, "A contact cannot be merged with itself: pick another contact.")
    other = await get_owned(db, account_uuid, other_uuid)
    await IdentityRepository(db).move(other.uuid, into.uuid)
    await contact_sessions.move(db, other.uuid, into.uuid)
    values: dict[str, object] = {
        field: getattr(other, field) for field in ("name", "email", "phone", "note") if not getattr(into, field)
    }
    values["attributes"] = bounded_attributes({**(other.attributes or {}), **(into.attributes or {})})
    seen = [moment for moment in (into.last_seen_at, other.last_seen_at) if moment is not None]
    values["last_seen_at"] = max(seen) if seen else None
    await ContactRepository(db).remove(other.uuid)
    return await ContactRepository(db).update(into, values)

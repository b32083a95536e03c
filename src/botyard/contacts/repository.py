"""All SQL of `contact` and `contact_identity`: an account's contacts, found by uuid, by identity or by a search."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, delete, func, or_, select, tuple_, update

from botyard.contacts.identities import Identity
from botyard.db.batches import batches
from botyard.db.repository import Repository
from botyard.models import Contact, ContactIdentity


class ContactRepository(Repository[Contact]):
    model = Contact
    noun = "Contact"

    def owned_statement(self, account_uuid: str, uuid: str) -> Select[Any]:
        return select(Contact).where(Contact.uuid == uuid, Contact.account_uuid == account_uuid)

    async def search(self, account_uuid: str, q: str, limit: int, offset: int) -> tuple[int, Sequence[Contact]]:
        """The account's contacts whose name, email or phone holds `q` (any case), latest seen first, and how many
        there are in all."""
        condition = Contact.account_uuid == account_uuid
        words = q.strip().lower()
        if words:
            pattern = f"%{_escaped(words)}%"
            condition = condition & or_(
                *(
                    func.lower(column).like(pattern, escape="\\")
                    for column in (Contact.name, Contact.email, Contact.phone)
                )
            )
        total = int(
            (await self.session.execute(select(func.count()).select_from(Contact).where(condition))).scalar_one()
        )
        seen = func.coalesce(Contact.last_seen_at, Contact.created_at)
        statement = select(Contact).where(condition).order_by(seen.desc(), Contact.uuid).limit(limit).offset(offset)
        return total, await self.all(statement)

    async def remove(self, uuid: str) -> None:
        # Its identities go with it through ON DELETE CASCADE; its sessions' link becomes NULL.
        await self.session.execute(delete(Contact).where(Contact.uuid == uuid))


class IdentityRepository(Repository[ContactIdentity]):
    model = ContactIdentity

    async def find(self, account_uuid: str, identities: Sequence[Identity]) -> Sequence[ContactIdentity]:
        """The account's stored identities among `identities`."""
        if not identities:
            return []
        pairs = [(identity.kind.value, identity.value) for identity in identities]
        statement = select(ContactIdentity).where(
            ContactIdentity.account_uuid == account_uuid,
            tuple_(ContactIdentity.kind, ContactIdentity.value).in_(pairs),
        )
        return await self.all(statement.order_by(ContactIdentity.created_at, ContactIdentity.uuid))

    async def of_contacts(self, contact_uuids: Sequence[str]) -> dict[str, list[ContactIdentity]]:
        """The identities of each contact, oldest first."""
        found: dict[str, list[ContactIdentity]] = {uuid: [] for uuid in contact_uuids}
        for batch in batches(list(dict.fromkeys(contact_uuids))):
            statement = select(ContactIdentity).where(ContactIdentity.contact_uuid.in_(batch))
            for identity in await self.all(statement.order_by(ContactIdentity.created_at, ContactIdentity.uuid)):
                found[identity.contact_uuid].append(identity)
        return found

    async def move(self, from_contact: str, to_contact: str) -> None:
        """Every identity of one contact becomes the other's (merging: the two share none, being unique)."""
        await self.session.execute(
            update(ContactIdentity)
            .where(ContactIdentity.contact_uuid == from_contact)
            .values(contact_uuid=to_contact)
            .execution_options(synchronize_session=False)
        )


def _escaped(text: str) -> str:
    """`text` with LIKE's wildcards taken literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")

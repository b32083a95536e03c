"""Which conversation a mail joins: a conversation is a thread's root and its sender, so a new subject from the
same sender opens a new one, and each person writing in one thread has theirs. In this order:

1. `In-Reply-To`: the mail it answers, one of this channel's (a customer's stored mail, or one of our replies by
   its receipt);
2. `References`, the latest first, likewise;
3. the thread's token: in the address written to (`shop+TOKEN@`) or in the subject (`[#TOKEN]`, which our
   replies carry, so that a client that drops the headers still finds its thread);
4. else a thread of its own, named after its root (its first reference, else its own `Message-ID`).

A thread's name (`channel_event.thread`) is a short hash of its root's `Message-ID`, and it is also its token.
"""

from __future__ import annotations

import hashlib
import re

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels.email.reading import Mail, stored_id
from botyard.channels.repository import MailThreadRepository

_TOKEN = re.compile(r"\[#(t[0-9a-f]{16})\]")
_PLUS = re.compile(r"^[^+@]+\+(t[0-9a-f]{16})@")


def name(root_message_id: str) -> str:
    """The thread's name and token: `t` and 16 hex digits of the root's hash."""
    return "t" + hashlib.sha256(root_message_id.strip().lower().encode()).hexdigest()[:16]


def tokens(mail: Mail) -> list[str]:
    """The thread tokens the mail carries: in the addresses it was written to, then in its subject."""
    found = [match.group(1) for address in mail.recipients if (match := _PLUS.match(address))]
    return found + _TOKEN.findall(mail.subject)


def subject_of_reply(subject: str, thread: str) -> str:
    """`Re: ` and the customer's subject (once, however many `Re:` it had), then the thread's token."""
    bare = _TOKEN.sub("", subject).strip()
    while bare.lower().startswith(("re:", "aw:", "sv:", "fw:", "fwd:")):
        bare = bare.partition(":")[2].strip()
    return f"Re: {bare or '(no subject)'} [#{thread}]"


async def thread_of(db: AsyncSession, channel_uuid: str, mail: Mail) -> str:
    """The thread the mail belongs to, on its channel."""
    threads = MailThreadRepository(db)
    answered = [mail.in_reply_to] if mail.in_reply_to else []
    found = await threads.thread_of(channel_uuid, [stored_id(one) for one in [*answered, *reversed(mail.references)]])
    if found is not None:
        return found
    for token in tokens(mail):
        if await threads.has_thread(channel_uuid, token):
            return token
    return name(mail.references[0] if mail.references else mail.message_id)

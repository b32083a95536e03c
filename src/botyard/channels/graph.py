"""The Graph API calls of Meta's channels: the credentials checked when a channel is made, a reply sent (within the
24-hour window or as the channel's template outside it), each sent message's id kept as a receipt, and the read
mark with the typing indicator while an answer is made.

Sending a reply, in this order:

1. The conversation's latest customer message is read: where the reply goes (WhatsApp's `wa_id` as Meta gave it)
   and when the customer last wrote (`window`).
2. Within the window: the reply rendered (`whatsapp.DIALECT`, `messenger.DIALECT`), in parts within the channel's
   limits, its choices as buttons, a list or quick replies on its last part (numbered lines when they fit none).
3. Outside it: WhatsApp sends the channel's `settings.template`; Messenger and Instagram send an operator's reply
   with the `HUMAN_AGENT` tag within 7 days. Otherwise the reply fails at once, saying which setting to configure:
   Meta's own 131047 is never what the owner first hears of it.
4. Each message Meta took is kept as a receipt of the reply, with the count of parts sent, in one write.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels import buttons, messenger, meta, receipts, render, whatsapp, window
from botyard.channels.bots import KEYS
from botyard.channels.calls import GraphApi, ProviderFailed
from botyard.channels.render import Reply
from botyard.channels.repository import EventRepository, ReplyRepository
from botyard.channels.schemas import ChannelSettings
from botyard.config import Settings
from botyard.egress import EgressClient
from botyard.errors import AppError, ErrorCode
from botyard.models import Channel, ChannelEvent, ChannelReply, ChannelType

Write = Callable[[Callable[[AsyncSession], Awaitable[None]]], Awaitable[None]]
Read = Callable[[Callable[[AsyncSession], Awaitable[ChannelEvent | None]]], Awaitable[ChannelEvent | None]]
MESSENGER_TYPING_EVERY = 15.0
"""Under Messenger's 20 seconds of `typing_on`."""


async def connect(settings: Settings, egress: EgressClient, kind: ChannelType, plain: dict[str, str]) -> None:
    """Check the access token with Meta (WhatsApp: the number it sends from; Messenger: the page it is for):
    422 `channel_refused` with Meta's message when refused; `public_url_required` when Meta could never deliver."""
    [key] = KEYS[kind.value]
    if not plain[key].isascii() or not plain[key].isdigit():
        details = [{"field": f"credentials.{key}", "message": "Meta's ids are digits", "type": "value_error"}]
        raise AppError(ErrorCode.VALIDATION_ERROR, f"credentials.{key} is Meta's numeric id (digits only)", details)
    if not settings.public_url.startswith("https://"):
        raise AppError(
            ErrorCode.PUBLIC_URL_REQUIRED,
            f"Meta delivers webhooks only to an https address it can reach: set BOTYARD_PUBLIC_URL (now "
            f"{settings.public_url}) to this service's public https address.",
        )
    api = GraphApi(egress, settings.graph_api_url)
    if kind == ChannelType.WHATSAPP:
        where = meta.path(plain["phone_number_id"]) + "?fields=display_phone_number,verified_name"
    else:
        where = meta.path("me") + "?fields=id,name"
    try:
        answer = await api.call(plain["access_token"], where)
    except ProviderFailed as error:
        raise AppError(ErrorCode.CHANNEL_REFUSED, f"Meta refused the access token: {error.reason}") from None
    if kind == ChannelType.MESSENGER and str(answer.get("id", "")) != plain["page_id"]:
        raise AppError(
            ErrorCode.CHANNEL_REFUSED,
            "This access token is not the Page access token of page_id: generate the token of that page (Meta app, "
            "Messenger API settings) or correct page_id.",
        )


@dataclass(frozen=True)
class Outgoing:
    """What one reply sends: its rendered text, choices and whether a person (an operator) wrote it."""

    reply: ChannelReply
    channel: Channel
    secrets: dict[str, str]
    canonical: Reply
    choices: Sequence[str]
    by_operator: bool


class MetaSender:
    """Sends the replies of WhatsApp, Messenger and Instagram channels."""

    def __init__(self, settings: Settings, egress: EgressClient, clock: Callable[[], datetime]) -> None:
        self.api = GraphApi(egress, settings.graph_api_url)
        self.clock = clock

    async def send(self, out: Outgoing, read: Read, write: Write) -> None:
        """The reply's parts Meta does not have yet; `ProviderFailed` when Meta refused one, or when the window
        is closed and the channel has no way to reach the customer."""
        reply, channel = out.reply, out.channel
        last = await read(lambda db: EventRepository(db).latest_of_conversation(channel.uuid, reply.conversation))
        to = (last.details.get("wa_id") if last is not None else None) or reply.recipient
        state = window.of(channel.type, None if last is None else last.received_at, self.clock())
        bodies = self._bodies(out, to, state)
        for number in range(reply.parts_sent, len(bodies)):
            answer = await self.api.call(out.secrets.get("access_token", ""), self._where(out), bodies[number])
            now, done, how = self.clock(), number + 1, _how(bodies[number])
            await write(partial(_took, reply=reply, provider_id=_message_id(answer), parts=done, now=now, how=how))

    async def send_now(self, channel: Channel, secrets: dict[str, str], to: str, text: Reply) -> int:
        """A free-form text to `to` (the dashboard's test message), every part: how many went."""
        if channel.type == ChannelType.WHATSAPP:
            parts = render.parts(text, whatsapp.MAX_TEXT_CHARS, whatsapp.DIALECT)
            bodies = [whatsapp.text(to, part) for part in parts]
            where = meta.path(secrets.get("phone_number_id", ""), "messages")
        else:
            parts = render.parts(text, messenger.MAX_TEXT_CHARS[channel.type], messenger.DIALECT)
            bodies = [messenger.message(to, part) for part in parts]
            where = meta.path("me", "messages")
        for body in bodies:
            await self.api.call(secrets.get("access_token", ""), where, body)
        return len(bodies)

    def _bodies(self, out: Outgoing, to: str, state: window.Window) -> list[dict[str, Any]]:
        kind, template = out.channel.type, ChannelSettings.model_validate(out.channel.settings).template
        if kind == ChannelType.WHATSAPP:
            if state.open:
                return _whatsapp_bodies(out, to)
            if template is None:
                raise ProviderFailed(window.CLOSED_WHATSAPP, passing=False)
            plain = " ".join("\n".join(render.parts(out.canonical, whatsapp.MAX_TEXT_CHARS, whatsapp.DIALECT)).split())
            body = plain[: window.TEMPLATE_PARAMETER_CHARS] if template.fill == "text" else None
            return [whatsapp.template(to, template.name, template.language, body)]
        if state.open:
            return _messenger_bodies(out, to, None)
        if out.by_operator and state.human_agent:
            return _messenger_bodies(out, to, "HUMAN_AGENT")
        raise ProviderFailed(window.closed_messenger(kind), passing=False)

    def _where(self, out: Outgoing) -> str:
        if out.channel.type == ChannelType.WHATSAPP:
            return meta.path(out.secrets.get("phone_number_id", ""), "messages")
        return meta.path("me", "messages")

    def typing(self, channel: Channel, secrets: dict[str, str], last: ChannelEvent) -> Callable[[], Awaitable[object]]:
        """The customer's message marked as read with the typing indicator (WhatsApp), or Messenger's `mark_seen`
        and `typing_on`."""
        token = secrets.get("access_token", "")
        if channel.type == ChannelType.WHATSAPP:
            where = meta.path(secrets.get("phone_number_id", ""), "messages")
            body = whatsapp.read_and_typing(last.details.get("message_id", ""))
            return lambda: self.api.call(token, where, body)

        async def seen_and_typing() -> None:
            await self.api.call(token, meta.path("me", "messages"), messenger.action(last.user_id, "mark_seen"))
            await self.api.call(token, meta.path("me", "messages"), messenger.action(last.user_id, "typing_on"))

        return seen_and_typing


def _whatsapp_bodies(out: Outgoing, to: str) -> list[dict[str, Any]]:
    keys = whatsapp.shown(out.reply.uuid, out.choices)
    text = Reply(meta.without_images(out.canonical.text), out.canonical.links)
    shown = text if keys else buttons.numbered(text, out.choices)
    parts = render.parts(shown, whatsapp.MAX_TEXT_CHARS, whatsapp.DIALECT)
    if keys and len(parts[-1]) > whatsapp.MAX_INTERACTIVE_BODY:
        parts = [*parts[:-1], *render.parts(Reply(parts[-1], {}), whatsapp.MAX_INTERACTIVE_BODY, whatsapp.DIALECT)]
    bodies = [whatsapp.text(to, part) for part in parts]
    if keys:
        bodies[-1] = whatsapp.interactive(to, parts[-1], keys)
    return bodies + [whatsapp.media(to, kind, link) for kind, link in meta.media_of(out.canonical.text)]


def _messenger_bodies(out: Outgoing, to: str, tag: str | None) -> list[dict[str, Any]]:
    kind = out.channel.type
    keys = messenger.shown(out.reply.uuid, out.choices)
    text = Reply(meta.without_images(out.canonical.text), out.canonical.links)
    shown = text if keys else buttons.numbered(text, out.choices)
    parts = render.parts(shown, messenger.MAX_TEXT_CHARS[kind], messenger.DIALECT)
    bodies = [
        messenger.message(to, part, keys if number == len(parts) - 1 else (), tag) for number, part in enumerate(parts)
    ]
    files = [(("image" if kind == "image" else "file"), link) for kind, link in meta.media_of(out.canonical.text)]
    return bodies + [messenger.attachment(to, what, link, tag) for what, link in files]


def _message_id(answer: dict[str, Any]) -> str:
    """WhatsApp's `messages[0].id`, or Messenger's `message_id`."""
    messages = answer.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[0], dict):
        return str(messages[0].get("id", ""))
    return str(answer.get("message_id", ""))


def _how(body: dict[str, Any]) -> dict[str, str]:
    """What the reply's details keep of how it went beyond its text: the template, or the message tag."""
    if body.get("type") == "template":
        return {"template": str(body["template"]["name"])}
    return {"tag": str(body["tag"])} if body.get("tag") else {}


async def _took(
    db: AsyncSession, *, reply: ChannelReply, provider_id: str, parts: int, now: datetime, how: dict[str, str]
) -> None:
    if provider_id:
        await receipts.sent(db, reply.channel_uuid, provider_id, reply.uuid, reply.conversation, now)
    values: dict[str, Any] = {"parts_sent": parts}
    if how:
        values["details"] = {**reply.details, **how}
    await ReplyRepository(db).record(reply.uuid, values)

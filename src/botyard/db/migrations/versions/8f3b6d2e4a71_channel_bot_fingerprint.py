"""channel bot fingerprint: one channel per Telegram bot or Slack bot token (a keyed fingerprint of the token,
unique), filled in for the channels already stored

Revision ID: 8f3b6d2e4a71
Revises: 75c0bfdd92ce
Create Date: 2026-12-03 09:00:00.000000
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from botyard.channels.bots import fingerprint
from botyard.config import Settings
from botyard.service_settings.cipher import Cipher

revision: str = "8f3b6d2e4a71"
down_revision: str | None = "75c0bfdd92ce"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger(__name__)

_CHANNELS = sa.table(
    "channel",
    sa.column("uuid", sa.String),
    sa.column("type", sa.String),
    sa.column("secrets", sa.JSON),
    sa.column("created_at"),
    sa.column("bot_fingerprint", sa.String),
)


def upgrade() -> None:
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bot_fingerprint", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint("uq_channel_bot_fingerprint", ["bot_fingerprint"])
    _fill_in()


def _fill_in() -> None:
    """The stored channels' fingerprints, from their sealed tokens (with this instance's key). Where two channels
    already share a bot, the older keeps it and the newer stays without one (they go on as before; a new channel on
    that bot is refused): one of them should be deleted, as the log says."""
    given = context.config.attributes.get("settings")
    settings = given if isinstance(given, Settings) else Settings()
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(_CHANNELS.c.uuid, _CHANNELS.c.type, _CHANNELS.c.secrets)
        .where(_CHANNELS.c.type.in_(("telegram", "slack")))
        .order_by(_CHANNELS.c.created_at)
    ).all()
    if not rows:
        return
    cipher, taken = Cipher(settings), set()
    for uuid, kind, secrets in rows:
        token = cipher.open(str((secrets or {}).get("bot_token", "")))
        value = None if token is None else fingerprint(settings, kind, token)
        if value is None or value in taken:
            log.warning("channel %s shares its bot with an older channel (or its token cannot be opened)", uuid)
            continue
        taken.add(value)
        statement = sa.update(_CHANNELS).where(_CHANNELS.c.uuid == uuid).values(bot_fingerprint=value)
        connection.execute(statement)


def downgrade() -> None:
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.drop_constraint("uq_channel_bot_fingerprint", type_="unique")
        batch_op.drop_column("bot_fingerprint")

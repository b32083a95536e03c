"""The job queue: a table of the initial migration (e527efbf7301), frozen (see the package)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import botyard.db.base


def create_job() -> None:
    op.create_table(
        "job",
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("run_after", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=True),
        sa.Column("data_source_uuid", sa.String(length=32), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_job_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["data_source_uuid"],
            ["data_source.uuid"],
            name=op.f("fk_job_data_source_uuid_data_source"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_job")),
    )
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_job_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_job_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_job_data_source_uuid"), ["data_source_uuid"], unique=False)
        batch_op.create_index("ix_job_status_run_after", ["status", "run_after"], unique=False)


def drop_job() -> None:
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.drop_index("ix_job_status_run_after")
        batch_op.drop_index(batch_op.f("ix_job_data_source_uuid"))
        batch_op.drop_index(batch_op.f("ix_job_created_at"))
        batch_op.drop_index(batch_op.f("ix_job_chatbot_uuid"))

    op.drop_table("job")

"""test sets: an owner's questions with what a right answer holds (test_set, test_case), and their runs (test_run,
test_result)

Revision ID: e5a1c3d7f902
Revises: c7e3f9a2b518
Create Date: 2026-11-28 03:13:14.938602
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import botyard.db.base

revision: str = "e5a1c3d7f902"
down_revision: str | None = "c7e3f9a2b518"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    _test_set()
    _test_case()
    _test_run()
    _test_result()


def _test_set() -> None:
    op.create_table(
        "test_set",
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("run_after_changes", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("modified_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_test_set_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_test_set")),
    )
    with op.batch_alter_table("test_set", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_test_set_chatbot_uuid"), ["chatbot_uuid"], unique=False)
        batch_op.create_index(batch_op.f("ix_test_set_created_at"), ["created_at"], unique=False)


def _test_case() -> None:
    op.create_table(
        "test_case",
        sa.Column("test_set_uuid", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("expect_any", sa.JSON(), nullable=False),
        sa.Column("expect_refuse", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["test_set_uuid"], ["test_set.uuid"], name=op.f("fk_test_case_test_set_uuid_test_set"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_test_case")),
    )
    with op.batch_alter_table("test_case", schema=None) as batch_op:
        batch_op.create_index("ix_test_case_set", ["test_set_uuid", "position"], unique=False)


def _test_run() -> None:
    op.create_table(
        "test_run",
        sa.Column("test_set_uuid", sa.String(length=32), nullable=False),
        sa.Column("chatbot_uuid", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("trigger", sa.String(length=16), nullable=False),
        sa.Column("knowledge_version", sa.Integer(), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("created_at", botyard.db.base.UTCDateTime(), nullable=False),
        sa.Column("finished_at", botyard.db.base.UTCDateTime(), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["chatbot_uuid"], ["chatbot.uuid"], name=op.f("fk_test_run_chatbot_uuid_chatbot"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["test_set_uuid"], ["test_set.uuid"], name=op.f("fk_test_run_test_set_uuid_test_set"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_test_run")),
    )
    with op.batch_alter_table("test_run", schema=None) as batch_op:
        batch_op.create_index("ix_test_run_set", ["test_set_uuid", "created_at"], unique=False)


def _test_result() -> None:
    op.create_table(
        "test_result",
        sa.Column("test_run_uuid", sa.String(length=32), nullable=False),
        sa.Column("test_case_uuid", sa.String(length=32), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("confidence", sa.String(length=8), nullable=True),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["test_case_uuid"],
            ["test_case.uuid"],
            name=op.f("fk_test_result_test_case_uuid_test_case"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["test_run_uuid"], ["test_run.uuid"], name=op.f("fk_test_result_test_run_uuid_test_run"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_test_result")),
    )
    with op.batch_alter_table("test_result", schema=None) as batch_op:
        batch_op.create_index("ix_test_result_run", ["test_run_uuid", "position"], unique=False)


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    with op.batch_alter_table("test_result", schema=None) as batch_op:
        batch_op.drop_index("ix_test_result_run")

    op.drop_table("test_result")
    with op.batch_alter_table("test_run", schema=None) as batch_op:
        batch_op.drop_index("ix_test_run_set")

    op.drop_table("test_run")
    with op.batch_alter_table("test_case", schema=None) as batch_op:
        batch_op.drop_index("ix_test_case_set")

    op.drop_table("test_case")
    with op.batch_alter_table("test_set", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_test_set_created_at"))
        batch_op.drop_index(batch_op.f("ix_test_set_chatbot_uuid"))

    op.drop_table("test_set")
    # ### end Alembic commands ###

"""initial schema

Revision ID: e527efbf7301
Revises:
Create Date: 2026-11-22 08:10:57.299655
"""

from __future__ import annotations

from collections.abc import Sequence

from botyard.db.migrations.initial_schema import accounts, chat, jobs, knowledge

revision: str = "e527efbf7301"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    accounts.create_account()
    accounts.create_api_key()
    accounts.create_chatbot()
    accounts.create_agent()
    chat.create_chat_session()
    knowledge.create_data_source()
    knowledge.create_source_tag()
    knowledge.create_agent_data_source()
    knowledge.create_chunk()
    jobs.create_job()
    chat.create_message()
    knowledge.create_source_file()
    knowledge.create_source_tag_member()
    accounts.create_tool_function()


def downgrade() -> None:
    accounts.drop_tool_function()
    knowledge.drop_source_tag_member()
    knowledge.drop_source_file()
    chat.drop_message()
    jobs.drop_job()
    knowledge.drop_chunk()
    knowledge.drop_agent_data_source()
    knowledge.drop_source_tag()
    knowledge.drop_data_source()
    chat.drop_chat_session()
    accounts.drop_agent()
    accounts.drop_chatbot()
    accounts.drop_api_key()
    accounts.drop_account()

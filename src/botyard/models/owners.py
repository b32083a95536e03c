"""Which package owns each table: the only one that writes it (inserts, updates, deletes, changes a loaded row).
The others ask the owner through a function of its own. `tests/models/test_table_writers.py` reads the writes from
the tree and fails on any by another package, and on a table missing here."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

OWNERS: Mapping[str, str] = MappingProxyType(
    {
        # the account and its people
        "account": "identity",
        "api_key": "identity",
        "account_user": "identity",
        "user_session": "identity",
        "invitation": "identity",
        "signin_attempt": "identity",
        "oidc_identity": "identity",
        "audit_event": "audit",
        "instance_settings": "service_settings",
        # chatbots and what configures them
        "chatbot": "chatbots",
        "handoff_settings": "chatbots",
        "widget_settings": "widget",
        "agent": "agents",
        "agent_data_source": "agents",
        "tool_function": "agents",
        # knowledge
        "data_source": "sources",
        "source_file": "sources",
        "source_tag": "sources",
        "source_tag_member": "sources",
        "chunk": "sources",
        "knowledge_change": "sources",
        "crawl": "crawl",
        "crawl_page": "crawl",
        "sync_schedule": "crawl",
        "index_snapshot": "retrieval",
        "index_snapshot_piece": "retrieval",
        # conversations
        "chat_session": "chat",
        "message": "chat",
        "message_feedback": "chat",
        "rate_limit_hit": "chat",
        "session_document": "session_documents",
        "message_document": "session_documents",
        "chatbot_event": "live",
        "contact": "contacts",
        "contact_identity": "contacts",
        "canned_reply": "live",
        "conversation_note": "live",
        "conversation_read": "live",
        "unanswered_question": "unanswered",
        "test_set": "testsets",
        "test_case": "testsets",
        "test_run": "testsets",
        "test_result": "testsets",
        # libraries
        "job": "jobs",
        "webhook": "outbox",
        "webhook_delivery": "outbox",
        # channels
        "channel": "channels",
        "channel_event": "channels",
        "channel_reply": "channels",
        "channel_receipt": "channels",
        "channel_opt_out": "channels",
        # Zapier and Make
        "integration_hook": "integrations",
    }
)

"""`botyard search migrate`: the postgres backend's tables made and filled from an installation's chunks.

Chatbot by chatbot, each in a transaction of its own (`sync.catch_up`), so that it can be stopped and run again: a
chatbot already at its knowledge version is skipped; then the rows of chatbots that no longer exist go. A search
meeting a chatbot not yet filled fills it itself (the first question then waits for it), so the service may serve
while this runs."""

from __future__ import annotations

from collections.abc import Callable

from botyard.retrieval.postgres.repository import schema
from botyard.retrieval.postgres.repository.sync import forget, indexed_chatbots, read_state
from botyard.retrieval.postgres.search import PostgresSearch


async def fill(search: PostgresSearch, say: Callable[[str], None]) -> int:
    """Create the tables (and the extension, where this role may) and bring every chatbot's rows to its knowledge
    version; how many chatbots were caught up."""
    async with search.database.engine.begin() as connection:
        await schema.create(connection, search.embedder_name or "none", search.parts)
    async with search.database.transaction(write=False) as session:
        versions = await search.knowledge(session).knowledge_versions()
    done = 0
    for number, (chatbot_uuid, version) in enumerate(sorted(versions.items()), start=1):
        async with search.database.transaction(write=False) as session:
            state = await read_state(session, chatbot_uuid)
        if state is not None and state.version >= version:
            continue
        state = await search.caught_up(chatbot_uuid, version)
        done += 1
        say(f"[{number}/{len(versions)}] chatbot {chatbot_uuid}: {state.documents} chunks at version {version}")
    async with search.database.transaction() as session:
        # Rows of chatbots deleted before their deletion dropped them (or while this backend was not in use).
        gone = [chatbot_uuid for chatbot_uuid in await indexed_chatbots(session) if chatbot_uuid not in versions]
        for chatbot_uuid in gone:
            await forget(session, chatbot_uuid)
    if done or gone:
        async with search.database.engine.connect() as connection:
            await schema.vacuum(await connection.execution_options(isolation_level="AUTOCOMMIT"))
    dropped = f"; the rows of {len(gone)} deleted chatbots dropped" if gone else ""
    say(f"search index ready: {done} of {len(versions)} chatbots caught up, the others already were{dropped}")
    return done

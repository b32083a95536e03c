"""The speller's look-up on the postgres search (`lexicon._near`): of the chatbot's words, only those that can be
within a typo's edits are read, and never one fewer: every word within the speller's distance (OSA) is among them."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest
from rapidfuzz.distance import OSA
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.retrieval.postgres.repository import lexicon, schema
from botyard.retrieval.spelling import allowed_edits
from tests.support.database import PGVECTOR_ENV, fresh_settings

pytestmark = [
    pytest.mark.skipif(not os.environ.get(PGVECTOR_ENV), reason=f"{PGVECTOR_ENV} is not set"),
    pytest.mark.timeout(300),
]

ALPHABET = "abcdef"
"""Few letters: many words near each other, and pairs shared by chance, the hard case for a filter by pairs."""


def vocabulary(rng: random.Random) -> list[str]:
    return sorted({"".join(rng.choice(ALPHABET) for _ in range(rng.randint(4, 11))) for _ in range(3_000)})


def mistyped(word: str, edits: int, rng: random.Random) -> str:
    """`word` with `edits` random edits of the speller's kinds: a letter put in, left out, changed, two swapped."""
    for _ in range(edits):
        at = rng.randrange(len(word))
        kind = rng.choice(["insert", "delete", "change", "swap"])
        if kind == "insert":
            word = word[:at] + rng.choice(ALPHABET) + word[at:]
        elif kind == "delete" and len(word) > 1:
            word = word[:at] + word[at + 1 :]
        elif kind == "change":
            word = word[:at] + rng.choice(ALPHABET) + word[at + 1 :]
        elif at + 1 < len(word):
            word = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    return word


def test_the_look_up_reads_every_word_within_reach_and_few_others(tmp_path: Path) -> None:
    rng = random.Random(7)
    words = vocabulary(rng)
    typos = [mistyped(rng.choice(words), rng.choice([1, 2]), rng) for _ in range(120)]
    typos = [typo for typo in dict.fromkeys(typos) if allowed_edits(typo) and typo not in words]

    async def go(database: Database) -> list[tuple[str, dict[str, int]]]:
        try:
            async with AsyncSession(database.engine) as session:
                for statement in schema.TABLES:
                    await session.execute(text(statement))
                await session.execute(
                    text("INSERT INTO search_term (chatbot_uuid, term, frequency) VALUES ('bot', :term, 1)"),
                    [{"term": word} for word in words],
                )
                return [(typo, await lexicon._near(session, "bot", typo, allowed_edits(typo))) for typo in typos]
        finally:
            await database.dispose()

    with fresh_settings("pgvector", tmp_path, search="embedded") as settings:
        looked_up = asyncio.run(go(Database.from_settings(settings)))
    assert len(looked_up) > 60
    read = banded = 0
    for typo, found in looked_up:
        edits = allowed_edits(typo)
        within = {word for word in words if OSA.distance(typo, word, score_cutoff=edits) <= edits}
        assert within <= found.keys(), (typo, within - found.keys())
        read += len(found)
        banded += sum(1 for word in words if abs(len(word) - len(typo)) <= edits)
    assert read < banded / 2, (read, banded)  # the length band alone: what was read before

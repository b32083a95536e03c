# ruff: noqa: RUF001  (Chinese and Arabic punctuation and digits are what those texts are written with)
"""Knowledge in other languages, through the API on both databases with the bundled embedders (MiniLM and USE-m3):
a Chinese and an Arabic knowledge base answer a question in their language, a German paraphrase that shares no word
with its answer is answered because USE-m3 reads German, and each question is compared by its own model."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from botyard.config import Settings
from botyard.embedding import build_embedder, similarities
from botyard.embedding.pair import USE_SCALE, PairEmbedder
from tests.support.api import Api
from tests.support.chat import ask, new_session
from tests.support.jobs import process
from tests.support.sources import upload

TEA_SHOP = """# 配送说明

订单满199元包邮，不满199元收取运费10元。新疆、西藏地区运费为25元。

# 发票

我们提供电子普通发票，发货后3个工作日内发送到您的邮箱。

# 保存

茶叶请存放在阴凉、干燥、避光的地方。
""".encode()

BAKERY = """# ساعات العمل

نفتح المخبز كل يوم من الساعة السابعة صباحاً حتى الساعة الثامنة مساءً، ويوم الجمعة من الساعة الثانية ظهراً.

# التوصيل

نوصل الطلبات داخل المدينة مجاناً للطلبات التي تزيد عن ١٠٠ ريال، ويستغرق التوصيل ساعتين تقريباً.
""".encode()

WORKSHOP = """# Abholservice

Wir holen Ihr Fahrrad bei Ihnen zu Hause oder im Büro ab und bringen es nach der Reparatur wieder zurück.
Der Service kostet im Umkreis von 5 km 20 Euro, bis 15 km 35 Euro.

# Gewährleistung

Auf alle Reparaturen geben wir zwölf Monate Gewährleistung auf Arbeit und Ersatzteile.
""".encode()


def answer(alice: Api, bot: str, question: str) -> str:
    response = ask(alice, new_session(alice, bot), question)
    assert response.status_code == 200
    return response.text


def knowledge(alice: Api, name: str, filename: str, content: bytes) -> str:
    bot: str = alice.chatbot(name)["uuid"]
    upload(alice, bot, filename, content)
    process(alice.client)
    return bot


def test_a_chinese_knowledge_base_answers_a_chinese_question(alice: Api) -> None:
    bot = knowledge(alice, "Tea", "shop.md", TEA_SHOP)
    assert "25元" in answer(alice, bot, "寄到新疆邮费多少？")
    assert "3个工作日" in answer(alice, bot, "买茶可以开发票吗？")


def test_an_arabic_knowledge_base_answers_an_arabic_question(alice: Api) -> None:
    bot = knowledge(alice, "Bakery", "bakery.md", BAKERY)
    reply = answer(alice, bot, "متى تفتحون يوم الجمعة؟")
    assert "الجمعة" in reply and "الثانية" in reply


def test_a_german_paraphrase_is_answered_although_minilm_reads_no_german(alice: Api) -> None:
    # "Garantie ... repariert" shares no indexed word with "Gewährleistung ... Reparaturen": only a model that reads
    # German connects them (the relevance decision finds coverage 0 and similarity about 0.7).
    bot = knowledge(alice, "Werkstatt", "werkstatt.md", WORKSHOP)
    reply = answer(alice, bot, "Wie lange habe ich Garantie, wenn ihr etwas repariert habt?")
    assert "zwölf Monate" in reply


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> PairEmbedder:
    # its own data directory: USE-m3's table is written to data_dir/models, not to the working directory's data/
    embedder = build_embedder(Settings(embedder="multilingual", data_dir=tmp_path_factory.mktemp("data")))
    assert isinstance(embedder, PairEmbedder)
    return embedder


def test_each_question_is_compared_by_its_own_model(pair: PairEmbedder) -> None:
    async def vectors() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        documents = await pair.embed_documents(["Repairs come with a twelve-month warranty.", "Wir haben montags zu."])
        return documents, await pair.embed_query("How long is the warranty?"), await pair.embed_query("Garantie?")

    documents, english, german = asyncio.run(vectors())
    first = pair.first.dimension
    # Knowledge always has MiniLM's part; a German question has only USE-m3's.
    assert np.allclose(np.linalg.norm(documents[:, :first], axis=1), 1.0, atol=1e-5)
    # USE-m3's part of a question it alone reads is lengthened to read on MiniLM's scale.
    assert not np.any(german[:first]) and np.isclose(np.linalg.norm(german[first:]), USE_SCALE, atol=1e-5)
    by_pair = similarities(documents, np.stack([english, german]), pair.parts)
    assert np.allclose(by_pair[:, 0], documents[:, :first] @ english[:first], atol=1e-5)  # English: MiniLM alone
    assert np.allclose(by_pair[:, 1], documents[:, first:] @ german[first:], atol=1e-5)  # German: USE-m3 alone
    assert by_pair[0, 1] > by_pair[1, 1]  # "Garantie?" is nearer the warranty than the opening days


def test_clauses_are_embedded_by_their_own_model_only_and_compare_as_their_query_vectors(pair: PairEmbedder) -> None:
    clauses = ["Is there anything about the warranty,", "or can I speak to someone?", "Wir haben montags zu.", "नमस्ते"]

    async def vectors() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = await pair.embed_documents(["Repairs come with a twelve-month warranty.", "Ich möchte sprechen"])
        alone = np.stack([await pair.embed_query(text) for text in clauses])
        return rows, alone, await pair.embed_questions(clauses)

    rows, alone, together = asyncio.run(vectors())
    first = pair.first.dimension
    # The English clauses and the one no model reads have MiniLM's part only (USE-m3 never ran for them), the German
    # one USE-m3's only: exactly the part its query vector is compared by.
    assert not np.any(together[[0, 1, 3], first:]) and not np.any(together[2, :first])
    assert np.array_equal(together[[0, 1, 3], :first], alone[[0, 1, 3], :first])
    assert np.array_equal(together[2, first:], alone[2, first:])
    assert np.array_equal(similarities(rows, together, pair.parts), similarities(rows, alone, pair.parts))


def test_a_text_no_model_reads_keeps_minilms_vector(pair: PairEmbedder) -> None:
    vector = asyncio.run(pair.embed_query("नमस्ते दुनिया"))
    assert not pair.reads("नमस्ते दुनिया")
    assert np.isclose(np.linalg.norm(vector[: pair.first.dimension]), 1.0, atol=1e-5)
    assert not np.any(vector[pair.first.dimension :])

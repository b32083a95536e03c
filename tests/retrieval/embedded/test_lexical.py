# ruff: noqa: RUF001  (Chinese punctuation is what Chinese questions are written with)
"""Lexical analysis in every language: stems of the text's language, CJK question words, typos, mixed languages."""

from __future__ import annotations

from botyard.retrieval.embedded.lexical import Document, LexicalIndex
from botyard.retrieval.language import analyzer, detect
from botyard.retrieval.relevance import coverage
from botyard.retrieval.terms import index_terms

GERMAN = [
    "Versand: Ab 49 € Bestellwert liefern wir die Fahrräder montiert und versandkostenfrei.",
    "Der Reifenwechsel kostet 15 €. Wir wechseln Reifen aller Größen, auch an E-Scootern.",
    "Öffnungszeiten: Montag bis Freitag von 9 bis 18 Uhr, am Samstag von 10 bis 14 Uhr.",
]
CHINESE = [
    "大陆地区订单满299元包邮，不满299元收取运费12元。",
    "明前龙井每罐售价368元，每罐125克。",
    "在线客服每天9:00至21:00在线。",
]
ENGLISH = [
    "A root canal treatment takes about 90 minutes and costs $950.",
    "ClearStep aligners are worn 22 hours a day and changed every two weeks.",
    "Our free trial lasts 14 days; no card is needed to start it.",
]


def index_of(texts: list[str]) -> LexicalIndex:
    return LexicalIndex([Document(row, "source", text) for row, text in enumerate(texts)])


def best_row(index: LexicalIndex, query: str) -> int:
    rows, _, _ = index.search(query, 3)
    return int(rows[0])


def test_languages_are_told_by_script_then_by_stop_words() -> None:
    assert detect("Wie lange dauert eine Reparatur?") == "german"
    assert detect("How long does a repair take?") == "english"
    assert detect("¿Cuánto cuesta el envío de los pedidos a Madrid?") == "spanish"
    assert detect("满多少包邮？") == "cjk"
    assert detect("Сколько стоит доставка?") == "russian"
    assert detect("كم سعر الشحن؟") == "arabic"
    assert detect("Preis Kette?") is None  # no stop word: read in the chatbot's language


def test_a_german_inflected_form_matches_its_stem() -> None:
    index = index_of(GERMAN)
    assert index.language == "german"
    assert best_row(index, "Versand für ein Fahrrad?") == 0
    weights = index.weights("Versand für ein Fahrrad?")
    assert coverage(weights, index.terms_in(GERMAN[0])) == 1.0
    # A question without a stop word is read in the chatbot's German too.
    assert "fahrrad" in index.terms("Fahrräder Preis")
    # The answerer's terms of a German sentence, without the index, hold the index's own terms of it.
    assert index.terms_in(GERMAN[0]) <= index_terms(GERMAN[0])


def test_a_chinese_questions_function_words_do_not_sink_its_coverage() -> None:
    index = index_of(CHINESE)
    weights = index.weights("满多少包邮？")
    assert "多少" not in weights
    assert coverage(weights, index.terms_in(CHINESE[0])) == 1.0
    assert best_row(index, "满多少包邮？") == 0
    assert coverage(index.weights("客服什么时候在线？"), index.terms_in(CHINESE[2])) == 1.0


def test_a_typo_counts_as_the_word_it_misspells() -> None:
    index = index_of(ENGLISH)
    for query, row, term in (
        ("root canel", 0, "canal"),
        ("ClearStep alingers", 1, "align"),
        ("free triel", 2, "trial"),
    ):
        assert best_row(index, query) == row
        assert term in index.weights(query)
        assert coverage(index.weights(query), index.terms_in(ENGLISH[row])) == 1.0
    # Short words are taken as typed: at four letters one edit makes another word.
    assert "cart" in index.weights("cart")
    # A word one edit from nothing the chatbot has stays unknown, and weighs the most.
    weights = index.weights("botox treatment")
    assert weights["botox"] == max(weights.values())


def test_a_question_in_another_language_than_the_knowledge_is_answered_without_error() -> None:
    for texts, query in (
        (GERMAN, "How much is a tyre change?"),
        (ENGLISH, "满多少包邮？"),
        (CHINESE, "Was kostet das?"),
    ):
        index = index_of(texts)
        index.search(query, 3)
        weights = index.weights(query)
        for text in texts:
            coverage(weights, index.terms_in(text))
    empty = index_of([])
    assert empty.search("Fahrrad", 3)[0].size == 0
    assert empty.weights("满多少包邮？")


def test_a_mixed_chatbot_reads_each_chunk_in_its_own_language() -> None:
    index = index_of(GERMAN + ENGLISH)
    assert {"german", "english"} <= index.languages
    assert best_row(index, "Liefert ihr Fahrräder?") == 0
    assert best_row(index, "how long is the trial?") == len(GERMAN) + 2


def test_a_letter_split_off_a_word_is_no_content_word() -> None:
    index = index_of(ENGLISH)
    weights = index.weights("What's my trial's length?")
    assert "s" not in weights and "trial" in weights
    assert coverage(weights, index.terms_in(ENGLISH[2])) > 0.3  # "s" no longer weighs like an unknown word


def test_whose_asks_as_who_does_and_weighs_nothing() -> None:
    # "whose" is a question word like "who" and "which": a story's one line answers "Whose stapler vanished?" fully.
    index = index_of(["On Monday morning, Sarah's red stapler vanished from her desk.", "The printer jammed twice."])
    weights = index.weights("Whose stapler vanished?")
    assert set(weights) == set(index.terms("stapler vanished"))
    assert coverage(weights, index.terms_in("On Monday morning, Sarah's red stapler vanished from her desk.")) == 1.0


def test_a_language_without_a_stemmer_reads_its_words_as_they_are() -> None:
    # The failed stemmer call used the analyzer's builder up: this raised "Builder has already been consumed".
    assert analyzer("klingon").analyze("Möchte Häuser") == ["mochte", "hauser"]
    assert analyzer("german").analyze("Möchte Häuser") == ["mocht", "haus"]


def test_two_known_words_written_as_one_are_not_unseen() -> None:
    """ "highchairs" is "high chairs"; "Mittwochnachmittag" and "Arbeitsstunde" (with its linking "s") are German
    compounds of words the knowledge uses apart. A compound with a word it never uses stays unseen."""
    english = index_of(["Two high chairs and a booster seat are waiting.", "Open until noon."])
    assert english.unseen(english.terms("highchairs boosterseats")) == frozenset()
    assert english.unseen(english.terms("chairbrushes")) == {"chairbrush"}
    german = index_of(["Am Mittwoch schließen wir am Nachmittag.", "Eine Stunde Arbeit kostet 60 Euro."])
    assert german.unseen(german.terms("Mittwochnachmittag Arbeitsstunde")) == frozenset()
    assert german.unseen(german.terms("Fahrradcodierung")) == {"fahrradcodier"}


def test_term_counts_are_the_documents_holding_each_term_after_a_build_and_an_update() -> None:
    # A build reads its counts from tantivy's term dictionary; an update counts in Python: both must be the number
    # of live documents holding each term, which BM25's bound (`max_score`) and the speller read.
    texts = [*GERMAN, *CHINESE, *ENGLISH, "Reifen Reifen Reifen", "Reifen und Schläuche"]
    sources = ["shop"] * (len(texts) - 2) + ["tyres"] * 2
    pairs = enumerate(zip(sources, texts, strict=True))
    index = LexicalIndex([Document(row, source, text) for row, (source, text) in pairs])

    def expected(of: LexicalIndex, rows: list[tuple[int, str]]) -> dict[str, int]:
        counted: dict[str, int] = {}
        for row, text in rows:
            for term in of.terms_in(text, row):
                counted[term] = counted.get(term, 0) + 1
        return counted

    assert dict(index._frequencies) == expected(index, list(enumerate(texts)))
    assert index._frequencies[analyzer("german").analyze("Reifen")[0]] == 3  # held by three rows, not five times
    removed = [Document(row, "tyres", texts[row]) for row in (len(texts) - 2, len(texts) - 1)]
    newer = index.updated({"tyres"}, removed, [Document(len(texts), "tyres", "Reifen und Ventile")])
    assert newer is not None
    live = [*enumerate(texts[:-2]), (len(texts), "Reifen und Ventile")]
    assert dict(newer._frequencies) == expected(newer, live)

"""Which language a text is in, and how the lexical index analyses a text of that language.

Detection runs on every chunk at indexing and on every question, so it is cheap and explainable rather than clever:
first the script (Han or Kana: Chinese or Japanese; Arabic; Cyrillic: Russian; Greek; Tamil), then, for Latin
letters, which language's stop words the text uses most (tantivy's lists, and ours for English, whose tantivy list
is Lucene's 33 words). A text that uses no stop word of any list (a price-list row, "Öffnungszeiten Samstag?") has
no language of its own: the index reads it in its chatbot's main language.

Analysis is tantivy's: words split on non-alphanumerics, lowercased, then the language's Snowball stemmer, then
accents folded (after stemming, which needs them: German "Fahrräder" -> "fahrrad"). English keeps the order it was
measured with (folded, then stemmed). Latin words inside Chinese or Japanese text are read as English.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence

import stopwordsiso
import tantivy

from botyard.passages import STOPWORDS as ENGLISH_STOPWORDS

ENGLISH = "english"
CJK = "cjk"
"""Chinese or Japanese: indexed as character pairs (`segment`), with English stems for their Latin words."""

STOPWORD_LANGUAGES = (
    "danish", "dutch", "english", "finnish", "french", "german", "hungarian",
    "italian", "norwegian", "portuguese", "russian", "spanish", "swedish",
)  # fmt: skip
"""tantivy's built-in stop word lists: a question's words that say nothing of its subject, in any of them."""
LATIN_STEMMED = tuple(language for language in STOPWORD_LANGUAGES if language != "russian")
"""The Latin-script languages detection can tell apart (by their stop words), each with a Snowball stemmer."""
WIDE_STOPWORD_LANGUAGES = ("zh", "ja", "ar", "th")
"""stopwordsiso lists for the languages tantivy has none for (ISO 639-1 codes)."""

# Han, Hiragana, Katakana: scripts written without spaces between words.
UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SCRIPTS = (
    (CJK, re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")),
    ("arabic", re.compile("[\u0600-\u06ff\u0750-\u077f]")),
    ("russian", re.compile("[\u0400-\u04ff]")),
    ("greek", re.compile("[\u0370-\u03ff]")),
    ("tamil", re.compile("[\u0b80-\u0bff]")),
)
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")
_ASCII_LETTER = re.compile("[A-Za-z]")
LANGUAGE_SHARE = 0.1
"""A language is one of a chatbot's when at least this share of its chunks are in it: a few chunks that read as
another language (a list of Spanish team names in English prose) make none."""
SAMPLE = 1000
"""Characters of a text that detection reads: a chunk's language shows in its first paragraphs."""


def segment(text: str) -> str:
    """`text` with each run of Chinese or Japanese characters written as its overlapping character pairs
    ("明前龙井" -> "明前 前龙 龙井"), the classic CJK indexing unit: without it, a whole sentence is one token and
    matches nothing. A lone character stays itself."""
    if text.isascii():  # no such run (most chunks): spares the substitution's scan
        return text

    def pairs(match: re.Match[str]) -> str:
        run = match[0]
        return " " + (run if len(run) == 1 else " ".join(run[i : i + 2] for i in range(len(run) - 1))) + " "

    return UNSPACED.sub(pairs, text)


@functools.cache
def analyzer(language: str = ENGLISH, stem: bool = True) -> tantivy.TextAnalyzer:
    """The analyzer of `language` (a Snowball stemmer's name, or `CJK`; anything else: no stemmer).

    English stemming was measured on msmarco-5k (bench/retrieval.py): nDCG@10 0.731 with it, 0.718 without.
    """
    stemmer = ENGLISH if language == CJK else language
    if stemmer == ENGLISH or not stem:
        builder = _lowercased().filter(tantivy.Filter.ascii_fold())
        if stem:
            builder = builder.filter(tantivy.Filter.stemmer(ENGLISH))
        return builder.build()
    try:
        builder = _lowercased().filter(tantivy.Filter.stemmer(stemmer))
    except ValueError:  # a language without a Snowball stemmer: its words as they are (the failed call used the
        builder = _lowercased()  # builder up, so a fresh one)
    return builder.filter(tantivy.Filter.ascii_fold()).build()


def _lowercased() -> tantivy.TextAnalyzerBuilder:
    """The start of every analyzer: simple tokens, none over 40 characters, lower-cased."""
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.remove_long(40))
    return builder.filter(tantivy.Filter.lowercase())


@functools.cache
def _lowercase() -> tantivy.TextAnalyzer:
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.lowercase()).build()


_ISO = {
    "danish": "da", "dutch": "nl", "finnish": "fi", "french": "fr", "german": "de", "hungarian": "hu",
    "italian": "it", "norwegian": "no", "portuguese": "pt", "spanish": "es", "swedish": "sv",
}  # fmt: skip


@functools.cache
def latin_stopwords() -> dict[str, frozenset[str]]:
    """Each Latin-script language's stop words, for detection: ours for English, and tantivy's list for the others
    (tantivy does not publish its lists: they are read back as the words of stopwords-iso's list it removes)."""
    found = {ENGLISH: ENGLISH_STOPWORDS}
    for language, code in _ISO.items():
        candidates = sorted(stopwordsiso.stopwords(code))
        stop = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.stopword(language))
        kept = set(stop.build().analyze(" ".join(candidates)))
        found[language] = frozenset(word for word in candidates if word not in kept)
    return found


@functools.cache
def wide_stopwords() -> frozenset[str]:
    """The stop words of Chinese, Japanese, Arabic and Thai (stopwords-iso), which tantivy has no list for."""
    return frozenset().union(*(stopwordsiso.stopwords(code) for code in WIDE_STOPWORD_LANGUAGES))


@functools.cache
def wording_words(language: str) -> frozenset[str]:
    """The words of `language`'s wide stop-word list (stopwords-iso: "something", "near", "often", "möchte"): they
    say how a question is asked, not what about. Empty for a language without a list."""
    return frozenset(stopwordsiso.stopwords(language)) if stopwordsiso.has_lang(language) else frozenset()


def is_stopword(word: str) -> bool:
    """Whether a lowercased word (or a CJK character pair) is a stop word of any language with a list."""
    if word in ENGLISH_STOPWORDS or word in wide_stopwords():
        return True
    if UNSPACED.fullmatch(word):  # a character pair with a function character in it ("井的", "有多") joins words
        return any(character in wide_stopwords() for character in word)
    return not _all_stop_filter().analyze(word)


@functools.cache
def _all_stop_filter() -> tantivy.TextAnalyzer:
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
    for language in STOPWORD_LANGUAGES:
        builder = builder.filter(tantivy.Filter.stopword(language))
    return builder.build()


@functools.cache
def _stopword_languages() -> dict[str, tuple[str, ...]]:
    """Each Latin-script stop word with the languages whose list has it: one look-up per word of a text."""
    found: dict[str, tuple[str, ...]] = {}
    for language, words in latin_stopwords().items():
        for word in words:
            found[word] = (*found.get(word, ()), language)
    return found


@functools.lru_cache(maxsize=4096)
def detect(text: str) -> str | None:
    """The language of `text` (see the module), or None when it shows none."""
    sample = text[:SAMPLE]
    if sample.isascii():  # most chunks: no other script to count, and whether there is a letter is enough
        if not _ASCII_LETTER.search(sample):
            return None
    else:
        latin = len(_LATIN.findall(sample))
        scripts = Counter({name: len(pattern.findall(sample)) for name, pattern in _SCRIPTS})
        script, count = scripts.most_common(1)[0]
        if count and count >= latin / 4:  # a few Latin words in a Chinese text leave it Chinese
            return script
        if not latin:
            return None
    counts = dict.fromkeys(latin_stopwords(), 0)
    languages_of = _stopword_languages()
    # Each distinct stop word once, with how often it occurs: a loop over every token took 7 s at 100k chunks.
    tokens = Counter(_lowercase().analyze(sample))
    for token in tokens.keys() & languages_of.keys():
        for language in languages_of[token]:
            counts[language] += tokens[token]
    best = max(counts.values())
    if best == 0:
        return None
    # A tie with English (a Scandinavian "i", "at") goes to English; any other tie says nothing.
    leaders = [language for language, value in counts.items() if value == best]
    return ENGLISH if ENGLISH in leaders else leaders[0] if len(leaders) == 1 else None


def chatbot_languages(detected: Counter[str | None]) -> tuple[frozenset[str], str]:
    """The chatbot's languages (`LANGUAGE_SHARE`) and its main one (English when none shows), from how many texts
    were detected in each (None: too short to tell)."""
    total = sum(detected.values())
    counts = {language: count for language, count in detected.items() if language is not None and count > 0}
    languages = frozenset(language for language, count in counts.items() if count >= LANGUAGE_SHARE * total)
    main = min(counts.items(), key=lambda item: (-item[1], item[0] != ENGLISH, item[0]))[0] if counts else ENGLISH
    return languages | {main}, main


def _unspaced_pair(term: str) -> bool:
    return len(term) == 2 and bool(UNSPACED.fullmatch(term))


def straddles(terms: Sequence[str], known: Sequence[bool], index: int) -> bool:
    """Whether an unknown character pair lies between known ones (or a run's end): "满多少包邮" gives 满多 多少 少包
    包邮, and 满多 and 少包 only join the ends of known words (多少 is a stop word); two unknown pairs in a row
    ("紫砂 砂壶") are an unknown word."""
    if not _unspaced_pair(terms[index]):
        return False

    def around(other: int) -> bool:
        return other < 0 or other >= len(terms) or not _unspaced_pair(terms[other]) or known[other]

    return around(index - 1) and around(index + 1)

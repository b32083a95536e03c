"""The languages Botyard speaks to a chatbot's users, and which one a text is written in.

A chatbot's language is one of `Language` (ISO 639-1 codes, the primary subtag of a BCP 47 tag): the ones whose
texts (`texts.json`) we ship, the right-to-left ones among them.

Which language a text is in: first the scripts only one language of ours is written in (Hangul, Thai, Hebrew,
Devanagari), then `botyard.retrieval.language.detect` (script, then stop words), refined where that detector reads a
family rather than one language: Chinese or Japanese (Japanese writes kana between its characters), Arabic, Persian
or Urdu (each has letters the others lack), and, for Latin letters, Polish and Turkish (letters no other language of
ours uses; tantivy has no stop word list for them). Cheap and explainable, as the detector it builds on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from enum import StrEnum
from typing import Literal

from botyard.retrieval.language import CJK, SAMPLE, detect


class Language(StrEnum):
    EN = "en"
    DE = "de"
    FR = "fr"
    ES = "es"
    IT = "it"
    PT = "pt"
    NL = "nl"
    ZH = "zh"
    JA = "ja"
    KO = "ko"
    AR = "ar"
    RU = "ru"
    TR = "tr"
    PL = "pl"
    TH = "th"
    HI = "hi"
    HE = "he"
    FA = "fa"
    UR = "ur"


DEFAULT = Language.EN
"""A chatbot's language when it has none set and its knowledge shows none."""
RIGHT_TO_LEFT = frozenset({Language.AR, Language.HE, Language.FA, Language.UR})

Direction = Literal["ltr", "rtl"]


def direction(language: Language) -> Direction:
    return "rtl" if language in RIGHT_TO_LEFT else "ltr"


def primary_subtag(tag: str) -> str:
    """The language part of a BCP 47 tag, lowercased: "pt-BR", "zh_Hant", "DE" -> "pt", "zh", "de"."""
    return re.split(r"[-_]", tag.strip(), maxsplit=1)[0].lower()


# Scripts that only one of our languages is written in: the detector does not know them.
_OWN_SCRIPTS = (
    (Language.KO, re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")),
    (Language.TH, re.compile("[\u0e00-\u0e7f]")),
    (Language.HE, re.compile("[\u0590-\u05ff]")),
    (Language.HI, re.compile("[\u0900-\u097f]")),
)
_KANA = re.compile("[\u3040-\u30ff]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_URDU = re.compile("[\u0679\u0688\u0691\u06ba\u06c1\u06d2]")  # tteh, ddal, rreh, noon ghunna, heh goal, yeh barree
_PERSIAN = re.compile("[\u067e\u0686\u0698\u06a9\u06af\u06cc]")  # peh, tcheh, jeh, keheh, gaf, farsi yeh
_POLISH = re.compile("[ąęłńśźżĄĘŁŃŚŹŻ]")
_TURKISH = re.compile("[ğışĞİŞ]")
_LETTER = re.compile(r"[^\W\d_]")
_DETECTED = {
    "english": Language.EN,
    "german": Language.DE,
    "french": Language.FR,
    "spanish": Language.ES,
    "italian": Language.IT,
    "portuguese": Language.PT,
    "dutch": Language.NL,
    "russian": Language.RU,
}


def language_of(text: str) -> Language | None:
    """The language `text` is written in, or None when it shows none we speak (too short, no stop word, or a
    language we have no texts for)."""
    sample = text[:SAMPLE]
    letters = len(_LETTER.findall(sample))
    if not letters:
        return None
    own = Counter({language: len(pattern.findall(sample)) for language, pattern in _OWN_SCRIPTS})
    language, count = own.most_common(1)[0]
    if count * 2 >= letters:
        return language
    found = detect(text)
    if found == CJK:
        # Japanese writes kana (particles, endings) all through its sentences; a Chinese text has a stray one at most.
        return Language.JA if len(_KANA.findall(sample)) * 10 >= len(_HAN.findall(sample)) else Language.ZH
    if found == "arabic":
        # Urdu's letters first: Urdu writes Persian's too. A borrowed name in an Arabic text is not enough.
        return _marked_by(sample, letters, ((Language.UR, _URDU, 2), (Language.FA, _PERSIAN, 2))) or Language.AR
    # The detector reads Polish and Turkish as English (their "a", "do", "on"); a Polish city in an English text
    # is not enough to make it Polish.
    latin = _marked_by(sample, letters, ((Language.PL, _POLISH, 3), (Language.TR, _TURKISH, 3)))
    return latin or (_DETECTED.get(found) if found is not None else None)


def _marked_by(sample: str, letters: int, marks: Iterable[tuple[Language, re.Pattern[str], int]]) -> Language | None:
    """The first language with at least `least` of its own letters in the sample, and one in 50 of its letters."""
    for language, pattern, least in marks:
        hits = len(pattern.findall(sample))
        if hits >= least and hits * 50 >= letters:
            return language
    return None


def reply_language(question: str, spoken: Language) -> Language:
    """The language of a reply of ours to `question`: the question's own when it clearly shows one, else the
    chatbot's (`spoken`)."""
    return language_of(question) or spoken


def main_language(samples: Iterable[tuple[str, int]]) -> Language | None:
    """The language most of the knowledge is written in, from `(text, weight)` samples: each chunk's first
    characters, weighed by its whole size in tokens (a heading weighs little; a token is closer to a word than a
    character is, in Chinese as in English)."""
    weights: Counter[Language] = Counter()
    for text, weight in samples:
        language = language_of(text)
        if language is not None:
            weights[language] += weight
    return weights.most_common(1)[0][0] if weights else None

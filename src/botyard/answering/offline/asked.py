"""What kind of thing a question asks for, when its words say so: a price, a length of time, a time of day, a phone
number, an address. A careful reader answering "trial length?" looks for the sentence that states a length of time
("free for 14 days"), not the one that repeats "trial" ("At the end of the trial ..."); the offline answerer does
the same (`quote`): a passage that states what was asked for counts as holding one more of the question's words, as
heavy as its most specific one.

The cues are the asking words of English, German, French, Spanish, Italian, Portuguese, Arabic and Chinese; a
question in another language simply asks for no kind, and passages are chosen as before. The forms are
what such a value looks like in text: a currency with a number, a number with a unit of time, a clock time, a run of
digits long enough to be a phone number, a house number beside a street word or a postcode beside a town.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Kind(StrEnum):
    PRICE = "\x00price"
    DURATION = "\x00duration"
    CLOCK = "\x00clock"
    PHONE = "\x00phone"
    ADDRESS = "\x00address"
    """Values are terms no text can contain (they start with NUL), so they weigh in `coverage` beside real ones."""


_FLAGS = re.IGNORECASE
_CUES: dict[Kind, re.Pattern[str]] = {
    Kind.PRICE: re.compile(
        r"\b(how much|price[sd]?|pricing|cost[s]?|charge[sd]?|fees?|deals?|good[- ]value|cheap(?:er|est)?|affordable|"
        r"wie ?viel|günstig\w*|preiswert\w*|wie teu[er]+|kostet|kosten|preis\w*|"
        r"gebühr\w*|verlang\w*|combien (?:co[uû]t\w*|pour|le|la|les)|prix|tarifs?|co[uû]ts?|frais|"
        r"cu[aá]nto (?:cuesta|cuestan|vale|valen|es|cobr\w*)|precios?|tarifas?|costos?|coste|"
        r"quanto (?:costa|costano|custa|custam)|prezz[oi]|pre[cç]os?)\b|"
        r"بكم|كم (?:سعر|ثمن|تكلفة|يكلف|تكلف)|سعر|أسعار|تكلفة|رسوم|"
        r"多少钱|价格|价钱|费用|运费|收费|几块",
        _FLAGS,
    ),
    Kind.DURATION: re.compile(
        r"\b(how long|length|how soon|how many (days|weeks|months|years|hours|minutes)|wie lange?|wie schnell|"
        r"dauer\w*|wie viele (tage|wochen|monate|jahre|stunden|minuten)|combien de (temps|jours|semaines|mois|"
        r"ans|années|heures)|durée|délai|cu[aá]nto tiempo|cu[aá]ntos (d[ií]as|meses|años)|duraci[oó]n|plazo|"
        r"quanto tempo|durata|dura[cç][aã]o)\b|"
        r"كم من الوقت|كم (?:يوم|أيام|يومًا|يوما|شهر|سنة|ساعة)|مدة|متى يصل|"
        r"多久|多长时间|多长|几天|多少天",
        _FLAGS,
    ),
    Kind.CLOCK: re.compile(
        r"\b(what time|until when|bis wann|um wie ?viel uhr|uhrzeit|à quelle heure|jusqu'à quelle heure|"
        r"a qu[eé] hora|hasta qu[eé] hora|a che ora|a que horas)\b|في أي ساعة|几点",
        _FLAGS,
    ),
    Kind.PHONE: re.compile(
        r"\b(phone|telephone|call you|telefon\w*|rufnummer|anrufen|t[eé]l[eé]phone|appeler|llamar|"
        r"tel[eé]fono|telefonare|ligar)\b|هاتف|اتصال|电话",
        _FLAGS,
    ),
    Kind.ADDRESS: re.compile(
        # Where the business is, not where an order is ("where is my parcel?" asks for a tracking answer).
        r"\b(address|where (exactly )?(are you|is your|are your)|located|find you|adresse|anschrift|"
        r"o[uù] (?:se trouve|êtes-vous|est votre)|direcci[oó]n|d[oó]nde (?:est[aá]n|est[aá]|queda)|indirizzo|"
        r"endere[cç]o|"
        r"wo (genau )?(ist|sind|seid|liegt|befinde\w*|finde\w*) (ihr|euer|eure|ihre|sie)\b)|地址|"
        r"(你们|店|门店)\S{0,4}在哪",
        _FLAGS,
    ),
}
_NUMBER = r"[\d\u0660-\u0669]+(?:[.,][\d\u0660-\u0669]+)?"
_FORMS: dict[Kind, re.Pattern[str]] = {
    Kind.PRICE: re.compile(
        rf"[£$€¥]\s?{_NUMBER}|{_NUMBER}\s?(?:[£$€¥]|eur\b|euro|usd\b|dollars?|pounds?|元|块|"
        r"ريال|درهم|دينار|جنيه|ليرة)|\bfree of charge\b|"
        r"\bkostenlos|\bgratuit|\bgratis\b|\bgratuito|مجان|免费|包邮",
        _FLAGS,
    ),
    Kind.DURATION: re.compile(
        # Not the minutes of a clock time ("bis 17:30 an" is German "until half past five", no French year).
        rf"(?<![:\d]){_NUMBER}\s?(?:-|\u2013|to|bis)?\s?(?:{_NUMBER}\s?)?"
        r"(?:(?:business |working |calendar )?(?:days?|weeks?|months?|years?|hours?|minutes?|mins?)\b|"
        r"(?:werk)?tagen?\b|wochen?\b|monaten?\b|jahren?\b|stunden?\b|minuten?\b|min\.|"
        r"(?:jours?|semaines?|mois|ans?|années?|heures?|d[ií]as?|semanas?|meses|mes|años?|horas?|minutos?|"
        r"giorni|settimane|mesi|anni|ore|dias?|anos?)\b|"
        r"(?:يوم|أيام|يومًا|يوما|أسبوع|أسابيع|شهر|أشهر|شهور|سنة|سنوات|ساعة|ساعات|دقيقة|دقائق)|"
        r"个?工作日|天|周|个月|年|小时|分钟)",
        _FLAGS,
    ),
    Kind.CLOCK: re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|uhr)\b|\d{1,2}点", _FLAGS),
    Kind.PHONE: re.compile(r"\+?\d[\d ()/-]{6,}\d"),
    # A house number beside a street word (in either order), or a postcode beside its town: "14 Quay Street",
    # "Am Kettenhof 12", "Bahnhofstraße 3a", "04229 Leipzig", "PA1 4QS", "龙井路18号".
    Kind.ADDRESS: re.compile(
        r"\b\d{1,5}[a-z]?,?\s+(?:[A-Z][\w'-]*\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Way|Drive|Place|Square|"
        r"Boulevard|Court|Terrace|Close|Crescent|Row|Quay|Parade|Gardens)\b|"
        r"\b(?:Am|An der|Auf der|Im|In der|Zum|Zur)\s+[A-ZÄÖÜ][\wäöüß-]+\s+\d{1,4}[a-z]?\b|"
        r"\b[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|hof|markt)\s+\d{1,4}[a-z]?\b|"
        r"\b\d{5}\s+[A-ZÄÖÜ][a-zäöüß]+|\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b|"
        r"[\u4e00-\u9fff](?:路|街|道|巷|弄)\d+号"
    ),
}


def asked_kinds(question: str) -> set[Kind]:
    """The kinds of value the question asks for (none when its words do not say)."""
    return {kind for kind, cue in _CUES.items() if cue.search(question)}


def asking_words(question: str, kinds: set[Kind]) -> str:
    """The question's words that ask for one of `kinds` ("how long", "combien de temps"): a quote that states such a
    value answers them, though it need not repeat them."""
    return " ".join(match.group() for kind in kinds for match in _CUES[kind].finditer(question))


def stated_kinds(text: str, kinds: set[Kind]) -> set[Kind]:
    """Which of `kinds` the text states a value of."""
    return {kind for kind in kinds if _FORMS[kind].search(text)}

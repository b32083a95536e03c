"""Generated documents for the ingestion benchmark: HTML articles and multi-page PDFs.

The text is random but word-like and seeded, so every document differs (the service deduplicates by content) while
two runs of the benchmark ingest the same material.
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF

_SUBJECTS = (
    "the billing service",
    "our support team",
    "the mobile app",
    "each workspace",
    "the reporting module",
    "a new customer",
    "the onboarding flow",
    "the data export",
    "every invoice",
    "the admin console",
    "the search index",
    "a shared calendar",
    "the warehouse",
    "the nightly backup",
    "the partner portal",
)
_VERBS = (
    "handles",
    "summarises",
    "schedules",
    "protects",
    "records",
    "updates",
    "explains",
    "exports",
    "measures",
    "renews",
    "checks",
    "archives",
    "notifies",
    "balances",
    "forecasts",
    "migrates",
    "audits",
    "collects",
)
_OBJECTS = (
    "monthly usage",
    "refund requests",
    "team permissions",
    "tax details",
    "delivery windows",
    "login attempts",
    "custom fields",
    "shipping labels",
    "price tiers",
    "renewal dates",
    "storage quotas",
    "open tickets",
    "regional holidays",
    "contract terms",
    "device settings",
    "payment methods",
    "trial periods",
    "audit trails",
)
_TAILS = (
    "without any manual step",
    "within two business days",
    "for every region",
    "as soon as the plan changes",
    "when an administrator asks",
    "at the end of each quarter",
    "before the next billing cycle",
    "according to the retention policy",
    "unless the account is paused",
    "with a short confirmation email",
    "in the order they arrive",
    "so that nothing is counted twice",
    "while the previous version stays readable",
)
_TOPICS = (
    "Getting started",
    "Plans and pricing",
    "Security",
    "Integrations",
    "Troubleshooting",
    "Data retention",
    "Accounts and roles",
    "Notifications",
    "Reporting",
    "Migration guide",
    "Limits",
    "Release notes",
)


def _sentence(rng: random.Random, serial: int) -> str:
    words = [rng.choice(_SUBJECTS).capitalize(), rng.choice(_VERBS), rng.choice(_OBJECTS), rng.choice(_TAILS)]
    if rng.random() < 0.3:
        words.insert(3, f"(reference {serial}-{rng.randrange(10_000)})")
    return " ".join(words) + "."


def paragraph(rng: random.Random, serial: int, words: int) -> str:
    """Sentences until about `words` words; `serial` makes the text unique to one document."""
    sentences: list[str] = []
    count = 0
    while count < words:
        sentence = _sentence(rng, serial)
        sentences.append(sentence)
        count += len(sentence.split())
    return " ".join(sentences)


def html_article(number: int, seed: int) -> bytes:
    """A web page of 600-1000 words: navigation, an article with a title, sections and paragraphs, a footer."""
    rng = random.Random(seed * 1_000_003 + number)
    title = f"{rng.choice(_TOPICS)}: article {number}"
    budget = rng.randint(540, 900)  # words of paragraphs; headings, menu and footer add the rest
    sections: list[str] = []
    while budget > 0:
        paragraphs = []
        for _ in range(rng.randint(2, 3)):
            if budget <= 0:
                break
            size = min(budget, rng.randint(60, 120))
            paragraphs.append(f"<p>{paragraph(rng, number, size)}</p>")
            budget -= size
        sections.append(f"<h2>{rng.choice(_TOPICS)} ({len(sections) + 1})</h2>" + "".join(paragraphs))
    nav = "".join(f'<li><a href="/{topic.lower().replace(" ", "-")}">{topic}</a></li>' for topic in _TOPICS[:6])
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}</title></head><body>"
        f"<header><nav><ul>{nav}</ul></nav></header>"
        f"<main><article><h1>{title}</h1>{''.join(sections)}</article></main>"
        "<footer><p>Copyright Example Ltd. All rights reserved.</p></footer></body></html>"
    ).encode()


@dataclass(frozen=True)
class PdfDocument:
    name: str
    content: bytes
    pages: int


def pdf_document(number: int, seed: int, min_pages: int = 2, max_pages: int = 8) -> PdfDocument:
    """A report of `min_pages`-`max_pages` pages, each with a heading and two paragraphs of text."""
    rng = random.Random(seed * 2_000_003 + number)
    pdf = FPDF()
    pdf.set_title(f"Report {number}")
    for page in range(1, rng.randint(min_pages, max_pages) + 1):
        pdf.add_page()
        pdf.set_font("helvetica", "B", 16)
        pdf.cell(0, 10, f"Report {number}, part {page}: {rng.choice(_TOPICS)}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", "", 11)
        for _ in range(2):
            # Wrapped here rather than by multi_cell, whose line breaking costs about 50 ms a page.
            for line in textwrap.wrap(paragraph(rng, number, rng.randint(120, 170)), width=92):
                pdf.cell(0, 5.5, line, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
    return PdfDocument(f"report-{number:04d}.pdf", bytes(pdf.output()), pdf.page_no())


def write_site(directory: Path, pages: int, seed: int) -> list[str]:
    """Write `pages` articles into `directory`; their paths relative to the site root."""
    paths = []
    for number in range(pages):
        name = f"article-{number:04d}.html"
        (directory / name).write_bytes(html_article(number, seed))
        paths.append(f"/{name}")
    return paths

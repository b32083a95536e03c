"""Whether a page fits its viewport's width, measured once it settles, and what sticks out when it does not."""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"

# The deepest elements whose right edge passes the viewport's: what makes the page scroll sideways.
STICKING_OUT = """() => {
  const width = window.innerWidth;
  const out = [...document.querySelectorAll("body *")].filter((element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.right > width + 0.5;
  });
  const deepest = out.filter((element) => !out.some((other) => other !== element && element.contains(other)));
  return {
    scroll: document.documentElement.scrollWidth,
    width,
    elements: deepest.slice(0, 8).map((element) => ({
      element: `${element.tagName.toLowerCase()}${element.className ? "." + String(element.className) : ""}`,
      right: Math.round(element.getBoundingClientRect().right),
      text: (element.textContent || "").trim().slice(0, 80),
    })),
  };
}"""


def assert_no_sideways_scroll(page: Page, timeout_ms: int = 10_000) -> None:
    """The page does not scroll sideways. A page may still be drawing what it fetched (a list, a badge of another
    visitor) when it is measured: it is measured once it settles, within a bound; what sticks out is reported."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(FITS, timeout=timeout_ms)
    found: Any = page.evaluate(STICKING_OUT)
    assert found["scroll"] <= found["width"], f"the page scrolls sideways: {found}"

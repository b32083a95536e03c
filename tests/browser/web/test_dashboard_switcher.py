"""The chatbot switcher in the dashboard's header, in Chromium: a long chatbot name shows whole (the select is as wide
as the chosen name), and a name longer than the room the header's one line leaves ends in an ellipsis while its
whole text stays the select's title and wraps in the page heading. Leaves `tests/artifacts/dashboard-switcher*.png`."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Locator, expect

from tests.support.browser import Service
from tests.support.dashboard import Dashboard, make_chatbot

LONG = "Springfield Bicycle Repair Shop: weekend hours and rentals"
LONGEST = "Springfield" + "-and-more" * 21  # 200 characters, the most a name may have, without a space to wrap at


def room_for_the_name(select: Locator) -> float:
    """How much wider the select's content box is than its chosen name drawn in its font (negative: cut)."""
    room: float = select.evaluate(
        """(select) => {
          const style = getComputedStyle(select);
          const canvas = document.createElement("canvas").getContext("2d");
          canvas.font = style.font;
          const text = canvas.measureText(select.selectedOptions[0].text).width;
          const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
          return select.clientWidth - padding - text;
        }"""
    )
    return room


def test_a_long_chatbot_name_shows_whole_in_the_switcher(server: Service, board: Dashboard, artifacts: Path) -> None:
    long_bot = make_chatbot(server, LONG, with_qa=False)
    longest_bot = make_chatbot(server, LONGEST, with_qa=False)
    page = board.open(f"/bot/{long_bot}/knowledge", f"Knowledge: {LONG}")
    switcher = page.get_by_label("Chatbot", exact=True)
    expect(switcher).to_have_value(long_bot)
    expect(switcher.locator("option:checked")).to_have_text(LONG)
    expect(switcher).to_have_attribute("title", LONG)
    assert room_for_the_name(switcher) >= 0, "the switcher cuts the chatbot's name"
    page.screenshot(path=artifacts / "dashboard-switcher.png")

    # Switching to the longest name: the title and the heading carry it whole; the heading wraps inside the page.
    switcher.select_option(longest_bot)
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_text(f"Knowledge: {LONGEST}")
    expect(switcher).to_have_attribute("title", LONGEST)
    overflow = heading.evaluate("(element) => element.scrollWidth - element.clientWidth")
    assert overflow <= 0, "the page heading runs out of the page"
    header = page.locator("header").first.bounding_box()
    box = switcher.bounding_box()
    assert header is not None and box is not None
    assert box["x"] >= header["x"] and box["x"] + box["width"] <= header["x"] + header["width"]
    page.screenshot(path=artifacts / "dashboard-switcher-longest.png")

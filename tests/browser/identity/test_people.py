"""People in the dashboard, in Chromium: sign-in with a password that holds in every tab, an invitation accepted from
its link, the members and API keys pages, and two people with different roles working at once."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.support.browser import Service
from tests.support.dashboard import ANSWER, QUESTION, Dashboard, header_menu, make_chatbot, nav_link, row_of

PASSWORD = "a long enough password"


def _email(role: str) -> str:
    return f"{role}-{secrets.token_hex(4)}@example.com"  # the service lives for the session: one email, one person


def add_person(server: Service, role: str) -> str:
    """A member of the service key's account, invited and accepted through the API; their email."""
    email = _email(role)
    link = server.api("POST", "/account/invitation/create", {"email": email, "role": role})["link"]
    body = {"token": link.split("#invite=", 1)[1], "name": role.title(), "password": PASSWORD}
    accepted = httpx.post(f"{server.base}/api/v1/auth/invitation/accept", json=body, timeout=30)
    assert accepted.status_code == 200, accepted.text
    return email


def sign_in(context: BrowserContext, server: Service, email: str) -> Dashboard:
    board = Dashboard(context, server)
    page = board.page
    page.goto(f"{server.base}/dashboard")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("heading", name="Chatbots", level=1)).to_be_visible()
    return board


@pytest.fixture
def new_browser(browser: Browser) -> Iterator[Callable[[], BrowserContext]]:
    """Opens browsers of their own (cookies apart), as many as a test wants; closed after it."""
    opened: list[BrowserContext] = []

    def new() -> BrowserContext:
        opened.append(browser.new_context(viewport={"width": 1280, "height": 900}))
        return opened[-1]

    yield new
    for context in opened:
        context.close()


def test_sign_in_holds_in_every_tab_until_sign_out(new_browser: Callable[[], BrowserContext], server: Service) -> None:
    email = add_person(server, "editor")
    context = new_browser()
    page = Dashboard(context, server).page
    page.goto(f"{server.base}/dashboard")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("Wrong email or password")
    board = sign_in(context, server, email)
    expect(board.page.get_by_label("Signed in as")).to_have_text("Editor · editor")
    assert "botyard_session" not in board.page.evaluate("document.cookie")  # HttpOnly: no script reads it

    second = context.new_page()  # a new tab: signed in already, nothing to paste
    second.goto(f"{server.base}/dashboard#/chatbots")
    expect(second.get_by_role("heading", name="Chatbots", level=1)).to_be_visible()
    expect(second.locator("header a[href='#/members']")).to_have_count(0)  # an editor manages no one
    header_menu(second, "account")
    second.get_by_role("button", name="Sign out", exact=True).click()
    expect(second.get_by_role("heading", name="Sign in to Botyard")).to_be_visible()
    board.page.reload()  # the first tab's session ended with it
    expect(board.page.get_by_role("heading", name="Sign in to Botyard")).to_be_visible()
    assert board.problems == []


def test_an_invitation_from_the_members_page(new_browser: Callable[[], BrowserContext], server: Service) -> None:
    admin = sign_in(new_browser(), server, add_person(server, "admin"))
    page = admin.page
    nav_link(page, "Members").click()
    expect(page.get_by_role("heading", name="Members", level=1)).to_be_visible()
    invited = _email("operator")
    page.get_by_label("Email").fill(invited)
    page.get_by_label("Role", exact=True).select_option("operator")
    page.get_by_role("button", name="Invite").click()
    link = page.get_by_label("Invitation link").input_value()
    assert "#invite=" in link
    expect(row_of(page, invited)).to_contain_text("operator")
    expect(page.get_by_label("Role", exact=True).locator("option[value=owner]")).to_have_count(
        0
    )  # admins make no owner

    newcomer = Dashboard(new_browser(), server)
    newcomer.page.goto(link)
    expect(newcomer.page.get_by_role("heading", name="Join the team")).to_be_visible()
    assert "#invite=" not in newcomer.page.url  # the token left the address bar
    expect(newcomer.page.get_by_text("You are invited as operator.")).to_be_visible()
    newcomer.page.get_by_label("Your name").fill("Otto")
    newcomer.page.get_by_label("Choose a password").fill(PASSWORD)
    newcomer.page.get_by_role("button", name="Join").click()
    expect(newcomer.page.get_by_role("heading", name="Chatbots", level=1)).to_be_visible()
    expect(newcomer.page.get_by_label("Signed in as")).to_have_text("Otto · operator")

    page.reload()
    member = page.locator("tbody tr", has_text=invited).first
    expect(member.get_by_role("combobox")).to_have_value("operator")
    member.get_by_role("combobox").select_option("viewer")
    expect(page.get_by_role("status").filter(has_text="is now viewer")).to_be_visible()
    newcomer.page.reload()
    expect(newcomer.page.get_by_label("Signed in as")).to_have_text("Otto · viewer")
    assert admin.problems == [] and newcomer.problems == []


def test_an_admin_makes_and_revokes_a_key(new_browser: Callable[[], BrowserContext], server: Service) -> None:
    admin = sign_in(new_browser(), server, add_person(server, "admin"))
    page = admin.page
    nav_link(page, "API keys").click()
    expect(page.get_by_role("heading", name="API keys", level=1)).to_be_visible()
    name = f"nightly sync {secrets.token_hex(3)}"
    page.get_by_label("Key name").fill(name)
    page.get_by_role("button", name="Create key").click()
    key = page.get_by_label("New API key").input_value()
    headers = {"Authorization": f"Bearer {key}"}
    assert httpx.get(f"{server.base}/api/v1/chatbots", headers=headers, timeout=30).status_code == 200
    page.reload()
    row = row_of(page, name)
    expect(row).not_to_contain_text("never")  # its use just now
    row.get_by_role("button", name=f"Revoke {name}").click()
    page.get_by_role("dialog").get_by_role("button", name="Revoke").click()
    expect(row_of(page, name)).to_contain_text("revoked")
    assert httpx.get(f"{server.base}/api/v1/chatbots", headers=headers, timeout=30).status_code == 401
    assert admin.problems == []


def test_removing_a_member_offers_to_revoke_the_keys_they_made(
    new_browser: Callable[[], BrowserContext], server: Service
) -> None:
    leaver_email = add_person(server, "admin")
    leaver = sign_in(new_browser(), server, leaver_email)
    keys = leaver.open("/keys", "API keys")
    name = f"their sync {secrets.token_hex(3)}"
    keys.get_by_label("Key name").fill(name)
    keys.get_by_role("button", name="Create key").click()
    key = keys.get_by_label("New API key").input_value()
    expect(row_of(keys, name)).to_contain_text(leaver_email)  # who made it

    admin = sign_in(new_browser(), server, add_person(server, "admin"))
    page = admin.open("/members", "Members")
    row_of(page, leaver_email).get_by_role("button", name="Remove").click()
    dialog = page.get_by_role("dialog")
    offer = dialog.get_by_label(f"Also revoke the 1 API key(s) they made: “{name}”")
    expect(offer).to_be_checked()
    dialog.get_by_role("button", name="Remove").click()
    expect(page.get_by_role("status").filter(has_text="revoked 1 API key(s)")).to_be_visible()
    headers = {"Authorization": f"Bearer {key}"}
    assert httpx.get(f"{server.base}/api/v1/chatbots", headers=headers, timeout=30).status_code == 401
    listed = admin.open("/keys", "API keys")
    expect(row_of(listed, name)).to_contain_text("a removed member")
    expect(row_of(listed, name)).to_contain_text("revoked")
    assert admin.problems == [] and leaver.problems == []


def _knowledge(board: Dashboard, bot: str) -> Page:
    return board.open(f"/bot/{bot}/knowledge", f"Knowledge: {bot_name(board, bot)}")


def bot_name(board: Dashboard, bot: str) -> str:
    return str(board.server.api("GET", f"/chatbot/{bot}")["name"])


def test_an_editor_and_a_viewer_at_once(new_browser: Callable[[], BrowserContext], server: Service) -> None:
    bot = make_chatbot(server, f"Shared {secrets.token_hex(3)}", with_qa=False)
    editor = sign_in(new_browser(), server, add_person(server, "editor"))
    viewer = sign_in(new_browser(), server, add_person(server, "viewer"))
    editing, reading = _knowledge(editor, bot), _knowledge(viewer, bot)
    expect(reading.get_by_role("button", name="Add Q&A")).to_have_count(0)
    expect(reading.get_by_role("heading", name="Add knowledge")).to_be_hidden()

    editing.get_by_label("Question").fill(QUESTION)
    editing.get_by_label("Answer").fill(ANSWER)
    editing.get_by_role("button", name="Add Q&A").click()
    expect(editing.get_by_role("status").filter(has_text="Q&A pair added.")).to_be_visible()

    reading.reload()
    expect(row_of(reading, QUESTION)).to_be_visible()  # the viewer sees the editor's source
    expect(row_of(reading, QUESTION).get_by_role("button", name="Delete")).to_be_hidden()
    refused = reading.evaluate(
        """async (bot) => {
            const token = document.cookie.split("; ").find((c) => c.startsWith("botyard_csrf=")).split("=")[1];
            const response = await fetch(`/api/v1/chatbot/${bot}/data-source/qa`, {
                method: "POST",
                headers: {"Content-Type": "application/json", "X-Botyard-CSRF": token},
                body: JSON.stringify({question: "Planted?", answer: "by a viewer"}),
            });
            return [response.status, (await response.json()).code];
        }""",
        bot,
    )
    assert refused == [403, "forbidden_role"]
    expect(row_of(editing, QUESTION).get_by_role("button", name="Delete")).to_be_visible()
    assert editor.problems == [] and viewer.problems == []


def test_members_and_keys_read_on_a_phone(browser: Browser, server: Service) -> None:
    """360 px wide, a long name and address: the tables scroll in their region instead of squeezing a column to a
    letter (the role select was 20 px wide, the actions cut off), and every field has its full height."""
    long_name = "Maximilian-Alexander von Hohenzollern-Sigmaringen"
    email = f"max-{secrets.token_hex(4)}-with-a-rather-long-address@example-company-with-a-long-domain.com"
    link = server.api("POST", "/account/invitation/create", {"email": email, "role": "admin"})["link"]
    body = {"token": link.split("#invite=", 1)[1], "name": long_name, "password": PASSWORD}
    assert httpx.post(f"{server.base}/api/v1/auth/invitation/accept", json=body, timeout=30).status_code == 200
    server.api("POST", "/account/api-key/create", {"name": "The CRM integration's nightly synchronisation"})
    context = browser.new_context(viewport={"width": 360, "height": 800})
    try:
        board = sign_in(context, server, email)
        page = board.open("/members", "Members")
        invite_email = page.get_by_label("Email", exact=True)
        assert (invite_email.bounding_box() or {}).get("height", 0) >= 30  # styled like every other field
        role = page.get_by_label(f"Role of {email}")
        role.scroll_into_view_if_needed()
        assert (role.bounding_box() or {}).get("width", 0) >= 80
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the region scrolls, not the page
        keys = board.open("/keys", "API keys")
        revoke = keys.get_by_role("button", name="Revoke").first
        revoke.scroll_into_view_if_needed()
        expect(revoke).to_be_in_viewport()
        assert keys.evaluate("document.documentElement.scrollWidth") <= 360
        assert board.problems == []
    finally:
        context.close()

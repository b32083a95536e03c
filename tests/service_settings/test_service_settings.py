"""The instance's settings changed in the dashboard's API while the service runs (issue 40 item 5): the allowed hosts,
the model connection and the CORS origins take effect without a restart, the environment wins, the model's key is
encrypted at rest and never shown, bad input changes nothing, and only the instance's owner and admins may."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from botyard.models import InstanceSettings, Role
from botyard.service_settings.cipher import Cipher
from botyard.service_settings.fields import effective
from botyard.service_settings.repository import InstanceSettingsRepository
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.chat import ask, new_session
from tests.support.database import Db, backend_params, database_dump, fresh_settings
from tests.support.fake_dns import FakeDns
from tests.support.fake_llm import FakeLlm, Reply
from tests.support.jobs import process
from tests.support.people import person
from tests.support.waiting import wait_for
from tests.support.web_site import Page, WebSite

HOSTS = "Allowed hosts (dashboard Settings, or BOTYARD_EGRESS_ALLOWLIST)"
ORIGINS = "Allowed origins (dashboard Settings, or BOTYARD_CORS_ORIGINS)"
KEY = "sk-live-0123456789abcdefWXYZ"
SHOP = "https://shop.example"


@pytest.fixture(scope="module", params=backend_params())
def app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """An app whose environment sets none of the dashboard's settings but the default model (which stays locked)."""
    overrides: dict[str, Any] = {
        "jobs_in_process": False,
        "embedder": "none",
        "settings_poll_seconds": 0.1,
        "llm_default_model": "env-model",
    }
    data_dir: Path = tmp_path_factory.mktemp("settings-data")
    with (
        fresh_settings(request.param, data_dir, **overrides) as settings,
        TestClient(create_app(settings, resolver=FakeDns()), raise_server_exceptions=False) as client,
    ):
        yield client


@pytest.fixture
def db(app: TestClient) -> Db:
    db = Db(app)
    db.wipe()  # the settings' row too: the app is back on its environment and defaults
    return db


@pytest.fixture
def owner(app: TestClient, db: Db) -> Api:
    """An API key of the instance's own account (the first one made), acting as its admin."""
    issued = db.run(lambda session: issue_key(session, "owner@example.com"))
    return Api(app, issued.key)


@pytest.fixture(scope="module")
def site() -> Iterator[WebSite]:
    site = WebSite()
    site.pages["/page"] = Page(b"<html><head><title>Hours</title></head><body><p>We open at nine.</p></body></html>")
    yield site
    site.close()


def change(api: Api, **values: Any) -> dict[str, Any]:
    body: dict[str, Any] = api.ok(api.post("/service/settings", values))
    return body


def shown(view: dict[str, Any], name: str) -> dict[str, Any]:
    [entry] = [entry for entry in view["settings"] if entry["name"] == name]
    return entry


def test_allowed_hosts_let_a_refused_fetch_through_and_back_without_a_restart(owner: Api, site: WebSite) -> None:
    bot = owner.chatbot()["uuid"]
    url = site.url("/page")
    refused = assert_error(owner.post(f"/chatbot/{bot}/data-source/url", {"url": url}), 422, "url_refused")
    assert HOSTS in refused["error"]

    view = change(owner, egress_allowlist=["127.0.0.1"])
    assert shown(view, "egress_allowlist") | {"value": ["127.0.0.1"], "source": "dashboard", "locked": False} == (
        shown(view, "egress_allowlist")
    )
    source = owner.ok(owner.post(f"/chatbot/{bot}/data-source/url", {"url": url}))
    process(owner.client)
    assert owner.ok(owner.get(f"/data-source/{source['uuid']}"))["status"] == "success"
    assert site.hits["/page"] >= 1

    view = change(owner, egress_allowlist=None)
    assert shown(view, "egress_allowlist")["source"] == "default"
    assert_error(owner.post(f"/chatbot/{bot}/data-source/url", {"url": url}), 422, "url_refused")


def test_a_change_saved_by_another_process_is_followed(owner: Api, db: Db, site: WebSite) -> None:
    """Another process (a worker, another server) writes the row; this one follows within its poll interval."""
    bot = owner.chatbot()["uuid"]
    url = site.url("/page")
    assert_error(owner.post(f"/chatbot/{bot}/data-source/url", {"url": url}), 422, "url_refused")

    async def elsewhere(session: AsyncSession) -> None:
        await InstanceSettingsRepository(session).save(None, {"egress_allowlist": ["127.0.0.0/8"]}, {})

    db.run(elsewhere)
    wait_for(
        lambda: owner.post(f"/chatbot/{bot}/data-source/url", {"url": url}).status_code == 200,
        seconds=30,
        what="the other process's allowlist to be followed",
    )


def test_the_environment_wins_and_the_page_says_so(owner: Api) -> None:
    view = owner.ok(owner.get("/service/settings"))
    locked = shown(view, "llm_default_model")
    assert locked["locked"] is True and locked["source"] == "environment" and locked["value"] == "env-model"
    assert locked["env"] == "BOTYARD_LLM_DEFAULT_MODEL"
    assert shown(view, "egress_allowlist")["locked"] is False

    body = assert_error(owner.post("/service/settings", {"llm_default_model": "other"}), 409, "setting_locked")
    assert "BOTYARD_LLM_DEFAULT_MODEL" in body["error"]
    assert shown(owner.ok(owner.get("/service/settings")), "llm_default_model")["value"] == "env-model"
    # A stored value under a variable that is set now (saved before it was): the variable still wins.
    base = Settings(llm_default_model="from-env", jobs_in_process=False)
    assert effective(base, {"llm_default_model": "stored", "cors_origins": [SHOP]}, {}).llm_default_model == "from-env"
    assert effective(base, {"cors_origins": [SHOP]}, {}).cors_origins == [SHOP]


def test_the_model_key_is_encrypted_and_never_shown(
    owner: Api, db: Db, app: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    view = change(owner, llm_api_key=KEY)
    key = shown(view, "llm_api_key")
    assert key["is_set"] is True and key["last4"] == "WXYZ" and key["value"] is None and key["source"] == "dashboard"
    for response in (owner.get("/service/settings"), owner.get("/service")):
        assert KEY not in response.text and KEY[:-4] not in response.text

    [row] = db.run(lambda session: _rows(session))
    assert "llm_api_key" not in row.values
    assert KEY not in row.secrets["llm_api_key"] and row.secrets["llm_api_key"].startswith("gAAAA")  # a Fernet token
    settings: Settings = app.app.state.settings  # type: ignore[attr-defined]
    assert KEY not in database_dump(settings)
    if settings.is_sqlite:
        key_file = settings.data_dir / "secret.key"
        assert key_file.stat().st_mode & 0o777 == 0o600
    assert KEY not in caplog.text

    cleared = change(owner, llm_api_key="")
    assert shown(cleared, "llm_api_key")["is_set"] is False


async def _rows(session: AsyncSession) -> list[InstanceSettings]:
    return list((await session.scalars(select(InstanceSettings))).all())


def test_the_model_connection_test_shows_the_reply_and_the_answers_switch(owner: Api) -> None:
    with FakeLlm(Reply(tokens=("Connection", " works", "."))) as llm:
        change(owner, llm_base_url=llm.url, llm_api_key=KEY)
        result = owner.ok(owner.post("/service/settings/llm/test", {}))
        assert result == {
            "ok": True,
            "model": "env-model",
            "host": llm.url.split("/")[2],
            "reply": "Connection works.",
            "error": None,
        }
        assert llm.requests[-1].headers["authorization"] == f"Bearer {KEY}"

        # Without a restart, the answers are the model's too.
        assert owner.ok(owner.get("/service"))["answerer"] == "llm"
        bot = owner.chatbot()["uuid"]
        answer = ask(owner, new_session(owner, bot), "When do you open?")
        assert answer.status_code == 200 and "Connection works." in answer.text

        llm.script(Reply(status=401, error_body='{"error": {"message": "bad key"}}'))
        refused = owner.ok(owner.post("/service/settings/llm/test", {}))
        assert refused["ok"] is False and "API key (dashboard Settings, or BOTYARD_LLM_API_KEY)" in refused["error"]
        llm.script(Reply(status=404, error_body='{"error": {"message": "model not found"}}'))
        missing = owner.ok(owner.post("/service/settings/llm/test", {}))
        assert missing["ok"] is False and "Model map (dashboard Settings, or BOTYARD_LLM_MODELS)" in missing["error"]
        url = llm.url
    down = owner.ok(owner.post("/service/settings/llm/test", {}))
    assert down["ok"] is False and down["reply"] is None
    assert (
        "Could not reach" in down["error"] and "Base URL (dashboard Settings, or BOTYARD_LLM_BASE_URL)" in down["error"]
    )
    assert url.split("/")[2] in down["error"]

    change(owner, llm_base_url=None)
    assert owner.ok(owner.get("/service"))["answerer"] == "offline"


def test_a_cors_origin_added_takes_effect(owner: Api, app: TestClient) -> None:
    def preflight() -> Any:
        headers = {"Origin": SHOP, "Access-Control-Request-Method": "GET"}
        return app.options("/api/v1/chatbots", headers=headers)

    refused = preflight()
    assert refused.status_code == 400 and ORIGINS in refused.text
    change(owner, cors_origins=[SHOP])
    allowed = preflight()
    assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == SHOP
    simple = app.get("/api/v1/chatbots", headers={**owner.auth, "Origin": SHOP})
    assert simple.headers["access-control-allow-origin"] == SHOP
    change(owner, cors_origins=None)
    assert preflight().status_code == 400


@pytest.mark.parametrize("role", [Role.VIEWER, Role.EDITOR, Role.OPERATOR])
def test_only_owners_and_admins_of_the_instance_account(app: TestClient, db: Db, owner: Api, role: Role) -> None:
    someone = person(app, db, "owner@example.com", f"{role.value}@example.com", role)
    assert_error(someone.get("/service/settings"), 403, "forbidden_role")
    assert_error(someone.post("/service/settings", {"cors_origins": [SHOP]}), 403, "forbidden_role")
    assert_error(someone.post("/service/settings/llm/test", {}), 403, "forbidden_role")

    admin = person(app, db, "owner@example.com", "admin@example.com", Role.ADMIN)
    assert admin.ok(admin.post("/service/settings", {"cors_origins": [SHOP]}))["version"] == 1
    # Another account's owner: these settings are not theirs, and answer like a missing object.
    other = person(app, db, "other@example.com", "boss@example.com", Role.OWNER)
    assert_not_found(other.get("/service/settings"))
    assert_not_found(other.post("/service/settings", {"cors_origins": []}))
    assert shown(owner.ok(owner.get("/service/settings")), "cors_origins")["value"] == [SHOP]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"cors_origins": [SHOP], "egress_allowlist": ["0.0.0.0/0"]}, "egress_allowlist"),
        ({"cors_origins": [SHOP], "egress_allowed_ports": [443, 70000]}, "egress_allowed_ports"),
        ({"cors_origins": [SHOP], "llm_models": {"no-such-model": "x"}}, "llm_models"),
        ({"cors_origins": [SHOP], "llm_base_url": "ftp://models.example"}, "llm_base_url"),
        ({"cors_origins": [SHOP, "https://shop.example/path"]}, "cors_origins"),
        ({"cors_origins": [SHOP], "llm_api_key": "two words"}, "llm_api_key"),
        ({"cors_origins": [SHOP], "egress_allowed_ports": "443"}, "egress_allowed_ports"),
        ({"cors_origins": [SHOP], "surprise": 1}, "surprise"),
    ],
)
def test_bad_input_changes_nothing(owner: Api, body: dict[str, Any], field: str) -> None:
    before = owner.ok(owner.get("/service/settings"))
    refused = owner.post("/service/settings", body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "validation_error" and field in refused.text
    assert owner.ok(owner.get("/service/settings")) == before


def test_the_secret_key_comes_from_the_environment_or_a_file_made_once(tmp_path: Path) -> None:
    given = Fernet.generate_key().decode()
    keyed = Cipher(Settings(secret_key=given, data_dir=tmp_path / "a"))
    token = keyed.seal(KEY)
    assert KEY not in token and keyed.open(token) == KEY
    assert Fernet(given.encode()).decrypt(token.encode()).decode() == KEY
    assert not (tmp_path / "a" / "secret.key").exists()

    made = Cipher(Settings(data_dir=tmp_path / "b"))
    sealed = made.seal(KEY)
    key_file = tmp_path / "b" / "secret.key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    again = Cipher(Settings(data_dir=tmp_path / "b"))  # another process, or the next start: the same file
    assert again.open(sealed) == KEY
    assert Cipher(Settings(data_dir=tmp_path / "c")).open(sealed) is None  # no key (or another): no value, no crash
    assert Cipher(Settings(secret_key=given, data_dir=tmp_path / "b")).open(sealed) is None
    with pytest.raises(ValueError, match="Fernet key"):
        Settings(secret_key="not-a-key")


def test_a_process_that_starts_uses_the_saved_settings(owner: Api, app: TestClient) -> None:
    change(owner, cors_origins=[SHOP])
    settings: Settings = app.app.state.settings  # type: ignore[attr-defined]
    with TestClient(create_app(settings, resolver=FakeDns()), raise_server_exceptions=False) as restarted:
        preflight = restarted.options(
            "/api/v1/chatbots", headers={"Origin": SHOP, "Access-Control-Request-Method": "GET"}
        )
        assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == SHOP


def test_the_row_the_migration_made_is_updated_in_place(owner: Api, db: Db) -> None:
    """A new database has the one row at version 0 (made by the migration, so that a change locks it)."""

    async def seeded(session: AsyncSession) -> None:
        session.add(InstanceSettings(id=1, values={}, secrets={}, version=0))

    db.run(seeded)
    assert owner.ok(owner.get("/service/settings"))["updated_at"] is None
    view = change(owner, cors_origins=[SHOP])
    assert view["version"] == 1 and shown(view, "cors_origins")["value"] == [SHOP]
    [row] = db.run(_rows)
    assert row.version == 1 and row.values == {"cors_origins": [SHOP]}

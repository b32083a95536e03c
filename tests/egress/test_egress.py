"""The egress client against real loopback servers; the only fake is DNS (an injected resolver).

The site on 127.0.0.1:P is allowlisted; the canary on 127.0.0.2:P is not, and port P is an allowed port, so only the
address check stands between a hostile URL and the canary. Every test ends by asserting the canary saw nothing.
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
import socket
import ssl
import time
from collections.abc import Iterator, Sequence
from ipaddress import ip_address
from typing import Any

import pytest

from botyard.config import Settings
from botyard.egress import (
    EgressClient,
    EgressError,
    EgressHTTPError,
    EgressNetworkError,
    EgressRefused,
    EgressTimeout,
    EgressTooLarge,
    FetchResult,
    IPAddress,
    Reason,
    Resolver,
    SystemResolver,
    trusted_client,
)
from tests.support.egress_servers import PAGE, Canary, Site, self_signed_certificate, site_and_canary
from tests.support.paths import SOURCE
from tests.support.servers import refusing_port
from tests.support.waiting import wait_for

HOSTS = "Allowed hosts (dashboard Settings, or BOTYARD_EGRESS_ALLOWLIST)"
PORTS = "Allowed ports (dashboard Settings, or BOTYARD_EGRESS_ALLOWED_PORTS)"
"""How a refusal names the settings that would lift it."""


class FakeResolver:
    """DNS as a script: each name has a list of answers, used in turn (the last one repeats)."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = {host: [list(answer) for answer in queue] for host, queue in answers.items()}
        self.calls: list[str] = []

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        self.calls.append(host)
        queue = self.answers.get(host)
        if queue is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        return [ip_address(address) for address in answer]


def hostile_dns() -> FakeResolver:
    return FakeResolver(
        {
            "canary.test": [["127.0.0.2"]],
            "mixed.test": [["93.184.216.34", "127.0.0.2"]],
            "mapped.test": [["::ffff:127.0.0.2"]],
            "metadata.test": [["169.254.169.254"]],
            "other.test": [["127.0.0.1"]],
            "rebind.test": [["127.0.0.1"], ["127.0.0.2"]],
            "public.test": [["93.184.216.34"]],
            "empty.test": [[]],
        }
    )


class Net:
    """The servers of this module and a way to build clients against them."""

    def __init__(self, site: Site, canary: Canary) -> None:
        self.site = site
        self.canary = canary
        self.port = site.port

    def url(self, path: str, host: str | None = None) -> str:
        return self.site.url(path, host)

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "egress_allowlist": "127.0.0.1",
            "egress_allowed_ports": [80, 443, self.port],
            "egress_connect_timeout": 2.0,
            "egress_read_timeout": 2.0,
            "egress_total_timeout": 4.0,
        }
        return Settings(**(values | overrides))

    def fetch(
        self, url: str, *, settings: Settings | None = None, resolver: Resolver | None = None, **kwargs: Any
    ) -> FetchResult:
        async def go() -> FetchResult:
            async with EgressClient(settings or self.settings(), resolver or hostile_dns()) as client:
                return await client.fetch(url, **kwargs)

        return asyncio.run(go())

    def failure(self, url: str, **kwargs: Any) -> EgressError:
        with pytest.raises(EgressError) as info:
            self.fetch(url, **kwargs)
        return info.value


@pytest.fixture(scope="module")
def net() -> Iterator[Net]:
    site, canary = site_and_canary()
    try:
        yield Net(site, canary)
    finally:
        site.close()
        canary.close()


@pytest.fixture(autouse=True)
def canary_untouched(net: Net) -> Iterator[None]:
    yield
    assert net.canary.hits == [], "a request reached the canary on 127.0.0.2"


def check(url: str, resolver: Resolver | None = None, **settings: Any) -> str:
    async def go() -> str:
        async with EgressClient(Settings(**settings), resolver or hostile_dns()) as client:
            return await client.check_url(url)

    return asyncio.run(go())


def check_refused(url: str, resolver: Resolver | None = None, **settings: Any) -> EgressError:
    with pytest.raises(EgressError) as info:
        check(url, resolver, **settings)
    return info.value


def test_canary_counts_connections(net: Net) -> None:
    """The control: without it, a broken canary would make every other test pass."""
    with socket.create_connection(("127.0.0.2", net.port), timeout=2):
        pass
    wait_for(lambda: net.canary.hits, 30, what="the canary counting the connection", every=0.01)
    assert len(net.canary.hits) == 1
    net.canary.hits.clear()


# --- addresses and URLs -------------------------------------------------------------------------------------------

PRIVATE_LITERALS = [
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "0x7f.1",
    "017700000001",
    "127.0.0.1.",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::127.0.0.1]",
    "[64:ff9b::a9fe:a9fe]",
    "[64:ff9b:1::a9fe:a9fe]",
    "[2002:a9fe:a9fe::1]",
    "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
    "169.254.169.254",
    "[fd00:ec2::254]",
    "100.64.0.1",
    "0.0.0.0",  # noqa: S104 (a URL host here, not a bind address)
    "0",
    "[::]",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.1.1",
    "[fe80::1]",
    "[fc00::1]",
    "224.0.0.1",
    "[ff02::1]",
    "255.255.255.255",
    "240.0.0.1",
    "198.18.0.1",
    "192.0.2.1",
    "[100::1]",
    "[2001:db8::1]",
]


@pytest.mark.parametrize("host", PRIVATE_LITERALS)
def test_private_literals_in_every_encoding_are_refused(host: str) -> None:
    error = check_refused(f"http://{host}/")
    assert isinstance(error, EgressRefused)
    assert error.reason == "private address"
    assert error.status == "error:private address"


CANARY_LITERALS = [
    "127.0.0.2",
    "127.2",
    "2130706434",
    "0x7f000002",
    "0177.0.0.2",
    "0x7F.0.0.2",
    "[::ffff:127.0.0.2]",
    "[::ffff:7f00:2]",
    "[64:ff9b::7f00:2]",
    "[2002:7f00:2::1]",
]


@pytest.mark.parametrize("host", CANARY_LITERALS)
def test_literal_encodings_of_the_canary_never_connect(net: Net, host: str) -> None:
    error = net.failure(f"http://{host}:{net.port}/page")
    assert isinstance(error, EgressRefused)
    assert error.reason == "private address"


@pytest.mark.parametrize(
    "host", ["1.2.3.256", "1.2.3.4.5", "0x100000000", "4294967296", "09.1.1.1", "1..2.3", "foo.0x10", "1.2.3.08"]
)
def test_malformed_numeric_hosts_are_invalid_not_names(host: str) -> None:
    resolver = hostile_dns()
    assert check_refused(f"http://{host}/", resolver).reason == "invalid url"
    assert resolver.calls == []


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("http://8.8.8.8/", "http://8.8.8.8/"),
        ("http://134744072/x", "http://8.8.8.8/x"),
        ("http://0x08.0x08.0x08.0x08/", "http://8.8.8.8/"),
        ("http://[2606:4700:4700::1111]/", "http://[2606:4700:4700::1111]/"),
        ("http://[64:ff9b::808:808]/", "http://[64:ff9b::808:808]/"),
        ("http://[::ffff:8.8.8.8]/", "http://[::ffff:808:808]/"),
        ("HTTPS://Public.TEST:443/a/b?c=d#frag", "https://public.test/a/b?c=d"),
    ],
)
def test_public_urls_pass_in_canonical_form(url: str, canonical: str) -> None:
    assert check(url) == canonical


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://public.test/", "scheme not allowed"),
        ("file:///etc/passwd", "scheme not allowed"),
        ("gopher://public.test:70/_GET", "scheme not allowed"),
        ("javascript:alert(1)", "scheme not allowed"),
        ("//public.test/", "invalid url"),
        ("public.test/page", "invalid url"),
        ("http:/public.test/", "invalid url"),
        ("http://", "invalid url"),
        ("http://user:secret@public.test/", "credentials in url"),
        ("http://good@127.0.0.1/", "credentials in url"),
        ("http://127.0.0.1@public.test/", "credentials in url"),
        ("http://@public.test/", "credentials in url"),
        ("http://public.test\\@127.0.0.1/", "invalid url"),
        ("http://public .test/", "invalid url"),
        ("http://public.test/\n", "invalid url"),
        ("http://%31%32%37.0.0.1/", "invalid url"),
        ("http://[fe80::1%25eth0]/", "invalid url"),
        ("http://[::1/", "invalid url"),
        ("http://public.test:0/", "invalid url"),
        ("http://public.test:65536/", "invalid url"),
        ("http://public.test:8080/", "port not allowed"),
        ("https://public.test:22/", "port not allowed"),
    ],
)
def test_url_refusals(url: str, reason: str) -> None:
    error = check_refused(url)
    assert isinstance(error, EgressRefused)
    assert error.reason == reason
    assert "secret" not in str(error) and "secret" not in (error.url or "")


@pytest.mark.parametrize(
    ("url", "settings", "message"),
    [
        (
            "http://public.test:8080/",
            {},
            f"port not allowed: 8080 (allowed: 80, 443); to use it, add it to {PORTS}, or list the"
            f" host in {HOSTS} (an allowlisted host may use any port)",
        ),
        (
            "https://public.test:22/",
            {"egress_allowed_ports": [443, 8443]},
            f"port not allowed: 22 (allowed: 443, 8443); to use it, add it to {PORTS}, or list the"
            f" host in {HOSTS} (an allowlisted host may use any port)",
        ),
        (
            "http://10.1.2.3/",
            {},
            f"private address: 10.1.2.3 (private); to fetch it, list it or its network in {HOSTS}",
        ),
        (
            "http://[::ffff:169.254.169.254]/",
            {},
            f"private address: 169.254.169.254 (cloud metadata); to fetch it, list it or its network in {HOSTS}",
        ),
    ],
)
def test_a_refusal_a_setting_would_lift_names_the_setting(url: str, settings: dict[str, Any], message: str) -> None:
    error = check_refused(url, **settings)
    assert isinstance(error, EgressRefused) and error.message == message


def test_the_settings_named_are_the_ones_that_lift_the_refusals() -> None:
    assert check("http://public.test:8080/", egress_allowed_ports=[80, 8080]) == "http://public.test:8080/"
    assert check("http://10.1.2.3:8080/", egress_allowlist=["10.0.0.0/8"]) == "http://10.1.2.3:8080/"


def test_credentials_are_refused_and_never_echoed(net: Net) -> None:
    error = net.failure(f"http://user:secret@127.0.0.1:{net.port}/page")
    assert error.reason == "credentials in url"
    assert "secret" not in str(error) and "secret" not in (error.url or "")


@pytest.mark.parametrize(
    "host",
    [
        "canary.test",  # private
        "mixed.test",  # one public address, one private
        "mapped.test",
        "metadata.test",
        "unknown.test",  # no such name
        "empty.test",  # no address
    ],
)
def test_dns_answers_are_checked_all_of_them(net: Net, host: str) -> None:
    # A name without a public address is answered exactly as one that does not resolve, message included: which
    # names the server's hosts file or internal DNS knows cannot be probed through the error.
    error = net.failure(f"http://{host}:{net.port}/page")
    assert isinstance(error, EgressNetworkError) and error.reason == "dns failure"
    hint = f"a host of a private network must be listed in {HOSTS}"
    assert error.message == f"{host} does not resolve to a public address ({hint})"


def test_the_system_resolver_is_checked_too() -> None:
    # localhost comes from /etc/hosts: no network needed.
    assert check_refused("http://localhost/", SystemResolver()).reason == "dns failure"


def test_rebinding_dns_cannot_move_the_connection(net: Net) -> None:
    resolver = hostile_dns()
    settings = net.settings()

    async def go() -> tuple[FetchResult, EgressError]:
        async with EgressClient(settings, resolver) as client:
            first = await client.fetch(net.url("/page", "rebind.test"))
            with pytest.raises(EgressError) as second:
                await client.fetch(net.url("/page", "rebind.test"))
            return first, second.value

    first, second = asyncio.run(go())
    # One lookup per fetch: the first (allowlisted 127.0.0.1) was used for the connection, the second was refused.
    assert first.status == 200 and first.body == PAGE
    assert second.reason == "dns failure"  # a name without a public address
    assert resolver.calls == ["rebind.test", "rebind.test"]


def test_rebinding_on_a_redirect_hop_is_pinned_too(net: Net) -> None:
    resolver = hostile_dns()
    result = net.fetch(net.url(f"/redirect?to=http://rebind.test:{net.port}/page"), resolver=resolver)
    assert result.body == PAGE
    assert resolver.calls == ["rebind.test"]


@pytest.mark.parametrize("host", ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "2130706433", "127.1"])
def test_other_spellings_of_an_allowlisted_address_reach_it(net: Net, host: str) -> None:
    # The check and the connection use the same canonical address: what is refused for 127.0.0.2 works for .1.
    assert net.fetch(net.url("/page", host)).body == PAGE


def test_allowlisted_host_name_reaches_any_port(net: Net) -> None:
    settings = net.settings(egress_allowlist="named.test", egress_allowed_ports=[80, 443])
    resolver = FakeResolver({"named.test": [["127.0.0.1"]]})
    assert net.fetch(net.url("/page", "named.test"), settings=settings, resolver=resolver).body == PAGE
    assert net.failure(net.url("/page"), settings=settings).reason == "port not allowed"


def test_without_the_allowlist_the_site_itself_is_refused(net: Net) -> None:
    assert net.failure(net.url("/page"), settings=net.settings(egress_allowlist="")).reason == "private address"
    default = Settings()
    assert net.failure(net.url("/page"), settings=default).reason == "port not allowed"


@pytest.mark.parametrize("entry", ["not a host", "1.2.3.256", "10.0.0.0/33", "foo/bar", "0.0.0.0/0", "::/0"])
def test_a_bad_allowlist_entry_fails_at_startup(entry: str) -> None:
    with pytest.raises(ValueError, match=r"allowlist|IPv4|off"):
        EgressClient(Settings(egress_allowlist=entry))


def test_environment_proxies_are_ignored(net: Net, monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = f"http://127.0.0.2:{net.port}"
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, proxy)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert net.fetch(net.url("/page")).body == PAGE

    async def trusted() -> int:
        async with trusted_client(net.url("/"), None, 2.0) as client:
            return (await client.get("/page")).status_code

    assert asyncio.run(trusted()) == 200


# --- fetching ---------------------------------------------------------------------------------------------------


def test_fetch_returns_the_page(net: Net) -> None:
    result = net.fetch(net.url("/page"))
    assert (result.status, result.body, result.content_type, result.charset) == (200, PAGE, "text/html", "utf-8")
    assert result.url == net.url("/page") and result.redirects == ()
    assert result.text().startswith("<html>")


def test_fetch_sends_method_json_params_and_headers(net: Net) -> None:
    result = net.fetch(
        net.url("/echo"),
        method="post",
        json={"a": 1},
        params={"q": "x y"},
        headers={"X-Tool": "yes", "Host": "evil.test", "Accept-Encoding": "br"},
    )
    echo = json.loads(result.body)
    assert echo["method"] == "POST" and echo["body"] == '{"a":1}' and echo["path"] == "/echo?q=x+y"
    assert echo["headers"]["x-tool"] == "yes"
    # Host always names the checked URL; we only accept the encodings we can decode within the cap.
    assert echo["host"] == f"127.0.0.1:{net.port}"
    assert echo["headers"]["accept-encoding"] == "gzip, deflate"
    assert echo["headers"]["user-agent"].startswith("Botyard/")


def test_methods_are_checked_and_closed_clients_refuse(net: Net) -> None:
    with pytest.raises(ValueError, match="TRACE"):
        net.fetch(net.url("/page"), method="TRACE")

    async def closed() -> None:
        client = EgressClient(net.settings(), hostile_dns())
        await client.aclose()
        await client.fetch(net.url("/page"))

    with pytest.raises(RuntimeError):
        asyncio.run(closed())


def test_http_errors_raise_with_the_response(net: Net) -> None:
    error = net.failure(net.url("/status/404"))
    assert isinstance(error, EgressHTTPError)
    assert error.status == "error:http 404"
    assert error.result.body == b"nope"


def test_conditional_fetch(net: Net) -> None:
    first = net.fetch(net.url("/etag"))
    assert first.etag == '"v1"' and first.last_modified is not None and not first.not_modified
    again = net.fetch(net.url("/etag"), etag=first.etag, last_modified=first.last_modified)
    assert again.not_modified and again.body == b""
    echo = json.loads(net.fetch(net.url("/echo"), etag='"v2"', last_modified=first.last_modified).body)
    assert echo["headers"]["if-none-match"] == '"v2"'
    assert echo["headers"]["if-modified-since"] == first.last_modified


@pytest.mark.parametrize("path", ["/gzip", "/deflate", "/deflate?raw=1"])
def test_compressed_bodies_are_decoded(net: Net, path: str) -> None:
    assert net.fetch(net.url(path)).body == PAGE


def test_unsupported_encoding_is_refused(net: Net) -> None:
    error = net.failure(net.url("/encoded?enc=br"))
    assert isinstance(error, EgressNetworkError) and error.reason == "unsupported encoding"


# --- redirects --------------------------------------------------------------------------------------------------

HOSTILE_REDIRECTS = [
    "http://127.0.0.2:{port}/page",
    "//127.0.0.2:{port}/page",
    "http://2130706434:{port}/page",
    "http://[::ffff:127.0.0.2]:{port}/page",
    "http://canary.test:{port}/page",
    "http://mixed.test:{port}/page",
    "http://169.254.169.254/latest/meta-data/",
]


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("target", HOSTILE_REDIRECTS)
def test_redirects_to_private_targets_are_refused(net: Net, status: int, target: str) -> None:
    location = target.format(port=net.port)
    error = net.failure(net.url(f"/redirect?status={status}&to={location}"), method="POST", json={"k": 1})
    literal = ".test" not in target  # a name is answered as one that does not resolve
    assert error.reason == ("private address" if literal else "dns failure")
    assert isinstance(error, EgressRefused if literal else EgressNetworkError)


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("file:///etc/passwd", "scheme not allowed"),
        ("gopher://127.0.0.2:{port}/", "scheme not allowed"),
        ("http://public.test:25/", "port not allowed"),
        ("http://x:y@127.0.0.1:{port}/page", "credentials in url"),
    ],
)
def test_redirects_get_the_whole_check(net: Net, location: str, reason: str) -> None:
    error = net.failure(net.url(f"/redirect?to={location.format(port=net.port)}"))
    assert error.reason == reason


@pytest.mark.parametrize("location", ["http://[::1", "http://[vX.y]/", "http://127.0.0.1:99999/"])
def test_a_redirect_to_an_invalid_url_is_an_egress_refusal(net: Net, location: str) -> None:
    # httpx parses the first two itself (for its own `next_request`): they used to escape as its protocol error.
    error = net.failure(net.url(f"/redirect?to={location}"))
    assert isinstance(error, EgressRefused) and error.reason == "invalid url" and error.status == "error:invalid url"


@pytest.mark.parametrize("location", ["/page", "page", "//127.0.0.1:{port}/page", "http://127.0.0.1:{port}/page"])
def test_relative_and_scheme_relative_redirects_are_followed(net: Net, location: str) -> None:
    start = net.url(f"/redirect?to={location.format(port=net.port)}")
    result = net.fetch(start)
    assert result.body == PAGE and result.url == net.url("/page") and result.redirects == (start,)


@pytest.mark.parametrize(
    ("status", "method", "body"), [(301, "GET", ""), (302, "GET", ""), (303, "GET", ""), (307, "POST", '{"a":1}')]
)
def test_redirect_methods(net: Net, status: int, method: str, body: str) -> None:
    result = net.fetch(net.url(f"/redirect?status={status}&to=/echo"), method="POST", json={"a": 1})
    echo = json.loads(result.body)
    assert (echo["method"], echo["body"]) == (method, body)
    assert ("content-type" in echo["headers"]) == bool(body)


def test_308_keeps_method_and_body_of_a_put(net: Net) -> None:
    echo = json.loads(net.fetch(net.url("/redirect?status=308&to=/echo"), method="PUT", json=[1]).body)
    assert (echo["method"], echo["body"], echo["headers"]["content-type"]) == ("PUT", "[1]", "application/json")


SECRETS = {"Authorization": "Bearer t0ken", "Cookie": "session=s3cret", "X-Api-Key": "k3y", "Accept": "text/plain"}


def test_same_origin_redirects_keep_the_headers(net: Net) -> None:
    echo = json.loads(net.fetch(net.url("/redirect?to=/echo"), headers=SECRETS).body)
    assert echo["headers"]["authorization"] == "Bearer t0ken" and echo["headers"]["x-api-key"] == "k3y"


@pytest.mark.parametrize("status", [302, 307])
def test_credentials_are_dropped_when_the_origin_changes(net: Net, status: int) -> None:
    other = net.url("/echo", "other.test")
    result = net.fetch(net.url(f"/redirect?status={status}&to={other}"), headers=SECRETS, method="POST", json={})
    headers = json.loads(result.body)["headers"]
    assert not {"authorization", "cookie", "x-api-key"} & set(headers)
    assert headers["accept"] == "text/plain"


def test_dropped_credentials_stay_dropped_back_on_the_first_origin(net: Net) -> None:
    back = net.url("/redirect?to=/echo")
    away = net.url(f"/redirect?to={back.replace('&', '%26')}", "other.test")
    result = net.fetch(net.url(f"/redirect?to={away}"), headers=SECRETS)
    assert "authorization" not in json.loads(result.body)["headers"]
    assert len(result.redirects) == 3


def test_five_redirects_are_followed_and_the_sixth_refused(net: Net) -> None:
    result = net.fetch(net.url("/chain/5"))
    assert result.body == b"end" and len(result.redirects) == 5
    error = net.failure(net.url("/chain/6"))
    assert isinstance(error, EgressRefused) and error.reason == "too many redirects"


def test_redirect_loops_end_with_a_clear_error(net: Net) -> None:
    error = net.failure(net.url("/loop"))
    assert isinstance(error, EgressRefused) and error.reason == "redirect loop"


# --- size and time caps ---------------------------------------------------------------------------------------------


def test_gzip_bomb_is_cut_after_decompression(net: Net) -> None:
    started = time.monotonic()
    error = net.failure(net.url("/bomb"), settings=net.settings(egress_max_response_bytes=5_000_000))
    assert isinstance(error, EgressTooLarge) and error.reason == "response too large"
    assert time.monotonic() - started < 3


def test_per_fetch_cap_overrides_the_setting(net: Net) -> None:
    error = net.failure(net.url("/page"), max_bytes=10)
    assert isinstance(error, EgressTooLarge)


def test_endless_body_is_cut(net: Net) -> None:
    error = net.failure(net.url("/endless"), max_bytes=1_000_000)
    assert isinstance(error, EgressTooLarge) and error.reason == "response too large"


def test_announced_size_over_the_cap_is_refused_before_reading(net: Net) -> None:
    assert net.failure(net.url("/sized?n=1000000000")).reason == "response too large"


def test_trickle_is_cut_by_the_total_deadline(net: Net) -> None:
    # A byte every 0.2 s never trips the read timeout: only the wall-clock deadline ends it.
    settings = net.settings(egress_read_timeout=1.0, egress_total_timeout=1.0)
    started = time.monotonic()
    error = net.failure(net.url("/trickle"), settings=settings)
    assert isinstance(error, EgressTimeout) and error.reason == "timeout"
    assert time.monotonic() - started < 10  # the trickle lasts 20 s; a slack bound holds on a busy machine


def test_stalled_body_trips_the_read_timeout(net: Net) -> None:
    settings = net.settings(egress_read_timeout=0.3, egress_total_timeout=20.0)
    started = time.monotonic()
    error = net.failure(net.url("/stall"), settings=settings)
    assert isinstance(error, EgressTimeout)
    assert time.monotonic() - started < 10  # the stall lasts 30 s and the total deadline is 20 s: the read timeout


@pytest.mark.parametrize("kb", [80, 1024])
def test_huge_headers_are_refused(net: Net, kb: int) -> None:
    # 80 KiB passes h11 but not our 64 KiB cap; 1 MiB is stopped by h11 at 100 KiB, before it is all buffered.
    error = net.failure(net.url(f"/headers?kb={kb}"))
    assert isinstance(error, EgressTooLarge) and error.reason == "headers too large"


def test_unreachable_port_is_a_network_error(net: Net) -> None:
    with refusing_port() as port:
        error = net.failure(f"http://127.0.0.1:{port}/")
    assert isinstance(error, EgressNetworkError) and error.reason == "connection failed"


def test_a_secret_the_url_carries_is_hidden_wherever_the_url_is_told(
    net: Net, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram's bot token is in the path of every call: `hide` keeps it out of the error and the log line."""
    caplog.set_level(logging.INFO, logger="botyard.egress")
    token = "123456:SECRET-token-in-the-path"
    with refusing_port() as port:
        error = net.failure(f"http://127.0.0.1:{port}/bot{token}/getMe", method="POST", hide=token)
    assert isinstance(error, EgressNetworkError)
    assert token not in str(error) and token not in (error.url or "") and "/bot***/getMe" in (error.url or "")
    assert "egress refused or failed" in caplog.text and token not in caplog.text
    timed_out = net.failure(
        net.url(f"/slow?{token}"), method="GET", hide=token, settings=net.settings(egress_total_timeout=0.2)
    )
    assert token not in str(timed_out) and token not in caplog.text


# --- TLS ------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, ssl.SSLContext, list[str]]]:
    made = self_signed_certificate(tmp_path_factory.mktemp("tls"), "secure.test")
    if made is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    cert, key = made
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    names: list[str] = []
    server_context.sni_callback = lambda _socket, name, _context: names.append(name) if name else None
    site = Site(tls=server_context)
    try:
        yield site, ssl.create_default_context(cafile=str(cert)), names
    finally:
        site.close()


def test_tls_connects_to_the_checked_address_but_verifies_the_name(
    net: Net, tls_site: tuple[Site, ssl.SSLContext, list[str]]
) -> None:
    site, client_context, names = tls_site
    resolver = FakeResolver({"secure.test": [["127.0.0.1"]], "wrong.test": [["127.0.0.1"]]})

    async def go(host: str) -> FetchResult:
        async with EgressClient(net.settings(), resolver, ssl_context=client_context) as client:
            return await client.fetch(site.url("/page", host, "https"))

    assert asyncio.run(go("secure.test")).body == PAGE
    assert names == ["secure.test"]
    # Same address, other name: the certificate does not match, so pinning does not weaken verification.
    with pytest.raises(EgressNetworkError) as info:
        asyncio.run(go("wrong.test"))
    assert info.value.reason == "tls error"


# --- the exception tree and the trusted client -------------------------------------------------------------------


def test_every_failure_is_an_egress_error_with_a_stable_reason() -> None:
    for kind in (EgressRefused, EgressTooLarge, EgressTimeout, EgressNetworkError, EgressHTTPError):
        assert issubclass(kind, EgressError)
    assert all(reason.value == reason.value.lower() and len(reason.value) <= 24 for reason in Reason)


def test_trusted_client_reaches_private_operator_endpoints(net: Net) -> None:
    async def go() -> dict[str, Any]:
        async with trusted_client(net.url("/"), "sk-test", 2.0) as client:
            response = await client.post("/echo", json={"model": "m"})
            return dict(response.json())

    echo = asyncio.run(go())
    assert echo["headers"]["authorization"] == "Bearer sk-test" and echo["method"] == "POST"
    with pytest.raises(ValueError, match="http"):
        trusted_client("file:///tmp/socket", None, 1.0)


# --- the boundary: nobody else builds an HTTP client --------------------------------------------------------------

SRC = SOURCE
EGRESS = SRC / "egress"
FORBIDDEN_MODULES = (
    "requests",
    "aiohttp",
    "urllib.request",
    "urllib3",
    "http.client",
    "httpcore",
    "httpcore2",
    "httpx2",
    "pycurl",
    "websockets",
)
FORBIDDEN_CALLS = {
    *(f"httpx.{name}" for name in ("AsyncClient", "Client", "AsyncHTTPTransport", "HTTPTransport")),
    *(f"httpx.{verb}" for verb in ("get", "post", "put", "patch", "delete", "head", "options", "request", "stream")),
    # socket.socket itself stays allowed: local socket pairs (the parser zygote) are not egress.
    "socket.create_connection",
    "asyncio.open_connection",
}
# Event-loop methods that open connections, whatever the loop object is called.
FORBIDDEN_METHODS = {"create_connection", "open_connection", "sock_connect"}


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def client_violations(source: str) -> list[str]:
    """Every place in `source` that imports a network client library, builds an HTTP client or opens a connection."""
    tree = ast.parse(source)
    found: list[str] = []
    aliases: dict[str, str] = {}

    def forbidden(module: str) -> bool:
        return any(module == name or module.startswith(name + ".") for name in FORBIDDEN_MODULES)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if forbidden(alias.name):
                    found.append(f"line {node.lineno}: import {alias.name}")
                aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                qualified = f"{node.module}.{alias.name}"
                if forbidden(node.module) or forbidden(qualified):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                aliases[alias.asname or alias.name] = qualified
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name is None:
                continue
            head, _, rest = name.partition(".")
            qualified = aliases.get(head, head) + (f".{rest}" if rest else "")
            if qualified in FORBIDDEN_CALLS or (rest and name.rsplit(".", 1)[1] in FORBIDDEN_METHODS):
                found.append(f"line {node.lineno}: {name}(...)")
    return found


@pytest.mark.parametrize(
    "source",
    [
        "import httpx\nhttpx.AsyncClient()",
        "from httpx import AsyncClient as Session\nSession(base_url='x')",
        "import httpx as h\nh.get('http://x')",
        "import requests",
        "from urllib import request",
        "import urllib.request\nurllib.request.urlopen('x')",
        "from http.client import HTTPConnection",
        "import aiohttp",
        "import socket\nsocket.create_connection(('x', 1))",
        "import asyncio\nasync def f(loop):\n    await loop.create_connection(object, 'x', 1)",
    ],
)
def test_the_boundary_scanner_finds_clients(source: str) -> None:
    assert client_violations(source)


def test_the_boundary_scanner_allows_using_a_client() -> None:
    source = "import httpx\nimport socket\nasync def f(c: httpx.AsyncClient) -> str:\n    return socket.gethostname()"
    assert client_violations(source) == []


def test_only_the_egress_package_builds_http_clients() -> None:
    assert client_violations((EGRESS / "client.py").read_text()), "the scanner must see the egress client itself"
    offenders = {
        str(path.relative_to(SRC)): found
        for path in sorted(SRC.rglob("*.py"))
        if EGRESS not in path.parents and (found := client_violations(path.read_text()))
    }
    assert offenders == {}, f"only botyard.egress may build HTTP clients or open connections: {offenders}"

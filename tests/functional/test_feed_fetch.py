"""Fetching feeds from a real HTTP server on 127.0.0.1: conditional GET on the wire, every
limit (deadline, connect timeout, inflated size, redirects), every status, every kind of
network failure, file URLs, and fetch_all's bounds. Each error must be one clean line."""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import gzip
import os
import shutil
import socket
import ssl
import struct
import subprocess
import time
import tracemalloc
import unicodedata
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from feed_server import Exchange, FeedServer, Reply
from topiclens import __version__
from topiclens.feeds.fetch import (
    Fetched,
    Limits,
    Validators,
    _tls_context,
    client,
    fetch,
    fetch_all,
    fetch_sync,
    user_agent,
)

# slow as a whole: every test talks HTTP to a real server on localhost (tests/feed_server.py)
pytestmark = pytest.mark.slow

MIB = 1024 * 1024


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as running:
        yield running
    assert running.errors == []


def assert_clean_line(text: str | None) -> None:
    """An error a user reads: one line, nothing a terminal acts on, no Python internals."""
    assert text
    assert "\n" not in text and "\r" not in text
    bad = [ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]
    assert bad == [], repr(text)
    for internal in ("Traceback", "Error(", "Exception", "<class", "httpx", "httpcore"):
        assert internal not in text, text


def failed(result: Fetched, *fragments: str) -> None:
    """``result`` is a failure whose message holds every fragment."""
    assert result.error is not None, result
    assert_clean_line(result.error)
    assert result.body is None
    for fragment in fragments:
        assert fragment in result.error, result.error


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_fetches(*urls: str, validators: Validators | None = None) -> list[Fetched]:
    """Fetch each URL in turn through one client, as a refresh does."""
    limits = Limits()

    async def go() -> list[Fetched]:
        async with client(limits) as http:
            return [await fetch(http, url, validators, limits) for url in urls]

    return asyncio.run(go())


# --- the plain path and conditional GET ---------------------------------------------------


def test_a_feed_arrives_with_its_body_headers_and_final_url(server: FeedServer):
    server.route("/feed.xml", Reply(body=b"<rss/>", headers=[("Content-Type", "text/xml")]))
    result = fetch_sync(server.url("/feed.xml"))
    assert result.ok and not result.not_modified and not result.gone
    assert result.body == b"<rss/>"
    assert result.status == 200 and result.error is None
    assert result.headers["content-type"] == "text/xml"
    assert result.url == result.requested == server.url("/feed.xml")
    assert result.moved_to is None and result.retry_after is None
    assert result.validators == Validators()


def test_conditional_get_sends_validators_exactly_as_received_and_keeps_them_on_304(
    server: FeedServer,
):
    path = "/feed.xml"
    etag = b'W/"\xc3\xa9t\xc3\xa9-1"'  # not ASCII: the bytes must come back unchanged
    modified = "Wed, 01 May 2024 08:00:00 GMT"
    server.route(path, Reply(body=b"<rss/>", headers=[("ETag", etag), ("Last-Modified", modified)]))
    first = fetch_sync(server.url(path))
    assert first.ok
    sent = server.requests[-1].headers
    assert "if-none-match" not in sent and "if-modified-since" not in sent

    # A 304 carrying a new ETag: the new one replaces ours, Last-Modified stays as sent.
    server.route(path, Reply(304, headers=[("ETag", '"v2"')]))
    second = fetch_sync(server.url(path), first.validators)
    raw = dict(server.requests[-1].raw_headers)
    assert raw[b"If-None-Match"] == etag
    assert raw[b"If-Modified-Since"] == modified.encode()
    assert second.not_modified and second.body is None and second.error is None
    assert second.validators == Validators('"v2"', modified)

    # A 304 carrying none: what was sent is kept, so nothing is forgotten.
    server.route(path, Reply(304))
    third = fetch_sync(server.url(path), second.validators)
    assert dict(server.requests[-1].raw_headers)[b"If-None-Match"] == b'"v2"'
    assert third.not_modified and third.validators == Validators('"v2"', modified)

    # A 200 without validators: the feed no longer offers any, so none are kept.
    server.route(path, Reply(body=b"<rss>new</rss>"))
    fourth = fetch_sync(server.url(path), third.validators)
    assert fourth.ok and fourth.body == b"<rss>new</rss>"
    assert fourth.validators == Validators()


def test_a_304_replaces_last_modified_alone(server: FeedServer):
    server.route("/f", Reply(304, headers=[("Last-Modified", "Thu, 02 May 2024 08:00:00 GMT")]))
    result = fetch_sync(server.url("/f"), Validators('"e"', "Wed, 01 May 2024 08:00:00 GMT"))
    assert result.validators == Validators('"e"', "Thu, 02 May 2024 08:00:00 GMT")


def test_every_request_names_topiclens_and_its_version(server: FeedServer):
    server.route("/f", Reply(body=b"x"))
    fetch_sync(server.url("/f"))
    agent = server.requests[-1].headers["user-agent"]
    assert agent == user_agent()
    assert agent.startswith(f"topiclens/{__version__} ")
    assert server.requests[-1].headers["accept-encoding"] == "gzip, deflate"


def test_one_client_keeps_one_connection_alive_across_fetches(server: FeedServer):
    server.route("/a", Reply(body=b"a" * 1000))
    server.route("/b", Reply(304))
    server.route("/c", Reply(404, b"not here"))
    server.route("/d", Reply(302, b"moved", headers=[("Location", "/a")]))
    results = run_fetches(*(server.url(p) for p in ("/a", "/b", "/c", "/d", "/a")))
    assert [r.status for r in results] == [200, 304, 404, 200, 200]
    assert len({request.client_port for request in server.requests}) == 1


# --- redirects ------------------------------------------------------------------------------


def chain(server: FeedServer, statuses: list[int], end: Reply | None = None) -> str:
    """Routes /hop0 -> /hop1 -> ... with the given redirect statuses, ending at /end."""
    for i, status in enumerate(statuses):
        target = f"/hop{i + 1}" if i + 1 < len(statuses) else "/end"
        server.route(f"/hop{i}", Reply(status, headers=[("Location", target)]))
    server.route("/end", end or Reply(body=b"<feed/>"))
    return server.url("/hop0")


@pytest.mark.parametrize(
    ("statuses", "moves"),
    [
        ([301], True),
        ([308], True),
        ([301, 308, 301, 308, 301], True),  # five hops: the most allowed
        ([302], False),
        ([307], False),
        ([303], False),
        ([301, 302], False),
        ([307, 308], False),
    ],
)
def test_only_a_chain_of_permanent_redirects_moves_the_feed(
    server: FeedServer, statuses: list[int], moves: bool
):
    result = fetch_sync(chain(server, statuses))
    assert result.ok and result.body == b"<feed/>"
    assert result.url == server.url("/end")
    assert result.requested == server.url("/hop0")
    assert result.moved_to == (server.url("/end") if moves else None)
    assert len(server.requests) == len(statuses) + 1


def test_a_permanent_redirect_to_a_failing_url_moves_nothing(server: FeedServer):
    result = fetch_sync(chain(server, [301], Reply(404)))
    assert result.status == 404 and result.moved_to is None
    failed(result, "HTTP 404 Not Found")


def test_more_than_five_redirects_is_an_error(server: FeedServer):
    result = fetch_sync(chain(server, [302] * 6))
    failed(result, "more than 5 redirects")
    assert result.status == 0
    assert len(server.requests) == 6


def test_a_redirect_loop_is_reported_as_a_loop(server: FeedServer):
    server.route("/a", Reply(301, headers=[("Location", "/b")]))
    server.route("/b", Reply(301, headers=[("Location", server.url("/a"))]))
    failed(fetch_sync(server.url("/a")), "redirect loop")
    server.route("/self", Reply(302, headers=[("Location", "/self")]))
    failed(fetch_sync(server.url("/self")), "redirect loop")


def test_a_relative_location_resolves_against_the_request(server: FeedServer):
    server.route("/blog/feed", Reply(301, headers=[("Location", "../new/feed.xml")]))
    server.route("/new/feed.xml", Reply(body=b"ok"))
    result = fetch_sync(server.url("/blog/feed"))
    assert result.ok and result.moved_to == server.url("/new/feed.xml")


@pytest.mark.parametrize(
    "location",
    ["file:///etc/passwd", "ftp://127.0.0.1/feed", "javascript:alert(1)", "data:,x", "gopher://h/"],
)
def test_a_redirect_away_from_http_is_refused(server: FeedServer, location: str):
    server.route("/f", Reply(302, headers=[("Location", location)]))
    result = fetch_sync(server.url("/f"))
    failed(result, "redirect", "refused")
    assert result.status == 0


def test_the_redirect_limit_is_a_setting(server: FeedServer):
    url = chain(server, [301, 301])
    failed(fetch_sync(url, limits=Limits(max_redirects=1)), "more than 1 redirects")
    assert fetch_sync(url, limits=Limits(max_redirects=2)).ok


# --- statuses -------------------------------------------------------------------------------


def test_410_means_gone(server: FeedServer):
    server.route("/f", Reply(410))
    result = fetch_sync(server.url("/f"))
    assert result.gone and result.status == 410
    failed(result, "HTTP 410 Gone")


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_in_seconds(server: FeedServer, status: int):
    server.route("/f", Reply(status, headers=[("Retry-After", "120")]))
    result = fetch_sync(server.url("/f"))
    assert result.status == status and result.retry_after == 120.0
    failed(result, f"HTTP {status}", "retry after 120 s")


def test_retry_after_as_an_http_date(server: FeedServer):
    when = email.utils.formatdate(time.time() + 3600, usegmt=True)
    server.route("/f", Reply(503, headers=[("Retry-After", when)]))
    result = fetch_sync(server.url("/f"))
    assert result.retry_after is not None
    assert 3500 <= result.retry_after <= 3601


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("soon", None),
        ("-5", None),
        ("Wed, 01 May 2024 08:00:00 GMT", 0.0),  # a date in the past: no wait
        ("9" * 5000, 7 * 24 * 3600.0),  # a hostile number is capped, not overflowed
    ],
)
def test_odd_retry_after_values(server: FeedServer, value: str, expected: float | None):
    server.route("/f", Reply(429, headers=[("Retry-After", value)]))
    assert fetch_sync(server.url("/f")).retry_after == expected


def test_retry_after_only_counts_on_429_and_503(server: FeedServer):
    server.route("/f", Reply(500, headers=[("Retry-After", "60")]))
    result = fetch_sync(server.url("/f"))
    assert result.retry_after is None
    failed(result, "HTTP 500 Internal Server Error")


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(404), "HTTP 404 Not Found"),
        (Reply(403, reason="Forbidden Here"), "HTTP 403 Forbidden Here"),
        (Reply(599, reason=""), "HTTP 599"),
        (Reply(302), "HTTP 302 Found without a Location"),
        (Reply(204), "HTTP 204 No Content"),
    ],
)
def test_other_statuses_are_errors_with_status_and_reason(
    server: FeedServer, reply: Reply, message: str
):
    server.route("/f", reply)
    result = fetch_sync(server.url("/f"))
    assert result.status == reply.status and not result.ok
    failed(result, message)


def test_a_hostile_reason_phrase_reaches_the_error_as_plain_text(server: FeedServer):
    server.route("/f", Reply(500, reason=b"Oops\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31mdone"))
    result = fetch_sync(server.url("/f"))
    failed(result, "HTTP 500", "Oops", "done")
    assert "\x1b" not in result.error and "\x07" not in result.error


def test_a_redirect_loop_through_hostile_locations_is_a_clean_line(server: FeedServer):
    server.route("/f", Reply(302, headers=[("Location", b"/f\x1b[2J\xe2\x80\xae")]))
    server.route("/f%1B[2J%E2%80%AE", Reply(302, headers=[("Location", "/f")]))
    result = fetch_sync(server.url("/f"))
    failed(result, "redirect")


# --- the deadline and the connect timeout ---------------------------------------------------


def trickle(exchange: Exchange) -> None:
    """A 200 whose body comes one byte at a time, for ever (until the client leaves)."""
    exchange.send_head(200, [("Content-Type", "text/xml")])
    while exchange.write(b"x") and not exchange.wait(0.05):
        pass


def test_a_trickling_server_cannot_hold_a_fetch_past_its_deadline(server: FeedServer):
    server.route("/slow", trickle)
    started = time.monotonic()
    result = fetch_sync(server.url("/slow"), limits=Limits(deadline=0.5))
    elapsed = time.monotonic() - started
    failed(result, "timed out after 0.5 s")
    assert result.status == 0
    assert elapsed < 10  # not a speed check: a hang would never get here


def test_the_deadline_covers_every_redirect(server: FeedServer):
    """Each hop answers well inside the deadline; all of them together do not."""

    def slow_hop(n: int):
        def answer(exchange: Exchange) -> None:
            exchange.wait(0.2)
            exchange.send(Reply(302, headers=[("Location", f"/hop{n + 1}")]))

        return answer

    for n in range(5):
        server.route(f"/hop{n}", slow_hop(n))
    server.route("/hop5", Reply(body=b"late"))
    result = fetch_sync(server.url("/hop0"), limits=Limits(deadline=0.5))
    failed(result, "timed out after 0.5 s")
    assert len(server.requests) < 6


@pytest.fixture
def unanswering_port() -> Iterator[int]:
    """A port whose listen backlog is full, so a new connection is never accepted."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(8):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    yield port
    for sock in [*fillers, listener]:
        sock.close()


def test_a_connection_that_is_never_accepted_times_out(unanswering_port: int):
    limits = Limits(connect_timeout=0.3, deadline=30)
    result = fetch_sync(f"http://127.0.0.1:{unanswering_port}/feed", limits=limits)
    failed(result, "could not connect to 127.0.0.1", "timed out after 0.3 s")
    assert result.status == 0


# --- the size cap and decompression --------------------------------------------------------


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """About 1 MB of gzip that inflates to 1 GiB of zeros (built from one repeated block,
    which a full flush makes independent of what came before)."""
    zeros = bytes(MIB)
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = squeeze.compress(zeros) + squeeze.flush(zlib.Z_FULL_FLUSH)
    assert squeeze.compress(zeros) + squeeze.flush(zlib.Z_FULL_FLUSH) == block
    crc = 0
    for _ in range(1024):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    blocks = block * 1024  # the second flush above was the first of these
    bomb = header + blocks + squeeze.flush() + struct.pack("<II", crc, (1024 * MIB) % 2**32)
    assert len(bomb) < 2 * MIB
    return bomb


def test_a_gzip_bomb_is_refused_at_the_cap_and_memory_stays_low(
    server: FeedServer, gzip_bomb: bytes
):
    server.route("/bomb", Reply(body=gzip_bomb, headers=[("Content-Encoding", "gzip")]))
    tracemalloc.start()
    try:
        result = fetch_sync(server.url("/bomb"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    failed(result, "body over 16 MiB")
    assert result.status == 0
    # The cap is 16 MiB and the bomb inflates to 1 GiB: memory follows the cap.
    assert peak < 48 * MIB, f"peak {peak / MIB:.1f} MiB"


def test_a_content_length_over_the_cap_is_refused_before_reading(server: FeedServer):
    left: list[bool] = []

    def huge(exchange: Exchange) -> None:
        exchange.send_head(200, length=2 * MIB)
        left.append(exchange.wait_for_client_to_leave())  # no byte of the body is sent

    server.route("/huge", huge)
    result = fetch_sync(server.url("/huge"), limits=Limits(max_bytes=MIB))
    failed(result, "body over 1 MiB")
    assert server.wait_until(lambda: server.active == 0)
    assert left == [True]


def test_an_endless_body_without_a_length_stops_at_the_cap(server: FeedServer):
    def endless(exchange: Exchange) -> None:
        exchange.send_head(200)
        chunk = b"y" * 65536
        while exchange.write(chunk) and not exchange.server.stopping.is_set():
            pass

    server.route("/endless", endless)
    failed(fetch_sync(server.url("/endless"), limits=Limits(max_bytes=MIB)), "body over 1 MiB")


@pytest.mark.parametrize("coding", [None, "gzip"])
def test_a_body_exactly_at_the_cap_passes_and_one_byte_more_does_not(
    server: FeedServer, coding: str | None
):
    limits = Limits(max_bytes=100_000)
    for size, ok in ((100_000, True), (100_001, False)):
        body = os.urandom(size).hex().encode()[:size]
        wire = gzip.compress(body, mtime=0) if coding else body
        headers = [("Content-Encoding", coding)] if coding else []
        server.route(f"/{size}", Reply(body=wire, headers=headers, length=coding is None))
        result = fetch_sync(server.url(f"/{size}"), limits=limits)
        if ok:
            assert result.ok and result.body == body
        else:
            failed(result, "body over 97.66 KiB")


def deflate_raw(data: bytes) -> bytes:
    squeeze = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return squeeze.compress(data) + squeeze.flush()


BODY = "<rss><channel><title>Überschrift 标题</title></channel></rss>".encode() * 50


def gz(data: bytes) -> bytes:
    """gzip without the time in its header: parameters name the tests, and every xdist
    worker must name them alike."""
    return gzip.compress(data, mtime=0)


@pytest.mark.parametrize(
    ("coding", "wire"),
    [
        ("gzip", gz(BODY)),
        ("x-gzip", gz(BODY)),
        ("GZip", gz(BODY)),
        ("gzip", gz(BODY[:700]) + gz(BODY[700:])),  # two members
        ("gzip", gz(BODY) + b"\0\0\0\0"),  # padding after the end
        ("deflate", zlib.compress(BODY)),  # as the standard says: zlib-wrapped
        ("deflate", deflate_raw(BODY)),  # as some servers send it: raw
        ("identity", BODY),
        ("", BODY),
    ],
)
def test_compressed_bodies_are_inflated(server: FeedServer, coding: str, wire: bytes):
    server.route("/f", Reply(body=wire, headers=[("Content-Encoding", coding)]))
    result = fetch_sync(server.url("/f"))
    assert result.ok and result.body == BODY


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_compressed_body_trickled_byte_by_byte_is_inflated(server: FeedServer, coding: str):
    wire = gzip.compress(BODY, mtime=0) if coding == "gzip" else zlib.compress(BODY)

    def bytewise(exchange: Exchange) -> None:
        exchange.send_head(200, [("Content-Encoding", coding)], length=len(wire))
        for i in range(len(wire)):
            exchange.write(wire[i : i + 1])

    server.route("/f", bytewise)
    result = fetch_sync(server.url("/f"))
    assert result.ok and result.body == BODY


def test_an_empty_gzip_body_is_an_empty_feed(server: FeedServer):
    server.route("/f", Reply(body=b"", headers=[("Content-Encoding", "gzip")]))
    result = fetch_sync(server.url("/f"))
    assert result.ok and result.body == b""


@pytest.mark.parametrize(
    ("coding", "wire", "message"),
    [
        ("br", b"\x0b\x02\x80hello\x03", "unsupported content encoding 'br'"),
        ("gzip, br", b"x", "unsupported content encoding 'gzip, br'"),
        ("compress", b"x", "unsupported content encoding 'compress'"),
        ("gzip", b"this is not gzip at all", "gzip body is corrupt"),
        ("gzip", gz(BODY)[:-30], "gzip body is cut short"),
        ("deflate", zlib.compress(BODY)[:-30], "deflate body is cut short"),
        ("deflate", b"\x78\x9c\xff\xff\xff\xff", "deflate body is corrupt"),
    ],
)
def test_bad_compression_is_a_clear_error(
    server: FeedServer, coding: str, wire: bytes, message: str
):
    server.route("/f", Reply(body=wire, headers=[("Content-Encoding", coding)]))
    result = fetch_sync(server.url("/f"))
    failed(result, message)
    assert result.status == 0


# --- network failures -----------------------------------------------------------------------


def test_a_refused_connection():
    port = free_port()
    result = fetch_sync(f"http://127.0.0.1:{port}/feed")
    failed(result, f"connection refused by 127.0.0.1:{port}")
    assert result.status == 0


def test_a_host_that_does_not_resolve(monkeypatch: pytest.MonkeyPatch):
    """The lookup fails as a resolver's would, without asking any real resolver."""
    real = socket.getaddrinfo

    def lookup(host, *args, **kwargs):
        if host == "feeds.example.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    result = fetch_sync("http://feeds.example.invalid/rss")
    failed(result, "could not find host feeds.example.invalid")


def test_tls_to_a_server_that_does_not_speak_it(server: FeedServer):
    result = fetch_sync(server.url("/f").replace("http://", "https://"))
    failed(result, "TLS", "127.0.0.1")


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    where = tmp_path_factory.mktemp("tls")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_server(self_signed: tuple[Path, Path]) -> Iterator[FeedServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*self_signed)
    with FeedServer(tls=context) as running:
        running.route("/f", Reply(body=b"<rss/>"))
        yield running


def test_an_untrusted_certificate_is_refused(tls_server: FeedServer):
    failed(fetch_sync(tls_server.url("/f")), "TLS certificate of 127.0.0.1 rejected")


def test_https_works_with_a_trusted_certificate(
    tls_server: FeedServer, self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("SSL_CERT_FILE", str(self_signed[0]))
    result = fetch_sync(tls_server.url("/f"))
    assert result.ok and result.body == b"<rss/>"


def test_a_redirect_from_http_to_https_verifies_the_certificate(
    server: FeedServer, tls_server: FeedServer
):
    server.route("/f", Reply(301, headers=[("Location", tls_server.url("/f"))]))
    failed(fetch_sync(server.url("/f")), "TLS certificate of 127.0.0.1 rejected")


def test_http_feeds_alone_load_no_certificates(server: FeedServer):
    server.route("/f", Reply(body=b"<rss/>"))
    _tls_context.cache_clear()
    assert fetch_sync(server.url("/f")).ok
    assert _tls_context.cache_info().currsize == 0
    fetch_sync(server.url("/f").replace("http://", "https://"))  # (not TLS: it fails)
    assert _tls_context.cache_info().currsize == 1


def test_a_malformed_response(server: FeedServer):
    def garbage(exchange: Exchange) -> None:
        exchange.write(b"HELLO THERE\r\n\r\n")
        exchange.close()

    server.route("/f", garbage)
    failed(fetch_sync(server.url("/f")), "malformed response from 127.0.0.1")


def test_a_connection_closed_without_a_response(server: FeedServer):
    server.route("/f", lambda exchange: exchange.close())
    failed(fetch_sync(server.url("/f")), "closed the connection without a response")


def test_a_body_cut_short(server: FeedServer):
    def short(exchange: Exchange) -> None:
        exchange.send_head(200, length=1000)
        exchange.write(b"<rss>")
        exchange.close()

    server.route("/f", short)
    failed(fetch_sync(server.url("/f")), "closed the connection before the whole body arrived")


# --- URLs and files --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/feed.xml", "ftp: URLs are not supported (only http, https and file)"),
        ("gopher://example.com/", "gopher: URLs are not supported"),
        ("example.com/feed.xml", "not a URL: example.com/feed.xml"),
        ("", "not a URL"),
        ("http://[::1/feed", "not a valid URL"),
        ("http:///feed", "not a valid URL"),
        ("http://exa\x1b[31mmple.com/", ""),  # whatever it says, a clean line
        ("\x1b]0;title\x07:x", ""),
        ("file://elsewhere/etc/passwd", "file URL on another host: elsewhere"),
    ],
)
def test_urls_that_cannot_be_fetched(url: str, message: str):
    result = fetch_sync(url)
    failed(result, message)
    assert result.status == 0 and result.requested == url


def test_a_file_url_reads_the_file_and_an_unchanged_file_is_a_304(tmp_path: Path):
    feed = tmp_path / "feed 1.xml"
    feed.write_bytes(b"<rss/>")
    url = feed.as_uri()
    first = fetch_sync(url)
    assert first.ok and first.body == b"<rss/>" and first.url == url
    assert first.validators.etag and first.validators.last_modified
    second = fetch_sync(url, first.validators)
    assert second.not_modified and second.body is None and second.error is None
    os.utime(feed, ns=(0, 1_000_000_000))
    third = fetch_sync(url, first.validators)
    assert third.ok and third.validators != first.validators


def test_a_file_over_the_cap_is_refused(tmp_path: Path):
    feed = tmp_path / "big.xml"
    feed.write_bytes(b"x" * 2048)
    failed(fetch_sync(feed.as_uri(), limits=Limits(max_bytes=1024)), "file over 1 KiB")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_an_error_not_a_hang(tmp_path: Path):
    fifo = tmp_path / "feed.xml"
    os.mkfifo(fifo)
    failed(fetch_sync(fifo.as_uri()), "not a regular file")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: Path("/dev/zero"), "not a regular file: /dev/zero"),
        (lambda tmp: tmp, "a directory, not a feed file"),
        (lambda tmp: tmp / "missing.xml", "no such file"),
    ],
)
def test_file_urls_that_are_not_feed_files(tmp_path: Path, make, message: str):
    target = make(tmp_path)
    if not target.exists() and target.name != "missing.xml":
        pytest.skip(f"{target} is not here")
    failed(fetch_sync(target.as_uri()), message)


# --- fetch_all ------------------------------------------------------------------------------


def collect(jobs, limits: Limits | None = None, **bounds: int) -> list[tuple[object, Fetched]]:
    limits = limits or Limits()

    async def go() -> list[tuple[object, Fetched]]:
        return [item async for item in fetch_all(jobs, limits, **bounds)]

    return asyncio.run(go())


def test_two_hundred_feeds_on_one_host_never_open_more_than_per_host(server: FeedServer):
    total, per_host = 200, 4

    def feed(exchange: Exchange) -> None:
        # Hold each request until as many are in flight as allowed (or all have come), so
        # the peak shows the bound itself, not how fast the server happened to answer.
        server.wait_until(lambda: server.active >= per_host or server.started >= total, 5)
        exchange.send(Reply(body=b"<rss/>"))

    for i in range(total):
        server.route(f"/feed/{i}", feed)
    jobs = [(i, server.url(f"/feed/{i}"), None) for i in range(total)]
    results = collect(jobs, concurrency=16, per_host=per_host)
    assert sorted(key for key, _ in results) == list(range(total))
    assert all(result.ok for _, result in results)
    assert server.peak == per_host


def test_the_overall_bound_holds_across_hosts(server: FeedServer):
    total, overall, per_host = 60, 6, 4

    def feed(exchange: Exchange) -> None:
        server.wait_until(lambda: server.active >= overall or server.started >= total, 5)
        exchange.send(Reply(body=b"<rss/>"))

    for i in range(total):
        server.route(f"/feed/{i}", feed)
    hosts = ["127.0.0.1", "localhost"]
    jobs = [(i, server.url(f"/feed/{i}", hosts[i % 2]), None) for i in range(total)]
    results = collect(jobs, concurrency=overall, per_host=per_host)
    assert all(result.ok for _, result in results), [r.error for _, r in results if not r.ok]
    assert server.peak == overall
    assert max(server.peak_by_host.values()) <= per_host
    assert set(server.peak_by_host) == set(hosts)


def test_results_come_as_they_complete(server: FeedServer):
    """The slow feed is listed first but answers only after the fast one's result is in."""
    import threading

    fast_arrived = threading.Event()

    def slow(exchange: Exchange) -> None:
        fast_arrived.wait(10)
        exchange.send(Reply(body=b"slow"))

    server.route("/slow", slow)
    server.route("/fast", Reply(body=b"fast"))

    async def go() -> list[str]:
        order = []
        jobs = [("slow", server.url("/slow"), None), ("fast", server.url("/fast"), None)]
        async for key, result in fetch_all(jobs):
            assert result.ok
            order.append(key)
            fast_arrived.set()
        return order

    assert asyncio.run(go()) == ["fast", "slow"]


def test_stopping_early_cancels_the_fetches_still_running(server: FeedServer):
    server.route("/fast", Reply(body=b"fast"))
    server.route("/slow", trickle)

    async def go() -> list[str]:
        jobs = [("slow", server.url("/slow"), None), ("fast", server.url("/fast"), None)]
        async with contextlib.aclosing(fetch_all(jobs, Limits(deadline=30))) as results:
            async for key, _ in results:
                return [key]
        return []

    started = time.monotonic()
    assert asyncio.run(go()) == ["fast"]
    # Closing cancelled the trickling fetch instead of waiting out its 30 s deadline.
    assert time.monotonic() - started < 15
    assert server.wait_until(lambda: server.active == 0)


def test_bad_feeds_never_stop_the_good_ones(server: FeedServer, tmp_path: Path):
    server.route("/good", Reply(body=b"<rss/>"))
    server.route("/missing", Reply(404))
    server.route("/slow", trickle)
    server.route("/loop", Reply(302, headers=[("Location", "/loop")]))
    jobs = [
        ("refused", f"http://127.0.0.1:{free_port()}/", None),
        ("good1", server.url("/good"), None),
        ("missing", server.url("/missing"), None),
        ("slow", server.url("/slow"), None),
        ("ftp", "ftp://example.com/", None),
        ("loop", server.url("/loop"), None),
        ("dir", tmp_path.as_uri(), None),
        ("good2", server.url("/good"), Validators('"x"')),
    ]
    results = dict(collect(jobs, Limits(deadline=1.0), concurrency=3, per_host=2))
    assert set(results) == {key for key, _, _ in jobs}
    assert results["good1"].ok and results["good2"].ok
    for key in ("refused", "missing", "slow", "ftp", "loop", "dir"):
        failed(results[key])
    assert "timed out" in (results["slow"].error or "")


# --- the test server itself -----------------------------------------------------------------


def test_the_test_server_stops_cleanly_with_handlers_busy_and_connections_idle():
    import threading

    before = threading.active_count()
    server = FeedServer()
    with server:
        server.route("/slow", trickle)
        busy = socket.create_connection(("127.0.0.1", server.port))
        busy.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        idle = socket.create_connection(("127.0.0.1", server.port))
        assert busy.recv(100).startswith(b"HTTP/1.1 200")
        assert server.wait_until(lambda: server.active == 1)
    # Leaving the block stopped the trickle, cut the idle connection and joined every thread.
    assert threading.active_count() == before
    busy.close()
    idle.close()

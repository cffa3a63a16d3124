"""Fetching feeds over HTTP(S) and from local files, with the limits a hostile server needs.

:func:`fetch` gets one feed and never raises for a network or HTTP problem: the problem is
in ``Fetched.error`` as one terminal-safe line a user reads. Every fetch has a deadline for
the whole exchange (redirects and body included), a cap on the decompressed body and at most
a few redirects. :func:`fetch_all` fetches many feeds through one client, bounded overall and
per host, and yields each result as it completes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import logging
import os
import socket
import ssl
import zlib
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from http import HTTPStatus
from typing import TypeVar
from urllib.parse import urlsplit
from urllib.request import url2pathname

import httpx
from topiclens import __version__
from topiclens.files import NotRegular, open_regular, read_capped
from topiclens.text import terminal_line

log = logging.getLogger(__name__)

K = TypeVar("K")

MIB = 1024 * 1024
REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Only a permanent redirect says the feed lives at its new address from now on.
PERMANENT = frozenset({301, 308})
# A longer Retry-After is taken as this one, so a hostile value cannot overflow a date.
MAX_RETRY_AFTER = 7 * 24 * 3600.0
# How much of an unwanted body (a redirect's, an error page's) is read so that a short one
# leaves its connection open for the next request.
DRAIN_LIMIT = 64 * 1024
ACCEPT = (
    "application/rss+xml, application/atom+xml, application/feed+json, "
    "application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.7, */*;q=0.5"
)
# Only the codings we can inflate with a bound are asked for (httpx would add br and zstd
# when their packages are installed, and inflates without a bound).
ACCEPT_ENCODING = "gzip, deflate"
_GZIP = ("gzip", "x-gzip")


@dataclass(frozen=True, slots=True)
class Limits:
    """What one fetch may cost. Each limit gives one clear error when it is reached."""

    connect_timeout: float = 10.0
    deadline: float = 60.0  # the whole fetch, redirects and body included
    max_bytes: int = 16 * MIB  # of the decompressed body
    max_redirects: int = 5


@dataclass(frozen=True, slots=True)
class Validators:
    """A feed's HTTP validators, kept exactly as the server sent them."""

    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one fetch gave. ``error`` is None exactly when ``status`` is 200 or 304."""

    requested: str  # the URL asked for
    url: str  # the final URL after redirects (feedparser's content-location)
    moved_to: str | None  # set when every hop was 301/308 and it ended well: store it
    status: int  # final HTTP status; 0 when there is no usable response
    body: bytes | None  # the decompressed body of a 200, else None
    headers: dict[str, str]  # the final response's headers, lower-case names
    validators: Validators  # from a 200 or 304 as received; otherwise the ones sent
    retry_after: float | None  # seconds to wait, from Retry-After on 429/503
    error: str | None  # one terminal-safe line a user reads

    @property
    def ok(self) -> bool:
        """A 200 with its body."""
        return self.status == 200 and self.body is not None

    @property
    def not_modified(self) -> bool:
        """A 304: the feed has not changed since the validators were sent."""
        return self.status == 304

    @property
    def gone(self) -> bool:
        """A 410: the feed is gone for good."""
        return self.status == 410


def user_agent() -> str:
    """The User-Agent every request carries: topiclens and its version."""
    return f"topiclens/{__version__} (terminal feed reader; python-httpx/{httpx.__version__})"


def tls_context() -> ssl.SSLContext:
    """The TLS settings every client uses: httpx's defaults, the certifi roots or those that
    SSL_CERT_FILE or SSL_CERT_DIR name as the environment says now. Made once per process
    for each of these: making them is nearly all a client's cost (about 45 ms of CPU, which
    every ``feed add`` paid per fetch)."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@cache
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()  # (it reads the two variables itself)


POOL = httpx.Limits(max_connections=100, max_keepalive_connections=20)


class _Transports(httpx.AsyncBaseTransport):
    """A client's connections: ``https`` ones through :func:`tls_context`, made on the
    first ``https`` request, so a refresh of ``http`` feeds alone (a self-hosted RSSHub, a
    local mirror) never loads the trusted certificates; ``http`` ones through a context
    that trusts nothing, which no ``http`` request uses (any handshake through it fails)."""

    def __init__(self) -> None:
        self._made: dict[bool, httpx.AsyncHTTPTransport] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        tls = request.url.scheme == "https"
        if tls not in self._made:
            verify = tls_context() if tls else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            self._made[tls] = httpx.AsyncHTTPTransport(verify=verify, limits=POOL)
        return await self._made[tls].handle_async_request(request)

    async def aclose(self) -> None:
        for transport in self._made.values():
            await transport.aclose()


def client(limits: Limits = Limits()) -> httpx.AsyncClient:
    """An HTTP client for :func:`fetch`: one per refresh, so connections are pooled and kept
    alive. It follows no redirect (:func:`fetch` does, to count them, spot loops and tell
    permanent moves) and asks only for codings :func:`fetch` inflates with a bound. A proxy
    named in the environment is used as httpx uses it, verifying as httpx does."""
    return httpx.AsyncClient(
        headers={
            "User-Agent": user_agent(),
            "Accept": ACCEPT,
            "Accept-Encoding": ACCEPT_ENCODING,
        },
        follow_redirects=False,
        transport=_Transports(),
        # httpx's read timeout is per read, so a trickling server would never meet it: the
        # whole-fetch deadline in fetch() bounds reads instead.
        timeout=httpx.Timeout(None, connect=limits.connect_timeout),
        limits=POOL,
    )


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    validators: Validators | None = None,
    limits: Limits = Limits(),
) -> Fetched:
    """Fetch one feed: ``http``, ``https`` or ``file`` URLs. Sends ``validators`` as a
    conditional GET. Never raises for a network or HTTP problem: it is in ``.error``."""
    sent = validators or Validators()
    target = url.strip()
    try:
        scheme = urlsplit(target).scheme.lower()
    except ValueError:
        return _failure(url, url, f"not a valid URL: {url}", sent)
    if scheme == "file":
        # A regular file of at most max_bytes cannot hang; the thread keeps the loop free.
        return await asyncio.to_thread(_read_file, url, target, sent, limits)
    if scheme not in ("http", "https"):
        if not scheme:
            problem = f"not a URL: {url} (it needs http://, https:// or file://)"
        else:
            problem = f"{scheme}: URLs are not supported (only http, https and file)"
        return _failure(url, url, problem, sent)
    try:
        async with asyncio.timeout(limits.deadline):
            return await _fetch_http(client, url, target, sent, limits)
    except TimeoutError:
        return _failure(url, url, f"timed out after {_seconds(limits.deadline)}", sent)


async def fetch_all(
    jobs: Sequence[tuple[K, str, Validators | None]],
    limits: Limits = Limits(),
    *,
    concurrency: int = 16,
    per_host: int = 4,
) -> AsyncIterator[tuple[K, Fetched]]:
    """Fetch every ``(key, url, validators)`` job once through one client, at most
    ``concurrency`` at a time and at most ``per_host`` to any one host, yielding
    ``(key, Fetched)`` as each completes. One feed's failure never stops the others.

    The host is the one asked for; a redirect to another host is not counted there. Close
    the generator (``contextlib.aclosing``) if you stop early: that cancels the rest."""
    overall = asyncio.Semaphore(concurrency)
    hosts: dict[str, asyncio.Semaphore] = {}
    async with client(limits) as http:

        async def one(key: K, url: str, validators: Validators | None) -> tuple[K, Fetched]:
            host = _host(url)
            if host not in hosts:
                hosts[host] = asyncio.Semaphore(per_host)
            # The host's gate first: feeds queued behind a busy host then hold no overall
            # slot that a feed on another host could use.
            async with hosts[host], overall:
                try:
                    return key, await fetch(http, url, validators, limits)
                except Exception as exc:  # a bug must not cost the other feeds their refresh
                    log.exception("fetching %s failed", url)
                    problem = f"unexpected error while fetching: {exc}".rstrip(": ")
                    return key, _failure(url, url, problem, validators or Validators())

        tasks = [asyncio.create_task(one(key, url, v)) for key, url, v in jobs]
        try:
            for next_done in asyncio.as_completed(tasks):
                yield await next_done
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def fetch_sync(
    url: str, validators: Validators | None = None, limits: Limits = Limits()
) -> Fetched:
    """One fetch from synchronous code (not from inside a running event loop)."""

    async def once() -> Fetched:
        async with client(limits) as http:
            return await fetch(http, url, validators, limits)

    return asyncio.run(once())


# --- HTTP ------------------------------------------------------------------------------


async def _fetch_http(
    http: httpx.AsyncClient, requested: str, url: str, sent: Validators, limits: Limits
) -> Fetched:
    """Follow redirects by hand up to the limit, then read the final response."""
    conditional = _conditional_headers(sent)
    try:
        current = httpx.URL(url)
    except httpx.InvalidURL:
        current = None
    if current is None or not current.host:
        return _failure(requested, url, f"not a valid URL: {url}", sent)
    seen = {str(current)}
    permanent = True
    for hops in range(limits.max_redirects + 1):
        try:
            async with http.stream("GET", current, headers=conditional) as response:
                status = response.status_code
                location = response.headers.get("location")
                if status not in REDIRECTS or location is None:
                    result = await _final(response, requested, sent, limits)
                    if hops and permanent and result.error is None:
                        return dataclasses.replace(result, moved_to=str(response.url))
                    return result
                await _drain(response)
                try:
                    following = response.url.join(location.strip())
                except httpx.InvalidURL:
                    return _failure(requested, str(current), "redirect to an invalid URL", sent)
        except httpx.InvalidURL:
            # Our own URL was checked above, so it is a Location httpx cannot even resolve
            # against the request (javascript:, mailto:, data: and the like).
            problem = "redirect to an invalid or non-http(s) URL refused"
            return _failure(requested, str(current), problem, sent)
        except (httpx.HTTPError, OSError) as exc:
            return _failure(requested, str(current), _network_error(exc, current, limits), sent)
        if following.scheme not in ("http", "https"):
            problem = f"redirect to a {following.scheme or 'schemeless'}: URL refused"
            return _failure(requested, str(current), problem, sent)
        if str(following) in seen:
            return _failure(requested, str(current), f"redirect loop at {following}", sent)
        seen.add(str(following))
        permanent = permanent and status in PERMANENT
        current = following
    problem = f"more than {limits.max_redirects} redirects"
    return _failure(requested, str(current), problem, sent)


async def _final(
    response: httpx.Response, requested: str, sent: Validators, limits: Limits
) -> Fetched:
    """The result of the response that is not a redirect."""
    status = response.status_code
    url = str(response.url)
    headers = {name.lower(): value for name, value in response.headers.items()}
    if status == 200:
        body, problem = await _read_body(response, limits)
        if problem is not None:
            return _failure(requested, url, problem, sent, headers=headers)
        return Fetched(requested, url, None, 200, body, headers, _received(response), None, None)
    await _drain(response)
    if status == 304:
        # A 304 may carry a new ETag (it replaces ours); one it lacks stays as we sent it.
        received = _received(response)
        validators = Validators(
            received.etag if received.etag is not None else sent.etag,
            received.last_modified if received.last_modified is not None else sent.last_modified,
        )
        return Fetched(requested, url, None, 304, None, headers, validators, None, None)
    retry_after = _retry_after(headers.get("retry-after")) if status in (429, 503) else None
    problem = f"HTTP {status} {_reason(response)}".rstrip()
    if status in REDIRECTS:
        problem += " without a Location"
    if retry_after is not None:
        problem += f" (retry after {_seconds(retry_after)})"
    return Fetched(requested, url, None, status, None, headers, sent, retry_after, _line(problem))


async def _read_body(response: httpx.Response, limits: Limits) -> tuple[bytes | None, str | None]:
    """The decompressed body, or the reason there is none. The raw stream is read and
    inflated here with a bound, because httpx inflates a whole chunk without one."""
    cap = limits.max_bytes
    over = f"body over {_size(cap)}"
    declared = response.headers.get("content-length", "").strip()
    if declared.isascii() and declared.isdigit() and int(declared) > cap:
        return None, over
    codings = [c.strip().lower() for c in response.headers.get("content-encoding", "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if len(codings) > 1 or (codings and codings[0] not in (*_GZIP, "deflate")):
        return None, f"unsupported content encoding '{', '.join(codings)}'"
    inflater = _Inflater(codings[0] in _GZIP, cap) if codings else None
    body = bytearray()
    received = 0
    try:
        async for chunk in response.aiter_raw():
            received += len(chunk)
            # Compressed data never needs more room than the cap allows inflated, near enough.
            if received > cap:
                return None, over
            body += inflater.feed(chunk) if inflater else chunk
            if len(body) > cap:
                return None, over
        if inflater:
            inflater.finish()
    except _TooBig:
        return None, over
    except _Corrupt as exc:
        return None, str(exc)
    return bytes(body), None


class _TooBig(Exception):
    """The inflated body would pass the cap."""


class _Corrupt(Exception):
    """The compressed body cannot be inflated."""


class _Inflater:
    """Inflates a gzip or deflate body chunk by chunk, never producing more than ``cap``
    bytes in all: a small bomb stops at the cap instead of filling memory."""

    def __init__(self, gzip: bool, cap: int) -> None:
        self._gzip = gzip
        self._cap = cap
        self._produced = 0
        self._fed = False
        self._done = False
        self._head = b""  # deflate only: the first bytes, until the wrapping is known
        self._inflate: zlib._Decompress | None = zlib.decompressobj(31) if gzip else None

    def feed(self, data: bytes) -> bytes:
        if self._done or not data:
            return b""
        self._fed = True
        if self._inflate is None:
            # "deflate" should be zlib-wrapped but some servers send it raw: the first two
            # bytes tell (a zlib header is a multiple of 31 with method 8).
            self._head += data
            if len(self._head) < 2:
                return b""
            data, self._head = self._head, b""
            wrapped = (data[0] & 0x0F) == 8 and (data[0] * 256 + data[1]) % 31 == 0
            self._inflate = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        out = bytearray()
        while data and not self._done:
            room = self._cap - self._produced
            try:
                piece = self._inflate.decompress(data, room + 1)
            except zlib.error as exc:
                raise _Corrupt(f"the {self._name} body is corrupt") from exc
            self._produced += len(piece)
            if self._produced > self._cap:
                raise _TooBig
            out += piece
            data = b""
            if self._inflate.eof:
                rest = self._inflate.unused_data
                if self._gzip and rest[:2] == b"\x1f\x8b":
                    # gzip allows several members one after another; each is inflated.
                    self._inflate = zlib.decompressobj(31)
                    data = rest
                else:
                    # Bytes after the end of the stream (padding) carry nothing.
                    self._done = True
        return bytes(out)

    def finish(self) -> None:
        """Raise if the stream stopped before its end (an empty body is fine)."""
        if self._fed and not self._done:
            raise _Corrupt(f"the {self._name} body is cut short")

    @property
    def _name(self) -> str:
        return "gzip" if self._gzip else "deflate"


async def _drain(response: httpx.Response) -> None:
    """Read a little of a body we do not need: a short one then leaves its connection
    reusable, a long one is cut off when the response closes."""
    received = 0
    try:
        async for chunk in response.aiter_raw():
            received += len(chunk)
            if received > DRAIN_LIMIT:
                return
    except (httpx.HTTPError, OSError):
        return  # only the connection's reuse is lost


def _conditional_headers(sent: Validators) -> dict[str, bytes]:
    """If-None-Match and If-Modified-Since, byte for byte as the server sent them."""
    headers = {}
    for name, value in (("If-None-Match", sent.etag), ("If-Modified-Since", sent.last_modified)):
        raw = _header_bytes(value)
        if raw:
            headers[name] = raw
    return headers


def _header_bytes(value: str | None) -> bytes | None:
    """A validator back as the bytes it came as (read as Latin-1); None if it could never
    have been a header value."""
    if not value:
        return None
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError:
        raw = value.encode("utf-8", "replace")
    return None if any(b in raw for b in b"\r\n\0") else raw


def _received(response: httpx.Response) -> Validators:
    """The validators a response carries, decoded as Latin-1 so they go back unchanged."""

    def first(name: bytes) -> str | None:
        for key, value in response.headers.raw:
            if key.lower() == name and value.strip():
                return value.decode("latin-1")
        return None

    return Validators(first(b"etag"), first(b"last-modified"))


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After value: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        digits = value.lstrip("0") or "0"
        return MAX_RETRY_AFTER if len(digits) > 9 else min(float(digits), MAX_RETRY_AFTER)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    wait = (when - datetime.now(UTC)).total_seconds()
    return min(max(wait, 0.0), MAX_RETRY_AFTER)


def _reason(response: httpx.Response) -> str:
    """The server's reason phrase made safe, or the standard one when it sent none."""
    phrase = terminal_line(response.reason_phrase)[:80]
    if phrase:
        return phrase
    try:
        return HTTPStatus(response.status_code).phrase
    except ValueError:
        return ""


def _network_error(exc: BaseException, url: httpx.URL, limits: Limits) -> str:
    """One line saying what went wrong on the wire, in a user's words."""
    host = url.host or str(url)
    where = f"{host}:{url.port}" if url.port else host
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect to {where}: timed out after {_seconds(limits.connect_timeout)}"
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLCertVerificationError):
            detail = cause.verify_message or "not trusted"
            return f"TLS certificate of {host} rejected: {detail}"
        if isinstance(cause, ssl.SSLError):
            return f"TLS handshake with {host} failed ({cause.reason or 'no detail'})"
        if isinstance(cause, socket.gaierror):
            return f"could not find host {host} (DNS lookup failed)"
        if isinstance(cause, ConnectionRefusedError):
            return f"connection refused by {where}"
        if isinstance(cause, ConnectionResetError):
            return f"connection reset by {where}"
    if isinstance(exc, httpx.RemoteProtocolError):
        text = str(exc)
        if "without sending a response" in text:
            return f"{where} closed the connection without a response"
        if "location header" in text:
            return "redirect to an invalid URL"
        if "complete message body" in text:
            return f"{where} closed the connection before the whole body arrived"
        return f"malformed response from {where}"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect to {where}{_os_detail(exc)}"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out talking to {where}"
    if isinstance(exc, httpx.LocalProtocolError):
        return f"could not send the request to {where}"
    return f"network error with {where}{_os_detail(exc)}"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception and every one it was raised from, innermost last."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _os_detail(exc: BaseException) -> str:
    """': <strerror>' from the first OS error behind ``exc``, if it has one."""
    for cause in _causes(exc):
        if isinstance(cause, OSError) and cause.strerror:
            return f": {cause.strerror}"
    return ""


# --- local files -----------------------------------------------------------------------


def _read_file(requested: str, url: str, sent: Validators, limits: Limits) -> Fetched:
    """A ``file://`` URL's file with the same cap as a download; regular files only, so a
    FIFO or a device can never hang the fetch. Its validator is the file's mtime and size,
    so an unchanged file is a 304 like an unchanged feed."""
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        return _failure(requested, url, f"file URL on another host: {parts.netloc}", sent)
    path = url2pathname(parts.path)
    if not path:
        return _failure(requested, url, "file URL without a path", sent)
    over = f"file over {_size(limits.max_bytes)}: {path}"
    try:
        with open_regular(path) as (fd, info):
            if info.st_size > limits.max_bytes:  # refused before an unchanged file's 304
                return _failure(requested, url, over, sent)
            validators = Validators(
                f'"{info.st_mtime_ns:x}-{info.st_size:x}"',
                email.utils.formatdate(info.st_mtime, usegmt=True),
            )
            if sent.etag == validators.etag:
                return Fetched(requested, url, None, 304, None, {}, validators, None, None)
            body = read_capped(fd, info, limits.max_bytes)
    except FileNotFoundError:
        return _failure(requested, url, f"no such file: {path}", sent)
    except PermissionError:
        return _failure(requested, url, f"permission denied: {path}", sent)
    except NotRegular as exc:
        kind = "a directory, not a feed file" if exc.kind == "a directory" else exc.kind
        return _failure(requested, url, f"{kind}: {path}", sent)
    except OSError as exc:
        return _failure(requested, url, f"cannot read {path}: {exc.strerror}", sent)
    if body is None:
        return _failure(requested, url, over, sent)
    return Fetched(requested, url, None, 200, body, {}, validators, None, None)


# --- small helpers ---------------------------------------------------------------------


def _failure(
    requested: str,
    url: str,
    problem: str,
    sent: Validators,
    *,
    headers: dict[str, str] | None = None,
) -> Fetched:
    """A fetch that gave nothing usable: status 0, the validators kept as they were sent."""
    return Fetched(requested, url, None, 0, None, headers or {}, sent, None, _line(problem))


def _line(text: str) -> str:
    """An error as one line a terminal shows as text: no control characters, at most 300
    characters (a server's words go into some of them)."""
    line = terminal_line(text)
    return line if len(line) <= 300 else line[:299] + "…"


def _host(url: str) -> str:
    try:
        return (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return ""


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _size(n: int) -> str:
    if n >= MIB:
        return f"{n / MIB:.4g} MiB"
    if n >= 1024:
        return f"{n / 1024:.4g} KiB"
    return f"{n} bytes"

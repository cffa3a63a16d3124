"""A real HTTP/1.1 server on 127.0.0.1 for the feed tests, scripted path by path.

Each path answers with a :class:`Reply` (status, headers, body, all as raw as wanted) or with
a function that gets the :class:`Exchange` and may misbehave on purpose: trickle bytes, lie
about lengths, send garbage, wait for the test. The server records every request's headers
and counts requests in flight (overall and per Host), so tests can check what went over
the wire and how many connections were open at once.

    with FeedServer() as server:
        server.route("/feed.xml", Reply(body=b"<rss/>", headers=[("ETag", '"v1"')]))
        fetch(..., server.url("/feed.xml"))
        assert server.requests[0].headers.get("if-none-match") is None

Stopping it unblocks every handler (``Exchange.wait`` returns True), closes every open
connection and joins every handler thread, so no thread outlives the ``with``.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HeaderValue = str | bytes


@dataclass(frozen=True)
class Reply:
    """A whole response. ``reason`` replaces the standard reason phrase (raw bytes allowed);
    with ``length=False`` no Content-Length is sent and the body ends when the connection
    closes."""

    status: int = 200
    body: bytes = b""
    headers: Sequence[tuple[str, HeaderValue]] = ()
    reason: HeaderValue | None = None
    length: bool = True


@dataclass(frozen=True)
class Request:
    """One request as the server read it."""

    method: str
    path: str
    headers: dict[str, str]  # lower-case names; repeated headers joined with ", "
    raw_headers: list[tuple[bytes, bytes]]  # as they came, bytes for bytes
    client_port: int
    host: str  # the Host header without its port


class Exchange:
    """One request being answered: what was asked, and ways to answer or misbehave."""

    def __init__(self, server: FeedServer, handler: _Handler, request: Request) -> None:
        self.server = server
        self.request = request
        self._handler = handler
        self.client_gone = False

    def send(self, reply: Reply) -> None:
        """Send a whole :class:`Reply`."""
        self.send_head(
            reply.status, reply.headers, reply.reason, len(reply.body) if reply.length else None
        )
        self.write(reply.body)
        if not reply.length:
            self.close()

    def send_head(
        self,
        status: int,
        headers: Sequence[tuple[str, HeaderValue]] = (),
        reason: HeaderValue | None = None,
        length: int | None = None,
    ) -> None:
        """Send the status line and headers; Content-Length only when ``length`` is given
        (else Connection: close, and the body runs until the connection closes)."""
        if reason is None:
            try:
                reason = HTTPStatus(status).phrase
            except ValueError:
                reason = "Whatever"
        lines = [b"HTTP/1.1 %d " % status + _bytes(reason)]
        lines += [_bytes(name) + b": " + _bytes(value) for name, value in headers]
        if length is not None:
            lines.append(b"Content-Length: %d" % length)
        else:
            lines.append(b"Connection: close")
            self._handler.close_connection = True
        self.write(b"\r\n".join(lines) + b"\r\n\r\n")

    def write(self, data: bytes) -> bool:
        """Write raw bytes; False (and nothing raised) once the client has gone."""
        if self.client_gone:
            return False
        try:
            self._handler.wfile.write(data)
            self._handler.wfile.flush()
        except OSError:
            self.client_gone = True
            self._handler.close_connection = True
        return not self.client_gone

    def close(self) -> None:
        """Close the connection once this handler returns."""
        self._handler.close_connection = True

    def wait(self, seconds: float) -> bool:
        """Pause this handler; True as soon as the server is stopping."""
        return self.server.stopping.wait(seconds)

    def wait_for_client_to_leave(self, timeout: float = 10.0) -> bool:
        """Block until the client closes the connection (True) or ``timeout`` passes."""
        sock = self._handler.connection
        sock.settimeout(0.05)
        waited = 0.0
        while waited < timeout and not self.server.stopping.is_set():
            try:
                if sock.recv(65536) == b"":
                    self.client_gone = True
                    return True
            except TimeoutError:
                waited += 0.05
            except OSError:
                self.client_gone = True
                return True
        return False


Route = Reply | Callable[[Exchange], None]


@dataclass
class _Counts:
    active: int = 0
    started: int = 0
    peak: int = 0
    active_by_host: Counter[str] = field(default_factory=Counter)
    peak_by_host: Counter[str] = field(default_factory=Counter)


class FeedServer:
    """The server; use it as a context manager (it stops cleanly on leaving)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.scheme = "https" if tls else "http"
        self._routes: dict[str, Route] = {}
        self._lock = threading.Lock()
        self.changed = threading.Condition(self._lock)
        self.stopping = threading.Event()
        self.requests: list[Request] = []
        self.errors: list[BaseException] = []
        self._counts = _Counts()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self.port: int = self._httpd.server_address[1]
        if tls is not None:
            # The handshake happens on accept; a client that rejects it is just not served.
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        # stop() waits up to one poll interval for the loop to see it: a short one keeps the
        # hundreds of servers the tests start from adding seconds of waiting
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.005}, daemon=True
        )

    def __enter__(self) -> FeedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()
        self._httpd.shutdown()
        self._thread.join()
        # Handlers waiting for a keep-alive request would wait for ever: cut them loose.
        for conn in list(self._httpd.connections):
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()  # joins every handler thread

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def route(self, path: str, answer: Route) -> None:
        """Answer requests for ``path`` (query string included, if any) with ``answer``."""
        self._routes[path] = answer

    @property
    def peak(self) -> int:
        """The most requests that were in flight at once."""
        return self._counts.peak

    @property
    def peak_by_host(self) -> dict[str, int]:
        return dict(self._counts.peak_by_host)

    @property
    def active(self) -> int:
        return self._counts.active

    @property
    def started(self) -> int:
        return self._counts.started

    def wait_until(self, condition: Callable[[], bool], timeout: float = 10.0) -> bool:
        """Wait (in a handler or a test) until ``condition()`` holds; it is checked whenever a
        request starts or ends. False if ``timeout`` passed or the server is stopping."""
        with self.changed:
            return (
                self.changed.wait_for(lambda: condition() or self.stopping.is_set(), timeout)
                and not self.stopping.is_set()
            )

    def _serve(self, handler: _Handler) -> None:
        # http.server reads header bytes as Latin-1, so encoding them back gives the bytes.
        items = list(handler.headers.raw_items())
        raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in items]
        headers: dict[str, str] = {}
        for name, value in items:
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        host = headers.get("host", "").rsplit(":", 1)[0]
        request = Request(
            handler.command, handler.path, headers, raw, handler.client_address[1], host
        )
        with self.changed:
            self.requests.append(request)
            counts = self._counts
            counts.active += 1
            counts.started += 1
            counts.peak = max(counts.peak, counts.active)
            counts.active_by_host[host] += 1
            counts.peak_by_host[host] = max(counts.peak_by_host[host], counts.active_by_host[host])
            self.changed.notify_all()
        exchange = Exchange(self, handler, request)
        try:
            answer = self._routes.get(handler.path, Reply(404, b"no such feed"))
            if isinstance(answer, Reply):
                exchange.send(answer)
            else:
                answer(exchange)
        finally:
            with self.changed:
                counts.active -= 1
                counts.active_by_host[host] -= 1
                self.changed.notify_all()


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close, so none outlives the server.
    daemon_threads = False
    block_on_close = True
    owner: FeedServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.connections: set[socket.socket] = set()
        super().__init__(*args, **kwargs)

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError | TimeoutError) and error is not None:
            self.owner.errors.append(error)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.connections.add(self.connection)

    def finish(self) -> None:
        self.server.connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        self.server.owner._serve(self)

    do_HEAD = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the tests read server.requests instead


def _bytes(value: HeaderValue) -> bytes:
    return value if isinstance(value, bytes) else value.encode("latin-1")

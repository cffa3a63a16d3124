"""The HTTP clients of feeds/fetch.py: what each one is made with."""

from __future__ import annotations

import asyncio
import socket
import ssl

import pytest
from topiclens.feeds.fetch import client, fetch, tls_context


def test_every_client_verifies_https_through_the_one_tls_context():
    async def contexts() -> list[ssl.SSLContext]:
        with socket.socket() as probe:  # a port nothing listens on: the fetch fails fast
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        made = []
        for _ in range(2):
            async with client() as http:
                await fetch(http, f"https://127.0.0.1:{port}/feed")
                made.append(http._transport._made[True]._pool._ssl_context)  # type: ignore[attr-defined]
        return made

    first, second = asyncio.run(contexts())
    assert first is second is tls_context()
    assert tls_context().verify_mode == ssl.CERT_REQUIRED and tls_context().check_hostname


def test_a_new_certificate_file_in_the_environment_makes_a_new_context(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    default = tls_context()
    monkeypatch.setenv("SSL_CERT_DIR", "/nonexistent/certs")
    assert tls_context() is not default and tls_context() is tls_context()
    monkeypatch.delenv("SSL_CERT_DIR")
    assert tls_context() is default

"""The HTTP clients of feeds/fetch.py: what each one is made with."""

from __future__ import annotations

import asyncio
import ssl

import pytest
from topiclens.feeds.fetch import client, tls_context


def test_every_client_shares_one_tls_context_that_verifies():
    first, second = client(), client()
    try:
        contexts = [c._transport._pool._ssl_context for c in (first, second)]  # type: ignore[attr-defined]
        assert contexts[0] is contexts[1] is tls_context()
        assert tls_context().verify_mode == ssl.CERT_REQUIRED and tls_context().check_hostname
    finally:
        for c in (first, second):
            asyncio.run(c.aclose())


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

"""What every parse worker of a refresh needs, imported once in the fork server that the
workers are forked from (:class:`topiclens.feeds.refresh._Parsers`): the feed parser, the
HTML cleaner and the tokenizer, with jieba's dictionary loaded (together about 0.9 s of
CPU), so that no worker pays for them again."""

from __future__ import annotations

import logging

from topiclens.clustering import token_cache  # noqa: F401  (what parse_fetched tokenizes with)
from topiclens.clustering.tokenize import default_tokenizer
from topiclens.feeds import refresh  # noqa: F401  (parse_fetched)
from topiclens.store import feed_parse  # noqa: F401

try:
    default_tokenizer().jieba()
except Exception:  # a worker loads it again on first use, and its error says what is wrong
    logging.getLogger(__name__).exception("preloading jieba's dictionary failed")

"""topiclens' feeds: fetching feeds over the network and finding them in web pages.

``topiclens.feeds.fetch`` downloads a feed the way a good citizen does (conditional GET, a
deadline, a cap on the decompressed body, bounded concurrency) and never raises for a network
or HTTP problem; ``topiclens.feeds.discover`` finds the feeds an HTML page names. Parsing the
bytes into entries is the store's concern (``topiclens.store.feed_parse``). No Textual here.

This module imports nothing, so importing ``topiclens.feeds.discover`` does not load httpx.
"""

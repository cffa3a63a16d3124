"""topiclens' feeds: fetching them, subscribing to them and refreshing them.

``topiclens.feeds.fetch`` downloads a feed the way a good citizen does (conditional GET, a
deadline, a cap on the decompressed body, bounded concurrency) and never raises for a network
or HTTP problem; ``topiclens.feeds.discover`` finds the feeds an HTML page names;
``subscribe`` adds a feed (or an OPML file's), ``refresh`` fetches feeds and stores what
arrived, placed into its topics, and ``schedule`` says which are due. Parsing the bytes into
entries is the store's concern (``topiclens.store.feed_parse``). No Textual here.

This module imports nothing, so importing ``topiclens.feeds.discover`` does not load httpx.
"""

"""Feeds: fetching (``fetch``, ``discover``), subscribing (``subscribe``), refreshing
(``refresh``) and when feeds are due (``schedule``). No Textual here."""

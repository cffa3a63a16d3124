"""topiclens: a terminal reader for curated technical digests, grouped into topics."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("topiclens")
except PackageNotFoundError:  # running from a checkout that is not installed
    __version__ = "0.0.0"

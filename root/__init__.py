"""topiclens: a terminal reader for curated technical digests, grouped into topics."""

# The one place the version is written: pyproject.toml reads it from here (a plain
# constant, so a start pays nothing for importlib.metadata).
__version__ = "0.1.0"

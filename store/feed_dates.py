"""Dates in feeds read for certain or not at all.

feedparser misreads some dates silently (measured on 6.0.14: ``CST`` as US Central even in a
Chinese feed, ``2024年5月1日`` and ``2024/05/01 10:30`` as 1 December, a Unix time as a 2017
date, an unknown zone such as ``IST`` as UTC). :func:`read_date` reads the forms feeds use
itself and takes feedparser's reading of any other only where it can be checked.
"""

from __future__ import annotations

import datetime as _dt
import re
import time
from collections.abc import Callable

UTC = _dt.UTC
FUTURE_SLACK = _dt.timedelta(days=1)  # a date further ahead than this is not believed
EARLIEST = _dt.datetime(1970, 1, 2, tzinfo=UTC)  # the epoch itself is a missing date

# Zone names read the same everywhere. CST is not among them: US Central in RFC 822, China
# Standard Time in a Chinese feed, Cuba elsewhere. BST, IST and the like are ambiguous too.
_ZONES: dict[str, int] = {
    "UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "WET": 0,
    "EST": -300, "EDT": -240, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
    "CET": 60, "CEST": 120, "MET": 60, "MEST": 120, "WEST": 60, "EET": 120, "EEST": 180,
    "MSK": 180, "HKT": 480, "SGT": 480, "JST": 540, "KST": 540,
    "AEST": 600, "AEDT": 660, "NZST": 720, "NZDT": 780,
    "北京时间": 480,
}  # fmt: skip
_CHINA = 480
_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
)}  # fmt: skip
_ZONE = r"(?P<zone>(?:GMT|UTC|UT)?[+-]\d{1,2}(?::?\d{2})?|[A-Za-z]{1,5}|北京时间)?"
_TIME = r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,]\d+)?)?"
_NUMERIC = re.compile(
    rf"^(?P<y>\d{{4}})[-/.](?P<mo>\d{{1,2}})[-/.](?P<d>\d{{1,2}})(?:(?:T|\s+){_TIME})?\s*{_ZONE}$",
    re.IGNORECASE,
)
_RFC822 = re.compile(
    rf"^(?:[A-Za-z]{{2,9}}\.?,?\s*)?(?P<d>\d{{1,2}})[\s-]+(?P<mon>[A-Za-z]{{3,9}})\.?[\s-]+"
    rf"(?P<y>\d{{2,4}})(?:\s+{_TIME})?\s*{_ZONE}$"
)
_CHINESE = re.compile(
    r"^(?P<y>\d{4})\s*年\s*(?P<mo>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]"
    r"(?:\s*(?P<half>上午|下午|晚上|凌晨|中午)?\s*(?P<h>\d{1,2})\s*(?:[:：]|时|點|点)\s*"
    r"(?P<mi>\d{1,2})?\s*分?(?:\s*[:：]?\s*(?P<s>\d{1,2})\s*秒?)?)?\s*" + _ZONE + "$"
)
_EPOCH = re.compile(r"^\d{9,13}(?:\.\d+)?$")
_COMMENT = re.compile(r"\s*\([^)]*\)\s*$")  # "+0800 (CST)": RFC 822's trailing comment
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_ZONE_WORD = re.compile(r"\b[A-Za-z]{2,5}$")
_UTC_OFFSET = re.compile(r"(?:GMT|UTC|UT)?([+-])(\d{1,2})(?::?(\d{2}))?")
_EIGHT_DIGITS = re.compile(r"\d{8}")


# feedparser's reading of a date, or a function that makes it when it is wanted
DateFallback = time.struct_time | Callable[[], time.struct_time | None] | None


class Unreadable(ValueError):
    """A date that is there but cannot be read for certain; the message says why."""


def _offset(zone: str | None, chinese: bool, naive: int) -> int:
    """Minutes east of UTC for ``zone`` as written; ``naive`` when there is none."""
    if not zone:
        return naive
    upper = zone.upper()
    if upper in _ZONES:
        return _ZONES[upper]
    if upper == "CST":
        if chinese:
            return _CHINA
        raise Unreadable("the zone CST is ambiguous (US Central, China or Cuba)")
    match = _UTC_OFFSET.fullmatch(upper)
    if match:
        hours, minutes = int(match.group(2)), int(match.group(3) or 0)
        if hours > 14 or minutes > 59:
            raise Unreadable(f"the zone {zone!r} is no UTC offset")
        return (hours * 60 + minutes) * (1 if match.group(1) == "+" else -1)
    raise Unreadable(f"the zone {zone!r} is unknown or ambiguous")


def _build(parts: dict[str, str | None], month: int, offset: int) -> _dt.datetime:
    year = int(parts["y"] or 0)
    if year < 100:  # RFC 822's two-digit years
        year += 2000 if year < 50 else 1900
    hour = int(parts.get("h") or 0)
    half = parts.get("half")
    if half in ("下午", "晚上") and hour < 12:
        hour += 12
    elif half == "凌晨" and hour == 12:
        hour = 0
    try:
        local = _dt.datetime(
            year,
            month,
            int(parts["d"] or 0),
            hour,
            int(parts.get("mi") or 0),
            min(int(parts.get("s") or 0), 59),  # a leap second is read as :59
            tzinfo=_dt.timezone(_dt.timedelta(minutes=offset)),
        )
    except ValueError as error:
        raise Unreadable(f"no such date ({error})") from None
    return local.astimezone(UTC)


def read_date(
    text: str,
    *,
    chinese: bool = False,
    now: _dt.datetime | None = None,
    fallback: DateFallback = None,
) -> _dt.datetime | None:
    """The moment ``text`` names, in UTC; None when there is no text. Raises
    :class:`Unreadable` (saying why) when the text cannot be read for certain.

    - RFC 822 and ISO 8601 / RFC 3339 dates, ``2024/05/01 10:30`` too; a time without a zone
      is China time (+08:00) in a ``chinese`` feed and UTC elsewhere; a date without a time is
      that day at 00:00 UTC, so it stays that day.
    - Zone names only where they are unambiguous; ``CST`` is China Standard Time in a
      ``chinese`` feed and unreadable elsewhere.
    - Chinese dates (``2024年5月1日``, ``2024年5月1日 10:30``, ``下午3点``) are China time.
    - A number is a Unix time in seconds or milliseconds when it falls between 1970 and now.
    - ``fallback`` (feedparser's own reading, or a function making it) is taken for any
      other format when the text is not Chinese, ends in no unknown zone and names the year
      feedparser read.
    - Dates before 1970-01-02 (the epoch, a missing date) and more than a day in the future
      (a wrong clock, a zone misread, a post scheduled ahead) are unreadable.
    """
    now = now or _dt.datetime.now(UTC)
    text = " ".join(text.split())
    if not text:
        return None
    if text.endswith(")"):  # (the comment ends the text, which has no space left at its end)
        text = _COMMENT.sub("", text)
    naive = _CHINA if chinese else 0
    when: _dt.datetime | None = None
    if _EPOCH.match(text):
        seconds = float(text)
        if seconds >= 1e11:  # milliseconds
            seconds /= 1000
        when = _dt.datetime.fromtimestamp(seconds, UTC)
        if not EARLIEST <= when <= now + FUTURE_SLACK:
            raise Unreadable(f"the number {text} is no plausible Unix time")
    elif _EIGHT_DIGITS.fullmatch(text):
        parts = {"y": text[:4], "d": text[6:]}
        when = _build(parts, int(text[4:6]), 0)
    elif match := _CHINESE.match(text):
        parts = match.groupdict()
        offset = _offset(parts["zone"], True, _CHINA if parts["h"] else 0)
        when = _build(parts, int(parts["mo"]), offset)
    elif match := _NUMERIC.match(text):
        parts = match.groupdict()
        offset = _offset(parts["zone"], chinese, naive if parts["h"] else 0)
        when = _build(parts, int(parts["mo"]), offset)
    elif match := _RFC822.match(text):
        parts = match.groupdict()
        month = _MONTHS.get(parts["mon"][:3].lower())
        if month is None:
            raise Unreadable(f"no month named {parts['mon']!r}")
        when = _build(parts, month, _offset(parts["zone"], chinese, naive if parts["h"] else 0))
    elif _HAN.search(text):
        raise Unreadable("a Chinese date in a form not known")
    elif (fallback := fallback() if callable(fallback) else fallback) is not None:
        zone = _ZONE_WORD.search(text)
        if zone and zone.group().upper() not in _ZONES and not _MONTHS.get(zone.group()[:3]):
            raise Unreadable(f"the zone {zone.group()!r} is unknown or ambiguous")
        if str(fallback.tm_year) not in text:
            raise Unreadable("a form not known")
        when = _dt.datetime(*fallback[:6], tzinfo=UTC)
    else:
        raise Unreadable("a form not known")
    if when < EARLIEST:
        raise Unreadable("before 1970 (a missing date)")
    if when > now + FUTURE_SLACK:
        raise Unreadable("in the future")
    return when

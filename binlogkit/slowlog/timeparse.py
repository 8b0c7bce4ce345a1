"""Slow-log timestamps to exact UTC instants (integer microseconds since the epoch).

Formats:

* ``YYMMDD H:MM:SS[.frac]`` (MySQL <= 5.6, Percona 5.x, MariaDB): server-local,
  no zone.  Fractions are kept (pt's slow056 has ten digits).
* ``YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM)`` (MySQL 5.7+): exact; without a
  suffix it is server-local.

Server-local wall times go through :func:`local_to_epoch`, the single place
that knows about zone tables, so the project's ``binlogkit.tz`` can replace
zoneinfo without touching the parser.
"""

from __future__ import annotations

import calendar
import datetime
import re
import time

__all__ = ["ServerZone", "parse_time_value", "frac_us"]

_OLD = re.compile(rb"(\d\d)(\d\d)(\d\d)\s+(\d{1,2}):(\d\d):(\d\d)(\.\d+)?")
_ISO = re.compile(
    rb"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:?\d\d)?")


class ServerZone:
    """Converts server-local wall-clock times to epoch seconds.

    ``name`` is an IANA zone (``Europe/Berlin``), a fixed offset
    (``+02:00``), ``UTC``, or None for this machine's local zone (glibc
    ``mktime`` semantics; an ambiguous time maps to its first occurrence).
    """

    def __init__(self, name: str | None = None):
        self.name = name
        self._convert = _make_converter(name)

    def to_epoch(self, y, mo, d, h, mi, s) -> int:
        return self._convert(y, mo, d, h, mi, s)


def _make_converter(name):
    """The switch point for zone tables: local -> glibc mktime, names -> zoneinfo,
    POSIX TZ strings zoneinfo cannot read -> binlogkit.tz when present."""
    if name is None:
        return lambda y, mo, d, h, mi, s: int(time.mktime((y, mo, d, h, mi, s, 0, 0, -1)))
    m = re.fullmatch(r"([+-])(\d\d):?(\d\d)", name)
    if m or name.upper() in ("UTC", "Z", "GMT"):
        off = 0
        if m:
            off = (int(m.group(2)) * 3600 + int(m.group(3)) * 60) * (1 if m.group(1) == "+" else -1)
        return lambda y, mo, d, h, mi, s: calendar.timegm((y, mo, d, h, mi, s)) - off
    try:
        return _zoneinfo_converter(name)
    except ValueError:
        if not re.search(r"\d", name):      # not a POSIX TZ string either
            raise
        table = _project_zone_table(name)
        if table is None:
            raise
        return table.mktime_first


def _project_zone_table(name):
    """binlogkit.tz.ZoneTable for POSIX TZ strings, when that module exists."""
    try:
        from binlogkit.tz import ZoneTable  # noqa: PLC0415
        return ZoneTable.from_tz(name)
    except Exception:  # module absent or zone unreadable
        return None


def _zoneinfo_converter(name):
    import datetime
    import zoneinfo
    try:
        zone = zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"unknown time zone {name!r}") from None

    def convert(y, mo, d, h, mi, s):
        dt = datetime.datetime(y, mo, d, h, mi, s, tzinfo=zone, fold=0)
        return int(dt.timestamp())
    return convert


def parse_time_value(value: bytes, zone: ServerZone):
    """Epoch microseconds (int) for a ``# Time:``/``Start:`` value, or None."""
    m = _ISO.match(value)
    if m:
        y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
        suffix = m.group(8)
        if not (1 <= mo <= 12 and 1 <= d <= 31 and h <= 23 and mi <= 59 and s <= 60):
            return None
        if suffix is None:
            base = _local(zone, y, mo, d, h, mi, s)
        else:
            try:
                base = calendar.timegm((y, mo, d, h, mi, s)) - _offset(suffix)
            except ValueError:
                return None
    else:
        m = _OLD.match(value)
        if not m:
            return None
        yy, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
        base = _local(zone, 2000 + yy, mo, d, h, mi, s)
    return None if base is None else in_range(base * 1_000_000 + _frac(m.group(7)))


# The instants binlogkit keeps (pandas' nanosecond range, whole years): an absurd
# `# Time` or `SET timestamp` is an unreadable time, not an overflow later on.
MIN_US = -9_214_560_000_000_000       # 1678-01-01T00:00:00Z
MAX_US = 9_214_646_400_000_000        # 2262-01-01T00:00:00Z


def in_range(us):
    """`us` when binlogkit can hold it as an instant, else None."""
    return us if MIN_US <= us < MAX_US else None


def _local(zone, y, mo, d, h, mi, s):
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h <= 23 and mi <= 59 and s <= 60):
        return None
    try:
        return zone.to_epoch(y, mo, d, h, mi, s)
    except (ValueError, OverflowError):
        return None


def _offset(suffix: bytes) -> int:
    if suffix == b"Z":
        return 0
    sign = 1 if suffix[:1] == b"+" else -1
    digits = suffix[1:].replace(b":", b"")
    return sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)


def _frac(frac) -> int:
    """Fraction of a second in microseconds (extra digits are truncated)."""
    if not frac:
        return 0
    return frac_us(frac[1:])


def frac_us(digits: bytes) -> int:
    """The digits after the decimal point as microseconds (truncated)."""
    return int((digits + b"000000")[:6])


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def iso_utc(us):
    """Integer epoch microseconds as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (None stays None)."""
    if us is None:
        return None
    try:
        dt = _EPOCH + datetime.timedelta(microseconds=us)
    except OverflowError:
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

"""One time base for a slow log: the server's UTC offset from its own lines.

Zone-less ``# Time`` values (MariaDB, MySQL <= 5.6, Percona 5.x) are the
server's wall clock; ``SET timestamp=N`` in the same entry is an epoch (UTC)
of the statement start (``thd->start_time``).  So each ``# Time`` line that
comes with a ``SET timestamp`` gives the offset in force at that instant:

* MariaDB writes the statement *start* in ``# Time`` (the same second as
  ``SET timestamp``): wall - stamp is the offset, exactly.
* MySQL writes the logging instant (the *end*): wall - stamp is the offset
  plus the statement's duration, up to a second either way for truncation.

UTC offsets are multiples of 15 minutes within [-12 h, +14 h]; a pair that
gives no such offset (a client's ``SET TIMESTAMP=0`` under MySQL, whose
``# Time`` stays the real time) teaches nothing.  Every ``# Time`` line
re-derives the offset, so a log across a DST change stays exact.  Where no
pair gives an offset the configured zone (``--server-tz``) is used, else the
last derived offset, else this machine's zone, which is counted as an
assumption (the flag ``ParseStats.zone_assumed``) so the caller can warn once.
"""
from __future__ import annotations

import calendar
import re

__all__ = ["LogClock", "derive_offset", "format_offset", "GRID_S"]

GRID_S = 900                          # every UTC offset in use is a multiple of 15 min
MIN_OFFSET_S, MAX_OFFSET_S = -12 * 3600, 14 * 3600
SLACK_S = 1.5                         # whole-second truncation of both values

_ZONELESS = re.compile(
    rb"(?:(\d\d)(\d\d)(\d\d)\s+(\d{1,2})|(\d{4})-(\d\d)-(\d\d)[T ](\d\d))"
    rb":(\d\d):(\d\d)(?:\.\d+)?\Z")


def wall_seconds(raw: bytes):
    """A zone-less time value as seconds of its wall clock read as UTC; None
    when it carries a zone or cannot be read."""
    m = _ZONELESS.match(raw)
    if not m:
        return None
    g = m.groups()
    if g[0] is not None:
        y, mo, d, h = 2000 + int(g[0]), int(g[1]), int(g[2]), int(g[3])
    else:
        y, mo, d, h = int(g[4]), int(g[5]), int(g[6]), int(g[7])
    mi, s = int(g[8]), int(g[9])
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h <= 23 and mi <= 59 and s <= 60):
        return None
    try:
        return calendar.timegm((y, mo, d, h, mi, s))
    except (ValueError, OverflowError):
        return None


def derive_offset(wall_s: int, stamp_s: int, query_time: float, time_is_start: bool):
    """The UTC offset (s) a ``# Time`` wall clock and its entry's ``SET timestamp``
    imply, or None.  ``time_is_start``: MariaDB's ``# Time``; else it is the end
    (MySQL), ``query_time`` after the start, when the stamp is the start, or
    the same instant in old servers that stamp the logging time."""
    diff = wall_s - stamp_s
    late = 0.0 if time_is_start else max(query_time or 0.0, 0.0)
    for guess in (diff, diff - late):
        grid = round(guess / GRID_S) * GRID_S
        if -SLACK_S <= diff - grid <= late + SLACK_S and MIN_OFFSET_S <= grid <= MAX_OFFSET_S:
            return grid
    return None


def format_offset(seconds: int) -> str:
    sign = "+" if seconds >= 0 else "-"
    m = abs(int(seconds)) // 60
    return f"{sign}{m // 60:02d}:{m % 60:02d}"


class _OffsetZone:
    """A ServerZone look-alike: wall clock minus the derived offset, or the
    fallback zone while none is known."""

    __slots__ = ("clock",)

    def __init__(self, clock):
        self.clock = clock

    @property
    def name(self):
        return self.clock.fallback.name

    def to_epoch(self, y, mo, d, h, mi, s):
        clock = self.clock
        if not clock.learned:
            clock.used_unlearned = True
        if clock.offset is not None:
            return calendar.timegm((y, mo, d, h, mi, s)) - clock.offset
        if not clock.explicit:
            clock.stats.zone_assumed = 1
        return clock.fallback.to_epoch(y, mo, d, h, mi, s)


class LogClock:
    """The offset in force while a log is read (see the module doc).

    ``fallback``: a ServerZone (``--server-tz``, or this machine's zone when
    ``explicit`` is False).  ``zone`` converts zone-less values for
    :func:`~binlogkit.slowlog.timeparse.parse_time_value`.  ``learn`` is
    called with each ``# Time`` line's value before it is converted; it
    returns True when the offset changed (cached conversions are then stale).
    """

    __slots__ = ("fallback", "explicit", "offset", "stats", "zone", "_seen", "learned",
                 "used_unlearned")

    def __init__(self, fallback, stats):
        self.fallback = fallback
        self.explicit = fallback.name is not None
        self.offset = None
        self.stats = stats
        self.zone = _OffsetZone(self)
        self._seen = set()
        # learned: an offset was derived here; used_unlearned: a zone-less value was
        # converted before that (with the offset this clock began with, or none)
        self.learned = self.used_unlearned = False

    def learn(self, raw, stamp, query_time, time_is_start) -> bool:
        if stamp is None:
            return False
        wall = wall_seconds(raw)
        if wall is None:
            return False
        try:
            stamp_s = int(stamp.split(b".")[0])
        except ValueError:
            return False
        got = derive_offset(wall, stamp_s, query_time, time_is_start)
        if got is None:
            return False
        self.learned = True
        if got == self.offset:
            return False
        self.offset = got
        if got not in self._seen:
            self._seen.add(got)
            self.stats.utc_offsets += (got,)
            if self.explicit and not self._agrees(wall, got):
                self.stats.zone_overridden = 1
        return True

    def _agrees(self, wall, offset) -> bool:
        """Does the configured zone give ``offset`` at this wall time?"""
        import time as _time
        y, mo, d, h, mi, s = _time.gmtime(wall)[:6]
        try:
            return self.fallback.to_epoch(y, mo, d, h, mi, s) == wall - offset
        except (ValueError, OverflowError):
            return False


def describe_zone(stats, server_tz=None) -> str:
    """What the times of a log were read in, for reports and frames."""
    offsets = sorted(set(stats.utc_offsets))
    if not stats.entries:
        return "no time read (no entry)"
    if offsets:
        return "UTC" + "/".join(format_offset(o) for o in offsets) + " (from SET timestamp)"
    if server_tz:
        return f"{server_tz} (--server-tz)"
    return "this machine's zone (assumed)" if stats.zone_assumed else "UTC (times carry a zone)"


def zone_warnings(stats, server_tz=None, machine_zone=None) -> list:
    """One line per assumption or override, for the CLIs' stderr and the report's notes."""
    out = []
    if stats.zone_assumed:
        where = machine_zone or _machine_zone()
        out.append("zone-less slow-log times could not be tied to a SET timestamp; read as "
                   f"this machine's local time ({where}); pass --server-tz if the server ran "
                   "in another zone")
    if stats.zone_overridden and server_tz:
        got = ", ".join(format_offset(o) for o in sorted(set(stats.utc_offsets)))
        out.append(f"--server-tz {server_tz} disagrees with the slow log's SET timestamp "
                   f"values (server offset UTC{got}); the log's own offset was used")
    return out


def _machine_zone() -> str:
    import time as _time
    off = -_time.altzone if _time.daylight and _time.localtime().tm_isdst > 0 else -_time.timezone
    return f"{_time.tzname[0]}, UTC{format_offset(off)}"


class ZoneWarning(UserWarning):
    """A slow log's zone-less times were read in an assumed or overridden zone."""


def warn_zone(stats, server_tz=None, stacklevel=3) -> None:
    """Issue :func:`zone_warnings` as ZoneWarning (frames, export)."""
    import warnings
    for line in zone_warnings(stats, server_tz):
        warnings.warn(line, ZoneWarning, stacklevel=stacklevel)

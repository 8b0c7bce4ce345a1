"""Zone table: glibc-identical ``localtime()`` loaded once per run.

mysqlbinlog/mariadb-binlog call ``localtime()`` for every event they print.
binlogkit instead loads the zone once (``ZoneTable.from_tz`` /
``ZoneTable.from_env``) into a sorted table of transitions and answers every
later conversion with a bisect: no syscalls and no file access after load.

Results are those of glibc's ``localtime()`` under the same ``TZ`` (checked
against glibc 2.36 in tests/test_tz.py), including glibc's quirks:

* ``TZ`` unset -> ``/etc/localtime``; missing -> UTC named "UTC".
  ``TZ=""`` -> the file ``Universal``; a leading ``:`` is stripped;
  ``TZ=":"`` -> UTC.  Relative names are looked up under ``$TZDIR`` or
  ``/usr/share/zoneinfo``; absolute paths are used as they are.
* No such file (or a directory) -> the value is parsed as a POSIX TZ string
  (see posixtz.py).  A DST zone without rules takes its transitions from the
  ``posixrules`` file, shifted the way glibc's ``__tzfile_default`` does it,
  or, without that file, the default ``M3.2.0,M11.1.0``.
* binlogkit addition: a relative name with no system file is loaded from
  pytz's bundled TZif data (``pytz.open_resource``) before trying POSIX.
* TZif v1/v2/v3; the 64-bit section when the version byte is non-zero.
  Before the first transition glibc uses the first non-DST type; at and after
  the last transition it uses the footer TZ string when there is one.  Leap
  second records ("right/" zones) are applied like glibc does.
* A file that exists but is not valid TZif raises ``ValueError`` (glibc
  would silently treat the name as a POSIX string; pass ``strict=False``
  for that behaviour).
"""
from __future__ import annotations

import os
import time
from struct import Struct

from binlogkit._record import tuple_record

from binlogkit.posixtz import (SECSPERDAY, PosixTZ, ZoneInfo, civil_from_days,
                               days_from_civil, utc_year)

__all__ = ["LocalTime", "ZoneTable", "ZoneInfo", "parse_tzif"]

DEFAULT_TZDIR = "/usr/share/zoneinfo"
TZDEFAULT = "/etc/localtime"
TZDEFRULES = "posixrules"
HORIZON_YEAR = 2250          # footer rules are tabulated up to this year
_NEG_INF = -(1 << 63)
_CACHE_MAX = 1 << 17         # entries kept per formatting cache before reset

_HEADER = Struct(">4sc15x6l")      # magic, version, 6 counts
_TTINFO = Struct(">lBB")           # utoff, isdst, desigidx
_LEAP32 = Struct(">ll")
_LEAP64 = Struct(">ql")
_UTC = ZoneInfo(0, 0, "UTC")


def bisect_right(a, x):
    """bisect.bisect_right, imported when first needed (a .so: start-up of `print`
    counts, and most runs only ever look up one segment of the table)."""
    global bisect_right
    from bisect import bisect_right as found
    bisect_right = found
    return found(a, x)


_LOCAL_TIME_FIELDS = "year month day hour minute second wday yday isdst gmtoff abbrev"


class LocalTime(tuple_record("LocalTime", _LOCAL_TIME_FIELDS)):
    """A broken-down local time, as glibc's ``struct tm`` holds it.

    ``year`` is the full year and ``month`` is 1-12 (struct tm + 1900 / + 1);
    ``day`` 1-31, ``hour``/``minute``/``second`` as in struct tm (second may
    be 60 in "right/" zones); ``wday`` 0=Sunday..6 and ``yday`` 0-365 exactly
    as struct tm; ``gmtoff`` seconds east of UTC; ``abbrev`` is tm_zone.
    """

    __slots__ = ()


# ---------------------------------------------------------------- calendar
_DAYS: dict = {}       # day number -> (year, month, day, wday, yday)
_DAY_TEXT: dict = {}   # day number -> "YYMMDD " header prefix
_TOD: dict = {}        # second of day -> "HH:MM:SS" with a space-padded hour


def _civil(days: int) -> tuple:
    """(year, month, day, wday, yday) of a day number, memoised."""
    r = _DAYS.get(days)
    if r is None:
        y, m, d = civil_from_days(days)
        r = (y, m, d, (days + 4) % 7, days - days_from_civil(y, 1, 1))
        if len(_DAYS) >= _CACHE_MAX:
            _DAYS.clear()
        _DAYS[days] = r
    return r


def _day_text(days: int) -> str:
    """The ``YYMMDD `` part of a mysqlbinlog header for a local day."""
    s = _DAY_TEXT.get(days)
    if s is None:
        y, m, d = _civil(days)[:3]
        s = "%02d%02d%02d " % (y % 100, m, d)
        if len(_DAY_TEXT) >= _CACHE_MAX:
            _DAY_TEXT.clear()
        _DAY_TEXT[days] = s
    return s


# ---------------------------------------------------------------- TZif
class TZif(tuple_record("TZif", "transitions indexes types isstd isut leaps footer")):
    """The parts of a TZif file glibc uses."""

    # transitions: UTC instants, ascending
    # indexes: type index per transition
    # types: ZoneInfo per type
    # isstd: bool per type
    # isut: bool per type
    # leaps: [(instant, total correction)]

    __slots__ = ()


def _ints(data: bytes, pos: int, count: int, width: int) -> list:
    """``count`` big-endian signed integers of ``width`` bytes at pos."""
    return list(Struct(">%d%s" % (count, "q" if width == 8 else "l")).unpack_from(data, pos))


def _header(data: bytes, pos: int, where: str) -> tuple:
    if len(data) < pos + _HEADER.size:
        raise ValueError(f"{where}: truncated TZif header")
    magic, version, *counts = _HEADER.unpack_from(data, pos)
    if magic != b"TZif":
        raise ValueError(f"{where}: not a TZif file (bad magic {magic!r})")
    if min(counts) < 0:
        raise ValueError(f"{where}: negative count in TZif header")
    return version, counts


def _block_size(counts, width: int) -> int:
    isut, isstd, leap, timecnt, typecnt, charcnt = counts
    return (timecnt * (width + 1) + typecnt * 6 + charcnt
            + leap * (width + 4) + isstd + isut)


def parse_tzif(data: bytes, where: str = "TZif data") -> TZif:
    """Parse TZif bytes; raise ValueError naming ``where`` when malformed."""
    version, counts = _header(data, 0, where)
    pos, width = _HEADER.size, 4
    if version != b"\0":
        pos += _block_size(counts, 4)
        version, counts = _header(data, pos, where)
        pos, width = pos + _HEADER.size, 8
    isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt = counts
    end = pos + _block_size(counts, width)
    if len(data) < end:
        raise ValueError(f"{where}: truncated TZif data")
    if typecnt == 0:
        raise ValueError(f"{where}: TZif file has no local time types")
    trans = _ints(data, pos, timecnt, width)
    pos += timecnt * width
    idxs = list(data[pos:pos + timecnt])
    pos += timecnt
    raw = list(_TTINFO.iter_unpack(data[pos:pos + typecnt * 6]))
    pos += typecnt * 6
    chars = data[pos:pos + charcnt] + b"\0"
    pos += charcnt
    leap_struct = _LEAP64 if width == 8 else _LEAP32
    leaps = list(leap_struct.iter_unpack(data[pos:pos + leapcnt * leap_struct.size]))
    pos += leapcnt * leap_struct.size
    isstd = [b != 0 for b in data[pos:pos + isstdcnt]] + [False] * typecnt
    pos += isstdcnt
    isut = [b != 0 for b in data[pos:pos + isutcnt]] + [False] * typecnt
    pos += isutcnt
    _check(where, trans, idxs, raw, charcnt)
    types = [ZoneInfo(off, dst, _cstr(chars, ci)) for off, dst, ci in raw]
    footer = _footer(data, pos) if width == 8 else None
    return TZif(trans, idxs, types, isstd[:typecnt], isut[:typecnt], leaps, footer)


def _check(where: str, trans, idxs, raw, charcnt: int) -> None:
    """glibc's sanity checks (plus ascending transitions, which bisect needs)."""
    if any(i >= len(raw) for i in idxs):
        raise ValueError(f"{where}: transition refers to a missing type")
    for _, isdst, ci in raw:
        if isdst > 1 or ci > charcnt:
            raise ValueError(f"{where}: bad local time type record")
    if any(a > b for a, b in zip(trans, trans[1:])):
        raise ValueError(f"{where}: transition times are not ascending")


def _cstr(buf: bytes, start: int) -> str:
    return buf[start:buf.index(b"\0", start)].decode("ascii", "replace")


def _footer(data: bytes, pos: int) -> str | None:
    """The footer TZ string as glibc reads it (None when absent or empty)."""
    if data[pos:pos + 1] != b"\n":
        return None
    text = data[pos + 1:len(data) - 1].split(b"\0", 1)[0]
    return text.decode("ascii", "replace") or None


# ---------------------------------------------------------------- loading
def _read_file(path: str) -> bytes | None:
    """The file's bytes, or None when it does not exist / is a directory."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError,
            PermissionError):
        return None


def _pytz_data(name: str) -> bytes | None:
    """TZif bytes bundled with pytz for ``name``, or None."""
    try:
        import pytz
        with pytz.open_resource(name) as f:
            return f.read()
    except Exception:  # noqa: BLE001 - unknown/invalid names, missing pytz
        return None


def _rule_offsets(tzif: TZif) -> tuple:
    """glibc's rule_stdoff/rule_dstoff: offsets of the latest std/DST types."""
    if not tzif.transitions:
        return tzif.types[0].gmtoff, tzif.types[0].gmtoff
    std = dst = None
    for k in reversed(tzif.indexes):
        ty = tzif.types[k]
        if ty.isdst and dst is None:
            dst = ty.gmtoff
        elif not ty.isdst and std is None:
            std = ty.gmtoff
        if std is not None and dst is not None:
            break
    std = 0 if std is None else std
    return std, std if dst is None else dst


def _with_posixrules(rules: TZif, ptz: PosixTZ) -> TZif:
    """glibc's ``__tzfile_default``: posixrules transitions for the user's zone."""
    # Verified against fresh glibc 2.36 processes (TZ=AAA3BBB, XYZ5ABC,
    # AAA-1BBB, AAA5BBB3 over 1901-2106): DST->std transitions move by the
    # user's DST offset alone, std->DST ones by stdoff - rule_stdoff.
    rule_std = _rule_offsets(rules)[0]
    std, dst = ptz.std.offset, ptz.dst.offset
    trans, isdst = [], False
    for t, k in zip(rules.transitions, rules.indexes):
        if rules.isut[k]:
            pass
        elif isdst and not rules.isstd[k]:
            t += dst  # glibc 2.36 acts as if rule_dstoff were 0 here
        else:
            t += std - rule_std
        trans.append(t)
        isdst = bool(rules.types[k].isdst)
    types = [ZoneInfo(std, 0, ptz.std.name), ZoneInfo(dst, 1, ptz.dst.name)]
    idxs = [rules.types[k].isdst for k in rules.indexes]
    return rules._replace(transitions=trans, indexes=idxs, types=types,
                          isstd=[False, False], isut=[False, False])


# ---------------------------------------------------------------- the table
class _HeaderCache(dict):
    """instant -> header text; a miss formats and stores (bounded)."""

    __slots__ = ("_make",)

    def __init__(self, make):
        super().__init__()
        self._make = make

    def __missing__(self, t):
        if len(self) >= _CACHE_MAX:
            self.clear()
        s = self[t] = self._make(t)
        return s


class ZoneTable:
    """A time zone loaded once; converts instants without touching files.

    Build with :meth:`from_tz` or :meth:`from_env`.  ``localtime``,
    ``format_header`` and ``format_micros`` then run purely in memory.
    """

    def __init__(self, starts: list, infos: list, *, name: str = "UTC",
                 source: str = "builtin", tail: PosixTZ | None = None,
                 lo=float("-inf"), hi=float("inf"), leaps=()):
        self.name = name
        self.source = source
        self._starts = starts
        self._infos = infos
        self._tail = tail
        self._lo, self._hi = lo, hi
        self._leap_at = [t for t, _ in leaps]
        self._leap_corr = [c for _, c in leaps]
        self._seg_lo, self._seg_hi, self._seg_off = 0, 0, 0   # empty segment
        self._header_cache = _HeaderCache(self._header_text)
        # Instance attribute shadowing the documented method: a C-level dict
        # lookup on a hit, ``__missing__`` on a miss.
        self.format_header = self._header_cache.__getitem__

    def __repr__(self) -> str:
        return f"ZoneTable({self.name!r}, source={self.source!r})"

    # -- construction ---------------------------------------------------------
    @classmethod
    def from_env(cls, *, strict: bool = True) -> "ZoneTable":
        """The zone glibc would use for this process's ``TZ`` variable."""
        return cls.from_tz(os.environ.get("TZ"), strict=strict)

    @classmethod
    def from_tz(cls, value: str | None, *, tzdir: str | None = None,
                strict: bool = True) -> "ZoneTable":
        """Load the zone a ``TZ`` value names, with glibc's lookup rules.

        ``value`` is what the TZ variable holds (None = unset).  ``tzdir``
        defaults to ``$TZDIR`` or /usr/share/zoneinfo.  Raises ValueError
        for an existing zone file that is not valid TZif (unless
        ``strict=False``, which then behaves like glibc).
        """
        tzdir = tzdir or os.environ.get("TZDIR") or DEFAULT_TZDIR
        name = TZDEFAULT if value is None else (value or "Universal")
        if name.startswith(":"):
            name = name[1:]
        label = name if value is not None else "(TZ unset)"
        if name:
            path = name if name.startswith("/") else f"{tzdir}/{name}"
            data = _read_file(path)
            if data is not None:
                try:
                    return cls.from_tzif(parse_tzif(data, path), name=label, source=path)
                except ValueError:
                    if strict:
                        raise
            elif not name.startswith("/"):
                data = _pytz_data(name)
                if data is not None:
                    return cls.from_tzif(parse_tzif(data, f"pytz:{name}"),
                                         name=label, source=f"pytz:{name}")
        if not name or name == TZDEFAULT:
            return cls([_NEG_INF], [_UTC], name=label, source="builtin UTC")
        return cls.from_posix(name, tzdir=tzdir)

    @classmethod
    def from_tzif(cls, tzif: TZif, *, name: str = "", source: str = "",
                  ) -> "ZoneTable":
        """Tabulate parsed TZif data the way glibc's __tzfile_compute reads it."""
        types, trans = tzif.types, tzif.transitions
        pre = next((ty for ty in types if not ty.isdst), types[0])
        pairs = [(_NEG_INF, pre)]
        tail, hi = None, float("inf")
        ptz = PosixTZ(tzif.footer) if tzif.footer and trans else None
        body = trans[:-1] if ptz else trans
        pairs += [(t, types[k]) for t, k in zip(body, tzif.indexes)]
        if ptz:
            last = trans[-1]
            pairs += ptz.segments(last, utc_year(last), HORIZON_YEAR)
            tail, hi = ptz, days_from_civil(HORIZON_YEAR + 1, 1, 1) * SECSPERDAY
            hi = max(hi, last + 1)
        starts, infos = _merge(pairs)
        return cls(starts, infos, name=name, source=source, tail=tail, hi=hi,
                   leaps=tzif.leaps)

    @classmethod
    def from_posix(cls, text: str, *, tzdir: str | None = None) -> "ZoneTable":
        """Tabulate a POSIX TZ string (glibc semantics, see posixtz.py)."""
        ptz = PosixTZ(text)
        if ptz.needs_default_rules:
            tzdir = tzdir or os.environ.get("TZDIR") or DEFAULT_TZDIR
            data = _read_file(f"{tzdir}/{TZDEFRULES}")
            try:
                rules = parse_tzif(data) if data is not None else None
            except ValueError:
                rules = None
            if rules is not None and len(rules.types) >= 2:
                table = cls.from_tzif(_with_posixrules(rules, ptz), name=text,
                                      source=f"posix+{tzdir}/{TZDEFRULES}")
                return table
        if not ptz.has_dst:
            info = ZoneInfo(ptz.std.offset, 0, ptz.std.name)
            return cls([_NEG_INF], [info], name=text, source="posix")
        lo = days_from_civil(1900, 1, 1) * SECSPERDAY
        hi = days_from_civil(HORIZON_YEAR + 1, 1, 1) * SECSPERDAY
        starts, infos = _merge([(_NEG_INF, ptz.info_at(lo - 1))]
                               + ptz.segments(lo, 1900, HORIZON_YEAR))
        return cls(starts, infos, name=text, source="posix", tail=ptz, lo=lo, hi=hi)

    # -- conversion -------------------------------------------------------------
    def info(self, t: int) -> ZoneInfo:
        """(gmtoff, isdst, abbrev) in effect at instant t."""
        if self._lo <= t < self._hi:
            return self._infos[self._segment(t)]
        return self._tail.info_at(t)

    def _leap(self, t: int) -> tuple:
        """glibc's leap correction and extra seconds for instant t."""
        i = bisect_right(self._leap_at, t) - 1
        if i < 0:
            return 0, 0
        corr, at = self._leap_corr, self._leap_at
        extra = 0
        if t == at[i] and corr[i] > (corr[i - 1] if i else 0):
            extra = 1
            while i > 0 and at[i] == at[i - 1] + 1 and corr[i] == corr[i - 1] + 1:
                extra += 1
                i -= 1
        return corr[bisect_right(self._leap_at, t) - 1], extra

    def localtime(self, t: int) -> LocalTime:
        """glibc ``localtime(t)`` as a LocalTime (see its field conventions)."""
        if self._lo <= t < self._hi:
            info = self._infos[self._segment(t)]
        else:
            info = self._tail.info_at(t)
        local, extra = t + info.gmtoff, 0
        if self._leap_at:
            corr, extra = self._leap(t)
            local -= corr
        days, secs = divmod(local, SECSPERDAY)
        y, mo, d, wday, yday = _civil(days)
        h, rem = divmod(secs, 3600)
        mi, s = divmod(rem, 60)
        return LocalTime(y, mo, d, h, mi, s + extra, wday, yday,
                         info.isdst, info.gmtoff, info.abbrev)

    def format_header(self, t: int) -> str:  # replaced per instance in __init__
        """mysqlbinlog's event header time, e.g. ``211126  7:05:09``.

        ``"%02d%02d%02d %2d:%02d:%02d"`` of (year % 100, month, day, hour,
        minute, second).  Cached per instant (consecutive events share it).
        """
        return self._header_cache[t]

    def _header_text(self, t: int) -> str:
        """Uncached header text (the cache-miss path)."""
        if self._leap_at:
            lt = self.localtime(t)
            return "%02d%02d%02d %2d:%02d:%02d" % (
                lt.year % 100, lt.month, lt.day, lt.hour, lt.minute, lt.second)
        if self._seg_lo <= t < self._seg_hi:
            off = self._seg_off
        else:
            off = self._locate(t)
        days, secs = divmod(t + off, SECSPERDAY)
        s = _TOD.get(secs)
        if s is None:
            h, rem = divmod(secs, 3600)
            s = _TOD[secs] = "%2d:%02d:%02d" % (h, *divmod(rem, 60))
        d = _DAY_TEXT.get(days)
        return (d or _day_text(days)) + s

    def _segment(self, t: int) -> int:
        """The index of the table segment holding t (lo <= t < hi)."""
        starts = self._starts
        return bisect_right(starts, t) - 1 if len(starts) > 1 else 0     # one segment: UTC, GMT-3

    def _locate(self, t: int) -> int:
        """Offset at t; remembers the enclosing table segment for next time."""
        if self._lo <= t < self._hi:
            i = self._segment(t)
            self._seg_lo = max(self._starts[i], self._lo)
            self._seg_hi = (self._starts[i + 1] if i + 1 < len(self._starts)
                            else self._hi)
            self._seg_off = self._infos[i].gmtoff
            return self._seg_off
        return self._tail.info_at(t).gmtoff

    # -- local time -> instant (mariadb-binlog --start/--stop-datetime) ------
    def mktime_first(self, year: int, month: int, day: int, hour: int,
                     minute: int, second: int, *, now: int | None = None,
                     clamp: bool = True) -> int:
        """The instant mariadb-binlog 10.11 uses for a ``--start-datetime``.

        Reproduces the results of MariaDB's ``my_system_gmt_sec()``
        (sql-common/my_time.c, called by client/mysqlbinlog.cc
        ``convert_str_to_timestamp``), whose first guess comes from the UTC
        offset at program start (``my_init_time()``; pass ``now`` to fix it).
        Quirk: my_init_time() leaves ``my_time_zone = 7200 - off_now`` (3600
        when the offset is 0), so the first guess for wall time L is
        ``L - off_now + 3600`` and then at most two localtime() corrections
        follow (my_time.c, my_system_gmt_sec, the ``for (loop=0; loop < 2``
        loop).  Consequences, checked in tests/test_tz.py:

        * repeated hour (DST fall-back): the guess lands in or after the
          second pass, so the LATER (standard time) occurrence is returned,
          e.g. New York 2023-11-05 01:30 -> 06:30 UTC;
        * skipped hour (DST gap): after two corrections, if the hour is still
          off by exactly one hour the result snaps to the start of the next
          real hour (``tmp += 3600 - min*60 - sec`` or ``tmp -= min*60 +
          sec``), e.g. New York 2023-03-12 02:30 -> 03:00 EDT; gaps that are
          not one hour (Lord Howe's 30 minutes) keep the corrected guess,
          e.g. 2023-10-01 02:15 -> 02:45 (+11).

        With ``clamp`` (the tool's behaviour) dates outside 1969-12-31 ..
        2038-01-19 and results outside 1 .. 2**31-1 give 0, which makes
        mariadb-binlog ignore the bound.  Invalid fields raise ValueError.
        """
        _check_fields(year, month, day, hour, minute, second)
        if now is None:
            now = int(time.time())
        lt = self.localtime(now)
        zone = self._gmt_sec(lt.year, lt.month, lt.day, lt.hour, lt.minute,
                             lt.second, 3600, True)[1]
        return self._gmt_sec(year, month, day, hour, minute, second, zone, clamp)[0]

    def _gmt_sec(self, year, month, day, hour, minute, second, zone, clamp):
        """(instant, updated zone guess) following my_system_gmt_sec()."""
        if clamp and not _in_timestamp_range(year, month, day):
            return 0, zone
        shift = 0
        if year == 2038 and month == 1 and day > 4:
            day, shift = day - 2, 2          # its 32-bit overflow dodge
        tmp = (days_from_civil(year, month, day) * SECSPERDAY + hour * 3600
               + minute * 60 + second + zone - 3600)
        lt = self.localtime(tmp)
        loop = 0
        while loop < 2 and (hour, minute, second) != (lt.hour, lt.minute, lt.second):
            diff = _diff(day, hour, minute, second, lt)
            zone += diff + 3600
            tmp += diff
            lt = self.localtime(tmp)
            loop += 1
        if loop == 2 and hour != lt.hour:
            diff = _diff(day, hour, minute, second, lt)
            if diff == 3600:
                tmp += 3600 - minute * 60 - second
            elif diff == -3600:
                tmp -= minute * 60 + second
        tmp += shift * SECSPERDAY
        if clamp and not 1 <= tmp <= 0x7FFFFFFF:
            tmp = 0
        return tmp, zone

    def format_micros(self, us: int) -> str:
        """MySQL 8's commit-timestamp text: ``2023-11-25 10:41:17.579381 CST``."""
        secs, frac = divmod(us, 1_000_000)
        lt = self.localtime(secs)
        return "%d-%02d-%02d %02d:%02d:%02d.%06d %s" % (
            lt.year, lt.month, lt.day, lt.hour, lt.minute, lt.second, frac, lt.abbrev)


def _diff(day: int, hour: int, minute: int, second: int, lt: LocalTime) -> int:
    """Seconds from ``lt`` to the wanted wall time (day wrap as MariaDB does)."""
    days = day - lt.day
    if days < -1:
        days = 1            # month wrapped
    elif days > 1:
        days = -1
    return (3600 * (days * 24 + hour - lt.hour) + 60 * (minute - lt.minute)
            + second - lt.second)


def _in_timestamp_range(year: int, month: int, day: int) -> bool:
    """MariaDB's validate_timestamp_range() (TIMESTAMP years 1969..2038)."""
    if year > 2038 or year < 1969:
        return False
    if year == 2038 and (month > 1 or day > 19):
        return False
    return not (year == 1969 and (month < 12 or day < 31))


def _check_fields(year, month, day, hour, minute, second) -> None:
    """Reject what mariadb-binlog's str_to_datetime() would refuse."""
    if not 1 <= month <= 12:
        raise ValueError(f"month out of range: {month}")
    mlen = days_from_civil(year + (month == 12), month % 12 + 1, 1) - \
        days_from_civil(year, month, 1)
    if not 1 <= day <= mlen:
        raise ValueError(f"day out of range: {year:04d}-{month:02d}-{day:02d}")
    if not (0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59):
        raise ValueError(f"time out of range: {hour}:{minute}:{second}")


def _merge(pairs: list) -> tuple:
    """Split [(start, info)] into parallel lists, dropping repeated infos."""
    starts, infos = [], []
    for start, info in pairs:
        if infos and starts[-1] == start:
            infos[-1] = info
            if len(infos) > 1 and infos[-2] == info:
                starts.pop()
                infos.pop()
        elif not infos or infos[-1] != info:
            starts.append(start)
            infos.append(info)
    return starts, infos

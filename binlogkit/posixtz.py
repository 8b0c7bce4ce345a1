"""POSIX TZ strings ("EST5EDT,M3.2.0,M11.1.0") with glibc's semantics.

glibc's behaviour, reproduced here (own code; verified against glibc 2.36
with ``time.localtime`` after ``time.tzset``, see tests/test_tz.py):

* A name is >= 3 letters, or ``<...>`` holding >= 3 of ``[A-Za-z0-9+-]``.
  A bad standard name leaves an unnamed UTC zone (abbreviation "").
* The standard offset must start with ``+``, ``-`` or a digit, else the zone
  is UTC with the parsed name.  Numbers are read like ``sscanf("%hu")``
  (leading blanks and a sign accepted, 16-bit wrap); offsets clamp hours to
  24 and minutes/seconds to 59.  A missing DST offset is std + 1 h.
* A rule that fails to parse stays as zeroed ("day 0 at 00:00"), which gives
  odd but deterministic results; glibc does exactly that.
* DST without rules uses the ``posixrules`` file when the caller supplies it
  (tz.py does), else the built-in default ``M3.2.0,M11.1.0``, time 02:00.
* The rules are evaluated for the UTC year of the instant (as glibc's
  ``__tz_compute`` does), and years <= 1970 all use 1970-01-01 as their base.
"""
from __future__ import annotations

from binlogkit._record import tuple_record

SECSPERDAY = 86400
J0, J1, M = 0, 1, 2  # rule kinds: n (0-based day), Jn (1-based, no Feb 29), Mm.n.d
_CUM_DAYS = (
    (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365),
    (0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366),
)
_SPACE = " \t\n\v\f\r"
_ULONG = (1 << 64) - 1


class ZoneInfo(tuple_record("ZoneInfo", "gmtoff isdst abbrev")):
    """What one instant maps to: UTC offset (s east), DST flag, abbreviation."""

    __slots__ = ()


def is_leap(year: int) -> bool:
    """Gregorian leap year."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (d may overflow)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple:
    """(year, month, day) of a day number counted from 1970-01-01."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def utc_year(t: int) -> int:
    """The UTC calendar year of instant t."""
    return civil_from_days(t // SECSPERDAY)[0]


def _cdiv(a: int, b: int) -> int:
    """C integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _scan_hu(s: str, i: int):
    """Emulate one ``%hu`` conversion at s[i:]; return (value, end) or None."""
    n = len(s)
    while i < n and s[i] in _SPACE:
        i += 1
    neg = i < n and s[i] == "-"
    if i < n and s[i] in "+-":
        i += 1
    j = i
    while j < n and "0" <= s[j] <= "9":
        j += 1
    if j == i:
        return None
    v = int(s[i:j])
    v = _ULONG if v > _ULONG else ((-v) & _ULONG if neg else v)
    return v & 0xFFFF, j


def _scan_hms(s: str, i: int):
    """Emulate ``sscanf(s, "%hu%n:%hu%n:%hu%n")``: (values, consumed end)."""
    vals = []
    r = _scan_hu(s, i)
    while r is not None:
        vals.append(r[0])
        i = r[1]
        if len(vals) == 3 or i >= len(s) or s[i] != ":":
            break
        r = _scan_hu(s, i + 1)
    return vals, i


class Rule:
    """One change rule (std->DST is rule 0, DST->std is rule 1)."""

    __slots__ = ("name", "offset", "kind", "m", "n", "d", "secs")

    def __init__(self):
        self.name, self.offset = "", 0
        self.kind, self.m, self.n, self.d, self.secs = J0, 0, 0, 0, 0

    def change(self, year: int) -> int:
        """UTC instant of this rule's change in ``year`` (glibc compute_change)."""
        if year > 1970:
            t = ((year - 1970) * 365 + (year - 1) // 4 - 492
                 - ((year - 1) // 100 - 19) + ((year - 1) // 400 - 4)) * SECSPERDAY
        else:
            t = 0
        if self.kind == J1:
            t += (self.d - 1) * SECSPERDAY
            if self.d >= 60 and is_leap(year):
                t += SECSPERDAY
        elif self.kind == J0:
            t += self.d * SECSPERDAY
        else:
            t += self._mday(year) * SECSPERDAY
        return t - self.offset + self.secs

    def _mday(self, year: int) -> int:
        """Days from Jan 1 to the rule's day for an Mm.n.d rule."""
        cum = _CUM_DAYS[is_leap(year)]
        m = self.m
        before = cum[m - 1]
        m1 = (m + 9) % 12 + 1
        yy0 = year - 1 if m <= 2 else year
        yy1 = _cdiv(yy0, 100)
        yy2 = yy0 - 100 * yy1
        dow = ((26 * m1 - 2) // 10 + 1 + yy2 + _cdiv(yy2, 4) + _cdiv(yy1, 4) - 2 * yy1) % 7
        d = (self.d - dow) % 7
        mlen = cum[m] - before
        for _ in range(1, self.n):
            if d + 7 >= mlen:
                break
            d += 7
        return before + d


class PosixTZ:
    """A parsed POSIX TZ string; ``info_at`` is exact glibc ``__tz_compute``."""

    def __init__(self, text: str):
        self.text = text
        self.std, self.dst = Rule(), Rule()
        self.has_dst = False
        self.needs_default_rules = False
        self._cache = {}
        self._parse(text)

    # -- parsing (mirrors the order of glibc's __tzset_parse_tz) ------------
    def _parse(self, s: str) -> None:
        i = self._name(s, 0, self.std)
        if i is None:
            return
        i = self._offset(s, i, self.std, first=True)
        if i is None:
            return
        if i >= len(s):
            self.dst.name, self.dst.offset = self.std.name, self.std.offset
            return
        self.has_dst = True
        j = self._name(s, i, self.dst)
        if j is not None:
            i = self._offset(s, j, self.dst, first=False, base=self.std.offset)
            if i >= len(s) or s[i:] == ",":
                self.needs_default_rules = True
        i = self._rule(s, i, self.std)
        if i is not None:
            self._rule(s, i, self.dst)

    @staticmethod
    def _name(s: str, i: int, rule: Rule) -> int | None:
        j = i
        while j < len(s) and s[j].isascii() and s[j].isalpha():
            j += 1
        if j - i >= 3:
            rule.name = s[i:j]
            return j
        if i >= len(s) or s[i] != "<":
            return None
        j = i + 1
        while j < len(s) and s[j].isascii() and (s[j].isalnum() or s[j] in "+-"):
            j += 1
        if j >= len(s) or s[j] != ">" or j - i - 1 < 3:
            return None
        rule.name = s[i + 1:j]
        return j + 1

    @staticmethod
    def _offset(s: str, i: int, rule: Rule, first: bool, base: int = 0):
        c = s[i] if i < len(s) else ""
        if first and (c == "" or (c not in "+-" and not ("0" <= c <= "9"))):
            rule.offset = 0
            return None
        sign = -1
        if c in ("+", "-") and c:
            sign = 1 if c == "-" else -1
            i += 1
        vals, end = _scan_hms(s, i)
        if vals:
            hh, mm, ss = (vals + [0, 0])[:3]
            rule.offset = sign * (min(ss, 59) + min(mm, 59) * 60 + min(hh, 24) * 3600)
            return end
        if first:
            rule.offset = 0
            return None
        rule.offset = base + 3600
        return i

    def _rule(self, s: str, i: int, rule: Rule) -> int | None:
        if i < len(s) and s[i] == ",":
            i += 1
        c = s[i] if i < len(s) else ""
        if c == "J" or ("0" <= c <= "9" and c):
            rule.kind = J1 if c == "J" else J0
            if c == "J":
                i += 1
                if not (i < len(s) and "0" <= s[i] <= "9"):
                    return None
            j = i
            while j < len(s) and "0" <= s[j] <= "9":
                j += 1
            d = int(s[i:j])
            if d > 365 or (rule.kind == J1 and d == 0):
                return None
            rule.d, i = d, j
        elif c == "M":
            rule.kind = M
            i = self._mrule(s, i + 1, rule)
            if i is None:
                return None
        elif c == "":
            rule.kind, rule.n, rule.d = M, (2 if rule is self.std else 1), 0
            rule.m = 3 if rule is self.std else 11
        else:
            return None
        c = s[i] if i < len(s) else ""
        if c not in ("", "/", ","):
            return None
        rule.secs = 7200
        if c == "/":
            i += 1
            if i >= len(s):
                return None
            neg = s[i] == "-"
            i += neg
            vals, i = _scan_hms(s, i)
            hh, mm, ss = (vals + [2, 0, 0][len(vals):])[:3]
            rule.secs = (-1 if neg else 1) * (hh * 3600 + mm * 60 + ss)
        return i

    @staticmethod
    def _mrule(s: str, i: int, rule: Rule) -> int | None:
        """Parse ``m.n.d`` after the 'M', assigning fields as sscanf would."""
        for k, attr in enumerate(("m", "n", "d")):
            if k and (i >= len(s) or s[i] != "."):
                return None
            r = _scan_hu(s, i + (k > 0))
            if r is None:
                return None
            setattr(rule, attr, r[0])
            i = r[1]
        if not (1 <= rule.m <= 12 and 1 <= rule.n <= 5 and rule.d <= 6):
            return None
        return i

    # -- evaluation ----------------------------------------------------------
    def changes(self, year: int) -> tuple:
        """(DST start, DST end) UTC instants computed for ``year``."""
        ch = self._cache.get(year)
        if ch is None:
            ch = (self.std.change(year), self.dst.change(year))
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[year] = ch
        return ch

    def info_at(self, t: int) -> ZoneInfo:
        """Offset, DST flag and abbreviation at instant t (glibc rules)."""
        c0, c1 = self.changes(utc_year(t))
        if c0 > c1:
            isdst = t < c1 or t >= c0
        else:
            isdst = c0 <= t < c1
        r = self.dst if isdst else self.std
        return ZoneInfo(r.offset, int(isdst), r.name)

    def segments(self, start: int, first_year: int, last_year: int) -> list:
        """[(instant, ZoneInfo)] from ``start`` through the end of last_year.

        Within one UTC year the result only changes at the two computed change
        instants, so evaluating ``info_at`` at every such breakpoint (and at
        each year start) reproduces glibc exactly.
        """
        out = []
        for year in range(first_year, last_year + 1):
            ys = days_from_civil(year, 1, 1) * SECSPERDAY
            ye = days_from_civil(year + 1, 1, 1) * SECSPERDAY
            points = {ys} | {c for c in self.changes(year) if ys < c < ye}
            for p in sorted(points):
                p = max(p, start)
                if p >= ye:
                    continue
                info = self.info_at(p)
                if out and out[-1][0] == p:
                    out[-1] = (p, info)
                elif not out or out[-1][1] != info:
                    out.append((p, info))
        return out

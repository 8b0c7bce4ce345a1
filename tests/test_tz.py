"""binlogkit.tz: glibc-identical localtime from a zone table loaded once."""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager

import pytest

from binlogkit.tz import LocalTime, ZoneTable, parse_tzif

ZONES = [
    "America/New_York", "Europe/Dublin", "Australia/Lord_Howe", "Asia/Kolkata",
    "Pacific/Chatham", "Europe/London", "America/Sao_Paulo", "Asia/Tehran",
    "Africa/Casablanca", "America/St_Johns", "UTC", "America/Nuuk",
    "Antarctica/Troll", "Pacific/Kiritimati", "America/Los_Angeles",
    "right/Europe/London",
]
POSIX = [
    "GMT-3", "UTC0", "EST5EDT,M3.2.0,M11.1.0", "<+0330>-3:30",
    "AAA-10BBB,M10.1.0,M4.1.0/3", "EST5EDT4,J1/0,J365/25", "EST5EDT,0/0,365/25",
    "EST5EDT,M3.2.0/2:30:15,M11.1.0/-25", "EST5EDT,M3.5.6,M11.5.6",
    "EST5EDT,M3.2.0", "ABC5DEF,J0", "EST5ED", "EST5EDT,garbage", "EST+ 5",
    "ABC+", "garbage!", "Foo/Bar", "AB", "", ":", "America",
]
LO, HI = 0, 2**32 - 1


@contextmanager
def system_tz(value):
    """Set TZ for glibc (time.localtime) and restore it afterwards."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = value
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()


def glibc(t):
    s = time.localtime(t)
    return LocalTime(s.tm_year, s.tm_mon, s.tm_mday, s.tm_hour, s.tm_min,
                     s.tm_sec, (s.tm_wday + 1) % 7, s.tm_yday - 1, s.tm_isdst,
                     s.tm_gmtoff, s.tm_zone)


def instants(zt, rng, n):
    """n random instants plus every table transition +-1 s (in LO..HI)."""
    ts = [rng.randint(LO, HI) for _ in range(n)]
    ts += [t + d for t in zt._starts if LO - 2 < t < HI + 2
           for d in (-1, 0, 1) if LO <= t + d <= HI]
    return ts


def mismatches(tz, ts, zt):
    with system_tz(tz):
        return [(t, zt.localtime(t), glibc(t)) for t in ts
                if zt.localtime(t) != glibc(t)]


@pytest.mark.parametrize("tz", ZONES + POSIX)
def test_matches_glibc_localtime(tz):
    zt = ZoneTable.from_tz(tz)
    rng = random.Random(f"tz-{tz}")
    ts = instants(zt, rng, 3000)
    assert mismatches(tz, ts, zt)[:3] == []


def test_matches_glibc_many_instants():
    """>= 100k seeded random instants over the 20 most important zones."""
    rng = random.Random(20240501)
    total = 0
    for tz in ZONES[:11] + POSIX[:4] + ["Europe/Berlin", "Asia/Tokyo",
                                        "Pacific/Apia", "Africa/Cairo", "Asia/Gaza"]:
        zt = ZoneTable.from_tz(tz)
        ts = [rng.randint(LO, HI) for _ in range(5200)]
        total += len(ts)
        assert mismatches(tz, ts, zt)[:3] == [], tz
    assert total >= 100_000


def test_negative_instants_bonus():
    rng = random.Random(7)
    for tz in ("America/New_York", "Europe/Dublin", "EST5EDT,M3.2.0,M11.1.0"):
        zt = ZoneTable.from_tz(tz)
        ts = [rng.randint(-2**31, -1) for _ in range(2000)]
        assert mismatches(tz, ts, zt)[:3] == [], tz


FRESH = """
import sys, time, random
sys.path.insert(0, {root!r})
from binlogkit.tz import ZoneTable
zt = ZoneTable.from_env()
rng = random.Random(5)
ts = [rng.randint(0, 2**32 - 1) for _ in range(3000)]
ts += [t + d for t in zt._starts if 0 < t < 2**32 - 2 for d in (-1, 0, 1)]
bad = []
for t in ts:
    s = time.localtime(t)
    exp = (s.tm_year, s.tm_mon, s.tm_mday, s.tm_hour, s.tm_min, s.tm_sec,
           s.tm_isdst, s.tm_gmtoff, s.tm_zone)
    lt = zt.localtime(t)
    got = lt[:6] + (lt.isdst, lt.gmtoff, lt.abbrev)
    if got != exp:
        bad.append((t, got, exp))
print(len(ts), bad[:3])
"""


@pytest.mark.parametrize("tz", ["AAA3BBB", "XYZ5ABC", "AAA-1BBB", "AAA5BBB3",
                                "AAA3BBB,"])
def test_posixrules_in_fresh_process(tz):
    """DST without rules uses posixrules; glibc keeps state across tzset()
    calls there, so compare in a fresh process (as mysqlbinlog runs)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", FRESH.format(root=root)],
                         env={"TZ": tz, "PATH": os.environ.get("PATH", ""),
                              "TMPDIR": tempfile.gettempdir()},
                         capture_output=True, text=True, check=True).stdout
    n, bad = out.split(" ", 1)
    assert int(n) > 3000 and bad.strip() == "[]"


def test_tz_unset_and_default_rules(tmp_path):
    old = os.environ.pop("TZ", None)
    time.tzset()
    try:
        unset = glibc(1689000000)
    finally:
        if old is not None:
            os.environ["TZ"] = old
        time.tzset()
    assert ZoneTable.from_tz(None).localtime(1689000000) == unset
    # DST without rules and no posixrules file: glibc's M3.2.0,M11.1.0 default
    zt = ZoneTable.from_tz("AAA3BBB", tzdir=str(tmp_path))
    ref = ZoneTable.from_tz("AAA3BBB,M3.2.0,M11.1.0")
    assert all(zt.localtime(t)[:-1] == ref.localtime(t)[:-1]
               for t in range(0, 2**32, 86400 * 7 + 3607))
    env_tzdir = {"TZDIR": str(tmp_path), "TZ": "AAA3BBB", "TMPDIR": str(tmp_path)}
    code = "import time; print(time.localtime(1689000000).tm_gmtoff)"
    out = subprocess.run([sys.executable, "-c", code], env=env_tzdir,
                         capture_output=True, text=True).stdout.strip()
    assert int(out) == zt.localtime(1689000000).gmtoff == -7200


def test_missing_files_follow_glibc(tmp_path):
    # a missing absolute path is parsed as POSIX TZ: no name -> unnamed UTC
    assert ZoneTable.from_tz(str(tmp_path / "nope")).localtime(0).abbrev == ""
    assert ZoneTable.from_tz("/etc/localtime-missing-x").info(0).gmtoff == 0
    assert ZoneTable.from_tz(":").localtime(0) == (1970, 1, 1, 0, 0, 0, 4, 0, 0, 0, "UTC")


def test_from_env(monkeypatch):
    monkeypatch.setenv("TZ", "GMT-3")
    assert ZoneTable.from_env().localtime(0).hour == 3


# ----------------------------------------------------------------- file access
class _OpenCounter:
    active = False
    paths = []


def _audit(event, args):
    if _OpenCounter.active and event in ("open", "os.listdir", "os.scandir"):
        path = str(args[0]) if args else ""
        if "zoneinfo" in path or "localtime" in path or "pytz" in path:
            _OpenCounter.paths.append(path)


sys.addaudithook(_audit)


def test_zone_data_touched_once_per_load():
    _OpenCounter.paths, _OpenCounter.active = [], True
    try:
        zt = ZoneTable.from_tz("America/New_York")
        rng = random.Random(3)
        base = 1_600_000_000
        for i in range(100_000):
            zt.format_header(base + i * 37 + rng.randint(0, 5))
            if i % 10 == 0:
                zt.localtime(rng.randint(LO, HI))
    finally:
        _OpenCounter.active = False
    assert len(_OpenCounter.paths) <= 2, _OpenCounter.paths


STRACE_SCRIPT = """
import sys
sys.path.insert(0, {root!r})
from binlogkit.tz import ZoneTable
zt = ZoneTable.from_tz("Europe/Dublin")
for i in range(100_000):
    zt.format_header(1_600_000_000 + i * 41)
"""


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_strace_counts_zoneinfo_syscalls(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    log = tmp_path / "trace"
    cmd = ["strace", "-f", "-qq", "-o", str(log),
           "-e", "trace=open,openat,stat,lstat,newfstatat,statx,access",
           sys.executable, "-c", STRACE_SCRIPT.format(root=root)]
    env = dict(os.environ, TZ="UTC")
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0 and "ptrace" in res.stderr.lower():
        pytest.skip("strace cannot trace here: " + res.stderr.strip()[:100])
    assert res.returncode == 0, res.stderr
    hits = [l for l in log.read_text().splitlines() if "zoneinfo/Europe/Dublin" in l]
    assert 1 <= len(hits) <= 3, hits


# ----------------------------------------------------------------- pytz fallback
def test_pytz_fallback_with_empty_tzdir(tmp_path, monkeypatch):
    monkeypatch.setenv("TZDIR", str(tmp_path))
    for name in ("America/New_York", "Asia/Kolkata", "Europe/Dublin"):
        zt = ZoneTable.from_tz(name)
        assert zt.source == f"pytz:{name}"
        monkeypatch.delenv("TZDIR")
        rng = random.Random(name)
        ts = [rng.randint(0, 1_700_000_000) for _ in range(3000)]
        assert mismatches(name, ts, zt)[:3] == []
        monkeypatch.setenv("TZDIR", str(tmp_path))


def test_malformed_tzif_raises(tmp_path):
    good = open("/usr/share/zoneinfo/America/New_York", "rb").read()
    bad = tmp_path / "Bad"
    bad.write_bytes(good[:300])
    with pytest.raises(ValueError, match="truncated"):
        ZoneTable.from_tz(str(bad))
    bad.write_bytes(b"not a tzif file at all, just text\n" * 3)
    with pytest.raises(ValueError, match="not a TZif"):
        ZoneTable.from_tz(str(bad))
    # glibc behaviour on request: parse the name as a POSIX string
    assert ZoneTable.from_tz(str(bad), strict=False).localtime(0).gmtoff == 0
    with pytest.raises(ValueError):
        parse_tzif(b"TZif2" + b"\0" * 15 + b"\xff" * 24)


# ----------------------------------------------------------------- formatting
def test_format_header_exact():
    zt = ZoneTable.from_tz("GMT-3")
    assert zt.format_header(0x4EC62F19) == "111118 13:10:33"
    assert zt.format_header(0x4EC62F19) == "111118 13:10:33"   # cached
    ny = ZoneTable.from_tz("America/New_York")
    assert ny.format_header(1637928309) == "211126  7:05:09"
    assert ZoneTable.from_tz("UTC").format_header(0) == "700101  0:00:00"
    assert ny.format_header(2**32 - 1) == "060207  1:28:15"


def test_format_header_agrees_with_localtime():
    rng = random.Random(11)
    for tz in ("Australia/Lord_Howe", "right/Europe/London", "EST5EDT,M3.2.0,M11.1.0"):
        zt = ZoneTable.from_tz(tz)
        for _ in range(3000):
            t = rng.randint(LO, HI)
            lt = zt.localtime(t)
            assert zt.format_header(t) == "%02d%02d%02d %2d:%02d:%02d" % (
                lt.year % 100, lt.month, lt.day, lt.hour, lt.minute, lt.second)


def test_format_micros_exact():
    assert ZoneTable.from_tz("Asia/Shanghai").format_micros(1700880077579381) == \
        "2023-11-25 10:41:17.579381 CST"
    assert ZoneTable.from_tz("GMT-3").format_micros(1321611033000001) == \
        "2011-11-18 13:10:33.000001 GMT"
    assert ZoneTable.from_tz("America/New_York").format_micros(1689000000000000) == \
        "2023-07-10 10:40:00.000000 EDT"


# ----------------------------------------------------------------- mktime_first
WINTER, SUMMER = 1795305600, 1783296000   # 2026-11-21, 2026-07-06 (UTC)


@pytest.mark.parametrize("now", [WINTER, SUMMER])
@pytest.mark.parametrize("tz,wall,expected", [
    # America/New_York: gap 02:00-03:00 -> 03:00 EDT; overlap -> later (EST)
    ("America/New_York", (2023, 3, 12, 2, 30, 0), 1678604400),
    ("America/New_York", (2023, 3, 12, 1, 59, 59), 1678604399),
    ("America/New_York", (2023, 11, 5, 1, 30, 0), 1699165800),
    ("America/New_York", (2023, 7, 1, 12, 0, 0), 1688227200),
    # Europe/Dublin (negative DST in TZif): gap 01:00-02:00 -> 02:00 IST
    ("Europe/Dublin", (2023, 3, 26, 1, 30, 0), 1679792400),
    ("Europe/Dublin", (2023, 10, 29, 1, 30, 0), 1698543000),
    # Australia/Lord_Howe, 30-minute DST: gap 02:00-02:30, overlap 01:30-02:00
    ("Australia/Lord_Howe", (2023, 10, 1, 2, 15, 0), 1696088700),
    ("Australia/Lord_Howe", (2023, 4, 2, 1, 45, 0), 1680362100),
])
def test_mktime_first_documented_values(tz, wall, expected, now):
    assert ZoneTable.from_tz(tz).mktime_first(*wall, now=now) == expected


def test_mktime_first_roundtrip_and_clamp():
    zt = ZoneTable.from_tz("Europe/London")
    rng = random.Random(9)
    for _ in range(500):
        t = rng.randint(1, 2**31 - 1)
        lt = zt.localtime(t)
        got = zt.mktime_first(lt.year, lt.month, lt.day, lt.hour, lt.minute,
                              lt.second, now=WINTER)
        assert zt.localtime(got)[:6] == lt[:6]
    assert zt.mktime_first(2040, 1, 1, 0, 0, 0, now=WINTER) == 0
    assert zt.mktime_first(2040, 1, 1, 0, 0, 0, now=WINTER, clamp=False) == 2208988800
    with pytest.raises(ValueError):
        zt.mktime_first(2023, 2, 30, 0, 0, 0)


def _query_binlog(path, start, count):
    """A minimal v4 binlog (5.0-style FDE, no checksums) of Query events,
    one per second from ``start``: enough for --start-datetime filtering."""
    import struct

    def event(ts, typ, body, pos):
        size = 19 + len(body)
        return struct.pack("<IBIIIH", ts, typ, 1, size, pos + size, 0) + body

    out = bytearray(b"\xfebin")
    fde = (struct.pack("<H", 4) + b"5.0.96-log".ljust(50, b"\0")
           + struct.pack("<IB", 0, 19)
           + bytes([56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18] + [0] * 15))
    out += event(start, 15, fde, len(out))
    body = struct.pack("<IIBHH", 1, 0, 4, 0, 0) + b"test\0select 1"
    for i in range(count):
        out += event(start + i, 2, body, len(out))
    path.write_bytes(bytes(out))


@pytest.mark.skipif(shutil.which("mariadb-binlog") is None,
                    reason="mariadb-binlog not installed")
@pytest.mark.parametrize("tz,wall", [
    ("America/New_York", (2023, 3, 12, 2, 30, 0)),
    ("America/New_York", (2023, 11, 5, 1, 30, 0)),
    ("Europe/Dublin", (2023, 3, 26, 1, 15, 7)),
    ("Europe/Dublin", (2023, 10, 29, 1, 59, 59)),
    ("Australia/Lord_Howe", (2023, 10, 1, 2, 15, 0)),
    ("Australia/Lord_Howe", (2023, 4, 2, 1, 45, 0)),
])
def test_mktime_first_matches_real_mariadb_binlog(tmp_path, tz, wall):
    """The first event mariadb-binlog keeps for --start-datetime is ours."""
    expected = ZoneTable.from_tz(tz).mktime_first(*wall)   # now = real now
    log = tmp_path / "q.bin"
    _query_binlog(log, expected - 4000, 8000)
    arg = "--start-datetime=%04d-%02d-%02d %02d:%02d:%02d" % wall
    out = subprocess.run(["mariadb-binlog", arg, str(log)],
                         env={"TZ": tz, "TMPDIR": str(tmp_path)},
                         capture_output=True, text=True).stdout
    first = next(line for line in out.splitlines()
                 if line.startswith("SET TIMESTAMP="))
    assert int(first[len("SET TIMESTAMP="):].split("/")[0]) == expected

"""The fast digest path gives exactly what the line parser gives.

``binlogkit slowlog digest`` reads logs with the bulk scanner (one regex per
chunk, binlogkit.slowlog.scan) and, for big files, two processes
(binlogkit.slowlog.parallel).  Every number, name, sample and offset of the
resulting digest, and the parse statistics, must equal those of
``Digest().add_all(parse_slowlog(...))``, the entry-by-entry path the oracle
tests check against pt-query-digest.  Checked here on every fixture and peer
log, and on generated logs full of the shapes the bulk path has to hand back
to the line parser (bad times, duplicated keys, headers, admin commands, "#"
lines ending in ";", odd User@Host lines, ...), cut into chunks of many sizes.
"""
import random
from pathlib import Path

import pytest

from binlogkit.slowlog import parallel
from binlogkit.slowlog.digest import Digest
from binlogkit.slowlog.parser import ParseStats, parse_slowlog
from binlogkit.slowlog.report import digest_dict
from binlogkit.slowlog.scan import BulkScanner

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "fixtures" / "slowlog"
PEER = ROOT.parent / "shared" / "peer" / "slowlogs" / "percona-toolkit"
FIXTURE_LOGS = sorted(FIX.glob("*.log"))
PEER_LOGS = sorted(PEER.glob("*")) if PEER.is_dir() else []


def stat(st):
    """Every attribute statistic (Metric, BoolStat, StrStat) as a tuple."""
    if hasattr(st, "buckets"):
        return (st.cnt, st.sum, st.min, st.max, sorted(st.buckets.items()))
    if hasattr(st, "unq"):
        return (st.cnt, st.min, st.max, sorted(st.unq.items()))
    return (st.cnt, st.sum)


# Attributes a two-process digest could not keep exactly (a value in the second half
# typed otherwise than in the first: Digest.inexact); by_parallel sets it, the
# by_parser call after it leaves them out too.  Only the test log's stray "# Time:"
# attribute lines (a date or a number first) do that.
INEXACT = set()


def snapshot(dg, stats):
    """Everything a digest holds, comparable with ==."""
    dg.finish()
    def cls(c):
        metrics = [(m.cnt, m.sum, m.min, m.max, sorted(m.buckets.items()))
                   for m in (c.query_time, c.lock_time, c.rows_sent, c.rows_examined)]
        extra = sorted((name, stat(st)) for name, st in c.extra.items() if name not in INEXACT)
        return (c.key, c.count, c.first_offset, metrics, c.first_us, c.last_us,
                list(c.dbs.items()), list(c.users.items()), list(c.hosts.items()),
                c.sample, c.sample_qt, c.sample_end_us, extra, c.ts_min, c.ts_max,
                c.sample_ts, c.sample_db, c.sample_qt_raw)
    return (digest_dict(dg, stats, [], 0), [cls(c) for c in dg.by_key.values()],
            cls(dg.global_), dg.filtered_out, dg.no_group, stats.as_dict())


def by_parser(path, zone, **options):
    stats = ParseStats()
    dg = Digest(**options).add_all(parse_slowlog(path, zone=zone, stats=stats))
    return snapshot(dg, stats)


def by_scanner(path, zone, chunk_size=None, **options):
    dg = Digest(**options)
    scanner = BulkScanner(path, zone=zone, **({"chunk_size": chunk_size} if chunk_size else {}))
    stats = scanner.scan(dg)
    return snapshot(dg, stats)


class Counting:
    """A sink that counts what went the bulk way and what went line by line."""

    def __init__(self):
        self.bulk = self.lines = 0

    def add(self, ev):
        self.lines += 1

    def add_run(self, run):
        self.bulk += run.n


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda p: p.name)
@pytest.mark.parametrize("group_by", ["fingerprint", "db", "host"])
def test_fixture_logs(path, group_by):
    for zone in ("UTC", "America/New_York"):
        assert by_scanner(path, zone, group_by=group_by) == by_parser(path, zone, group_by=group_by)
        assert by_scanner(path, zone, 512, group_by=group_by) == by_parser(path, zone, group_by=group_by)


@pytest.mark.skipif(not PEER_LOGS, reason="../shared/peer/slowlogs not present")
@pytest.mark.parametrize("path", PEER_LOGS, ids=lambda p: p.name)
def test_peer_logs(path):
    for group_by in ("fingerprint", "user"):
        assert by_scanner(path, "UTC", group_by=group_by) == by_parser(path, "UTC", group_by=group_by)
        assert by_scanner(path, "UTC", 300, group_by=group_by) == by_parser(path, "UTC", group_by=group_by)


def test_generated_mariadb_logs_mostly_bulk():
    """The fast path is really taken on ordinary logs (not everything handed back)."""
    for path in FIX.glob("mariadb-*.log"):
        sink = Counting()
        BulkScanner(path, zone="UTC").scan(sink)
        assert sink.bulk > 0.9 * (sink.bulk + sink.lines), path.name
    sink = Counting()
    BulkScanner(FIX / "corpus.log", zone="UTC").scan(sink)
    assert sink.bulk == sink.lines + sink.bulk - sink.lines > 70


# -- generated logs ------------------------------------------------------------------

QUERIES = [
    "SELECT * FROM t WHERE id = {n}",
    "select a, b\n  from t2\n where x in ({n}, {m}, 7)\n order by a asc",
    "UPDATE items SET price = price + 0.{m} WHERE id = {n}",
    "INSERT INTO orders_2024 VALUES ({n}, 'it''s {m}'), ({m}, \"x\")",
    "CALL p{m}({n})",
    "SELECT /*!40001 SQL_NO_CACHE */ * FROM `t{m}`",
    "SHOW TABLES",
    "COMMIT",
    "SELECT 'Query_time: {n}' AS trap",
    "SELECT a,\nTime FROM t",
    "select 1 from x,\n# not a comment line\ny",
    "SELECT c, Version FROM t /* mysqld, Version: 8 */",
    "0",
    "SELECT x FROM t WHERE s = '\x00{n}'",
    "",
]


def entry(rnd, i, t, style):
    """Lines of one entry (list of str, each without the newline)."""
    n, m = rnd.randint(0, 10**6), rnd.randint(0, 99)
    q = rnd.choice(QUERIES).format(n=n, m=m)
    lines = []
    if style == "mariadb":
        if rnd.random() < 0.3:
            lines.append(f"# Time: {t.strftime('%y%m%d %k:%M:%S')}")
        lines.append(f"# User@Host: u{m % 3}[u] @ h{m % 4} [10.0.0.{m % 5}]")
        schema = rnd.choice([" db1", " db2", "  ", ""])
        lines.append(f"# Thread_id: {n % 50}  Schema:{schema}  QC_hit: No")
        lines.append(f"# Query_time: {rnd.random():.6f}  Lock_time: 0.{m:06d}  Rows_sent: {m}"
                     f"  Rows_examined: {n}")
        lines.append(f"# Rows_affected: {m % 2}  Bytes_sent: {n % 999}")
        if rnd.random() < 0.2:
            lines += ["#", "# explain: id\tselect_type\ttable", "#"]
    elif style == "mysql8":
        lines.append(f"# Time: {t.strftime('%Y-%m-%dT%H:%M:%S')}.{n % 10**6:06d}Z")
        lines.append(f"# User@Host: root[root] @ localhost []  Id: {n % 90}")
        lines.append(f"# Query_time: {rnd.random():.6f}  Lock_time: 0.000{m:03d} Rows_sent: {m}"
                     f"  Rows_examined: {n} Thread_id: 8 Errno: 0 Start: "
                     f"{t.strftime('%Y-%m-%dT%H:%M:%S')}.000000Z End: "
                     f"{t.strftime('%Y-%m-%dT%H:%M:%S')}.{n % 10**6:06d}Z")
    else:   # old MySQL / Percona
        if rnd.random() < 0.5:
            lines.append(f"# Time: {t.strftime('%y%m%d %H:%M:%S')}")
        lines.append(rnd.choice([f"# User@Host: app[app] @ web{m % 3} [10.1.1.{m % 3}]",
                                 "# User@Host: [SQL_SLAVE] @  []",
                                 f"# User@Host: app[app] @  [10.1.1.{m}]  Id:   {n}"]))
        if rnd.random() < 0.5:
            lines.append(f"# Schema: sakila{m % 2}  Last_errno: 0  Killed: 0")
        lines.append(f"# Query_time: {m % 7}  Lock_time: 0  Rows_sent: {m}  Rows_examined: {n}"
                     "  Rows_affected: 0")
        if rnd.random() < 0.3:
            lines.append("# Bytes_sent: 11  Tmp_tables: 0  InnoDB_IO_r_wait: 0.000751")
    if rnd.random() < 0.3:
        lines.append(f"use {rnd.choice(['db1', '`db 2`', 'shop'])};")
    if rnd.random() < 0.7:
        lines.append(f"SET timestamp={int(t.timestamp())};")
    lines += (q + ";").split("\n")
    return lines


TRAPS = [
    # (probability, function(lines) -> lines): shapes the bulk path must hand back
    lambda ls: ls[:1] + ["# Query_time: 9.5  Lock_time: 1  Rows_sent: 1  Rows_examined: 1"] + ls[1:],
    lambda ls: [l for l in ls] + [],
    lambda ls: [ls[0] + ";"] + ls[1:] if ls[0].startswith("#") else ls,
    lambda ls: ls[:2] + ["# Schema: other  Foo: 1"] + ls[2:],
    lambda ls: ls[:2] + ["# End: 2024-01-01T00:00:00Z"] + ls[2:],
    lambda ls: ls[:2] + ["# Time: 2019-13-45T99:00:00Z"] + ls[2:],
    lambda ls: [x.replace("# Time: ", "# Time: 2019-13-45T99:00:00Z ") for x in ls],
    lambda ls: ls + ["garbage line", "\x00\xff junk"],
    lambda ls: ls + ["/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian 12). started with:",
                     "Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock",
                     "Time\t\t    Id Command\tArgument"],
    lambda ls: ls[:-1] + ["/usr/sbin/mysqld, Version: 5.7 (x). started with:"] + ls[-1:],
    lambda ls: ["# Time: 240101  1:02:03", "# User@Host: root[root] @ localhost []",
                "# administrator command: Quit;"] + ls,
    lambda ls: ls[:-1] + ["SET timestamp=5;"] + ls[-1:],
    lambda ls: [x.replace("Query_time: ", "Query_time: 1.5.") for x in ls],
    lambda ls: [x.replace("Rows_examined: ", "Rows_examined: 99999999999999999999") for x in ls],
    lambda ls: [x + "\r" if x.startswith("SELECT") else x for x in ls],
    lambda ls: [x for x in ls if not x.startswith("# Query_time")],
    lambda ls: [x for x in ls if not x.startswith("# User@Host")],
    lambda ls: ls[:-1] + [""] + ls[-1:],
    lambda ls: ["use db9;"] + ls,
    lambda ls: [x.replace("Schema: db1", "Schema: db1:x") for x in ls],
    lambda ls: [x.replace("Lock_time: ", "Lock_time:  ") for x in ls],
    lambda ls: ls[:1] + ["# Time: 240101  1:02:04"] + ls[1:],
]


def make_log(seed, n=25, traps=True, header=None):
    import datetime
    rnd = random.Random(seed)
    style = rnd.choice(["mariadb", "mysql8", "old"])
    t = datetime.datetime(2024, 3, 31, 0, 59, 50, tzinfo=datetime.timezone.utc)
    out = []
    if rnd.random() < 0.5 if header is None else header:
        out += ["/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:",
                "Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock",
                "Time                 Id Command    Argument"]
    for i in range(n):
        t += datetime.timedelta(seconds=rnd.choice([0, 0, 1, 2]))
        lines = entry(rnd, i, t, style)
        if traps and rnd.random() < 0.25:
            lines = rnd.choice(TRAPS)(lines)
        out += lines
    text = "\n".join(out)
    cut = rnd.random()
    if cut < 0.15:
        text = text[:int(len(text) * rnd.uniform(0.9, 1.0))]     # truncated last entry
    elif cut < 0.9:
        text += "\n"
    return text.encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("seed", range(120))
def test_generated_logs(seed, tmp_path):
    path = tmp_path / "slow.log"
    path.write_bytes(make_log(seed))
    rnd = random.Random(seed)
    zone = rnd.choice(["UTC", "Europe/Berlin", "America/New_York"])
    for options in ({}, {"group_by": "db"},
                    {"since_us": 1711846800_000000, "until_us": 1711847000_000000}):
        expected = by_parser(path, zone, **options)
        for chunk in (None, 97, 1000):
            assert by_scanner(path, zone, chunk, **options) == expected, (options, chunk)


# -- two processes -------------------------------------------------------------------

def big_log(tmp_path, seed=7, n=3000, traps=True):
    """Many ordinary entries (with a few traps and server headers of other
    versions here and there), as one file; without traps one header at the top."""
    rnd = random.Random(seed)
    parts = [make_log(rnd.randrange(10**6), 40, traps, None if traps else k == 0)
             for k in range(n // 40)]
    path = tmp_path / "big.log"
    path.write_bytes(b"".join(p if p.endswith(b"\n") else p + b"\n" for p in parts))
    return path


def by_parallel(path, zone, **options):
    dg = Digest(**options)
    stats = parallel.digest_file(path, dg, zone=zone, workers=2)
    assert dg.inexact <= {b"Time"}
    INEXACT.clear()
    INEXACT.update(dg.inexact)
    return snapshot(dg, stats)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_processes_same_result(seed, tmp_path, monkeypatch):
    path = big_log(tmp_path, seed)
    monkeypatch.setattr(parallel, "MIN_SPLIT", 1)
    for options in ({}, {"group_by": "host"}, {"since_us": 1711846800_000000}):
        assert by_parallel(path, "UTC", **options) == by_parser(path, "UTC", **options)


def count_merges(monkeypatch):
    """Record the entry count of each child digest merged."""
    merged = []
    real = Digest.merge

    def merge(self, other):
        done = real(self, other)
        if done:
            merged.append(other.global_.count)
        return done
    monkeypatch.setattr(Digest, "merge", merge)
    return merged


@pytest.mark.parametrize("traps", [True, False])
def test_two_processes_every_split_point(traps, tmp_path, monkeypatch):
    """Wherever the file is cut (inside entries, headers, admin commands, the
    start of the file), the result is the single-pass one."""
    path = big_log(tmp_path, seed=11, n=400, traps=traps)
    data = path.read_bytes()
    expected = by_parser(path, "UTC")
    monkeypatch.setattr(parallel, "MIN_SPLIT", 1)
    merged = count_merges(monkeypatch)
    cuts = [i + 2 for i in range(len(data)) if data.startswith(b";\n#", i)]
    rnd = random.Random(5)
    for cut in [cuts[0], cuts[-1]] + rnd.sample(cuts, 12):
        monkeypatch.setattr(parallel, "_cut_after", lambda p, offset, cut=cut: cut)
        got = by_parallel(path, "UTC")
        assert got == (by_parser(path, "UTC") if INEXACT else expected), cut
    if not traps:
        assert len(merged) >= 10 and all(merged)


def test_two_processes_used(tmp_path, monkeypatch):
    """On an ordinary log the child's part is really merged (not redone by the parent)."""
    path = big_log(tmp_path, seed=3, traps=False)
    monkeypatch.setattr(parallel, "MIN_SPLIT", 1)
    merged = count_merges(monkeypatch)
    assert by_parallel(path, "UTC") == by_parser(path, "UTC")
    assert merged and merged[0] > 1000


def test_child_failure_falls_back(tmp_path, monkeypatch):
    path = big_log(tmp_path, seed=4, n=400)
    monkeypatch.setattr(parallel, "MIN_SPLIT", 1)
    monkeypatch.setattr(parallel, "_find_start", lambda *a: 1 / 0)
    assert by_parallel(path, "UTC") == by_parser(path, "UTC")


@pytest.mark.parametrize("traps", [False, True])
def test_two_processes_in_windows(traps, tmp_path, monkeypatch):
    """A file bigger than a window is done window after window (bounded memory),
    each handing its end state to the next."""
    path = big_log(tmp_path, seed=21, n=2000, traps=traps)
    monkeypatch.setattr(parallel, "MIN_SPLIT", 1)
    monkeypatch.setattr(parallel, "WINDOW", path.stat().st_size // 5)
    merged = count_merges(monkeypatch)
    for options in ({}, {"group_by": "db"}):
        assert by_parallel(path, "Europe/Berlin", **options) == by_parser(path, "Europe/Berlin",
                                                                           **options)
    if not traps:
        assert len(merged) >= 8


def test_huge_row_counts(tmp_path, monkeypatch):
    """Row-count sums past 2**53 are no longer exact in any order: the bulk and
    two-process paths then keep the sequential sum too."""
    lines = []
    for i in range(400):
        lines += [f"# Time: 240101 10:{i // 60:02d}:{i % 60:02d}",
                  "# User@Host: a[a] @ h [1.2.3.4]", "# Schema: db  Last_errno: 0",
                  f"# Query_time: 0.{i:06d}  Lock_time: 0.000001  Rows_sent: 1"
                  f"  Rows_examined: 9999999999999{i % 10}{i % 7}",
                  f"SELECT * FROM t{i % 3} WHERE id = {i};"]
    path = tmp_path / "huge.log"
    path.write_text("\n".join(lines) + "\n")
    expected = by_parser(path, "UTC")
    assert by_scanner(path, "UTC") == expected
    assert by_scanner(path, "UTC", 700) == expected
    monkeypatch.setattr(parallel, "MIN_SPLIT", 1)
    assert by_parallel(path, "UTC") == expected


def test_absurd_times_are_dropped_in_bulk_as_by_the_parser(tmp_path):
    """A Query_time or Lock_time of 1e12 s or more is a corrupt value the parser
    drops; the bulk scanner leaves such entries to it."""
    lines = []
    for i in range(60):
        qt = "99999999999999" if i % 17 == 5 else f"0.{i:06d}"
        lt = "1" + "0" * 400 if i % 23 == 7 else "0.000001"
        lines += [f"# Time: 240101 10:00:{i:02d}", "# User@Host: a[a] @ h [1.2.3.4]",
                  f"# Query_time: {qt}  Lock_time: {lt}  Rows_sent: 1  Rows_examined: 2",
                  f"SET timestamp={1704103200 + i};", f"SELECT * FROM t{i % 3} WHERE id = {i};"]
    path = tmp_path / "absurd.log"
    path.write_text("\n".join(lines) + "\n")
    expected = by_parser(path, "UTC")
    assert expected[-1]["bad_values"] == 4
    assert by_scanner(path, "UTC") == expected
    assert by_scanner(path, "UTC", 500) == expected


def test_c_numbers_equal_the_python_twin():
    """_speedups.slowlog_numbers (floats and pt buckets of a run's numbers) against
    metric._floats_and_buckets_py; anything but digits with a dot, or ints, is
    handed back (None) to the Python path."""
    from binlogkit._accel import speedups
    from binlogkit.slowlog import metric
    if speedups is None:
        pytest.skip("C accelerator not built")
    rnd = random.Random(7)
    values = [b"0", b"1", b"0.000001", b"0.0000009", b"0.0000010", b"12.", b"999999999999.999999",
              b"1" + b"0" * 40, 0, 7, 2 ** 60]
    values += [b"%.6f" % (rnd.random() * 10 ** rnd.randint(-7, 6)) for _ in range(3000)]
    values += [b"%d" % rnd.randint(0, 10 ** 12) for _ in range(500)]
    got = speedups.slowlog_numbers(values, metric._BASE_OFFSET, metric._BASE_LOG)
    assert got is not None
    assert got == tuple(metric._floats_and_buckets_py(values))
    for odd in (b"", b"-1", b"1e5", b".5", b"1.2.3", b"nan", b"12abc", "12", None, 1.5,
                b"1" * 70):
        assert speedups.slowlog_numbers([b"1", odd], metric._BASE_OFFSET,
                                        metric._BASE_LOG) is None


def test_c_stats_equal_the_python_twin():
    """_speedups.slowlog_stats (min, max, ordered sums, bucket counts of a run's
    values) against metric._run_stats_py; NaN, -0.0 and inf included; anything
    but floats and in-range bucket ints is handed back (None)."""
    from binlogkit._accel import speedups
    from binlogkit.slowlog import metric
    if speedups is None:
        pytest.skip("C accelerator not built")
    rnd = random.Random(11)
    cases = [[0.1] * 7, [float("nan"), 1.0, 0.5], [2.0, float("nan"), -0.0, 0.0],
             [float("inf"), 1e300, 1e300], [1e-7, 3.0]]
    cases += [[rnd.random() * 10 ** rnd.randint(-7, 6) for _ in range(rnd.randint(1, 400))]
              for _ in range(200)]
    for values in cases:
        buckets = [metric.bucket(v) for v in values]
        start = rnd.choice([0.0, 12.5, 0.1 + 0.2])
        mine, theirs = {3: 1, 999: 2}, {3: 1, 999: 2}
        got = speedups.slowlog_stats(values, buckets, mine, start)
        want = metric._run_stats_py(values, buckets, theirs, start)
        assert repr(got) == repr(tuple(want)) and mine == theirs, values[:5]
    for values, buckets in (([1], [0]), ([1.0], [1000]), ([1.0], [-1]), ([1.0], [1.0]),
                            ([], []), ([1.0, 2.0], [0])):
        assert speedups.slowlog_stats(values, buckets, {}, 0.0) is None


def _findall_columns(text):
    from binlogkit.slowlog.scan import ENTRY
    rows = ENTRY.findall(text)
    return (list(zip(*rows)) if rows else []), [0] + [m.end() for m in ENTRY.finditer(text)]


def _mutate(rnd, text):
    b = bytearray(text[:20000])
    pieces = [b"\n# Time: 240101 10:00:00\n", b"\nuse x;\n", b"\nSET timestamp=1;\n", b";\n", b"\n#",
              b"# Query_time: 1 Lock_time: 2  Rows_sent: 1234567890123456  Rows_examined: 1\n",
              b"\nTcp port: 1\n", b"\n;\n", b"administrator command: Quit;\n",
              b"\n# User@Host: a[b] @ c []\n", b"# Time: 2024-01-01T10:00:00.5+02:00\n"]
    for _ in range(rnd.randint(1, 8)):
        op, i = rnd.random(), rnd.randrange(len(b)) if b else 0
        if op < 0.3:
            b[i:i + 1] = bytes([rnd.choice(b"#;\n \t0123456789.:TUSEuseQ-+Z")])
        elif op < 0.5:
            del b[i:i + rnd.randint(1, 30)]
        elif op < 0.7:
            j = rnd.randrange(len(b)) if b else 0
            b[i:i] = b[j:j + rnd.randint(1, 200)]
        elif op < 0.85:
            b[i:i] = rnd.choice(pieces)
        else:
            del b[i:]
    return bytes(b)


def test_c_entries_equal_the_regex():
    """_speedups.slowlog_entries (through scan.rows_of) gives ENTRY.findall's rows,
    group for group, and their offsets, on every fixture and peer log and on
    mutated copies of them (the C reader hands every row it is unsure of to the regex)."""
    from binlogkit._accel import speedups
    from binlogkit.slowlog.scan import rows_of
    if speedups is None:
        pytest.skip("C accelerator not built")
    texts = [p.read_bytes() for p in FIXTURE_LOGS + PEER_LOGS if p.is_file()]
    rnd = random.Random(5)
    texts += [_mutate(rnd, rnd.choice(texts)) for _ in range(1500)]
    for text in texts:
        want, want_starts = _findall_columns(text)
        got, starts = rows_of(text)
        assert [tuple(c) for c in got] == want, text[:200]
        if want:
            assert starts == want_starts


@pytest.mark.parametrize("path", FIXTURE_LOGS + PEER_LOGS, ids=lambda p: p.name)
def test_bulk_digest_with_and_without_c_accelerator(path, monkeypatch):
    """The whole pt-json document from the C bulk path equals the pure-Python one."""
    from binlogkit.slowlog import metric, scan
    from binlogkit.slowlog.ptjson import pt_json_dict

    def doc():
        dg = Digest()
        try:
            parallel.digest_files([str(path)], dg, zone="UTC", workers=1)
        except Exception as exc:        # pt's own broken samples fail the same way twice
            return repr(exc)
        return pt_json_dict(dg, [str(path)], limit=(None, 0))
    fast = doc()
    monkeypatch.setattr(scan, "_speedups", None)
    monkeypatch.setattr(metric, "_speedups", None)
    assert repr(doc()) == repr(fast)


@pytest.mark.parametrize("pure", [False, True], ids=["c", "python"])
def test_fractions_after_whole_numbers_keep_the_sequential_sum(pure, monkeypatch):
    """An attribute whose first values are whole numbers and later ones fractions:
    the later sum continues value by value, as pt adds (1.0 + 0.1 + 0.1, not
    1.0 + (0.1 + 0.1)), and the metric is no longer whole."""
    from binlogkit.slowlog import metric
    if pure:
        monkeypatch.setattr(metric, "_speedups", None)
    m = metric.Metric()
    assert m.add_many([0.0, 1.0], [0, metric.bucket(1.0)], True)[2] == 1.0
    assert m.add_many([0.1, 0.1], [metric.bucket(0.1)] * 2, True)[2] is None
    assert m.sum == (1.0 + 0.1) + 0.1 != 1.0 + (0.1 + 0.1)
    assert not m.whole and m.cnt == 4

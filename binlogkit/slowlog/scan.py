"""Whole-chunk slow-log scanning for the digest: one pass per chunk, no per-line Python.

:class:`BulkScanner` reads a log in chunks of a few MB cut at ``;\\n#`` and
matches every entry of the common shape with one compiled regex (:data:`ENTRY`):

    [# Time: <YYMMDD H:MM:SS[.f] | YYYY-MM-DDTHH:MM:SS[.f][Z|+hh:mm]>]
    # User@Host: user[user] @ host [ip]  [Id: N]
    [# [Thread_id: N  ]Schema: db ...]          any further "#" lines
    # Query_time: N  Lock_time: N  Rows_sent: N  Rows_examined: N ...
    any further "#" lines
    [use db;]  [SET timestamp=N;]
    query lines ending in ";" before the next "#" line

That covers the entries of MySQL 5.0-8.x (also ``log_slow_extra``), Percona
Server and MariaDB logs.  With the C accelerator the entries are read by
``_speedups.slowlog_entries`` (csrc/slowlog.c), which gives the regex's groups
for every entry it can read exactly as the regex does and leaves any other row
to the regex itself (:func:`rows_of`).  The matched entries of a chunk become one
:class:`Run` of columns (times, users, hosts, dbs, the four numbers as
bytes, queries) that :meth:`Digest.add_run` aggregates in bulk.

Exactness: the result must be what :class:`~binlogkit.slowlog.parser.SlowlogParser`
gives, entry for entry.  The regex ends an entry exactly where the line
machine does (a line ending in ``;`` followed by a ``#`` line, and no query
line starts with ``#`` or a server-header word; a query starting with
``administrator`` is left to the line machine, as pt zeroes its row counts),
so a chain of matches from a clean boundary is a chain of real entries.  What the regex cannot see
cheaply is checked per run on the extra ``#`` lines and the queries: a second
``Query_time:``/``Lock_time:``/``Rows_sent:``/``Rows_examined:``/``Schema:``
or a ``Time:`` (the parser would read them), a ``#`` line ending in ``;``
(a different boundary), ``End:`` on an entry without ``# Time`` (used for
its end), a server header line inside a query (dropped by the parser) and
a query ``0`` (dropped).  Entries that fail, entries whose end time is
unknown (no ``# Time`` yet, or an unreadable one) and every line the regex
does not match go through the line machine itself, which hands back at the
next clean boundary where a matched entry starts.
"""

from __future__ import annotations

import gc
import io
import re
import sys
from itertools import compress, repeat
from operator import add, itemgetter, mul

from binlogkit._accel import speedups as _speedups
from binlogkit.errors import SlowlogError
from binlogkit.slowlog.attrs import attr_pairs, db_name, user_host
from binlogkit.slowlog.attrstats import pt_ts
from binlogkit.slowlog.metric import floats_and_buckets
from binlogkit.slowlog.parser import MAX_SECONDS, LineMachine, SlowlogParser
from binlogkit.slowlog.source import open_slowlog

__all__ = ["BulkScanner", "Run", "scan_slowlogs", "rows_of", "ENTRY", "CHUNK"]

CHUNK = 2 << 20

# ``.`` is any byte but a newline; ``*+`` (possessive, Python 3.11+) only where
# giving characters back cannot help
_POSSESSIVE = b"*+" if sys.version_info >= (3, 11) else b"*"
ENTRY = re.compile(rb"""
  (?:\#\ Time:\ (?P<ts>\d{6}\ [ \d]\d:\d\d:\d\d(?:\.\d+)?
                  |\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?)\n)?
  \#\ User@Host:\ (?P<uh>.*+)\n
  (?P<x1>(?:\#.*+\n)*?)
  \#\ Query_time:\ (?P<qt>\d+(?:\.\d+)?)\ +Lock_time:\ (?P<lt>\d+(?:\.\d+)?)
      \ +Rows_sent:\ (?P<rs>\d{1,15})\ +Rows_examined:\ (?P<rx>\d{1,15})
  (?P<x2>(?:[ \t].*+)?\n(?:\#.*+\n)*+)
  (?:use\ (?P<db>[^;\n]+);\n)?
  (?P<set>SET\ (?:last_insert_id|insert_id|timestamp).*\n)?
  (?!use\ |SET\ (?:last_insert_id|insert_id|timestamp)|Tcp|TCP|Time|administrator)
  (?P<q>[^\#\n].*(?:\n(?!\#|Tcp|TCP|Time).*)*?);\n(?=\#|\Z)
|(?P<junk>.*\n|.+)
""".replace(b"*+", _POSSESSIVE), re.X)

_G = {name: ENTRY.groupindex[name] - 1 for name in ENTRY.groupindex}
_TS, _UH, _X1, _QT, _LT, _RS, _RX, _X2, _DB, _SET, _Q, _JUNK = (
    _G[k] for k in ("ts", "uh", "x1", "qt", "lt", "rs", "rx", "x2", "db", "set", "q", "junk"))
_STAMP = re.compile(rb"timestamp=(\d+)")
# after the Query_time line, any of these means the parser would read something else
_AFTER_KEYS = (b"Query_time:", b"Lock_time:", b"Rows_sent:", b"Rows_examined:", b"Schema:",
               b"Time:", b";\n", b"# administrator command:", b"QC_hit:")
_BAD = (None, None, True, False)   # x1 info of a line set the bulk path must not take


def rows_of(text):
    """The rows of ``ENTRY.findall(text)`` as 12 columns (one per group), and the
    offset of each row plus ``len(text)`` (None when not known).  With the C
    accelerator, :func:`_speedups.slowlog_entries` reads the entries it can match
    exactly as ENTRY does and the regex reads one row wherever it stops."""
    if _speedups is None:
        rows = ENTRY.findall(text)
        return (list(zip(*rows)) if rows else []), None
    cols = [[] for _ in range(13)]
    entries, match = _speedups.slowlog_entries, ENTRY.match
    pos, end = 0, len(text)
    while True:
        pos = entries(text, pos, cols)
        if pos >= end:
            break
        m = match(text, pos)
        cols[12].append(pos)
        for col, value in zip(cols, m.groups(b"")):
            col.append(value)
        pos = m.end()
    starts = cols.pop()
    starts.append(end)
    return (cols if starts[0] == 0 and len(starts) > 1 else []), starts


class Run:
    """Consecutive entries of one log as columns (index i = i-th entry).

    ``ends`` are epoch microseconds (never None); ``dbs``/``users``/``hosts``
    bytes or None; ``qt``/``lt``/``rs``/``rx`` the numbers as written (bytes
    of the form ``\\d+(\\.\\d+)?``); ``query_time``/``lock_time`` the Query_times
    and Lock_times as floats and ``qt_buckets``/``lt_buckets`` their pt buckets
    (the one place the bulk path reads them: :func:`~binlogkit.slowlog.metric.floats_and_buckets`);
    :meth:`offset` the byte offset of an entry.
    """

    __slots__ = ("file", "n", "ends", "uh", "uh_map", "dbs", "qt", "lt", "rs", "rx",
                 "query_time", "qt_buckets", "lock_time", "lt_buckets", "queries", "_offset", "_users", "_hosts", "ts",
                 "x1", "x2", "sets")

    def offset(self, i):
        return self._offset(i)

    @property
    def users(self):
        if self._users is None:
            self._split_user_host()
        return self._users

    @property
    def hosts(self):
        if self._hosts is None:
            self._split_user_host()
        return self._hosts

    def _split_user_host(self):
        """users and hosts from ``uh`` (the User@Host values as written) and
        ``uh_map`` (value -> (user, host))."""
        self._users, self._hosts = zip(*map(self.uh_map.__getitem__, self.uh))


class BulkScanner:
    """Feed the entries of one log to ``sink``: ``sink.add(entry)`` for entries
    parsed line by line, ``sink.add_run(run)`` for bulk runs, in file order."""

    def __init__(self, path, zone=None, server_version=None, chunk_size=CHUNK, parser=None):
        self.parser = parser or SlowlogParser(path, zone=zone, server_version=server_version)
        self.stats = self.parser.stats
        self.chunk_size = chunk_size
        self.machine = LineMachine(self.parser)
        self._uh_memo = {}
        self._x1_memo = {}

    def scan(self, sink, start=0, stop=None):
        """Scan the log to its end, or (a regular file) the bytes [start, stop):
        ``stop`` must be where a line starting with ``#`` begins; the entry held
        there is kept for the next call (see :meth:`at_clean_boundary`)."""
        p = self.parser
        stream = open_slowlog(p.path)
        gc_was_on = gc.isenabled()
        gc.disable()    # millions of short-lived tuples, no cycles: collections only cost
        try:
            if start:
                stream.seek(start)
            self._scan(stream, sink, None if stop is None else stop - start)
        except SlowlogError:
            raise
        except OSError as exc:
            raise SlowlogError(f"read error: {exc.strerror or exc}", path=p.name,
                               offset=self.machine.pos, line=self.machine.lineno) from None
        finally:
            if gc_was_on:
                gc.enable()
            if p.path not in (None, "-"):
                stream.close()
        return self.stats

    def at_clean_boundary(self):
        """After a scan that stopped early: may a new entry start here?"""
        m = self.machine
        return not m.pending or m.at_boundary()

    def close_boundary(self, sink):
        """Complete the entry held at a clean boundary (see :meth:`scan`)."""
        if self.machine.pending:
            ev = self.machine.close_boundary()
            if ev is not None:
                sink.add(ev)

    def _scan(self, stream, sink, left):
        carry = b""
        size = self.chunk_size
        while True:
            want = size if left is None else min(size, left)
            data = stream.read(want) if want else b""
            if left is not None:
                left -= len(data)
            if not data:
                self._text(carry, sink, final=left is None)
                return
            buf = carry + data if carry else data
            cut = buf.rfind(b";\n#")
            if cut < 0:
                carry = buf
                continue
            carry = buf[cut + 2:]
            self._text(buf[:cut + 2], sink, final=False)

    # -- one chunk ---------------------------------------------------------------------

    def _text(self, text, sink, final):
        m = self.machine
        cols, starts = rows_of(text)
        n = len(cols[0]) if cols else 0
        if n:
            junk = cols[_JUNK]
            self._t, self._cols, self._n = text, cols, n
            self._base, self._starts, self._canon = m.pos, starts, None
            i = 0
            while i < n:
                if m.pending or junk[i]:
                    i = self._exact(self._pos(i), sink)
                    continue
                j = i + 1
                while j < n and not junk[j]:
                    j += 1
                i = self._canonical(i, j, sink)
            self._t = self._cols = self._starts = self._canon = None
        if final:
            for ev in m.finish():
                sink.add(ev)

    def _pos(self, r):
        """Offset in the chunk of row r (the rows tile the chunk)."""
        if r == 0:
            return 0
        if r == self._n:
            return len(self._t)
        starts = self._starts
        if starts is None:
            starts = self._starts = [0]
            starts += (m.end() for m in ENTRY.finditer(self._t))
        return starts[r]

    def _exact(self, offset, sink):
        """Parse the chunk from ``offset`` line by line until a clean boundary
        where a matched entry starts; returns its row (n when the chunk ran out)."""
        m = self.machine
        canon = self._canon
        if canon is None:
            junk = self._cols[_JUNK]
            pos = self._pos
            canon = self._canon = {pos(r): r for r in range(self._n) if not junk[r]}
        base = self._base
        lines = io.BytesIO(self._t)
        lines.seek(offset)
        for ev in m.run(lines, lambda at: at - base in canon):
            sink.add(ev)
        return canon[m.pos - base] if m.stopped else self._n

    def _canonical(self, i, j, sink):
        """Rows [i, j) all matched: bulk as much as passes the checks, the rest
        through the line machine; returns the next row to look at."""
        bad = [] if self._run_ok(i, j) else self._bad_rows(i, j)
        bad.append(j)
        b = 0
        while i < j:
            while bad[b] < i:
                b += 1
            stop = bad[b]
            if i < stop:
                i = self._emit(i, stop, sink)
                if i == j:
                    return j
            # row i fails a check, or its end time is unknown
            i = self._exact(self._pos(i), sink)
        return i

    def _run_ok(self, i, j):
        cols = self._cols
        after = b"".join(set(cols[_X2][i:j]))   # each block ends in a newline: no key spans two
        for key in _AFTER_KEYS:
            if key in after:
                return False
        if b"End:" in after and b"" in cols[_TS][i:j]:
            return False
        if self._t.find(b", Version", self._pos(i), self._pos(j)) >= 0:
            return False
        return b"0" not in cols[_Q][i:j]

    def _bad_rows(self, i, j):
        cols = self._cols
        x2, ts, qs = cols[_X2], cols[_TS], cols[_Q]
        bad = []
        for r in range(i, j):
            after = x2[r]
            q = qs[r]
            if (any(key in after for key in _AFTER_KEYS) or (not ts[r] and b"End:" in after)
                    or b", Version" in q or q == b"0"):
                bad.append(r)
        return bad

    def _emit(self, i, k, sink):
        """One Run of rows [i, k), cut short before the first entry that needs the
        line machine (unknown end time, unusual lines before Query_time); returns
        the row after the last one emitted."""
        cols = self._cols
        p = self.parser
        inherited = p.inherited
        ts = cols[_TS][i:k]
        uh = cols[_UH][i:k]
        uhs = self._uh_info(uh)
        infos, distinct = self._x1_info(cols[_X1][i:k])
        m = _usable(ts, infos, distinct, uhs)
        qts, qt_buckets = floats_and_buckets(cols[_QT][i:i + m])
        lts, lt_buckets = floats_and_buckets(cols[_LT][i:i + m])
        m = _sane(qts, lts, m)
        ends, m, last_ts, last_end = _fill_ends(ts, m, inherited.ts, inherited.end,
                                                self._row_time(i, infos, qts))
        if m == 0:
            return i
        if m < len(qts):
            qts, qt_buckets = qts[:m], qt_buckets[:m]
            lts, lt_buckets = lts[:m], lt_buckets[:m]
        k = i + m
        run_ts = _fill_ts(ts[:m], inherited.ts)
        dbs, last_db = _fill_dbs(cols[_DB][i:k], infos[:m], inherited.db)
        inherited.ts, inherited.end, inherited.db = last_ts, last_end, last_db
        ends = self._mariadb_ends(ends, qts, infos[:m])
        run = Run()
        run.file = p.name
        run.n = k - i
        run.ends = ends
        run.dbs = dbs
        run.uh, run.uh_map = uh[:m], self._uh_memo
        run._users = run._hosts = None
        run.qt, run.lt = cols[_QT][i:k], cols[_LT][i:k]
        run.query_time, run.qt_buckets = qts, qt_buckets
        run.lock_time, run.lt_buckets = lts, lt_buckets
        run.rs, run.rx = cols[_RS][i:k], cols[_RX][i:k]
        run.queries = cols[_Q][i:k]
        run.ts = run_ts
        run.x1, run.x2, run.sets = cols[_X1][i:k], cols[_X2][i:k], cols[_SET][i:k]
        base = self.machine.pos - self._pos(i)
        pos = self._pos
        run._offset = lambda r: base + pos(i + r)
        sink.add_run(run)
        a, b = self._pos(i), self._pos(k)
        nl = self._t.count(b"\n", a, b)
        m, st = self.machine, self.stats
        m.pos += b - a
        m.lineno += nl
        st.lines += nl
        st.bytes += b - a
        st.entries += run.n
        st.recognized += run.n
        return k

    def _row_time(self, i, infos, qts):
        """time(r): the end instant of row i + r's own ``# Time``, converted in the
        server offset its ``SET timestamp`` shows (as the parser does); ``qts``
        are the Query_times of rows i, i + 1, ..."""
        cols, p = self._cols, self.parser
        ts, sets = cols[_TS], cols[_SET]

        def time(r):
            m = _STAMP.search(sets[i + r])
            return p.line_time(ts[i + r], m.group(1) if m else None, qts[r],
                               p.mariadb or infos[r][3])
        return time

    def _mariadb_ends(self, ends, qts, infos):
        """MariaDB's ``# Time`` is the start: its entries end Query_time later."""
        if self.parser.mariadb:
            mariadb = None
        else:
            mariadb = list(map(itemgetter(3), infos))
            if True not in mariadb:
                return ends
        us = list(map(round, map(mul, qts, repeat(1_000_000))))    # as the parser: round(qt * 1e6)
        if mariadb is None or False not in mariadb:
            return list(map(add, ends, us))
        return [e + u if mdb else e for e, u, mdb in zip(ends, us, mariadb)]

    def _uh_info(self, uhs):
        """(user, host) per ``# User@Host:`` value, as the parser reads it; None
        when the parser would not (it then looks further, so no bulk)."""
        memo = self._uh_memo
        missing = set(uhs).difference(memo)
        if missing:
            if len(memo) > 65536:
                memo.clear()
                missing = set(uhs)
            for uh in missing:
                memo[uh] = _user_host(uh)
        return list(map(memo.__getitem__, uhs))

    def _x1_info(self, x1s):
        """(Schema, has End, needs the line machine, has QC_hit) per block of "#"
        lines between ``# User@Host:`` and ``# Query_time:``, read as the parser
        reads them."""
        memo = self._x1_memo
        missing = set(x1s).difference(memo)
        if missing:
            if len(memo) > 65536:
                memo.clear()
                missing = set(x1s)
            for x1 in missing:
                memo[x1] = _x1_attrs(x1)
        return list(map(memo.__getitem__, x1s)), {memo[x1] for x1 in set(x1s)}


def _usable(ts, infos, distinct, uhs):
    """How many leading rows the bulk path can take (user/host and the "#" lines
    before Query_time read as the parser reads them)."""
    m = uhs.index(None) if None in uhs else len(uhs)
    for info in distinct:
        if info[2]:
            m = min(m, infos.index(info))
        elif info[1]:        # End: before Query_time counts when there is no # Time
            for r in range(m):
                if infos[r][1] and not ts[r]:
                    m = r
                    break
    return m


def _sane(qts, lts, m):
    """How many leading rows have a Query_time and Lock_time the parser takes
    (under MAX_SECONDS; a longer one is a corrupt value it drops)."""
    if qts and (max(qts) >= MAX_SECONDS or max(lts) >= MAX_SECONDS):
        return min(r for r in range(m) if qts[r] >= MAX_SECONDS or lts[r] >= MAX_SECONDS)
    return m


def _fill_ends(ts, m, last_ts, last_end, time):
    """End instants of the first ``m`` rows (inherited from the last # Time),
    stopping before a row without one; (ends, rows, last ts, last end)."""
    ends = []
    prev = 0
    for r in compress(range(m), ts):
        if r > prev:
            if last_end is None:
                return ends, prev, last_ts, last_end
            ends += repeat(last_end, r - prev)
        e = time(r)
        if e is None:
            return ends, r, last_ts, last_end
        last_ts, last_end = ts[r], e
        ends.append(e)
        prev = r + 1
    if m > prev:
        if last_end is None:
            return ends, prev, last_ts, last_end
        ends += repeat(last_end, m - prev)
    return ends, m, last_ts, last_end


def _fill_ts(ts, last_ts):
    """pt's ``ts`` of each row: its own ``# Time``, else the last one (or None)."""
    if b"" not in ts and len(set(ts)) == 1:
        return [pt_ts(ts[0])] * len(ts)
    out = []
    last = pt_ts(last_ts)
    for t in ts:
        if t:
            last = pt_ts(t)
        out.append(last)
    return out


def _fill_dbs(uses, infos, last_db):
    """The db of each row: ``use``, else Schema, else inherited; (dbs, last db)."""
    schemas = list(map(itemgetter(0), infos))
    if not any(uses) and None not in schemas:
        return schemas, schemas[-1]
    dbs = []
    append = dbs.append
    for d, schema in zip(uses, schemas):
        if d:
            last_db = db_name(d)
        elif schema is not None:
            last_db = schema
        append(last_db)
    return dbs, last_db


def _user_host(value):
    if value[-1:] == b";":
        return None
    got = user_host(b"# User@Host: " + value)
    if got is None:
        return None
    user, host, ip, _ = got
    return user, host or ip


def _x1_attrs(x1):
    if not x1:
        return None, False, False, False
    attrs = {}
    for text in x1[:-1].split(b"\n"):
        if text[-1:] == b";" or b"User@Host:" in text or text.startswith(
                (b"# Time:", b"# administrator command:")):
            return _BAD
        attrs.update(attr_pairs(text))
    return db_name(attrs.get(b"Schema")), b"End" in attrs, False, b"QC_hit" in attrs


def scan_slowlogs(paths, sink, zone=None, server_version=None, stats=None):
    """Feed the entries of several logs, in order, to ``sink`` (see BulkScanner)."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    for path in paths:
        got = BulkScanner(path, zone=zone, server_version=server_version).scan(sink)
        if stats is not None:
            stats.add(got)
    return sink

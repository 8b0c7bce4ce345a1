"""Aggregate slow-log entries into query classes (pt-query-digest style).

Per class: count, Query_time and Lock_time (sum/min/max/avg/p95), rows,
first/last seen (UTC), databases/users/hosts and the worst sample.  Memory is
bounded by the number of classes, never by the number of entries: the 95th
percentile uses pt-query-digest's log-scale buckets (1000 buckets of ratio
1.05 from 1 microsecond), which also makes it equal to pt's ``pct_95``.

Classes in which no entry has a ``Query_time`` are left out of the report,
as pt-query-digest does (it orders and reports by ``Query_time``).
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from functools import reduce
from operator import add, itemgetter

from binlogkit.slowlog.fingerprint import Fingerprinter, distill, query_id

__all__ = ["Digest", "ClassStats", "Metric", "GROUP_BY"]

GROUP_BY = ("fingerprint", "db", "user", "host")

_BUCK = 1.05
_MIN_BUCK = 0.000001
_NUM_BUCK = 1000
_BASE_LOG = math.log(_BUCK)
_BASE_OFFSET = abs(1 - math.log(_MIN_BUCK) / _BASE_LOG)
_BUCK_VALS = [0.0] + [(_BUCK ** (i - 1)) * _MIN_BUCK for i in range(1, _NUM_BUCK)]
_MAX_NAMES = 100


_EXACT_INT = 2 ** 53
_BUCKET_MEMO = {}


def _bucket(v: float) -> int:
    if v < _MIN_BUCK:
        return 0
    if v == math.inf:
        return _NUM_BUCK - 1
    idx = int(_BASE_OFFSET + math.log(v) / _BASE_LOG)
    return _NUM_BUCK - 1 if idx > _NUM_BUCK - 1 else idx


def _buckets_of(values):
    """The bucket of each float in ``values`` (a list), through a bounded memo."""
    memo = _BUCKET_MEMO
    missing = set(values).difference(memo)
    if missing:
        if len(memo) + len(missing) > 1 << 17:
            memo.clear()
            missing = set(values)
        for v in missing:
            memo[v] = _bucket(v)
    return list(map(memo.__getitem__, values))


class Metric:
    """count/sum/min/max plus bucket counts for a bucketed 95th percentile."""

    __slots__ = ("cnt", "sum", "min", "max", "buckets")

    def __init__(self):
        self.cnt = 0
        self.sum = 0.0
        self.min = self.max = None
        self.buckets = {}

    def add(self, v: float):
        self.cnt += 1
        self.sum += v
        if self.min is None or v < self.min:
            self.min = v
        if self.max is None or v > self.max:
            self.max = v
        b = _bucket(v)
        self.buckets[b] = self.buckets.get(b, 0) + 1

    def add_many(self, values, buckets):
        """:meth:`add` for each float of ``values`` in order (the sum stays
        sequential); ``buckets`` holds their buckets (see _buckets_of).
        Returns the part (low, high, bucket counts) for :meth:`add_parts`."""
        self.cnt += len(values)
        self.sum = reduce(add, values, self.sum)
        part = (min(values), max(values), Counter(buckets), None)
        self._fold(part)
        return part

    def add_whole(self, raw):
        """:meth:`add` for integers written as bytes (row counts), in bulk: while
        every partial sum is an integer below 2**53 the float sum is exact, so
        the order does not matter.  Returns the part (low, high, bucket counts,
        integer total)."""
        counts = Counter(raw)
        floats = list(map(float, counts))
        total = sum(map(int, counts), 0) if len(counts) == len(raw) else sum(
            int(v) * k for v, k in counts.items())
        if self.sum + total < _EXACT_INT and self.sum.is_integer():
            self.sum += total
        else:
            self.sum = reduce(add, map(float, raw), self.sum)
        self.cnt += len(raw)
        buckets = Counter()
        for b, k in zip(_buckets_of(floats), counts.values()):
            buckets[b] += k
        part = (min(floats), max(floats), buckets, total)
        self._fold(part)
        return part

    def add_parts(self, parts, values):
        """Fold parts of other metrics (the same values split by class) into this
        one; ``values`` (floats or row-count bytes, in order) give the sum."""
        self.cnt += len(values)
        total = sum(part[3] for part in parts) if parts[0][3] is not None else None
        if total is not None and self.sum + total < _EXACT_INT and self.sum.is_integer():
            self.sum += total
        else:
            self.sum = reduce(add, values if total is None else map(float, values), self.sum)
        for part in parts:
            self._fold(part)

    def _fold(self, part):
        lo, hi, counts, _ = part
        self._min_max(lo, hi)
        mine = self.buckets
        for b, k in counts.items():
            mine[b] = mine.get(b, 0) + k

    def _min_max(self, lo, hi):
        if self.min is None or lo < self.min:
            self.min = lo
        if self.max is None or hi > self.max:
            self.max = hi

    @property
    def avg(self):
        return self.sum / self.cnt if self.cnt else None

    @property
    def p95(self):
        """pt-query-digest's pct_95: the bucket holding the 95th percentile value."""
        n = self.cnt
        if not n:
            return None
        if n <= 2 or self.max == self.min:
            return self.max
        cutoff = int(n * 0.95) if n >= 10 else n
        top = n - cutoff
        seen = 0
        for b in sorted(self.buckets, reverse=True):
            seen += self.buckets[b]
            if seen > top:
                return _BUCK_VALS[b]
        return 0.0

    def as_dict(self):
        return {"sum": self.sum, "min": self.min, "max": self.max,
                "avg": self.avg, "p95": self.p95}


class ClassStats:
    __slots__ = ("key", "count", "query_time", "lock_time", "rows_sent", "rows_examined",
                 "first_us", "last_us", "dbs", "users", "hosts", "sample", "sample_qt",
                 "sample_end_us", "first_offset", "values", "name_cap")

    def __init__(self, key, mergeable=False):
        self.key = key
        self.count = 0
        self.query_time = Metric()
        self.lock_time = Metric()
        self.rows_sent = Metric()
        self.rows_examined = Metric()
        self.first_us = self.last_us = None
        self.dbs, self.users, self.hosts = {}, {}, {}
        self.sample = None
        self.sample_qt = -1.0
        self.sample_end_us = None
        self.first_offset = None
        # for Digest.merge: the four metrics' values in order (float sums depend
        # on the order), and all names, not just the first 100
        self.values = tuple(array("d") for _ in range(4)) if mergeable else None
        self.name_cap = None if mergeable else _MAX_NAMES


    def add_rows(self, run, rows, cols):
        """Account rows ``rows`` (indices, ascending) of a scan Run at once;
        ``cols`` holds the run's floats and buckets (_RunColumns).  Returns the
        parts for :meth:`add_parts`."""
        m = len(rows)
        if m == run.n:
            def pick(col):
                return col
        elif m == 1:
            r0 = rows[0]

            def pick(col):
                return (col[r0],)
        else:
            pick = itemgetter(*rows)
        self.count += m
        qts = pick(cols.qt)
        top = max(qts)
        top_row = rows[m - 1 - qts[::-1].index(top)]
        self._sample(run, top, top_row)
        ends = pick(run.ends)
        lo, hi = min(ends), max(ends)
        self._seen(lo, hi)
        if self.key is not None:
            cap = self.name_cap
            _count_names(self.dbs, pick(run.dbs), cap)
            _count_names(self.users, pick(run.users), cap)
            _count_names(self.hosts, pick(run.hosts), cap)
        lts = pick(cols.lt)
        if self.values is not None:
            _keep(self.values, qts, lts, pick(run.rs), pick(run.rx))
        return (self.query_time.add_many(qts, pick(cols.qt_buckets)),
                self.lock_time.add_many(lts, pick(cols.lt_buckets)),
                self.rows_sent.add_whole(pick(run.rs)),
                self.rows_examined.add_whole(pick(run.rx)),
                lo, hi, top, top_row)

    def add_parts(self, run, rows, cols, parts):
        """Account rows ``rows`` of a Run from the parts the classes returned."""
        if len(rows) == run.n:
            qts, lts, rss, rxs = cols.qt, cols.lt, run.rs, run.rx
        else:
            pick = itemgetter(*rows) if len(rows) > 1 else (lambda col: (col[rows[0]],))
            qts, lts, rss, rxs = pick(cols.qt), pick(cols.lt), pick(run.rs), pick(run.rx)
        self.count += len(rows)
        if self.values is not None:
            _keep(self.values, qts, lts, rss, rxs)
        self.query_time.add_parts([part[0] for part in parts], qts)
        self.lock_time.add_parts([part[1] for part in parts], lts)
        self.rows_sent.add_parts([part[2] for part in parts], rss)
        self.rows_examined.add_parts([part[3] for part in parts], rxs)
        self._seen(min(part[4] for part in parts), max(part[5] for part in parts))
        best = max(parts, key=itemgetter(6, 7))
        self._sample(run, best[6], best[7])

    def merge(self, other):
        """Fold in ``other`` (mergeable, its entries after this one's): the same
        result as accounting its entries here (the float sums are continued
        value by value, in order)."""
        for mine, theirs, values in zip(self._metrics(), other._metrics(), other.values):
            mine.cnt += theirs.cnt
            mine.sum = reduce(add, values, mine.sum)
            if theirs.cnt:
                mine._fold((theirs.min, theirs.max, theirs.buckets, None))
        if self.values is not None:
            for mine, theirs in zip(self.values, other.values):
                mine.extend(theirs)
        self.count += other.count
        if other.first_us is not None:
            self._seen(other.first_us, other.last_us)
        for mine, theirs in ((self.dbs, other.dbs), (self.users, other.users),
                             (self.hosts, other.hosts)):
            _merge_names(mine, theirs, self.name_cap)
        if other.sample_qt >= 0 and other.sample_qt >= self.sample_qt:
            self.sample_qt = other.sample_qt
            self.sample = other.sample
            self.sample_end_us = other.sample_end_us
        elif self.sample is None:
            self.sample = other.sample
            self.sample_end_us = other.sample_end_us

    def _metrics(self):
        return self.query_time, self.lock_time, self.rows_sent, self.rows_examined

    def _sample(self, run, qt, row):
        if qt >= self.sample_qt:
            self.sample_qt = qt
            self.sample = run.queries[row]
            self.sample_end_us = run.ends[row]

    def _seen(self, lo, hi):
        if self.first_us is None or lo < self.first_us:
            self.first_us = lo
        if self.last_us is None or hi > self.last_us:
            self.last_us = hi


class _RunColumns:
    """A run's Query_time and Lock_time as floats and their buckets, made once."""

    __slots__ = ("qt", "lt", "qt_buckets", "lt_buckets")

    def __init__(self, run):
        self.qt = list(map(float, run.qt))
        self.lt = list(map(float, run.lt))
        self.qt_buckets = _buckets_of(self.qt)
        self.lt_buckets = _buckets_of(self.lt)


def _keep(values, qts, lts, rss, rxs):
    values[0].extend(qts)
    values[1].extend(lts)
    values[2].extend(map(float, rss))
    values[3].extend(map(float, rxs))


def _count_names(names, values, cap):
    """:func:`_count_name` for each value in order, in bulk (first-seen order is kept)."""
    counts = Counter(values)
    counts.pop(None, None)
    _merge_names(names, counts, cap)


def _merge_names(names, counts, cap):
    for value, k in counts.items():
        if value in names:
            names[value] += k
        elif cap is None or len(names) < cap:
            names[value] = k


def _count_name(names, value, cap):
    if value is None:
        return
    if value in names:
        names[value] += 1
    elif cap is None or len(names) < cap:
        names[value] = 1


class Digest:
    """Feed entries with :meth:`add`; read :meth:`classes` and :attr:`global_`."""

    def __init__(self, group_by="fingerprint", since_us=None, until_us=None,
                 fingerprinter=None, mergeable=False):
        if group_by not in GROUP_BY:
            raise ValueError(f"unknown group-by {group_by!r}")
        self.group_by = group_by
        self.since_us = since_us
        self.until_us = until_us
        self.fp = fingerprinter or Fingerprinter()
        self.mergeable = mergeable
        self.by_key = {}
        self.global_ = ClassStats(None, mergeable)
        self.filtered_out = 0
        self.no_group = 0

    def merge(self, other):
        """Fold in a mergeable digest of the entries that follow this one's (same
        options): exactly as if they had been added here."""
        by_key = self.by_key
        for key, theirs in other.by_key.items():
            mine = by_key.get(key)
            if mine is None:
                mine = by_key[key] = ClassStats(key, self.mergeable)
                mine.first_offset = theirs.first_offset
            mine.merge(theirs)
        self.filtered_out += other.filtered_out
        self.no_group += other.no_group
        self.global_.merge(other.global_)

    def state(self):
        """What :meth:`merge` needs, picklable (no fingerprint memo)."""
        return {"by_key": self.by_key, "global_": self.global_,
                "filtered_out": self.filtered_out, "no_group": self.no_group}

    @classmethod
    def from_state(cls, state, **options):
        got = cls(**options)
        got.__dict__.update(state)
        return got

    def add(self, ev):
        end = ev.end_us
        if self.since_us is not None and (end is None or end < self.since_us):
            self.filtered_out += 1
            return
        if self.until_us is not None and (end is None or end > self.until_us):
            self.filtered_out += 1
            return
        if self.group_by == "fingerprint":
            ev.fingerprint = key = self.fp(ev.query)
        else:
            key = getattr(ev, self.group_by)
            if key is None:
                self.no_group += 1
                return
        cls = self.by_key.get(key)
        if cls is None:
            cls = self.by_key[key] = ClassStats(key, self.mergeable)
            cls.first_offset = (ev.file, ev.offset)
        _account(cls, ev)
        _account(self.global_, ev)

    def add_run(self, run):
        """Account a :class:`~binlogkit.slowlog.scan.Run` (entries in file order);
        the same result as :meth:`add` on each of its entries."""
        rows = range(run.n)
        if self.since_us is not None or self.until_us is not None:
            lo = -math.inf if self.since_us is None else self.since_us
            hi = math.inf if self.until_us is None else self.until_us
            rows = [r for r, e in enumerate(run.ends) if lo <= e <= hi]
            self.filtered_out += run.n - len(rows)
            if not rows:
                return
        if self.group_by == "fingerprint":
            qs = run.queries if len(rows) == run.n else [run.queries[r] for r in rows]
            keys = self.fp.keys(qs)
        else:
            col = getattr(run, self.group_by + "s")
            keys = col if len(rows) == run.n else [col[r] for r in rows]
        groups = {}
        for r, key in zip(rows, keys):
            g = groups.get(key)
            if g is None:
                groups[key] = [r]
            else:
                g.append(r)
        nogroup = groups.pop(None, None)
        if nogroup:
            self.no_group += len(nogroup)
            rows = [r for r, key in zip(rows, keys) if key is not None]
        cols = _RunColumns(run)
        by_key = self.by_key
        parts = []
        for key, g in groups.items():
            cls = by_key.get(key)
            if cls is None:
                cls = by_key[key] = ClassStats(key, self.mergeable)
                cls.first_offset = (run.file, run.offset(g[0]))
            parts.append(cls.add_rows(run, g, cols))
        if parts:
            self.global_.add_parts(run, rows, cols, parts)

    def add_all(self, entries):
        add = self.add
        for ev in entries:
            add(ev)
        return self

    def classes(self, limit=0, order_by="sum"):
        """Reported classes, worst total Query_time first (ties: first seen)."""
        got = [c for c in self.by_key.values() if c.query_time.cnt]
        got.sort(key=lambda c: -c.query_time.sum)
        return got[:limit] if limit else got

    def class_id(self, cls) -> str:
        return query_id(cls.key)

    def class_distill(self, cls):
        if self.group_by != "fingerprint" or cls.sample is None:
            return None
        return distill(cls.sample)


def _account(cls, ev):
    cls.count += 1
    qt = ev.query_time
    if cls.values is not None:
        for keep, v in zip(cls.values, (qt, ev.lock_time, ev.rows_sent, ev.rows_examined)):
            if v is not None:
                keep.append(v)
    if qt is not None:
        cls.query_time.add(qt)
        if qt >= cls.sample_qt:
            cls.sample_qt = qt
            cls.sample = ev.query
            cls.sample_end_us = ev.end_us
    elif cls.sample is None:
        cls.sample = ev.query
        cls.sample_end_us = ev.end_us
    if ev.lock_time is not None:
        cls.lock_time.add(ev.lock_time)
    if ev.rows_sent is not None:
        cls.rows_sent.add(ev.rows_sent)
    if ev.rows_examined is not None:
        cls.rows_examined.add(ev.rows_examined)
    end = ev.end_us
    if end is not None:
        if cls.first_us is None or end < cls.first_us:
            cls.first_us = end
        if cls.last_us is None or end > cls.last_us:
            cls.last_us = end
    if cls.key is not None:
        _count_name(cls.dbs, ev.db, cls.name_cap)
        _count_name(cls.users, ev.user, cls.name_cap)
        _count_name(cls.hosts, ev.host, cls.name_cap)

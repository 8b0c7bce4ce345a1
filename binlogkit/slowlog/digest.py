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


def _bucket(v: float) -> int:
    if v < _MIN_BUCK:
        return 0
    idx = int(_BASE_OFFSET + math.log(v) / _BASE_LOG)
    return _NUM_BUCK - 1 if idx > _NUM_BUCK - 1 else idx


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
                 "sample_end_us", "first_offset")

    def __init__(self, key):
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


def _count_name(names, value):
    if value is None:
        return
    if value in names:
        names[value] += 1
    elif len(names) < _MAX_NAMES:
        names[value] = 1


class Digest:
    """Feed entries with :meth:`add`; read :meth:`classes` and :attr:`global_`."""

    def __init__(self, group_by="fingerprint", since_us=None, until_us=None,
                 fingerprinter=None):
        if group_by not in GROUP_BY:
            raise ValueError(f"unknown group-by {group_by!r}")
        self.group_by = group_by
        self.since_us = since_us
        self.until_us = until_us
        self.fp = fingerprinter or Fingerprinter()
        self.by_key = {}
        self.global_ = ClassStats(None)
        self.filtered_out = 0
        self.no_group = 0

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
            cls = self.by_key[key] = ClassStats(key)
            cls.first_offset = (ev.file, ev.offset)
        _account(cls, ev)
        _account(self.global_, ev)

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
        _count_name(cls.dbs, ev.db)
        _count_name(cls.users, ev.user)
        _count_name(cls.hosts, ev.host)

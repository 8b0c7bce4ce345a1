"""Aggregate slow-log entries into query classes (pt-query-digest style).

Per class: count, Query_time, Lock_time, Rows_sent and Rows_examined, every
other attribute of the entries (:mod:`binlogkit.slowlog.attrstats`: typed
numbers, Yes/No, strings), first/last seen (UTC), databases/users/hosts and
the worst sample.  Memory is bounded by the number of classes, never by the
number of entries: numbers go into pt-query-digest's log-scale buckets (1000
buckets of ratio 1.05 from 1 microsecond, :mod:`binlogkit.slowlog.metric`),
from which its median, pct_95 and stddev come.

Classes in which no entry has a ``Query_time`` are left out of the report,
as pt-query-digest does (it orders and reports by ``Query_time``).
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from functools import reduce
from operator import add, itemgetter

from binlogkit.slowlog.attrstats import (UNROLL_LIMIT, ts_seen, account_entry, account_run,
                                        finish_global, pt_ts)
from binlogkit.slowlog.fingerprint import Fingerprinter, distill, query_id
from binlogkit.slowlog.metric import EXACT_INT, Metric, StrStat, floats_and_buckets

_MAX_NAMES = 100
_FIXED_ATTRS = {b"Query_time": "query_time", b"Lock_time": "lock_time",
                b"Rows_sent": "rows_sent", b"Rows_examined": "rows_examined"}

__all__ = ["Digest", "ClassStats", "Metric", "GROUP_BY"]

GROUP_BY = ("fingerprint", "db", "user", "host")

class ClassStats:
    __slots__ = ("key", "count", "query_time", "lock_time", "rows_sent", "rows_examined",
                 "first_us", "last_us", "dbs", "users", "hosts", "sample", "sample_qt",
                 "sample_end_us", "first_offset", "values", "name_cap", "extra", "ts_min",
                 "ts_max", "sample_ts", "sample_db", "sample_qt_raw", "last_offset",
                 "extra_values", "extra_sums")

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
        self.first_offset = self.last_offset = None
        self.extra = {}                    # every other attribute: name -> stat (attrstats)
        self.extra_sums = {}               # the global's: number sums in file order
        self.ts_min = self.ts_max = None   # pt's form of # Time
        self.sample_ts = self.sample_db = self.sample_qt_raw = None
        # for Digest.merge: Query_time and Lock_time values in order (float sums
        # depend on the order; row counts are whole), and all names, not just 100
        self.values = (array("d"), array("d")) if mergeable else None
        self.extra_values = {} if mergeable else None      # the same for other numbers
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
            if cols.same_db is _MIXED:
                dbs = Counter(pick(run.dbs))
                dbs.pop(None, None)
            else:
                dbs = {} if cols.same_db is None else {cols.same_db: m}
            _merge_names(self.dbs, dbs, cap)
            by_uh = {cols.same_uh: m} if cols.same_uh is not _MIXED else Counter(pick(run.uh))
            users, hosts = {}, {}
            for uh, k in by_uh.items():
                user, host = run.uh_map[uh]
                users[user] = users.get(user, 0) + k
                hosts[host] = hosts.get(host, 0) + k
            _merge_names(self.users, users, cap)
            _merge_names(self.hosts, hosts, cap)
            for name, counts in ((b"user", users), (b"host", hosts), (b"db", dbs)):
                if counts:
                    stat = self.extra.get(name)
                    if stat is None:
                        stat = self.extra[name] = StrStat()
                    stat.add_counts(counts)
        lts = pick(cols.lt)
        rss, rxs = pick(cols.rs), pick(cols.rx)
        parts = (self.query_time.add_many(qts, pick(cols.qt_buckets)),
                 self.lock_time.add_many(lts, pick(cols.lt_buckets)),
                 self.rows_sent.add_many(rss, pick(cols.rs_buckets), True),
                 self.rows_examined.add_many(rxs, pick(cols.rx_buckets), True),
                 lo, hi, top, top_row)
        if self.values is not None:
            self.values[0].extend(qts)
            self.values[1].extend(lts)
        return parts

    def add_parts(self, run, rows, cols, parts):
        """Account rows ``rows`` of a Run from the parts the classes returned."""
        if len(rows) == run.n:
            def pick(col):
                return col
        elif len(rows) == 1:
            def pick(col):
                return (col[rows[0]],)
        else:
            pick = itemgetter(*rows)
        self.count += len(rows)
        columns = [(pick(cols.qt), pick(cols.qt_buckets)), (pick(cols.lt), pick(cols.lt_buckets)),
                   (pick(cols.rs), pick(cols.rs_buckets)), (pick(cols.rx), pick(cols.rx_buckets))]
        for k, (metric, (values, buckets)) in enumerate(zip(self._metrics(), columns)):
            metric.add_parts([part[k] for part in parts], values, buckets)
        if self.values is not None:
            self.values[0].extend(columns[0][0])
            self.values[1].extend(columns[1][0])
        self._seen(min(part[4] for part in parts), max(part[5] for part in parts))
        best = max(parts, key=itemgetter(6, 7))
        self._sample(run, best[6], best[7])

    def merge(self, other, drop=(), inexact=None):
        """Fold in ``other`` (mergeable, its entries after this one's): the same
        result as accounting its entries here (the float sums are continued
        value by value, in order)."""
        for k, (mine, theirs) in enumerate(zip(self._metrics(), other._metrics())):
            if k < 2:
                mine.sum = reduce(add, other.values[k], mine.sum)
                mine.whole = mine.whole and theirs.whole and mine.sum < EXACT_INT
            elif not mine.cnt:                # row counts: exact, see can_merge
                mine.sum, mine.whole = theirs.sum, theirs.whole
            else:
                mine.sum += theirs.sum
            mine.cnt += theirs.cnt
            if theirs.cnt:
                mine._fold(theirs.min, theirs.max, theirs.buckets)
        if self.values is not None:
            for mine, theirs in zip(self.values, other.values):
                mine.extend(theirs)
        self.count += other.count
        if other.first_us is not None:
            self._seen(other.first_us, other.last_us)
        for mine, theirs in ((self.dbs, other.dbs), (self.users, other.users),
                             (self.hosts, other.hosts)):
            _merge_names(mine, theirs, self.name_cap)
        if (other.sample_qt >= 0 and other.sample_qt >= self.sample_qt) or self.sample is None:
            if other.sample_qt >= 0:
                self.sample_qt = other.sample_qt
            for name in ("sample", "sample_end_us", "sample_ts", "sample_db", "sample_qt_raw"):
                setattr(self, name, getattr(other, name))
        merge_extra(self, other, drop, inexact)

    def can_merge(self, other):
        """Whether :meth:`merge` can continue the row-count sums exactly."""
        return all(not theirs.cnt or not mine.cnt or (mine.whole and theirs.whole
                                                       and mine.sum + theirs.sum < EXACT_INT)
                   for mine, theirs in ((self.rows_sent, other.rows_sent),
                                        (self.rows_examined, other.rows_examined)))

    def _metrics(self):
        return self.query_time, self.lock_time, self.rows_sent, self.rows_examined

    def stat(self, name: bytes):
        """The statistics of attribute ``name`` (a Metric, BoolStat or StrStat) or None."""
        fixed = _FIXED_ATTRS.get(name)
        got = getattr(self, fixed) if fixed else self.extra.get(name)
        return got if got is not None and got.cnt else None

    def attributes(self):
        """(name, stat) of every attribute with a value, the fixed four first."""
        out = [(name, getattr(self, attr)) for name, attr in _FIXED_ATTRS.items()]
        out += self.extra.items()
        return [(name, st) for name, st in out if st.cnt]

    def _sample(self, run, qt, row):
        if qt >= self.sample_qt:
            self.sample_qt = qt
            self.sample = run.queries[row]
            self.sample_end_us = run.ends[row]
            self.sample_ts = run.ts[row]
            self.sample_db = run.dbs[row]
            self.sample_qt_raw = run.qt[row]

    def _seen(self, lo, hi):
        if self.first_us is None or lo < self.first_us:
            self.first_us = lo
        if self.last_us is None or hi > self.last_us:
            self.last_us = hi


def merge_extra(mine, other, drop=(), inexact=None):
    """Fold the attributes of ``other`` (entries after ``mine``'s) into ``mine``,
    but those named in ``drop``; names whose sums may have lost exactness go to
    ``inexact``."""
    if inexact is None:
        inexact = set()
    for name, theirs in other.extra.items():
        stat = mine.extra.get(name)
        if name in drop:
            continue
        if stat is None:
            mine.extra[name] = theirs
            if mine.extra_values is not None and other.extra_values and name in other.extra_values:
                mine.extra_values[name] = other.extra_values[name]
        elif isinstance(stat, Metric):
            ordered = (other.extra_values or {}).get(name)
            if ordered is not None:
                stat.sum = reduce(add, ordered, stat.sum)
            else:                   # whole numbers: exact in any order (else flagged)
                if not (stat.whole and theirs.whole and stat.sum + theirs.sum < EXACT_INT):
                    inexact.add(name)
                stat.sum += theirs.sum
            stat.cnt += theirs.cnt
            if theirs.cnt:
                stat._fold(theirs.min, theirs.max, theirs.buckets)
        else:
            stat.merge(theirs)
    for name, total in other.extra_sums.items():
        if name in drop:
            continue
        ordered = (other.extra_values or {}).get(name)
        if name in mine.extra_sums and ordered is not None:
            mine.extra_sums[name] = reduce(add, ordered, mine.extra_sums[name])
        else:
            if name in mine.extra_sums and not (float(total).is_integer()
                                                and mine.extra_sums[name].is_integer()):
                inexact.add(name)
            mine.extra_sums[name] = mine.extra_sums.get(name, 0.0) + total
        if mine.extra_values is not None and ordered is not None:
            mine.extra_values.setdefault(name, array("d")).extend(ordered)
    for lo, hi in ((other.ts_min, other.ts_max),):
        if lo is not None:
            ts_seen(mine, lo, hi)
    if other.last_offset is not None:
        mine.last_offset = other.last_offset


class _RunColumns:
    """A run's Query_time and Lock_time as floats and their buckets, made once."""

    __slots__ = ("qt", "lt", "rs", "rx", "qt_buckets", "lt_buckets", "rs_buckets", "rx_buckets",
                 "same_db", "same_uh")

    def __init__(self, run):
        self.qt, self.qt_buckets = run.query_time, run.qt_buckets
        self.lt, self.lt_buckets = run.lock_time, run.lt_buckets
        self.rs, self.rs_buckets = floats_and_buckets(run.rs)
        self.rx, self.rx_buckets = floats_and_buckets(run.rx)
        self.same_db, self.same_uh = _same(run.dbs), _same(run.uh)


_MIXED = object()


def _same(col):
    """The one value of ``col`` when all are equal, else _MIXED."""
    first = col[0]
    return first if col.count(first) == len(col) else _MIXED


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
                 fingerprinter=None, mergeable=False, entry_filter=None):
        if group_by not in GROUP_BY:
            raise ValueError(f"unknown group-by {group_by!r}")
        self.group_by = group_by
        self.since_us = since_us
        self.until_us = until_us
        self.fp = fingerprinter or Fingerprinter()
        self.mergeable = mergeable
        self.entry_filter = entry_filter     # entry -> bool (--filter); entries one by one only
        self.by_key = {}
        self.global_ = ClassStats(None, mergeable)
        self.filtered_out = 0
        self.no_group = 0
        self.types = {}          # attribute -> pt type, fixed at its first value
        self.n_events = 0        # entries aggregated
        self.inexact = set()     # attributes whose values from a second process were dropped

    def merge(self, other):
        """Fold in a mergeable digest of the entries that follow this one's (same
        options): exactly as if they had been added here.  False, and nothing
        changed, when a row-count sum could not stay exact."""
        by_key = self.by_key
        empty = ClassStats(None)
        drop = set()
        for name, kind in other.types.items():
            mine = self.types.get(name, kind)
            if name not in self.types and self.n_events >= UNROLL_LIMIT:
                mine = None                   # pt would not have looked for it any more
            if mine is None:
                drop.add(name)
            elif kind is not None and kind != mine:
                # typed otherwise by an earlier value: the child's values of it are lost
                drop.add(name)
                self.inexact.add(name)
        if not self.global_.can_merge(other.global_) or not all(
                by_key.get(key, empty).can_merge(theirs) for key, theirs in other.by_key.items()):
            return False
        for key, theirs in other.by_key.items():
            mine = by_key.get(key)
            if mine is None:
                mine = by_key[key] = ClassStats(key, self.mergeable)
                mine.first_offset = theirs.first_offset
            mine.merge(theirs, drop, self.inexact)
        self.filtered_out += other.filtered_out
        self.no_group += other.no_group
        for name, kind in other.types.items():
            self.types.setdefault(name, None if name in drop else kind)
        self.n_events += other.n_events
        self.inexact |= other.inexact
        self.global_.merge(other.global_, drop, self.inexact)
        return True

    def state(self):
        """What :meth:`merge` needs, picklable (no fingerprint memo)."""
        return {"by_key": self.by_key, "global_": self.global_,
                "filtered_out": self.filtered_out, "no_group": self.no_group,
                "types": self.types, "n_events": self.n_events, "inexact": self.inexact}

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
            if self.entry_filter is not None and not self.entry_filter(ev):
                self.filtered_out += 1
                return
        else:
            if self.entry_filter is not None and not self.entry_filter(ev):
                self.filtered_out += 1
                return
            key = getattr(ev, self.group_by)
            if key is None:
                self.no_group += 1
                return
        cls = self.by_key.get(key)
        if cls is None:
            cls = self.by_key[key] = ClassStats(key, self.mergeable)
            cls.first_offset = (ev.file, ev.offset)
        cls.last_offset = (ev.file, ev.offset)
        self.n_events += 1
        _account(cls, ev)
        _account(self.global_, ev)
        account_entry(self, cls, ev)

    def add_run(self, run):
        """Account a :class:`~binlogkit.slowlog.scan.Run` (entries in file order);
        the same result as :meth:`add` on each of its entries."""
        if self.entry_filter is not None:
            raise ValueError("a Digest with a filter takes entries one by one (add)")
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
        targets = []
        for key, g in groups.items():
            cls = by_key.get(key)
            if cls is None:
                cls = by_key[key] = ClassStats(key, self.mergeable)
                cls.first_offset = (run.file, run.offset(g[0]))
            # where the class was last seen breaks ties in worst(), as in pt
            cls.last_offset = (run.file, run.offset(g[-1]))
            parts.append(cls.add_rows(run, g, cols))
            targets.append((cls, g))
        if parts:
            self.global_.add_parts(run, rows, cols, parts)
            self.n_events += len(rows)
            account_run(self, run, targets, rows)

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

    def worst(self, order_by=(b"Query_time", "sum"), limit=(None, 0), ties="pt"):
        """pt-query-digest's top classes: ordered by ``order_by`` (attribute,
        sum|min|max|cnt), worst first (ties: as pt, the class seen last first, its
        byte offsets compared as strings; ``ties="first"``: first seen first), taken while
        the running total is under ``limit[0]`` percent of the grand total and the
        count under ``limit[1]`` (None/0: no bound)."""
        name, func = order_by

        def value(cls):
            st = cls.stat(name)
            if st is None:
                return None
            return st.cnt if func == "cnt" else getattr(st, func, None)
        got = [(v, c) for c in self.by_key.values() if (v := value(c)) is not None]
        if ties == "pt":
            got.sort(key=lambda vc: (vc[0], str(vc[1].last_offset[1] if vc[1].last_offset
                                                else 0)), reverse=True)
        else:                          # ties: first seen first
            got.sort(key=lambda vc: vc[0], reverse=True)
        pct, count = limit
        grand = None
        if pct is not None:
            st = self.global_.stat(name)
            grand = (getattr(st, "sum", 0) or 0) * pct / 100 if st is not None else 0
        chosen, total = [], 0
        for v, cls in got:
            if (not grand or total < grand) and (not count or len(chosen) < count):
                chosen.append(cls)
            total += v
        return chosen

    def finish(self):
        """Complete the global statistics of every attribute (call before reading
        ``global_.extra``; cheap, and may be called again after more entries)."""
        finish_global(self)
        return self

    def class_id(self, cls) -> str:
        return query_id(cls.key)

    def class_distill(self, cls):
        if self.group_by != "fingerprint" or cls.sample is None:
            return None
        return distill(cls.sample)


def _account(cls, ev):
    cls.count += 1
    qt = ev.query_time
    rows_sent, rows_examined = ev.rows_sent, ev.rows_examined
    if ev.query.startswith(b"administrator"):        # pt's "zero admin"
        rows_sent = None if rows_sent is None else 0.0
        rows_examined = None if rows_examined is None else 0.0
    if cls.values is not None:
        if qt is not None:
            cls.values[0].append(qt)
        if ev.lock_time is not None:
            cls.values[1].append(ev.lock_time)
    if qt is not None:
        cls.query_time.add(qt)
        if qt >= cls.sample_qt:
            cls.sample_qt = qt
            _entry_sample(cls, ev)
    elif cls.sample is None:
        _entry_sample(cls, ev)
    if ev.lock_time is not None:
        cls.lock_time.add(ev.lock_time)
    if rows_sent is not None:
        cls.rows_sent.add(rows_sent)
    if rows_examined is not None:
        cls.rows_examined.add(rows_examined)
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


def _entry_sample(cls, ev):
    cls.sample = ev.query
    cls.sample_end_us = ev.end_us
    cls.sample_ts = pt_ts(ev.ts)
    cls.sample_db = ev.db
    cls.sample_qt_raw = ev.attrs.get(b"Query_time")

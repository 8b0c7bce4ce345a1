"""Per-attribute statistics with pt-query-digest's definitions (EventAggregator).

Numbers go into 1000 log-scale buckets of ratio 1.05 from 1 microsecond
(:func:`bucket`); count, sum, min and max are exact.  From the buckets, as pt's
``calculate_statistical_metrics`` does: ``pct_95`` is the value of the bucket
holding the 95th percentile, ``median`` the bucket value at the middle, and
``stddev`` the standard deviation of the bucket values (capped at half the
range).  One value, or all equal: all three are that value; two values:
``pct_95`` the larger, ``median`` their mean.  The Query_time distribution
histogram folds the buckets into 8 decades (1us .. 10s+; values under 1us are
not counted, as in pt).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import reduce
from operator import add

from binlogkit._accel import speedups as _speedups
from binlogkit.slowlog.attrs import pt_number

__all__ = ["Metric", "BoolStat", "StrStat", "bucket", "floats_and_buckets", "BUCKET_VALUES",
           "DECADE_OF_BUCKET", "EXACT_INT"]

_BUCK = 1.05
_MIN_BUCK = 0.000001
_NUM_BUCK = 1000
_BASE_LOG = math.log(_BUCK)
_BASE_OFFSET = abs(1 - math.log(_MIN_BUCK) / _BASE_LOG)
_BUCK_VALS = [0.0] + [(_BUCK ** (i - 1)) * _MIN_BUCK for i in range(1, _NUM_BUCK)]
_MAX_NAMES = 100


EXACT_INT = 2 ** 53


def _bucket(v: float) -> int:
    if v < _MIN_BUCK or v != v:      # (NaN: bucket 0, as the C twin)
        return 0
    if v == math.inf:
        return _NUM_BUCK - 1
    idx = int(_BASE_OFFSET + math.log(v) / _BASE_LOG)
    return _NUM_BUCK - 1 if idx > _NUM_BUCK - 1 else idx


class Metric:
    """count/sum/min/max plus bucket counts for a bucketed 95th percentile."""

    __slots__ = ("cnt", "sum", "min", "max", "_buckets", "whole")

    def __init__(self):
        self.cnt = 0
        self.sum = 0.0
        self.min = self.max = None
        self._buckets = {}
        self.whole = True              # every value an integer, the sum below 2**53

    @property
    def buckets(self):
        """{bucket number: count}."""
        return self._buckets

    def add(self, v: float):
        self.cnt += 1
        self.sum += v
        if self.whole and not (v.is_integer() and self.sum < EXACT_INT):
            self.whole = False
        if self.min is None or v < self.min:
            self.min = v
        if self.max is None or v > self.max:
            self.max = v
        b = _bucket(v)
        self._buckets[b] = self._buckets.get(b, 0) + 1

    def add_many(self, values, buckets, whole=False):
        """:meth:`add` for each float of ``values`` in order; ``buckets`` holds
        their buckets (_floats_and_buckets).  The sum stays sequential, except
        for ``whole`` numbers (row counts): while every value and partial sum
        is an integer below 2**53 their float sum is exact in any order.  Returns
        the part (low, high, total or None) for :meth:`add_parts`."""
        self.cnt += len(values)
        lo, hi, seq, plain, integers = _run_stats(values, buckets, self._buckets, self.sum)
        total = None
        if whole and integers and self.sum.is_integer():
            total = plain
            if self.sum + total < EXACT_INT:
                self.sum += total
            else:
                total = None
        if total is None:
            self.sum = seq
            self.whole = False
        self._min_max(lo, hi)
        return lo, hi, total

    def add_parts(self, parts, values, buckets):
        """Fold in the parts of other metrics (the same values split by class);
        ``values`` (in order) and ``buckets`` are all of them."""
        self.cnt += len(values)
        totals = [part[2] for part in parts]
        seq = _run_stats(values, buckets, self._buckets, self.sum)[2]
        if None not in totals and self.sum.is_integer() and self.sum + sum(totals) < EXACT_INT:
            self.sum += sum(totals)
        else:
            self.sum = seq
            self.whole = False
        self._min_max(min(part[0] for part in parts), max(part[1] for part in parts))

    def _fold(self, lo, hi, buckets):
        self._min_max(lo, hi)
        mine = self.buckets
        for b, k in buckets.items():
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



def _run_stats(values, buckets, counts, start):
    """(min, max, sum, plain, whole) of floats ``values`` (at least one) in order:
    ``sum`` added one by one to ``start``, ``plain`` the same from 0.0, ``whole``
    whether every value is an integer; the counts of ``buckets`` are added to the
    dict ``counts``.  In C when built."""
    if _speedups is not None:
        got = _speedups.slowlog_stats(values, buckets, counts, start)
        if got is not None:
            return got
    return _run_stats_py(values, buckets, counts, start)


def _run_stats_py(values, buckets, counts, start):
    for b, k in Counter(buckets).items():
        counts[b] = counts.get(b, 0) + k
    return (min(values), max(values), reduce(add, values, start), reduce(add, values, 0.0),
            all(map(float.is_integer, values)))


_FLOATS = {}            # number as written -> float
_FLOAT_BUCKETS = {}     # number as written -> bucket (same keys as _FLOATS)


def _floats_and_buckets(raw):
    """The floats of numbers written as bytes or ints (as Perl reads them:
    :func:`~binlogkit.slowlog.attrs.pt_number`), and their buckets; in C when
    the accelerator is built and every value is plain (``\\d+(\\.\\d+)?`` or an int)."""
    if _speedups is not None:
        got = _speedups.slowlog_numbers(raw, _BASE_OFFSET, _BASE_LOG)
        if got is not None:
            return got
    return _floats_and_buckets_py(raw)


def _floats_and_buckets_py(raw):
    """:func:`_floats_and_buckets` in Python (memoised: the same few thousand
    values recur)."""
    floats = list(map(_FLOATS.get, raw))
    if None in floats:
        if len(_FLOATS) > 1 << 17:
            _FLOATS.clear()
            _FLOAT_BUCKETS.clear()
        for v in set(raw).difference(_FLOATS):
            _FLOATS[v] = f = pt_number(v)
            _FLOAT_BUCKETS[v] = _bucket(f)
        floats = list(map(_FLOATS.__getitem__, raw))
    return floats, list(map(_FLOAT_BUCKETS.__getitem__, raw))



bucket = _bucket
floats_and_buckets = _floats_and_buckets
BUCKET_VALUES = _BUCK_VALS


def _decades():
    """Bucket number -> decade 0..7 (1us, 10us, .. 1s, 10s+), pt's buckets_of."""
    out = [0] * _NUM_BUCK
    start = 0
    starts = [0.0] + [(10.0 ** i) * _MIN_BUCK for i in range(1, 8)]
    for decade in range(len(starts) - 1):
        nxt = _bucket(starts[decade + 1])
        for b in range(start, nxt):
            out[b] = decade
        start = nxt
    for b in range(start, _NUM_BUCK):
        out[b] = 7
    return out


DECADE_OF_BUCKET = _decades()


def _square(x):
    """x*x; past the float range it is inf, as Perl's arithmetic gives (** raises)."""
    return x * x


def pt_metrics(metric):
    """(pct_95, stddev, median) of a Metric, by pt-query-digest's bucket rules."""
    n = metric.cnt
    if not n:
        return 0.0, 0.0, 0.0
    hi, lo = metric.max, metric.min
    if n == 1 or hi == lo:
        return hi, 0.0, hi
    if n == 2:
        mean = (lo + hi) / 2
        return hi, math.sqrt(_square(hi - mean) * 2), mean
    counts = metric.buckets
    cutoff = int(n * 0.95) if n >= 10 else n
    top = n - cutoff
    left = n
    excl = 0
    mid = n // 2
    median = 0.0
    prev = _NUM_BUCK - 1
    b95 = 0
    total = sumsq = 0.0
    vals = _BUCK_VALS
    for b in sorted(counts, reverse=True):
        k = counts[b]
        if not k:
            continue
        left -= k
        excl += k
        if not b95 and excl > top:
            b95 = b
        if not median and left <= mid:
            median = vals[b] if (cutoff % 2 or k > 1) else (vals[b] + vals[prev]) / 2
        total += k * vals[b]
        sumsq += k * _square(vals[b])
        prev = b
    var = sumsq / n - _square(total / n)
    stddev = math.sqrt(var) if var > 0 else 0.0
    cap = (hi - lo) / 2
    return vals[b95], (cap if stddev > cap else stddev), median


def histogram(metric):
    """The 8 decade counts of a Query_time Metric (bucket 0, under 1us, left out)."""
    out = [0] * 8
    dec = DECADE_OF_BUCKET
    for b, k in metric.buckets.items():
        if b:
            out[dec[b]] += k
    return out


class BoolStat:
    """A Yes/No attribute: how many entries had it, how many said Yes."""

    __slots__ = ("cnt", "sum")

    def __init__(self):
        self.cnt = self.sum = 0

    def add(self, raw):
        self.cnt += 1
        if raw == b"Yes":
            self.sum += 1

    def add_many(self, raws):
        self.cnt += len(raws)
        self.sum += raws.count(b"Yes")

    def merge(self, other):
        self.cnt += other.cnt
        self.sum += other.sum


class StrStat:
    """A string attribute: count, smallest and largest value (byte order, as
    Perl's ``lt``/``gt``) and, for the report, the count of each value."""

    __slots__ = ("cnt", "min", "max", "unq")

    def __init__(self):
        self.cnt = 0
        self.min = self.max = None
        self.unq = {}

    def add(self, raw):
        self.cnt += 1
        if self.min is None or raw < self.min:
            self.min = raw
        if self.max is None or raw > self.max:
            self.max = raw
        unq = self.unq
        if raw in unq:
            unq[raw] += 1
        elif len(unq) < 1000:
            unq[raw] = 1

    def add_counts(self, counts):
        """Fold in {value: count}."""
        if not counts:
            return
        self.cnt += sum(counts.values())
        lo, hi = min(counts), max(counts)
        if self.min is None or lo < self.min:
            self.min = lo
        if self.max is None or hi > self.max:
            self.max = hi
        unq = self.unq
        for v, k in counts.items():
            if v in unq:
                unq[v] += k
            elif len(unq) < 1000:
                unq[v] = k

    def merge(self, other):
        if other.cnt:
            self.add_counts(other.unq)
            self.cnt += other.cnt - sum(other.unq.values())
            for v in (other.min, other.max):
                if self.min is None or v < self.min:
                    self.min = v
                if self.max is None or v > self.max:
                    self.max = v

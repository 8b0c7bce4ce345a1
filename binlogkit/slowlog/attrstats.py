"""Every attribute of the entries, aggregated per class (pt-query-digest's EventAggregator).

:class:`~binlogkit.slowlog.digest.Digest` keeps Query_time, Lock_time,
Rows_sent and Rows_examined itself; this module adds every other attribute an
entry carries, as pt-query-digest's pipeline sees it:

* the ``Name: value`` pairs of the ``#`` lines and of ``SET`` (grammar and
  types in :mod:`binlogkit.slowlog.attrs`), without pt's ignored metadata
  (``Thread_id``, ``timestamp``, ``insert_id`` ...) and without ``Schema``,
  which is an alias of ``db``;
* ``user``, ``host``, ``db`` (strings) and ``bytes`` (the query's length,
  pt's ``Query_length``); ``ts`` (pt's form of ``# Time``) as the class's
  ``ts_min``/``ts_max``;
* ``Log_slow_rate_type``/``Log_slow_rate_limit`` become ``rate_limit``
  (``query:100``); an ``administrator command`` has its row counts zeroed.

An attribute's type is decided by the first value seen (:func:`~binlogkit.slowlog.attrs.type_of`);
as in pt, an attribute first seen after the 1000th entry is not aggregated
(pt stops looking for new attributes once it compiles its aggregation loop).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from functools import reduce
from operator import add, itemgetter

from binlogkit.slowlog.attrs import (ATTR, BOOL, IGNORED, NUM, STRING, attr_pairs, pt_number,
                                     set_pairs, type_of, unit_of)
from binlogkit.slowlog.metric import BoolStat, Metric, StrStat, floats_and_buckets

__all__ = ["entry_extras", "account_entry", "account_run", "pt_ts", "new_stat", "ts_seen",
           "UNROLL_LIMIT"]

UNROLL_LIMIT = 1000
_PER_CLASS_ONLY = frozenset({b"user", b"host", b"db"})     # strings the global does not need
FIXED = (b"Query_time", b"Lock_time", b"Rows_sent", b"Rows_examined")
SKIP = IGNORED | frozenset(FIXED) | {b"Schema"}
_RATE = (b"Log_slow_rate_limit", b"Log_slow_rate_type")
_PT_TS15 = re.compile(rb"[0-9: ]{15}")
_PT_TS19 = re.compile(rb"[-0-9: T]{19}")
_PURE_SET = re.compile(rb"SET timestamp=\d+;\n\Z")
_TS_MEMO = {}


def pt_ts(raw):
    """The part of a ``# Time:`` value pt-query-digest keeps (15 or 19 characters)."""
    if raw is None:
        return None
    got = _TS_MEMO.get(raw)
    if got is None:
        if _PT_TS15.match(raw):
            got = raw[:15]
        elif _PT_TS19.match(raw):
            got = raw[:19]
        else:
            got = raw
        if len(_TS_MEMO) > 4096:
            _TS_MEMO.clear()
        _TS_MEMO[raw] = got
    return got


def new_stat(kind):
    return Metric() if kind == NUM else BoolStat() if kind == BOOL else StrStat()


def _rate_limit(pairs):
    """Turn the rate-limit pair into ``rate_limit`` when the limit is set (pt)."""
    d = dict(pairs)
    limit = d.get(b"Log_slow_rate_limit")
    if not limit or limit == b"0":
        return pairs
    value = (d.get(b"Log_slow_rate_type") or b"session") + b":" + limit
    return [kv for kv in pairs if kv[0] not in _RATE] + [(b"rate_limit", value)]


def _filter(pairs):
    out = [kv for kv in pairs if kv[0] not in SKIP]
    if any(k == b"Log_slow_rate_limit" for k, _ in out):
        out = _rate_limit(out)
    return out


def entry_extras(ev):
    """The (name, raw value) pairs of an entry beyond the four fixed metrics."""
    out = _filter(list(ev.attrs.items()))
    q = ev.query
    if q.startswith(b"administrator"):
        out = [(k, b"0") if k in (b"Rows_read", b"Rows_affected") else (k, v) for k, v in out]
    if ev.user is not None:
        out.append((b"user", ev.user))
    if ev.host is not None:
        out.append((b"host", ev.host))
    if ev.db is not None:
        out.append((b"db", ev.db))
    out.append((b"bytes", b"0" if q == b"/* No query */" else b"%d" % len(q)))
    return out


def _kind(digest, name, raw):
    """The type of an attribute, fixed at its first value; None when pt would
    not aggregate it (first seen after the first UNROLL_LIMIT entries)."""
    types = digest.types
    got = types.get(name)
    if got is None and name not in types:
        if name in _PER_CLASS_ONLY:
            types[name] = STRING
            return STRING
        if digest.n_events > UNROLL_LIMIT:
            types[name] = None
            return None
        got = types[name] = type_of(name, raw)
    return got


def _add_one(target, name, kind, raw):
    store = target.extra
    stat = store.get(name)
    if stat is None:
        stat = store[name] = new_stat(kind)
    if kind == NUM:
        v = pt_number(raw)
        stat.add(v)
        if target.extra_values is not None and _in_order(name):
            target.extra_values.setdefault(name, array("d")).append(v)
        return v
    stat.add(raw)
    return raw


def account_entry(digest, cls, ev):
    """Add one entry's attributes to its class and to the global."""
    for name, raw in entry_extras(ev):
        kind = _kind(digest, name, raw)
        if kind is None:
            continue
        v = _add_one(cls, name, kind, raw)
        if kind == NUM:
            _global_sum(digest.global_, name, (v,))
    ts = pt_ts(ev.ts)
    if ts is not None:
        ts_seen(cls, ts, ts)


def _in_order(name):
    """Keep this number's values in order for a two-process merge?  Times are
    fractions, whose float sum depends on the order; sizes and counts are whole
    numbers, summed exactly in any order (a merge checks that they were)."""
    got = _ORDERED.get(name)
    if got is None:
        got = _ORDERED[name] = unit_of(name) == "time"
    return got


_ORDERED = {}


def _global_sum(glob, name, values):
    """The global keeps only each number's sum, added in file order (its other
    statistics are those of the classes together: :func:`finish_global`)."""
    sums = glob.extra_sums
    sums[name] = reduce(add, values, sums.get(name, 0.0))
    if glob.extra_values is not None and _in_order(name):
        glob.extra_values.setdefault(name, array("d")).extend(values)


def finish_global(digest):
    """Fill the global's attribute statistics from the classes (every aggregated
    entry is in exactly one class) and its sums; the global ts range likewise."""
    g = digest.global_
    extra = {}
    lo = hi = None
    for cls in digest.by_key.values():
        for name, st in cls.extra.items():
            if name in _PER_CLASS_ONLY or not st.cnt:
                continue
            mine = extra.get(name)
            if mine is None:
                mine = extra[name] = type(st)()
            if isinstance(st, Metric):
                mine.cnt += st.cnt
                mine._fold(st.min, st.max, st.buckets)
                mine.sum += st.sum
            else:
                mine.merge(st)
        if cls.ts_min is not None:
            lo = cls.ts_min if lo is None or cls.ts_min < lo else lo
            hi = cls.ts_max if hi is None or cls.ts_max > hi else hi
    for name, total in g.extra_sums.items():
        if name in extra:
            extra[name].sum = total
    g.extra = extra
    g.ts_min, g.ts_max = lo, hi


def ts_seen(cls, lo, hi):
    if cls.ts_min is None or lo < cls.ts_min:
        cls.ts_min = lo
    if cls.ts_max is None or hi > cls.ts_max:
        cls.ts_max = hi


# -- bulk runs ---------------------------------------------------------------------------

_EMPTY = ((), ())


def _x_pairs(block):
    """(names, values) of the filtered pairs of a block of ``#`` lines."""
    pairs = []
    for line in block.split(b"\n"):
        if line[:1] == b"#":
            pairs += attr_pairs(line)
    return _split(_filter(pairs))


def _x2_pairs(block):
    """The same for the block after ``# Query_time``, which starts with the rest
    of that line."""
    first, _, rest = block.partition(b"\n")
    pairs = ATTR.findall(first)
    for line in rest.split(b"\n"):
        if line[:1] == b"#":
            pairs += attr_pairs(line)
    return _split(_filter(pairs))


def _set_pairs(line):
    if not line or _PURE_SET.match(line):
        return _EMPTY
    pairs = set_pairs(line)
    return _split(_filter(pairs)) if pairs else _EMPTY


def _split(pairs):
    if not pairs:
        return _EMPTY
    return tuple(map(itemgetter(0), pairs)), tuple(map(itemgetter(1), pairs))


def _parsed(fn, memo, col):
    """(distinct (names, values) of the blocks of ``col``, values per row): each
    distinct block is parsed once (memo: block -> (names, values))."""
    distinct = set(col)
    missing = distinct.difference(memo)
    if missing:
        if len(memo) > 65536:
            memo.clear()
            missing = distinct
        for v in missing:
            memo[v] = fn(v)
    got = memo.__getitem__
    return [got(v) for v in distinct], list(map(got, col))


_X1_MEMO, _X2_MEMO = {}, {}


def _run_columns(run):
    """{name: column of raw values (None where absent)} of a run's # lines and SET."""
    blocks = [_parsed(_x_pairs, _X1_MEMO, run.x1), _parsed(_x2_pairs, _X2_MEMO, run.x2)]
    distinct_sets = set(run.sets)
    if not all(not s or _PURE_SET.match(s) for s in distinct_sets):
        per_row = [_set_pairs(s) for s in run.sets]
        blocks.append((per_row, per_row))
    cols = {}
    n = run.n
    for distinct, per_row in blocks:
        sigs = {p[0] for p in distinct}
        if len(sigs) == 1:
            (names,) = sigs
            if len(set(names)) == len(names):
                if names:
                    for name, col in zip(names, zip(*map(itemgetter(1), per_row))):
                        cols[name] = col
                continue
        for r, (names, values) in enumerate(per_row):
            for name, raw in zip(names, values):
                col = cols.get(name)
                if col is None:
                    col = cols[name] = [None] * n
                col[r] = raw
    return cols


def _picker(rows, n):
    if len(rows) == n:
        return lambda col: col
    if len(rows) == 1:
        r0 = rows[0]
        return lambda col: (col[r0],)
    return itemgetter(*rows)


def account_run(digest, run, groups, all_rows):
    """Add the attributes of a Run's rows: ``groups`` maps each class to its rows."""
    cols = _run_columns(run)     # (administrator commands never come in runs)
    cols[b"bytes"] = list(map(len, run.queries))
    for name in (b"user", b"host", b"db"):     # counted per class by Digest.add_rows
        if name not in digest.types:
            digest.types[name] = STRING
    glob = digest.global_
    n = run.n
    pickers = [_picker(rows, n) for _, rows in groups]      # for columns without holes
    for name, col in cols.items():
        holes = None in col
        if name not in digest.types:
            rows_with = [r for r in all_rows if col[r] is not None] if holes else all_rows
            if not rows_with:
                continue
            at = digest.n_events - len(all_rows) + all_rows.index(rows_with[0])
            if at >= UNROLL_LIMIT:
                digest.types[name] = None
                continue
            first = col[rows_with[0]]
            digest.types[name] = NUM if isinstance(first, int) else type_of(name, first)
        kind = digest.types[name]
        if kind is None:
            continue
        if kind == NUM:
            vals, bucks = floats_and_buckets([b"0" if v is None else v for v in col] if holes else col)
            rows = [r for r in all_rows if col[r] is not None] if holes else all_rows
            if rows:
                _global_sum(glob, name, _picker(rows, -1 if holes else n)(vals))
        for (target, rows), pick in zip(groups, pickers):
            if holes:
                rows = [r for r in rows if col[r] is not None]
                if not rows:
                    continue
                pick = _picker(rows, -1)
            store = target.extra
            stat = store.get(name)
            if stat is None:
                stat = store[name] = new_stat(kind)
            if kind == NUM:
                stat.add_many(pick(vals), pick(bucks), True)
                if target.extra_values is not None and _in_order(name):
                    target.extra_values.setdefault(name, array("d")).extend(pick(vals))
            elif kind == BOOL:
                stat.add_many(pick(col))
            else:
                stat.add_counts(Counter(pick(col)))
    _run_ts(run, groups)


def _run_ts(run, groups):
    ts = run.ts
    if ts is None:
        return
    n = run.n
    for target, rows in groups:
        got = _picker(rows, n)(ts)
        got = [t for t in got if t is not None] if None in got else got
        if got:
            ts_seen(target, min(got), max(got))

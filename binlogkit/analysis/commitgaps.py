"""Stalls seen in the binlog itself: stretches with no commit where commits were due.

A stall that blocks every commit (a binlog rotation's sync, FLUSH TABLES WITH
READ LOCK, LOCK TABLES, a slow fsync at commit) leaves a hole in the commit
times, whether or not the slow log caught the statements that waited.

* MySQL 5.7+/8 GTID events carry ``immediate_commit_timestamp`` (µs): the gap
  between two consecutive commits is exact.
* MariaDB (and MySQL without those) has only header times, whole seconds,
  of the statement that committed (its start).  Writers blocked at commit
  begin no new statement, so a stall is a run of seconds with fewer commits
  than the rate around them allows (a Poisson count that low has probability
  under ``P_LOW``): its length is estimated as the missing share of each
  such second (a 1.5 s stall from x.1 to y.6 leaves about 0.9 + 0.6 s
  missing).  ``trickle`` is the fewest commits in one of those seconds: 0
  when commits stopped for a whole second (a lock: FLUSH TABLES WITH READ
  LOCK, LOCK TABLES; any stall of 2 s or more covers a whole second), more
  when they only slowed down (every commit slow).  A run is cut where commits
  went through for a moment (stalls back to back: a rotation, then FLUSH
  TABLES WITH READ LOCK that waited for it), see :func:`_split`; a run that
  begins at a rotation needs only half of ``min_gap_s``.

A gap counts when the commit rate around it (``CONTEXT_S`` before and after,
the gap excluded) would have put at least ``MIN_EXPECTED`` commits in it (a
Poisson process would leave it empty with probability e^-5 < 1 %), so quiet
periods of a quiet server are not stalls.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["CommitTimes", "commit_gaps", "GAP_COLUMNS"]

GAP_COLUMNS = ["start", "end", "duration_s", "time_res_s", "commits_before", "commits_after",
               "expected", "file", "next_file", "trickle"]
P_LOW = 0.01          # a second this unlikely under the rate around it is short of commits
CONTEXT_S = 10.0
MIN_EXPECTED = 5.0


class CommitTimes:
    """The commit instants of one binlog file, collected by the header pass."""

    __slots__ = ("file", "seconds", "micros", "starts", "queries")

    def __init__(self, file):
        self.file = file
        self.seconds = []     # XID header times (s): the committing statement's start
        self.micros = []      # GTID immediate_commit_timestamp (µs), when the server writes it
        self.starts = []      # the GTID event's header time (s) of each of micros: its
        #                       statement's start (MySQL), for waits (diagnosis.evidence)
        self.queries = []     # (start s, exec_time s) of Query events that took >= 1 s
        #                       to be logged (a statement-format write held by a lock)


def _instants(commit_times):
    """(µs instants, file index per instant, resolution s) over all files, file order."""
    exact = any(c.micros for c in commit_times)
    vals, owner = [], []
    for i, c in enumerate(commit_times):
        got = c.micros if exact else [s * 1_000_000 for s in c.seconds]
        vals += got
        owner += [i] * len(got)
    t = np.asarray(vals, dtype=np.int64)
    o = np.asarray(owner, dtype=np.int64)
    order = np.argsort(t, kind="stable")
    return t[order], o[order], 0.0 if exact else 1.0


def commit_gaps(commit_times, min_gap_s=1.0, context_s=CONTEXT_S,
                min_expected=MIN_EXPECTED, rotations=()) -> pd.DataFrame:
    """Commit-free stretches of at least ``min_gap_s`` where commits were due.

    ``start``/``end``: the last commit before and the first after (µs data),
    or the first and last empty second (+1) for whole seconds; ``file`` and
    ``next_file``: the binlogs holding those commits.  ``rotations``: epoch
    seconds of ROTATE events; a whole-second run is cut at one that falls
    inside it (a rotation is a commit, so commits flowed at that moment)."""
    t, owner, res = _instants(commit_times)
    rows = []
    if len(t) < 2:
        return _frame(rows)
    if res:
        return _frame(_second_gaps(t // 1_000_000, owner, commit_times, min_gap_s, context_s,
                                   min_expected, frozenset(int(r) for r in rotations)))
    ctx = int(context_s * 1e6)
    for k in np.nonzero(np.diff(t) > 0)[0]:
        a, b = int(t[k]), int(t[k + 1])
        start, end = (a, b) if res == 0.0 else (a + 1_000_000, b)
        dur = (end - start) / 1e6
        if dur < min_gap_s:
            continue
        before = int(np.searchsorted(t, a, side="right") - np.searchsorted(t, a - ctx, side="left"))
        after = int(np.searchsorted(t, b + ctx, side="right") - np.searchsorted(t, b, side="left"))
        window = (min(ctx, a - int(t[0])) + min(ctx, int(t[-1]) - b)) / 1e6 + 2 * res
        if window <= 0:
            continue
        expected = (before + after) / window * dur
        if expected < min_expected:
            continue
        rows.append({"start": start, "end": end, "duration_s": dur, "time_res_s": res,
                     "commits_before": before, "commits_after": after,
                     "expected": round(expected, 1),
                     "file": commit_times[int(owner[k])].file,
                     "next_file": commit_times[int(owner[k + 1])].file, "trickle": 0})
    return _frame(rows)


def _second_gaps(secs, owner, commit_times, min_gap_s, context_s, min_expected, rotations):
    """Runs of seconds short of commits (module doc), split at blips."""
    first, last = int(secs[0]), int(secs[-1])
    counts = np.bincount(secs - first, minlength=last - first + 1).astype(float)
    ctx = max(int(context_s), 1)
    low = np.zeros(len(counts), dtype=bool)
    rate = np.zeros(len(counts))
    for i in range(1, len(counts) - 1):          # the first and last second are partial
        around = np.concatenate([counts[max(1, i - ctx):i], counts[i + 1:i + 1 + ctx]])
        rate[i] = _usual(around)
        low[i] = rate[i] > 0 and _poisson_cdf(int(counts[i]), rate[i]) < P_LOW
    rows = []
    i = 1
    while i < len(counts) - 1:
        if not low[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(counts) - 1 and low[j + 1]:
            j += 1
        around = np.concatenate([counts[max(1, i - ctx):i], counts[j + 1:j + 1 + ctx]])
        r = _usual(around)
        if r > 0:
            short = np.clip(1.0 - counts / r, 0.0, 1.0)
            at_rotation = [x - first for x in rotations]
            for a, b, halves in _split(i, j, counts, at_rotation):
                # a run that begins with a rotation has that evidence too: half the length
                need = min_gap_s / 2 if a in at_rotation or a - 1 in at_rotation else min_gap_s
                rows += _second_gap(a, b, halves, counts, short, r, first, secs, owner,
                                    commit_times, ctx, need, min_expected)
        i = j + 1
    return rows


def _split(i, j, counts, rotations):
    """[(a, b, (half first?, half last?))]: the run i..j cut where commits went
    through for a moment, i.e. two stalls back to back (a rotation, then FLUSH
    TABLES WITH READ LOCK that waited for it; a lock released just before a
    rotation): at a second after the first with commits and none in the next
    (one stall has commits in its first second, those before it began, and
    none until its last), and at a rotation's second (a rotation is a commit).
    The cut second is shared, half each."""
    cuts = sorted({k for k in range(i + 1, j) if counts[k] > 0 and not counts[k + 1]}
                  | {k for k in rotations if i < k <= j})
    out, a = [], i
    for k in cuts:
        out.append((a, k, (a != i, True)))
        a = k
    out.append((a, j, (a != i, False)))
    return out


def _second_gap(i, j, halves, counts, short, r, first, secs, owner, commit_times, ctx,
                min_gap_s, min_expected):
    missing = float(np.sum(short[i:j + 1]))
    missing -= 0.5 * short[i] * halves[0] + 0.5 * short[j] * halves[1]
    if missing < min_gap_s or r * missing < min_expected:
        return []
    a, b = first + i, first + j + 1                  # seconds [a, b)
    k0 = int(np.searchsorted(secs, a, side="left")) - 1
    k1 = int(np.searchsorted(secs, b, side="left"))
    before = commit_times[int(owner[max(k0, 0)])].file
    after = commit_times[int(owner[min(k1, len(secs) - 1)])].file
    return [{"start": a * 1_000_000, "end": b * 1_000_000, "duration_s": round(missing, 1),
             "time_res_s": 1.0, "commits_before": int(counts[max(1, i - ctx):i].sum()),
             "commits_after": int(counts[j + 1:j + 1 + ctx].sum()),
             "expected": round(r * missing, 1), "file": before, "next_file": after,
             "trickle": int(counts[i:j + 1].min())}]


def _usual(counts) -> float:
    """The usual commits per second around a point: the upper quartile, so that
    other stalls nearby (a busy incident) do not lower it much."""
    return float(np.percentile(counts, 75)) if len(counts) else 0.0


def _poisson_cdf(k: int, mean: float) -> float:
    """P(X <= k) for X ~ Poisson(mean)."""
    term = total = math.exp(-mean)
    for n in range(1, k + 1):
        term *= mean / n
        total += term
    return total


def _frame(rows) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=GAP_COLUMNS)
    for col in ("start", "end"):
        df[col] = pd.to_datetime(df[col].astype("int64"), unit="us", utc=True)
    return df


def gaps_at_rotations(commits, rotations, min_gap_s=1.0):
    """commit_gaps of the commit times rotations_frame collected, told where the
    rotations of `rotations` (a rotations_table) were; None without commits."""
    if not commits:
        return None
    at = [int(a.timestamp()) for a in rotations["at"].dropna()] if len(rotations) else []
    return commit_gaps(commits, min_gap_s=min_gap_s, rotations=at)

"""The server's clock in a sequence of binlog files, despite client-set event times.

An event's header time is its statement's ``thd->start_time``, which a client
sets with ``SET TIMESTAMP`` (replays, tests, ``SET timestamp=1`` before
``FLUSH LOGS``): such times say nothing about when the file was written.  What
does not lie:

* the file order (the sequence number) and the ROTATE/STOP events that end
  each file: the server's time only goes forward from one file to the next;
* a Query event's header time plus its ``exec_time`` (modulo 2^32: the server
  stores ``now - start_time`` unsigned), the server's clock when the statement
  ended, whatever the client set;
* a format description's ``created`` (set at a server start) and a STOP
  event's time (written by the shutdown, not a client).

* the order of the events in a file: the server's clock goes forward with it
  (give or take concurrent transactions), a client's times need not.

So each file's events are grouped into clusters of times (a new cluster after
a gap of more than :data:`CLUSTER_GAP_S`: an idle night, or a client's time),
the trusted instants above weigh :data:`TRUSTED_WEIGHT` events each, and per
file a run of consecutive clusters is chosen, each written wholly after the one
before it, so that the chosen runs go forward through the
files of one sequence (base name), with the most weight kept (dynamic
programming over the files).  A file's *clock span* is its chosen run; the
events outside it are ``outliers``.
"""
from __future__ import annotations

import time
from collections import Counter

__all__ = ["FileTimes", "clock_spans", "CLUSTER_GAP_S", "SLACK_S"]

CLUSTER_GAP_S = 6 * 3600     # a file idle this long between events is taken as two clusters
SLACK_S = 2                  # whole-second times; a statement may start before the rotation
TRUSTED_WEIGHT = 1000
_U32 = 1 << 32
_PLAUSIBLE_FROM = 946684800  # 2000-01-01: binlog v4 servers are younger


class FileTimes:
    """Event times of one file, collected during the header pass."""

    __slots__ = ("hist", "trusted", "first", "last", "n")

    def __init__(self):
        self.hist = Counter()          # header second -> events
        self.trusted = Counter()       # server-clock second -> samples
        self.first = {}                # second -> first and last event number (file order)
        self.last = {}
        self.n = 0

    def _at(self, t, k):
        self.first.setdefault(t, k)
        self.last[t] = k

    def add(self, when):
        """The next event of the file."""
        self.add_run(when, 1, self.n, self.n)
        self.n += 1

    def add_run(self, when, count, first_index, last_index):
        """``count`` consecutive events of one time, numbered first..last in the file."""
        if when:                       # 0: no time (a relay log's fake ROTATE, ...)
            self.hist[when] += count
            self.first.setdefault(when, first_index)
            self.last[when] = last_index

    def add_query(self, when, exec_time, index=None):
        """A Query event (counted by ``add``): its end on the server's clock."""
        self.add_trusted((when + exec_time) % _U32, index)

    def add_trusted(self, when, index=None):
        if _PLAUSIBLE_FROM <= when <= time.time() + 86400:     # a server clock, not garbage
            self.trusted[when] += 1
            self._at(when, max(self.n - 1, 0) if index is None else index)

    def clusters(self):
        """[(lo, hi, weight, events, first event number, last event number)] in time order."""
        points = sorted(set(self.hist) | set(self.trusted))
        out = []
        for t in points:
            n = self.hist.get(t, 0)
            w = n + TRUSTED_WEIGHT * self.trusted.get(t, 0)
            a, b = self.first[t], self.last[t]
            if out and t - out[-1][1] <= CLUSTER_GAP_S:
                lo, _, w0, n0, a0, b0 = out[-1]
                out[-1] = (lo, t, w0 + w, n0 + n, min(a0, a), max(b0, b))
            else:
                out.append((t, t, w, n, a, b))
        return out


def _runs(clusters):
    """Runs [i, j] of consecutive clusters each written wholly after the one
    before it (the server's clock goes forward with the file):
    [(lo, hi, weight, events, i, j)]."""
    out = []
    for i in range(len(clusters)):
        w = n = 0
        for j in range(i, len(clusters)):
            if j > i and clusters[j][4] <= clusters[j - 1][5]:
                break
            w += clusters[j][2]
            n += clusters[j][3]
            out.append((clusters[i][0], clusters[j][1], w, n, i, j))
    return out


def clock_spans(times, groups):
    """Per file: (lo, hi, outlier events) of its clock span, or None when no
    cluster fits the sequence.  ``times`` FileTimes in file order, ``groups``
    the sequence (base name) of each; the order is enforced within a group."""
    out = [None] * len(times)
    by_group = {}
    for i, g in enumerate(groups):
        by_group.setdefault(g, []).append(i)
    for idx in by_group.values():
        clusters = [times[i].clusters() for i in idx]
        runs = [_runs(c) for c in clusters]
        chosen = _choose(runs)
        for i, (c, file_runs), cl in zip(idx, chosen, clusters):
            if c is not None:
                lo, hi, _, n, _, _ = file_runs[c]
                out[i] = (lo, hi, sum(x[3] for x in cl) - n)
    return out


def _choose(all_clusters):
    """One cluster (or none) per file, going forward in time, most weight kept."""
    # state: (score, end time, back pointer); a file may choose none (score +0)
    prev = [(0, None, None)]            # states after the files so far: (score, end, path)
    for clusters in all_clusters:
        nxt = []
        for score, end, path in prev:
            nxt.append((score, end, (path, None)))
            for c, (lo, hi, w, *_) in enumerate(clusters):
                if end is None or lo >= end - SLACK_S:
                    nxt.append((score + w, max(hi, end or hi), (path, c)))
        prev = _prune(nxt)
    best = max(prev, key=lambda s: (s[0], -(s[1] or 0)))
    picks = []
    path = best[2]
    while path is not None:
        path, c = path
        picks.append(c)
    picks.reverse()
    return list(zip(picks, all_clusters))


def _prune(states):
    """Keep the Pareto front: a higher score or an earlier end."""
    states.sort(key=lambda s: (s[1] if s[1] is not None else -1, -s[0]))
    out, best = [], -1
    for s in states:
        if s[0] > best:
            out.append(s)
            best = s[0]
    return out

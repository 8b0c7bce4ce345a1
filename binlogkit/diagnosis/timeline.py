"""The evidence timeline: what the logs showed, as small records in time order.

One timeline serves both diagnoses: ``binlogkit report`` fills it from whole
files at once (:mod:`binlogkit.analysis.diagnosis`), ``binlogkit watch`` as
events arrive (:mod:`binlogkit.watch.diagnosis`), forgetting what is older
than its window.  Times are float seconds since the epoch (UTC).

Records:

* :class:`Wait`: *waiting work*, one interval per statement or transaction that
  waited: ``start``, ``end``, ``source`` (``slow log`` or ``binlog``), ``kind``
  (write/commit), ``lock_time``, ``query_time``.  From the slow log: writes and
  COMMITs at least ``MIN_WAIT_S`` slow (start = end - Query_time).  From the
  binlogs: a transaction written at least ``MIN_WAIT_S`` after the end of the
  whole second its statement began in (MySQL's commit timestamp; online, the
  arrival of its commit: it began before a gap and was written after it);
  Query events with an ``exec_time`` of a second or more.
* :class:`Rotation`: ``at`` (the ROTATE event's time: the start, in whole
  seconds, of the statement whose commit filled the file), files, size,
  ``opened_by``: the latest instant the next file was open (its format
  description's second + 1 s from files; its arrival online), and ``ended_by``:
  the instant the rotation is known to have ended, the old file synced (only
  a live follower knows it: the arrival of the next file's first event, which
  the server sends once the old file is synced and closed; None from files,
  whose header times are statement starts).
* :class:`Restart`: a binlog created at a server start, with its down window
  ``[down_from, down_to]``.
* commit instants, and the ends of slow-log statements (for :meth:`Timeline.blind`).

**Look-ahead.**  The cause rules (:mod:`binlogkit.diagnosis.causes`) read
anything before a candidate and at most ``LOOKAHEAD_S`` (+ the candidate's time
resolution, whole seconds on MariaDB binlogs) past its end: :meth:`Timeline.at`
sets that horizon and every query leaves out what lies after it.  So the same
rule decides a stall in a report and, online, ``LOOKAHEAD_S`` after it ended.
"""
from __future__ import annotations

import bisect
import datetime

__all__ = ["Timeline", "Wait", "Rotation", "Restart", "LOOKAHEAD_S", "LOOKBACK_S",
           "MIN_WAIT_S", "RELEASE_SLACK_S", "RESTART_AFTER_S", "trickle", "hhmmss"]

LOOKAHEAD_S = 1.0            # a rule reads at most this (+ time resolution) past a candidate's end
LOOKBACK_S = 10.0            # blind(): statements ended this long before an instant
MIN_WAIT_S = 0.5
RESTART_AFTER_S = 1.0        # the server accepts work a little after it creates its binlog
RELEASE_SLACK_S = 0.1        # a wait released this close to a gap's start is before it
INF = float("inf")


class Wait:
    """``end`` is the latest its release can have been; ``res`` how much earlier it
    may have been (a slow log that stamps whole seconds, read online)."""
    __slots__ = ("id", "start", "end", "source", "kind", "lock_time", "query_time", "res")

    def __init__(self, id, start, end, source, kind, lock_time=0.0, query_time=0.0, res=0.0):
        self.id, self.start, self.end, self.source, self.kind = id, start, end, source, kind
        self.lock_time, self.query_time, self.res = lock_time, query_time, res

    def __repr__(self):
        return f"Wait({self.start:.3f}..{self.end:.3f} {self.source} {self.kind})"


class Rotation:
    __slots__ = ("at", "from_file", "to_file", "size_bytes", "opened_by", "ended_by", "ref")

    def __init__(self, at, from_file, to_file, size_bytes=None, opened_by=None, ref=None):
        self.at, self.from_file, self.to_file = at, from_file, to_file
        self.size_bytes, self.opened_by, self.ref = size_bytes, opened_by, ref
        self.ended_by = None


class Restart:
    __slots__ = ("file", "at", "previous_end", "down_from", "down_to")

    def __init__(self, file, at, previous_end, down_from, down_to):
        self.file, self.at, self.previous_end = file, at, previous_end
        self.down_from, self.down_to = down_from, down_to


class Timeline:
    """The evidence of one run or of a watcher's window (module doc)."""

    def __init__(self, commit_res=1.0, exact_commits=False, covered=None, arrivals=False):
        self.commit_res = commit_res          # time resolution of the commit instants
        self.exact_commits = exact_commits    # µs commit instants
        self.arrivals = arrivals              # a live follower: every late transaction seen
        self.covered = covered                # (first, last) instants the binlogs cover
        self.waits = []                       # by start
        self._starts = []
        self.rotations = []
        self.restarts = []
        self.commits = []                     # sorted instants
        self.ends = []                        # sorted ends of slow-log statements
        self.claimed = set()                  # ids of waits a stall explains
        self.horizon = INF
        self._next_id = 0

    # -- feeding ---------------------------------------------------------------
    def add_wait(self, start, end, source, kind, lock_time=0.0, query_time=0.0,
                 res=0.0) -> Wait:
        w = Wait(self._next_id, start, end, source, kind, lock_time, query_time, res)
        self._next_id += 1
        k = bisect.bisect_right(self._starts, start)
        self._starts.insert(k, start)
        self.waits.insert(k, w)
        return w

    def add_rotation(self, at, from_file, to_file, size_bytes=None, opened_by=None,
                     ref=None) -> Rotation:
        rot = Rotation(at, from_file, to_file, size_bytes, opened_by, ref)
        self.rotations.append(rot)
        return rot

    def add_restart(self, file, at, previous_end, down_from, down_to) -> Restart:
        r = Restart(file, at, previous_end, down_from, down_to)
        self.restarts.append(r)
        return r

    def add_commit(self, t) -> None:
        if self.commits and t < self.commits[-1]:
            bisect.insort(self.commits, t)
        else:
            self.commits.append(t)

    def add_statement_end(self, t) -> None:
        if self.ends and t < self.ends[-1]:
            bisect.insort(self.ends, t)
        else:
            self.ends.append(t)

    def forget_before(self, t) -> None:
        """Drop what ended before ``t`` (a watcher's bounded window)."""
        for name in ("commits", "ends"):
            items = getattr(self, name)
            k = bisect.bisect_left(items, t)
            if k:
                del items[:k]
        keep = [w for w in self.waits if w.end >= t]
        if len(keep) != len(self.waits):
            self.waits = keep
            self._starts = [w.start for w in keep]
            live = {w.id for w in keep}
            self.claimed &= live
        self.rotations = [r for r in self.rotations if r.at is None or r.at >= t
                          or (r.opened_by is not None and r.opened_by >= t)]
        self.restarts = [r for r in self.restarts if r.down_to >= t]

    # -- the horizon -----------------------------------------------------------
    def at(self, end, res=0.0) -> "Timeline":
        """Decide a candidate ending at ``end``: nothing after end + LOOKAHEAD_S + res
        is visible to the rules (module doc)."""
        self.horizon = end + LOOKAHEAD_S + res
        return self

    # -- the queries the rules read ----------------------------------------------
    def waits_in(self, start, end, res=0.0) -> list:
        """Waiting work released inside (start, end]: it ends after the first ``res``
        s of the interval (a release at its very start belongs to what came before;
        so must the earliest its own time resolution allows), began before the
        interval ends, by the horizon; none a stall before has claimed."""
        after = start + max(res, RELEASE_SLACK_S)
        hi = bisect.bisect_left(self._starts, end)
        horizon, claimed = self.horizon, self.claimed
        return [w for w in self.waits[:hi]
                if after < w.end - w.res and w.end <= horizon and w.id not in claimed]

    def claim(self, waits) -> None:
        """These waits are explained by a stall: evidence for no other (each waiting
        statement was held by one thing; candidates are decided in time order)."""
        self.claimed.update(w.id for w in waits)

    def commits_between(self, start, end) -> int:
        """Commits in [start, end) (up to the horizon)."""
        end = min(end, self.horizon)
        if end <= start:
            return 0
        return bisect.bisect_left(self.commits, end) - bisect.bisect_left(self.commits, start)

    def blind(self, t) -> bool:
        """True when no slow-log statement ended from ``LOOKBACK_S`` before ``t`` to
        the horizon: nothing could have shown waiting work near ``t`` (only MySQL's
        commit timestamps, which show the transactions that queued behind another).
        Never for a live follower: the arrival of every transaction shows whether it
        was written late."""
        if self.arrivals:
            return False
        hi = min(t + LOOKBACK_S, self.horizon)
        lo = bisect.bisect_left(self.ends, t - LOOKBACK_S)
        return lo >= len(self.ends) or self.ends[lo] > hi

    def restart_at(self, start, end):
        """The restart whose down window [down_from, down_to] holds ``start`` (from
        a second before), or None."""
        for r in self.restarts:
            if r.down_from - 1.0 <= start <= r.down_to:
                return r
        return None


def trickle(row) -> int:
    """A candidate's fewest commits in one second (0: commits stopped, not slowed)."""
    got = row.get("trickle", 0)
    return 0 if got is None or got != got else int(got)


def hhmmss(t) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%H:%M:%S")

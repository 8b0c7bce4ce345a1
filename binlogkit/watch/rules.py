"""Cause rules over one candidate stall (a commit gap) and the timeline around it.

A candidate is a stretch with no live commit of at least the threshold.  Each
rule reads it and either decides (returns a `Verdict`) or passes; the first that
decides wins, in the order of RULES:

* ``restart``: a Stop event, a log created at start-up, or a lost connection in
  the gap: never a stall (a restart is reported as its own event);
* ``idle``: nothing waited: no commit written after the gap began before it
  (`Timeline.waited`), no slow-log entry that spans it: never a stall;
* ``binlog_rotation``: a Rotate event arrived at the gap's start or inside it:
  the commits waited for the rotation (the old file's sync holds the binlog
  lock).  The part of the gap after the next file was opened, when it is at
  least the threshold, is a candidate of its own (a lock taken as the rotation
  ended);
* ``lock``: work waited with no rotation near: FLUSH TABLES WITH READ LOCK, LOCK
  TABLES, a metadata or row lock (the slow log's Lock_time says so when it has
  the statements);
* ``unknown``: work waited, and the only evidence is one statement that
  examined many rows (a long statement, not a wait).

``commit_sync`` is not one gap: commits slowed, not stopped.  Gaps that follow each
other with only a burst of commits between them (less than CHAIN_LINK_S), each of
which the rules above would call ``lock``, are one ``commit_sync`` stall (a lock
stall after which the commits did not flow on is held until the next gap is decided).  The
slow log shows it too
(`SlowedRun`): writes and COMMITs that took half the threshold or more, each begun before the
last one ended (+ SLOWED_GAP_S), for at least the threshold, released at several
instants rather than together, in a stretch no other stall explains
(`slowed_verdict`).  Without a slow log it is not seen.
"""
__all__ = ["Candidate", "Verdict", "RULES", "decide", "SlowedRun", "slowed_verdict"]

WAIT_MIN_S = 0.25        # less than this is within a second's rounding and a normal commit
ROTATION_EARLY_S = 0.5   # a Rotate this long before the last commit still opens the gap
LOCK_SHARE = 0.5
LONG_STATEMENT_ROWS = 100_000


class Candidate:
    """A commit gap [start, end] (arrival times) and the evidence gathered after it."""

    __slots__ = ("start", "end", "first", "waiting_commits", "waiting_events", "events",
                 "max_wait", "decided", "id", "part_of", "last_seen")

    def __init__(self, start, end, first=None):
        self.start, self.end, self.first = start, end, first
        self.waiting_commits = 0
        self.waiting_events = 0
        self.events = 0
        self.max_wait = 0.0
        self.decided = False
        self.id = None
        self.part_of = None
        self.last_seen = end        # the last arrival of its settle time

    @property
    def duration(self):
        return self.end - self.start

    def wait_needed(self):
        return max(WAIT_MIN_S, 0.3 * self.duration)

    def add(self, arrival, waited):
        self.events += 1
        self.last_seen = arrival.at
        if waited >= self.wait_needed():
            self.waiting_events += 1
            if arrival.is_commit:
                self.waiting_commits += 1
            if waited > self.max_wait:
                self.max_wait = waited


class Verdict:
    __slots__ = ("cause", "stall", "rotation", "hint", "slow", "rest")

    def __init__(self, cause, stall, rotation=None, hint=None, slow=(), rest=None):
        self.cause, self.stall, self.rotation, self.hint = cause, stall, rotation, hint
        self.slow = list(slow)
        self.rest = rest        # a Candidate for the part of the gap the cause leaves


def waiting_slow(candidate, timeline, settle):
    """Slow-log entries that began before the gap's middle and ended at its end."""
    lo = candidate.start + candidate.duration / 2
    return [e for e in timeline.slow_between(candidate.end - 0.5, candidate.end + settle)
            if e.start <= lo and e.kind != "read"]


def restart_rule(c, timeline, settle):
    markers = timeline.markers_between(c.start - 0.05, c.end)
    if markers:
        return Verdict("restart", False, hint=markers[0].kind)
    return None


def idle_rule(c, timeline, settle):
    if c.waiting_commits or c.waiting_events or waiting_slow(c, timeline, settle):
        return None
    return Verdict("idle", False)


def rotation_rule(c, timeline, settle):
    rotations = [r for r in timeline.rotations_between(c.start - ROTATION_EARLY_S, c.end)
                 if not r.catchup and (r.done_at is None or r.done_at > c.start + 0.01)]
    if not rotations:
        return None
    rot = rotations[-1]
    rest = None
    if rot.done_at is not None and c.end - rot.done_at >= _threshold(timeline):
        rest = Candidate(rot.done_at, c.end, c.first)
        rest.waiting_commits, rest.waiting_events = c.waiting_commits, c.waiting_events
        rest.events, rest.max_wait = c.events, c.max_wait
        c.end = rot.done_at
    return Verdict("binlog_rotation", True, rotation=rot,
                   hint=_rotation_hint(rot), slow=waiting_slow(c, timeline, settle), rest=rest)


def _threshold(timeline):
    return getattr(timeline, "threshold", 1.0)


def _rotation_hint(rot):
    if rot.sync_s is None:
        return f"{rot.from_file} rotated"
    return f"{rot.from_file} took {rot.sync_s:.2f} s to close and sync at rotation"


def lock_rule(c, timeline, settle):
    slow = waiting_slow(c, timeline, settle)
    if slow:
        total = sum(e.query_time for e in slow)
        share = sum(e.lock_time for e in slow) / total if total else 0.0
        if share >= LOCK_SHARE:
            return Verdict("lock", True, hint=f"the waiting statements spent {share:.0%} of "
                                                "their time in Lock_time", slow=slow)
        if (c.waiting_commits <= 1 and len(slow) == 1
                and slow[0].rows_examined >= LONG_STATEMENT_ROWS):
            return Verdict("unknown", True, hint=f"one statement examined "
                                                 f"{slow[0].rows_examined} rows", slow=slow)
    return Verdict("lock", True, slow=slow,
                   hint="commits stopped with no rotation: a lock held them (FLUSH TABLES WITH "
                        "READ LOCK, LOCK TABLES, a metadata or row lock)")


RULES = (restart_rule, idle_rule, rotation_rule, lock_rule)


def decide(candidate, timeline, settle):
    for rule in RULES:
        verdict = rule(candidate, timeline, settle)
        if verdict is not None:
            return verdict
    return Verdict("unknown", True)


CHAINED = ("lock", "unknown")   # a gap right after (commits did not flow on): commit_sync
CHAIN_LINK_S = 0.5      # commits between two gaps for less than this: one slowed stretch
CHAIN_HOLD_S = 2.5      # a held stall is said at the latest this long after its end
FLOWED_ON_S = 0.15      # a commit this long after a gap's end: the commits flowed on (a
                        # slowed sync releases its group at once, then stops again)
SLOWED_SHARE = 0.5      # a write or COMMIT taking half the threshold or more is slowed
SLOWED_GAP_S = 1.25     # a slowed write that began this long after the run's last end: a new run
RELEASES_MIN = 3        # distinct release instants: a slowed trickle, not one pile-up
RELEASE_APART_S = 0.2


class SlowedRun:
    """Slowed writes and COMMITs ending one after another (server times)."""

    __slots__ = ("start", "end", "entries", "last_wall")

    def __init__(self, entry):
        self.start, self.end, self.entries = entry.start, entry.end, [entry]
        self.last_wall = 0.0

    def add(self, entry):
        self.start = min(self.start, entry.start)
        self.end = max(self.end, entry.end)
        if len(self.entries) < 10_000:
            self.entries.append(entry)


def slowed_verdict(run, threshold, said):
    """A ``commit_sync`` Verdict for a run of slowed writes, or None (module doc)."""
    if run is None or run.end - run.start < threshold:
        return None
    ends = sorted(e.end for e in run.entries)
    releases = 1 + sum(1 for a, b in zip(ends, ends[1:]) if b - a > RELEASE_APART_S)
    if releases < RELEASES_MIN:
        return None
    span = run.end - run.start
    for start, end in said:
        if min(end, run.end) - max(start, run.start) > 0.5 * span:
            return None
    times = sorted(e.query_time for e in run.entries)
    median = times[len(times) // 2]
    return Verdict("commit_sync", True, slow=run.entries,
                   hint=f"{len(run.entries)} writes and COMMITs took {median:.2f} s each "
                        f"(median), released at {releases} instants: commits slowed, not "
                        "stopped (binlog or redo log sync: sync_binlog, "
                        "innodb_flush_log_at_trx_commit, the disk)")

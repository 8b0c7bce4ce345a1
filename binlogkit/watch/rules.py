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
"""
__all__ = ["Candidate", "Verdict", "RULES", "decide"]

WAIT_MIN_S = 0.25        # less than this is within a second's rounding and a normal commit
ROTATION_EARLY_S = 0.5   # a Rotate this long before the last commit still opens the gap
LOCK_SHARE = 0.5
LONG_STATEMENT_ROWS = 100_000


class Candidate:
    """A commit gap [start, end] (arrival times) and the evidence gathered after it."""

    __slots__ = ("start", "end", "first", "waiting_commits", "waiting_events", "events",
                 "max_wait", "decided", "id", "part_of")

    def __init__(self, start, end, first=None):
        self.start, self.end, self.first = start, end, first
        self.waiting_commits = 0
        self.waiting_events = 0
        self.events = 0
        self.max_wait = 0.0
        self.decided = False
        self.id = None
        self.part_of = None

    @property
    def duration(self):
        return self.end - self.start

    def wait_needed(self):
        return max(WAIT_MIN_S, 0.3 * self.duration)

    def add(self, arrival, waited):
        self.events += 1
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

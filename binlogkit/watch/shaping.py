"""Candidate shaping that only a watcher does: what it hands to the shared rules.

The causes are `binlogkit.diagnosis`'s (the rules `binlogkit report` runs); what
is online-only is how candidates are cut from a stream:

* `gap_row`: a live commit gap as a candidate row (shape ``commit-gap``, exact
  arrival times: time resolution 0), described by the slow-log statements that
  ran across it, as the report's commit-gap candidates are;
* `Chain`: gaps that follow each other with only a small burst of commits
  between (less than CHAIN_LINK_S), each decided ``lock`` or ``unknown`` by the
  rules, are commits slowed, not stopped: one candidate with a trickle of
  commits, which the ``commit_sync`` rule decides.  A link after which the
  commits did not flow on is held at most CHAIN_HOLD_S after its end (then said;
  a later link says the chain again with the same id);
* `SlowedRun`: writes and COMMITs that took half the threshold or more, each
  begun before the last one ended (+ SLOWED_GAP_S), for at least the threshold,
  released at several instants rather than together, in a stretch no other stall
  explains: a trickle too (`slowed_row`).  Without a slow log it is not seen.
"""
import re

__all__ = ["gap_row", "Chain", "chain_row", "SlowedRun", "slowed_row", "describe",
           "CHAIN_LINK_S", "CHAIN_HOLD_S", "FLOWED_ON_S", "SLOWED_SHARE", "SLOWED_GAP_S"]

CHAIN_LINK_S = 0.5      # commits between two gaps for less than this: one slowed stretch
CHAIN_HOLD_S = 1.5      # a link after which commits stopped again is said this long after its end
FLOWED_ON_S = 0.15      # a commit this long after a gap's end: the commits flowed on (a
                        # slowed sync releases its group at once, then stops again)
SLOWED_SHARE = 0.5      # a write or COMMIT taking half the threshold or more is slowed
SLOWED_GAP_S = 1.25     # a slowed write that began this long after the run's last end: a new run
RELEASES_MIN = 3        # distinct release instants: a slowed trickle, not one pile-up
RELEASE_APART_S = 0.2
MIN_LATENCY_S = 0.5     # the report's: statements this slow describe a candidate
_SLEEPS = re.compile(rb"\bsleep\s*\(", re.I)


def sleeps(entry) -> bool:
    """A statement slow on purpose (SLEEP()): never waiting work."""
    q = entry.query
    return bool(q) and _SLEEPS.search(q if isinstance(q, bytes) else str(q).encode()) is not None


def describe(entries) -> dict:
    """The counts of a candidate row from its slow-log entries (as the report's)."""
    kinds = {"write": 0, "commit": 0, "read": 0, "other": 0}
    for e in entries:
        kinds[e.kind if e.kind in kinds else "other"] += 1
    total = sum(e.query_time for e in entries)
    rows = sorted(e.rows_examined for e in entries)
    n = len(rows)
    median = 0.0 if not n else float(rows[n // 2] if n % 2 else (rows[n // 2 - 1] + rows[n // 2]) / 2)
    return {"queries": len(entries), "writes": kinds["write"], "commits": kinds["commit"],
            "reads": kinds["read"], "others": kinds["other"],
            "max_query_time": max((e.query_time for e in entries), default=0.0),
            "lock_share": sum(e.lock_time for e in entries) / total if total > 0 else 0.0,
            "rows_examined_median": median, "members": list(entries)}


def gap_row(start, end, slow, horizon, res=0.0) -> dict:
    """A commit gap [start, end] (arrival times) as a candidate row; ``slow``: the
    slow-log entries known, of which those that ran across it (and ended by the
    ``horizon``) describe it."""
    during = [e for e in slow if e.start < end and e.end > start and e.end <= horizon
              and e.query_time >= MIN_LATENCY_S]
    row = {"start": start, "end": end, "duration_s": round(end - start, 3), "shape": "commit-gap",
           "time_res_s": res, "evidence": "binlog", "commit_gap_s": end - start, "trickle": 0,
           "top_classes": []}
    row.update(describe(during))
    return row


class Chain:
    """Gap after gap decided lock/unknown, with a small burst between (module doc)."""

    __slots__ = ("links", "id", "said", "claimed_before")

    def __init__(self, claimed_before):
        self.links = []
        self.id = None
        self.said = 0               # links when it was last said
        self.claimed_before = claimed_before

    def due(self, now) -> bool:
        return len(self.links) > self.said and now >= self.links[-1]["end"] + CHAIN_HOLD_S


def chain_row(chain, slow, horizon) -> dict:
    """Two or more links as one candidate: commits slowed, a trickle between stops."""
    first, last = chain.links[0], chain.links[-1]
    row = gap_row(first["start"], last["end"], slow, horizon)
    n = len(chain.links)
    mean = sum(r["end"] - r["start"] for r in chain.links) / n
    row.update(trickle=1, _trickle_hint=(
        f"commits stopped {n} times in a row, each for about {mean:.2f} s, with a few between: "
        "commits slowed, not stopped (binlog or redo log sync: sync_binlog, "
        "innodb_flush_log_at_trx_commit, the disk)"))
    return row


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


def slowed_row(run, threshold, said):
    """A trickle candidate of a run of slowed writes, or None (module doc)."""
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
    row = {"start": run.start, "end": run.end, "duration_s": round(span, 3),
           "shape": "commit-gap", "time_res_s": 0.0, "evidence": "slow log",
           "commit_gap_s": span, "trickle": releases, "top_classes": [],
           "_trickle_hint": (
               f"{len(run.entries)} writes and COMMITs took {median:.2f} s each (median), "
               f"released at {releases} instants: commits slowed, not stopped (binlog or redo "
               "log sync: sync_binlog, innodb_flush_log_at_trx_commit, the disk)")}
    row.update(describe(run.entries))
    return row

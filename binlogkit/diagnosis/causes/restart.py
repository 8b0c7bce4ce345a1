"""``restart``: the server was down or starting up.

Commits stopped because the server stopped: a clean shutdown (the previous
binlog ends in a STOP event), a crash or kill (it stays flagged in use; crash
recovery follows), then a binlog created at start-up (its format description's
``created`` is set).  Never a rotation stall: the file switch at a restart is
not the binlog lock being held.  (``binlogkit watch`` says a restart as its own
event, not as a stall.)
"""
from __future__ import annotations

from binlogkit.diagnosis.timeline import LOOKBACK_S, hhmmss

CAUSE = "restart"


def candidates(tl, have) -> list:
    """A candidate of shape ``restart`` per restart that interrupted work (commits
    in the ``LOOKBACK_S`` before it went down) and no other candidate covers:
    the down window itself.  ``have``: the candidates' (start, end) pairs."""
    out = []
    for r in tl.restarts:
        a, b = r.down_from, r.at
        if any(s <= b and e >= a and tl.restart_at(s, e) is not None for s, e in have):
            continue
        if not tl.commits_between(a - LOOKBACK_S, a):
            continue
        out.append({"start": a, "end": max(b, a), "duration_s": round(max(b, a) - a, 3),
                    "shape": "restart", "queries": 0, "writes": 0, "commits": 0, "reads": 0,
                    "others": 0, "max_query_time": 0.0, "lock_share": 0.0,
                    "rows_examined_median": float("nan"), "top_classes": [], "members": [],
                    "time_res_s": tl.commit_res, "evidence": "binlog",
                    "commit_gap_s": float("nan"), "trickle": 0})
    return out


def decide(row, tl):
    r = tl.restart_at(row["start"], row["end"])
    if r is None:
        return None
    how = r.previous_end or "unknown shutdown"
    row.update(cause=CAUSE, hint=(f"the server restarted ({how}): {r.file} was created at "
                                  f"start-up at {hhmmss(r.at)}Z; commits stopped while it "
                                  "was down and recovering"))
    return [row]

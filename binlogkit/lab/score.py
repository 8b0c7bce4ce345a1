"""Score a stall report against a lab run's ground truth, per cause.

Truth items: every injected rotation delay of at least ``min_rotation_s``
(cause ``binlog_rotation``, with its file; delays inside a ``commit_sync``
episode are that episode's commit syncs, not rotations) and every confounder
episode of truth.json (its cause).  A reported stall *matches* a truth item
when their times overlap within ``slack_s`` (whole-second logs) and the causes
agree (for a rotation, the file too).

Per cause: ``recall`` = truth items found with that cause / truth items;
``precision`` = reported stalls of that cause that match an item of that cause /
reported stalls of that cause (only stalls overlapping some truth item or
``min_report_s`` long count: short noise is not scored).  ``misblamed``: stalls
blamed on a rotation that overlap a confounder (never acceptable).

Episodes whose cause is ``none`` (the life lab's idle and low-traffic periods,
:mod:`binlogkit.lab.life_lab`) are where no stall may be reported:
``in_idle`` lists the stalls that overlap one by more than ``idle_slack_s``
and match no true stall.
"""
from __future__ import annotations

import datetime

__all__ = ["truth_items", "score"]


def _s(iso) -> float:
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def truth_items(truth: dict, min_rotation_s=1.0) -> list:
    from binlogkit.lab.stall_lab import rotation_delays
    episodes = truth.get("episodes", [])
    items = [{"cause": "binlog_rotation", "file": d["file"], "start": _s(d["start"]),
              "end": _s(d["end"])}
             for d in rotation_delays(truth["delays"], episodes)
             if d["duration_s"] >= min_rotation_s]
    items += [{"cause": e["cause"], "kind": e["kind"], "file": None, "start": _s(e["start"]),
               "end": _s(e["end"])} for e in episodes]
    return items


def _in_idle(stalls, items, quiet, slack, idle_slack):
    out = []
    for s in stalls:
        if any(_matches(s, i, slack) for i in items):
            continue
        for q in quiet:
            if min(s["t1"], q["end"]) - max(s["t0"], q["start"]) > idle_slack:
                out.append({"start": s["start"], "cause": s["cause"], "duration_s": s["duration_s"],
                            "idle": q["kind"]})
                break
    return out


def _overlap(a0, a1, b0, b1, slack):
    return a0 <= b1 + slack and b0 <= a1 + slack


def _agrees(stall, item) -> bool:
    if stall["cause"] != item["cause"]:
        return False
    return item["file"] is None or (stall["rotation"] or {}).get("from_file") == item["file"]


def _matches(stall, item, slack) -> bool:
    return _agrees(stall, item) and _overlap(stall["t0"], stall["t1"], item["start"],
                                             item["end"], slack)


def score(doc: dict, truth: dict, slack_s=1.5, min_report_s=1.0, min_rotation_s=1.0,
          idle_slack_s=1.0) -> dict:
    """{cause: {"truth", "found", "reported", "correct", "recall", "precision"},
    "misblamed": [stall starts], "in_idle": [stalls in idle periods]}."""
    every = truth_items(truth, min_rotation_s)
    items = [i for i in every if i["cause"] != "none"]
    quiet = [i for i in every if i["cause"] == "none"]
    stalls = [dict(s, t0=_s(s["start"]), t1=_s(s["end"])) for s in doc["stalls"]]
    out = {}
    for cause in sorted({i["cause"] for i in items} | {s["cause"] for s in stalls}):
        mine = [i for i in items if i["cause"] == cause]
        found = sum(any(_matches(s, i, slack_s) for s in stalls) for i in mine)
        scored = [s for s in stalls if s["cause"] == cause and (
            s["duration_s"] >= min_report_s
            or any(_overlap(s["t0"], s["t1"], i["start"], i["end"], slack_s) for i in items))]
        correct = sum(any(_matches(s, i, slack_s) for i in items) for s in scored)
        out[cause] = {"truth": len(mine), "found": found, "reported": len(scored),
                      "correct": correct, "recall": found / len(mine) if mine else None,
                      "precision": correct / len(scored) if scored else None}
    out["in_idle"] = _in_idle(stalls, items, quiet, slack_s, idle_slack_s)
    confounders = [i for i in every if i["cause"] != "binlog_rotation"]
    out["misblamed"] = [s["start"] for s in stalls if s["cause"] == "binlog_rotation" and any(
        _overlap(s["t0"], s["t1"], i["start"], i["end"], 0.0) and not any(
            _matches(s, r, slack_s) for r in items if r["cause"] == "binlog_rotation")
        for i in confounders)]
    return out

"""The batch adapter's two conversions: a run's frames into the shared timeline's
records (:mod:`binlogkit.diagnosis.timeline`) and candidates, and the verdict's
rows back into frames (``STALL_COLUMNS``, the report, ``stalls_frame``).

Times cross as float epoch seconds, rounded back to the microsecond.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from binlogkit.diagnosis.timeline import Timeline

__all__ = ["to_timeline", "to_candidates", "stall_frame", "idle_frame", "STALL_COLUMNS",
           "IDLE_COLUMNS", "sec", "ts"]

STALL_COLUMNS = ["start", "end", "duration_s", "shape", "queries", "writes", "commits", "reads",
                 "others", "max_query_time", "lock_share", "rows_examined_median", "top_classes",
                 "members", "cause", "rotation_from", "rotation_to", "rotation_at",
                 "rotation_size", "hint", "time_res_s", "evidence", "commit_gap_s"]
IDLE_COLUMNS = ["start", "end", "duration_s", "hint"]


_SEEN: dict = {}        # float seconds -> the Timestamp it came from (exact round trips)


def sec(t):
    """A Timestamp as float epoch seconds (None for NaT/None)."""
    if t is None or pd.isna(t):
        return None
    t = pd.Timestamp(t)
    f = t.value / 1e9
    _SEEN.setdefault(f, t)
    return f


def ts(t):
    """Float epoch seconds as a UTC Timestamp: the one it came from, else to the
    nanosecond float seconds hold (NaT for None)."""
    if t is None:
        return pd.NaT
    got = _SEEN.get(t)
    if got is not None:
        return got.tz_convert("UTC") if got.tzinfo else got.tz_localize("UTC")
    return pd.Timestamp(int(round(t * 1e9)), unit="ns", tz="UTC")


def forget() -> None:
    _SEEN.clear()


def _secs(series) -> list:
    if series is None or not len(series):
        return []
    ns = series.to_numpy(dtype="datetime64[ns]").astype("int64")
    out = list(ns / 1e9)
    for f, v in zip(out, ns):
        _SEEN.setdefault(f, pd.Timestamp(int(v), unit="ns", tz="UTC"))
    return out


def to_timeline(statements, rotations, restarts, covered, waits, commits_us, commit_res,
                exact) -> Timeline:
    """The shared timeline of one run's frames."""
    tl = Timeline(commit_res=commit_res, exact_commits=exact,
                  covered=None if covered is None else (sec(covered[0]), sec(covered[1])))
    for s, e, src, kind, lt, qt in zip(_secs(waits["start"]), _secs(waits["end"]),
                                       waits["source"], waits["kind"], waits["lock_time"],
                                       waits["query_time"]):
        tl.add_wait(s, e, src, str(kind), float(lt), float(qt))
    if rotations is not None and len(rotations):
        nxt = rotations["next_opened_at"] if "next_opened_at" in rotations else \
            pd.Series([pd.NaT] * len(rotations), index=rotations.index)
        for (_, r), opened in zip(rotations.iterrows(), nxt):
            at, opened = sec(r["at"]), sec(opened)
            size = None if pd.isna(r["size_bytes"]) else int(r["size_bytes"])
            # the next file's format description: whole seconds, so open by its end
            tl.add_rotation(at, r["from_file"], r["to_file"], size,
                            None if opened is None else opened + 1.0)
    for _, r in (restarts.iterrows() if restarts is not None else ()):
        prev = r["previous_end"]
        tl.add_restart(r["file"], sec(r["at"]), prev if isinstance(prev, str) else None,
                       sec(r["down_from"]), sec(r["down_to"]))
    tl.commits = list(np.asarray(commits_us, dtype="int64") / 1e6) if commits_us is not None \
        else []
    if statements is not None and len(statements):
        tl.ends = sorted(_secs(statements["end"]))
    return tl


def to_candidates(cands, statements) -> list:
    """Candidate rows (frame) as the rules' dicts, in the frame's order."""
    out = []
    has_query = statements is not None and "query" in statements
    for _, row in cands.iterrows():
        r = row.to_dict()
        r["start"], r["end"] = sec(r["start"]), sec(r["end"])
        r["duration_s"] = float(r["duration_s"])
        members = list(r.get("members") or [])
        r["members"] = members
        if r["shape"] == "pile-up" and members and statements is not None:
            r["member_starts"] = _secs(statements.loc[members, "start"])
            if has_query:
                r["member_queries"] = list(statements.loc[members, "query"])
        out.append(r)
    return out


def stall_frame(rows) -> pd.DataFrame:
    for r in rows:
        r["start"], r["end"], r["rotation_at"] = ts(r["start"]), ts(r["end"]), ts(r["rotation_at"])
    df = pd.DataFrame([{c: r.get(c) for c in STALL_COLUMNS} for r in rows], columns=STALL_COLUMNS)
    for col in ("start", "end", "rotation_at"):
        df[col] = pd.to_datetime(df[col], utc=True)
    df["rotation_size"] = pd.array([None if v is None or pd.isna(v) else int(v)
                                    for v in df["rotation_size"]], dtype="Int64")
    for col in ("time_res_s", "commit_gap_s", "duration_s", "max_query_time", "lock_share",
                "rows_examined_median"):
        df[col] = df[col].astype("float64")
    for col in ("queries", "writes", "commits", "reads", "others"):
        df[col] = df[col].astype("int64")
    df["hint"] = pd.Series([h if isinstance(h, str) else None for h in df["hint"]],
                           index=df.index, dtype="object")
    return df.sort_values("start", kind="stable").reset_index(drop=True)


def idle_frame(rows) -> pd.DataFrame:
    df = pd.DataFrame([{"start": ts(r["start"]), "end": ts(r["end"]),
                        "duration_s": r["duration_s"], "hint": r.get("hint")} for r in rows],
                      columns=IDLE_COLUMNS)
    for col in ("start", "end"):
        df[col] = pd.to_datetime(df[col], utc=True)
    df["duration_s"] = df["duration_s"].astype("float64")
    return df.sort_values("start", kind="stable").reset_index(drop=True)

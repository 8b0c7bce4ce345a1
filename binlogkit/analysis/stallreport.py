"""The stall report's analysis: read the inputs, find stalls, decide the verdict
(binlogkit.report renders the document; binlogkit.cli.report is the command).

``build_report(binlogs, slowlogs, ...)`` returns a :class:`Report`: ``doc`` is
the JSON document (schema below), ``statements``/``stalls``/``rotations`` the
frames the picture is drawn from, ``exit_code`` 0 or 3.

JSON document::

    {"verdict": str, "threshold_s": float, "generated_at": ISO,
     "window": {"since", "until", "first", "last"},       # ISO-8601 UTC or null
     "stalls": [{"start", "end", "duration_s", "queries", "writes", "commits", "reads",
                 "others", "max_query_time_s", "lock_share", "shape", "over_threshold",
                 "cause": "binlog_rotation" | "lock" | "commit_sync" | "restart" | "unknown",
                 "time_res_s": 1.0 | 0.0, "evidence": str, "commit_gap_s": float | null,
                 "rotation": {"from_file", "to_file", "at", "size_bytes",
                              "load": {...} (rotation_load.what_filled; the longest
                                       rotation stalls over the threshold)} | null,
                 "hint": str | null, "top_classes": [{"fingerprint", "count", "id"}]}],
     "rotations": [{"from_file", "to_file", "at", "size_bytes", "lifetime_s", "stall_s",
                    "next_opened_at", "missing_before", "restart_after", "commit_gap_s",
                    "inferred"}],
     "restarts": [{"file", "at", "previous_end": str | null, "down_from": ISO | null,
                   "down_s": float | null}],
     "idle": [{"start", "end", "duration_s"}],             # commit gaps where nothing waited
     "cadence": {"causes": {cause: count}, "rotation_interval": {"median_s", "spread_s",
                 "count"} | null, "stall_interval": ..., "rotations", "rotations_with_stall",
                 "stalls", "stalls_explained"},
     "inputs": {"binlogs", "slowlogs", "statements", "slow_statements", "binlog_span",
                "slowlog_span", "server_tz", "server_zone", "min_query_time_s"},
     "advice": [str], "notes": [str], "state": {...} | null}

With ``state_path`` the new state is computed but written only by
``Report.save_state()``, so a failed delivery does not skip data next time.

``size_bytes`` is null (and ``inferred`` true) for a rotation seen only as
the next file's start, when the file that rotated was not given.

``binlog_span`` and the overlap check use the files' spans on the server's
clock (``clock_first``/``clock_last``: client-set event times left out);
``server_zone`` says what the slow log's zone-less times were read in
(derived from ``SET timestamp``, ``--server-tz``, or assumed).  Stalls come
from the slow log and from the binlogs' commit gaps (``evidence``).
"""
from __future__ import annotations

import datetime
import math
import os

import numpy as np
import pandas as pd

from binlogkit._record import field, record
from binlogkit.analysis.commitgaps import gaps_at_rotations
from binlogkit.analysis.pileups import check_statements, statements_frame
from binlogkit.analysis.rotations import restarts as find_restarts
from binlogkit.analysis.rotations import covered_span, rotations_frame, rotations_table
from binlogkit.analysis.diagnosis import diagnose
from binlogkit.analysis.diagnosis.rotation_load import what_filled
from binlogkit.analysis.stalls import (
    COMMIT_SYNC_CAUSE, LOCK_CAUSE, RESTART_CAUSE, ROTATION_CAUSE, cadence,
)
from binlogkit.errors import BinlogkitError
from binlogkit.slowlog.clock import describe_zone, zone_warnings
from binlogkit.slowlog.parser import ParseStats
from binlogkit.analysis import reportstate as state_mod

__all__ = ["Report", "build_report", "EXIT_OK", "EXIT_STALLS", "EXIT_ERROR"]

EXIT_OK, EXIT_ERROR, EXIT_STALLS = 0, 1, 3
MIN_LATENCY_S = 0.5          # statements at least this slow can make a stall
MIN_STALL_S = 0.5            # shorter episodes are not reported
MIN_GAP_S = 1.0              # commit-free stretches of the binlogs (whole seconds in MariaDB)
OVERLAP_SLACK_S = 60.0


@record(slots=False)
class Report:
    doc: dict
    statements: pd.DataFrame
    stalls: pd.DataFrame
    rotations: pd.DataFrame
    exit_code: int = EXIT_OK
    warnings: list = field(default_factory=list)
    state_path: str | None = None
    next_state: dict | None = None
    idle: pd.DataFrame | None = None

    def save_state(self) -> None:
        """Advance the ``--state`` file (call once the report has been delivered)."""
        if self.state_path and self.next_state is not None:
            state_mod.write_state(self.state_path, self.next_state)


def iso(ts) -> str | None:
    """A Timestamp / epoch-µs int as ISO-8601 UTC with microseconds and ``Z``."""
    if ts is None or (not isinstance(ts, (int, float)) and pd.isna(ts)):
        return None
    if isinstance(ts, (int, float)):
        ts = pd.Timestamp(int(ts), unit="us", tz="UTC")
    return ts.tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _us(ts) -> int:
    return int(ts.value // 1000)


def _span(first, last):
    return [iso(first), iso(last)]


def build_report(binlogs, slowlogs, *, since_us=None, until_us=None, threshold=1.0,
                 zone=None, server_tz=None, state_path=None, now=None,
                 sync_binlog=None) -> Report:
    """Everything the renderers need (see the module doc).  ``sync_binlog``: the
    server's, when known (a live connection): how much of a rotated file was unsynced."""
    prev = state_mod.load_state(state_path) if state_path else None
    watermark = prev["watermark_us"] if prev else None
    min_end = None if watermark is None else watermark - state_mod.LOOKBACK_US
    commits = []
    files = rotations_frame(list(binlogs), commits=commits) if binlogs else None
    parse = ParseStats()
    statements = statements_frame(list(slowlogs), zone=zone, min_end_us=min_end,
                                  query_from_s=MIN_LATENCY_S, stats=parse)
    if watermark is None and not (binlogs and parse.header_lines and not parse.skipped_lines):
        check_statements(statements, slowlogs)      # a slow log with only its header is fine
    notes = [w[0].upper() + w[1:] + "." for w in zone_warnings(parse, server_tz)]
    rotations = rotations_table(files) if files is not None else pd.DataFrame()
    covered = None
    if files is not None and len(files):
        notes += _file_notes(files)
        covered = covered_span(files)
        _check_overlap(covered, statements, server_tz, notes)
    restarts = find_restarts(files) if files is not None else None
    gaps = gaps_at_rotations(commits, rotations, min_gap_s=MIN_GAP_S)
    diag = diagnose(statements, rotations, restarts, covered, gaps, commits, files,
                    min_latency=MIN_LATENCY_S, min_duration=MIN_STALL_S)
    stalls = diag.stalls
    notes += diag.notes
    lo = _max(since_us, watermark)
    stalls, rotations_w = _window(stalls, rotations, lo, until_us, prev)
    if files is not None and len(files) and not len(rotations):
        notes.append("The binlogs given contain no rotation (no ROTATE event, no file opened by "
                      "one): stalls cannot be matched to rotations.  Pass the binlog files of "
                      "the period, not only the live one.")
    restarts_w = _in_window(diag.restarts, "at", lo, until_us)
    doc = _doc(statements, stalls, rotations_w, restarts_w, files, threshold, since_us, until_us,
               slowlogs, server_tz, notes, now, lo)
    doc["idle"] = [{"start": iso(r["start"]), "end": iso(r["end"]),
                    "duration_s": _num(r["duration_s"])}
                   for _, r in _in_window(diag.idle, "start", lo, until_us).iterrows()]
    doc["inputs"]["server_zone"] = describe_zone(parse, server_tz)
    doc["inputs"]["sync_binlog"] = sync_binlog
    _rotation_loads(doc["stalls"], files, sync_binlog)
    new_state = None
    if state_path:
        doc["state"], new_state = state_mod.next_state(state_path, prev, statements, files,
                                                       stalls, until_us)
    code = EXIT_STALLS if any(s["over_threshold"] for s in doc["stalls"]) else EXIT_OK
    return Report(doc, statements, stalls, rotations_w, code, notes, state_path, new_state,
                  diag.idle)


MAX_LOADS = 20                # rotation stalls whose file is read for what filled it


def _rotation_loads(stall_docs, files, sync_binlog):
    """stall["rotation"]["load"]: what the rotated file held and what wrote it, for
    the longest rotation stalls of the threshold or more (rotation_load)."""
    if files is None or not len(files):
        return
    paths = dict(zip(files["file"], files["path"]))
    rot = [s for s in stall_docs if s["rotation"] and s["over_threshold"]
           and s["rotation"]["from_file"] in paths]
    for s in sorted(rot, key=lambda s: -s["duration_s"])[:MAX_LOADS]:
        s["rotation"]["load"] = what_filled(paths[s["rotation"]["from_file"]], sync_binlog)


def _in_window(df, col, lo_us, hi_us):
    if df is None or not len(df):
        return df
    keep = pd.Series(True, index=df.index)
    if lo_us is not None:
        keep &= df[col].map(_us) > lo_us
    if hi_us is not None:
        keep &= df[col].map(_us) <= hi_us
    return df[keep].reset_index(drop=True)


def _max(a, b):
    vals = [v for v in (a, b) if v is not None]
    return max(vals) if vals else None


def _window(stalls, rotations, lo_us, hi_us, prev):
    """Stalls and rotations inside [lo, hi]; with a state, not reported before."""
    keep = pd.Series(True, index=stalls.index)
    if lo_us is not None:
        # a stall may end a little before the watermark and still be new (partly logged)
        slack = state_mod.SETTLE_US if prev else 0
        keep &= stalls["end"].map(_us) > lo_us - slack
    if hi_us is not None:
        keep &= stalls["start"].map(_us) <= hi_us
    if prev:
        done = prev.get("reported", [])
        keep &= np.array([not any(a < _us(e) and _us(s) < b for a, b in done)
                          for s, e in zip(stalls["start"], stalls["end"])], dtype=bool)
    stalls = stalls[keep].reset_index(drop=True)
    if len(rotations):
        rk = pd.Series(True, index=rotations.index)
        if lo_us is not None:
            rk &= rotations["at"].map(_us) > lo_us
        if hi_us is not None:
            rk &= rotations["at"].map(_us) <= hi_us
        rotations = rotations[rk].reset_index(drop=True)
    return stalls, rotations


def _file_notes(files) -> list:
    out = []
    for _, f in files.iterrows():
        if pd.notna(f["truncated_at"]):
            end = f["clock_last"] if pd.notna(f["clock_last"]) else f["last_event"]
            out.append(f"{f['file']} ends inside an event at byte {int(f['truncated_at'])} (the "
                       "live file, or copied while the server wrote it): analysed up to its last "
                       f"complete event, {_hm(end)}.")
    odd = files[files["clock_outliers"] > 0]
    if len(odd):
        n = int(odd["clock_outliers"].sum())
        out.append(f"{n} binlog event{'s' if n != 1 else ''} in {', '.join(odd['file'])} carry "
                   "header times that do not fit the file sequence (a client's SET TIMESTAMP): "
                   "not used for the files' time spans or rotation times.")
    return out


def _check_overlap(covered, statements, server_tz, notes):
    if statements.empty:
        return
    b0, b1 = covered
    s0, s1 = statements["start"].min(), statements["end"].max()
    slack = pd.Timedelta(seconds=OVERLAP_SLACK_S)
    if s1 < b0 - slack or s0 > b1 + slack:
        msg = (f"the slow log ({_hm(s0)} to {_hm(s1)}) and the binlogs ({_hm(b0)} to "
               f"{_hm(b1)}) do not overlap in time: are they from the same server and day?")
        hours = round((b0 - s0).total_seconds() / 3600)
        shift = pd.Timedelta(hours=hours)
        if hours and abs(hours) <= 14 and s0 + shift <= b1 + slack and s1 + shift >= b0 - slack:
            zone = server_tz or "this machine's zone"
            msg += (f"  Shifted by {hours:+d} h they would overlap: the slow log's zone-less "
                    f"times may not be in {zone}; set --server-tz to the server's zone.")
        raise BinlogkitError(msg)
    edge = pd.Timedelta(seconds=2)
    if s0 < b0 - edge or s1 > b1 + edge:
        notes.append(f"The binlogs cover {_hm(b0)} to {_hm(b1)}, the slow log {_hm(s0)} to "
                     f"{_hm(s1)}; stalls outside the binlogs' time cannot be matched to "
                     "rotations.")


def _hm(ts) -> str:
    return ts.strftime("%Y-%m-%d %H:%M:%SZ")


# -- the JSON document ----------------------------------------------------------------------

def _stall_dict(row, threshold) -> dict:
    rot = None
    if row["cause"] == ROTATION_CAUSE:
        rot = {"from_file": row["rotation_from"], "to_file": row["rotation_to"],
               "at": iso(row["rotation_at"]), "size_bytes": _int(row["rotation_size"])}
    return {
        "start": iso(row["start"]), "end": iso(row["end"]),
        "duration_s": round(float(row["duration_s"]), 3), "queries": int(row["queries"]),
        "writes": int(row["writes"]), "commits": int(row["commits"]),
        "reads": int(row["reads"]), "others": int(row["others"]),
        "max_query_time_s": round(float(row["max_query_time"]), 6),
        "lock_share": round(float(row["lock_share"]), 4), "shape": row["shape"],
        "over_threshold": bool(row["duration_s"] >= threshold),
        "cause": row["cause"], "rotation": rot, "hint": row["hint"],
        "top_classes": list(row["top_classes"]),
        "time_res_s": float(row["time_res_s"]), "evidence": row["evidence"],
        "commit_gap_s": _num(row["commit_gap_s"], 6),
    }


def _int(v):
    return None if v is None or pd.isna(v) else int(v)


def _num(v, nd=3):
    """A finite number rounded, else None (JSON has no NaN)."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return round(f, nd) if math.isfinite(f) else None


def _rotation_dicts(rotations, stalls) -> list:
    stall_of = {r["rotation_from"]: r["duration_s"] for _, r in stalls.iterrows()
                if r["cause"] == ROTATION_CAUSE}
    return [{"from_file": r["from_file"], "to_file": r["to_file"], "at": iso(r["at"]),
             "size_bytes": _int(r["size_bytes"]), "lifetime_s": _num(r["lifetime_s"], 1),
             "stall_s": _num(stall_of.get(r["from_file"])),
             "next_opened_at": iso(r["next_opened_at"]),
             "missing_before": list(r["missing_before"]), "restart_after": bool(r["restart_after"]),
             "commit_gap_s": _num(r["commit_gap_s"], 6), "inferred": bool(r["inferred"])}
            for _, r in rotations.iterrows()]


def _restart_dict(r) -> dict:
    how = r["previous_end"] if isinstance(r["previous_end"], str) else None
    down = r.get("down_from") if how else None         # the first file: no run before it
    down = down if down is not None and not pd.isna(down) else None
    return {"file": r["file"], "at": iso(r["at"]), "previous_end": how,
            "down_from": iso(down) if down is not None else None,
            "down_s": _num((r["at"] - down).total_seconds(), 3) if down is not None else None}


def _reported_span(statements, lo_us, until_us):
    """(first, last, count) of the statements the report is about (after --since/state)."""
    ends = statements["end"]
    sel = pd.Series(True, index=statements.index)
    if lo_us is not None:
        sel &= ends > pd.Timestamp(lo_us, unit="us", tz="UTC")
    if until_us is not None:
        sel &= statements["start"] <= pd.Timestamp(until_us, unit="us", tz="UTC")
    part = statements[sel]
    if not len(part):
        return None, None, 0
    return part["start"].min(), part["end"].max(), int(len(part))


def _doc(statements, stalls, rotations, restarts, files, threshold, since_us, until_us,
         slowlogs, server_tz, notes, now, lo_us=None) -> dict:
    stall_docs = [_stall_dict(r, threshold) for _, r in stalls.iterrows()]
    first, last, n_new = _reported_span(statements, lo_us, until_us)
    if not n_new and files is not None and len(files) and lo_us is None and until_us is None:
        first, last = covered_span(files)             # binlog evidence only
        n_new = int(files["events"].sum())
        notes.append("The slow log has no statement: stalls come from the binlogs' commit gaps "
                     "alone (its filters, log_slow_filter or long_query_time, may leave the "
                     "waiting statements out).")
    min_qt = float(statements["query_time"].min()) if len(statements) else None
    if min_qt is not None and min_qt >= 0.1:
        notes.append(f"The slow log has no statement faster than {min_qt:.2f} s "
                     "(long_query_time > 0): only the slow part of each stall is visible, and "
                     "stall starts are estimated from those statements.")
    cad = cadence(rotations, stalls)
    restart_docs = [_restart_dict(r) for _, r in
                    (restarts if restarts is not None else pd.DataFrame()).iterrows()]
    doc = {
        "verdict": verdict(stall_docs, cad, threshold, first, last, n_new, restart_docs),
        "threshold_s": threshold,
        "generated_at": iso(pd.Timestamp(now or datetime.datetime.now(datetime.timezone.utc))),
        "window": {"since": iso(since_us), "until": iso(until_us), "first": iso(first),
                   "last": iso(last)},
        "stalls": stall_docs,
        "rotations": _rotation_dicts(rotations, stalls),
        "restarts": restart_docs,
        "cadence": cad,
        "inputs": {
            "binlogs": [] if files is None else list(files["file"]),
            "slowlogs": [os.path.basename(str(p)) for p in slowlogs],
            "statements": int(len(statements)),
            "slow_statements": int((statements["query_time"] >= MIN_LATENCY_S).sum()),
            "binlog_span": None if files is None or not len(files) else _span(*covered_span(files)),
            "slowlog_span": _span(statements["start"].min(), statements["end"].max())
            if len(statements) else None,
            "server_tz": server_tz, "min_query_time_s": min_qt,
        },
        "advice": advice(stall_docs),
        "notes": notes,
        "state": None,
    }
    return doc


def _fmt_size(n) -> str:
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{n} bytes"


def verdict(stalls, cad, threshold, first, last, n_statements, restarts=()) -> str:
    """One line for cron mail: how many stalls, how many at rotations, the worst;
    the server's restarts."""
    line = _verdict(stalls, cad, threshold, first, last, n_statements)
    restarts = [r for r in restarts if r["previous_end"]]     # not a first file's start
    if restarts:
        n = len(restarts)
        hows = [f"after a {r['previous_end']}" for r in restarts]
        line += (f" The server restarted {n} time{'s' if n != 1 else ''} ({'; '.join(hows)}; "
                 f"last at {restarts[-1]['at'][11:19]}Z).")
    return line


def _verdict(stalls, cad, threshold, first, last, n_statements) -> str:
    if not n_statements:
        return "No slow-log statements in the window (none newer than the last run)."
    over = [s for s in stalls if s["over_threshold"]]
    rot_over = [s for s in over if s["cause"] == ROTATION_CAUSE]
    span = f"{_hm(first)} to {_hm(last)}"
    if not over:
        rest = ""
        if stalls:
            worst = max(s["duration_s"] for s in stalls)
            rest = f"; {len(stalls)} shorter one{'s' if len(stalls) > 1 else ''} (at most {worst:.1f} s)"
        rots = cad["rotations"]
        return (f"No stall of {threshold:g} s or more from {span}{rest}; "
                f"{rots} binlog rotation{'s' if rots != 1 else ''}.")
    n = len(over)
    head = f"{n} stall{'s' if n > 1 else ''} of {threshold:g} s or more from {span}"
    if len(rot_over) == n:
        which = "all at binlog rotations" if n > 1 else "at a binlog rotation"
    else:
        which = _causes_phrase(over)
    worst = max(over, key=lambda s: s["duration_s"])
    tail = f"Worst: {worst['duration_s']:.1f} s at {worst['start'][11:19]}Z"
    if worst["cause"] != ROTATION_CAUSE:
        tail += f" ({worst['cause']})"
    if worst["rotation"]:
        r = worst["rotation"]
        size = f" ({_fmt_size(r['size_bytes'])})" if r["size_bytes"] is not None else ""
        tail += f", when {r['from_file']}{size} rotated to {r['to_file']}"
    return f"{head}; {which}. {tail}."


_CAUSE_WORDS = {ROTATION_CAUSE: "at binlog rotations", LOCK_CAUSE: "lock",
                COMMIT_SYNC_CAUSE: "commit sync", RESTART_CAUSE: "at a server restart",
                "unknown": "cause unknown"}


def _causes_phrase(stalls) -> str:
    counts = {}
    for s in stalls:
        counts[s["cause"]] = counts.get(s["cause"], 0) + 1
    if not counts.get(ROTATION_CAUSE):
        head = "none at a binlog rotation"
        rest = [f"{n} {_CAUSE_WORDS.get(c, c)}" for c, n in counts.items()]
        return head + (f" ({', '.join(rest)})" if rest else "")
    return ", ".join(f"{n} {_CAUSE_WORDS.get(c, c)}" for c, n in counts.items())


def advice(stalls) -> list:
    out = []
    if any(s["cause"] == ROTATION_CAUSE for s in stalls):
        out.append(
            "Commits waited while a binlog file rotated.  At rotation the server syncs the "
            "finished file to disk while it holds the binlog lock, so every commit waits for "
            "that sync; how long depends on how much of the file was not yet on disk.  If "
            "sync_binlog is 0 on this server (these logs do not say), nothing flushed the file "
            "as it grew: a small sync_binlog N (e.g. 100) or a lower max_binlog_size spreads "
            "that work out.")
    if any(s["cause"] == LOCK_CAUSE for s in stalls):
        out.append(
            "Some stalls are commits held by a lock, not by the binlog: writes waited across a "
            "stretch with no commit and no rotation near (on MySQL FLUSH TABLES WITH READ LOCK "
            "leaves them a Lock_time of ~0), or the waiting statements' time was Lock_time.  "
            "Look for what held it then: FLUSH TABLES WITH READ LOCK (backups), "
            "LOCK TABLES, or a long transaction (information_schema.innodb_trx, the general or "
            "audit log).")
    if any(s["cause"] == COMMIT_SYNC_CAUSE for s in stalls):
        out.append(
            "Some stalls are writes and COMMITs released together without lock waits and without "
            "a rotation: time in the commit path, i.e. the binlog or redo log sync (sync_binlog, "
            "innodb_flush_log_at_trx_commit) or the disk under them.")
    if any(s["cause"] == RESTART_CAUSE for s in stalls):
        out.append(
            "Some stalls are server restarts: commits stopped while the server shut down (or "
            "crashed), recovered and started; see Restarts for how the previous run ended.  "
            "These are not binlog rotations.")
    hints = " ".join(s["hint"] or "" for s in stalls if s["cause"] != ROTATION_CAUSE)
    if "time-zone lock" in hints:
        out.append("Cheap statements slowed together: if time_zone=SYSTEM, set time_zone to an "
                   "explicit offset ('+00:00') so the server stops taking glibc's zone lock.")
    if "row locks" in hints:
        out.append("Lock waits dominate some stalls: find the transactions holding locks "
                   "(information_schema.innodb_trx, SHOW ENGINE INNODB STATUS) at those times.")
    return out

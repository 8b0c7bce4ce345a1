"""The ``--state`` file: what earlier cron runs have already reported.

JSON, written atomically (temp file + rename)::

    {"version": 1, "watermark_us": int, "watermark": ISO,   # newest data seen
     "reported": [[start_us, end_us], ...],                  # stalls already reported
     "runs": int, "last_run": ISO}

A run reports stalls that end after the previous watermark (less
``SETTLE_US``: a stall whose statements were only partly logged when the
last run read the log) and that do not overlap one already reported, and
rotations after the watermark.  The slow log is read from ``LOOKBACK_US``
before the watermark so that a stall straddling it is still seen whole.
The CLI writes the new state only after the report has been written.
"""
from __future__ import annotations

import datetime

import pandas as pd
import json
import os
import tempfile

from binlogkit.errors import BinlogkitError

__all__ = ["load_state", "next_state", "write_state", "LOOKBACK_US", "SETTLE_US", "StateError"]

VERSION = 1
LOOKBACK_US = 15 * 60 * 1_000_000
SETTLE_US = 60 * 1_000_000
KEEP_US = 2 * 24 * 3600 * 1_000_000


class StateError(BinlogkitError):
    """The state file cannot be read or written."""


def load_state(path) -> dict | None:
    """The previous run's state, or None when ``path`` does not exist yet."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"{path}: cannot read state file: {exc.strerror}") from None
    except ValueError as exc:
        raise StateError(f"{path}: not a binlogkit report state file ({exc})") from None
    if (not isinstance(doc, dict) or doc.get("version") != VERSION
            or not isinstance(doc.get("watermark_us"), int)
            or not isinstance(doc.get("reported", []), list)):
        raise StateError(f"{path}: not a binlogkit report state file (version {VERSION})")
    return doc


def _iso(us: int) -> str:
    dt = datetime.datetime.fromtimestamp(us / 1e6, tz=datetime.timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _newest(statements, files, until_us):
    candidates = []
    if len(statements):
        candidates.append(int(statements["end"].max().value // 1000))
    if files is not None and len(files):
        # the server's clock, not a client's SET TIMESTAMP (a 2038 event would end every run)
        last = files["clock_last"] if "clock_last" in files else files["last_event"]
        last = last.where(last.notna(), files["last_event"]).max()
        if pd.notna(last):
            candidates.append(int(last.value // 1000))
    if not candidates:
        return None
    newest = max(candidates)
    return min(newest, until_us) if until_us is not None else newest


def next_state(path, prev, statements, files, stalls, until_us=None):
    """(the ``state`` section of the JSON report, the state document to write)."""
    prev_mark = prev["watermark_us"] if prev else None
    newest = _newest(statements, files, until_us)
    mark = max(v for v in (prev_mark, newest) if v is not None) if (prev_mark or newest) else 0
    reported = [list(p) for p in (prev or {}).get("reported", [])]
    reported += [[int(s.value // 1000), int(e.value // 1000)]
                 for s, e in zip(stalls["start"], stalls["end"])]
    reported = [p for p in reported if p[1] >= mark - KEEP_US]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    doc = {"version": VERSION, "watermark_us": mark, "watermark": _iso(mark),
           "reported": reported, "runs": (prev or {}).get("runs", 0) + 1, "last_run": now}
    section = {"file": os.fspath(path), "previous_watermark": _iso(prev_mark) if prev_mark else None,
               "watermark": doc["watermark"], "runs": doc["runs"]}
    return section, doc


def write_state(path, doc):
    """Replace the state file atomically (temp file + rename)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".binlogkit-state-", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise StateError(f"{path}: cannot write state file: {exc.strerror}") from None

"""Online stall diagnosis: arrivals in, stall verdicts out, each once.

    diag = OnlineDiagnosis(threshold=1.0, emit=callback)
    diag.feed(arrival)          # every binlog Arrival, in order
    diag.feed_slow(entry)       # every slow-log SlowEntry
    diag.lost(at) / diag.tick(now)

The online adapter of the diagnosis `binlogkit report` runs
(`binlogkit.diagnosis`): arrivals become the same timeline's records, and
commit gaps go through the same cause rules.

* A live commit whose committing statement began (its GTID event's header
  time, mapped to this machine's clock through the skew; not a BEGIN's: a
  client's think time inside a transaction is no wait) at least ``MIN_WAIT_S``
  before the end of its second and was written now is a *wait*: start = that
  header second, end = its arrival, as MySQL's commit timestamps give waits in
  a report (commit timestamp minus the GTID event's header time).
  Slow-log writes and COMMITs of ``MIN_WAIT_S`` or more are waits as in the
  report (start = end - Query_time; whole-second times: the end + 1 s).
* A Rotate is a rotation (its header second mapped: the statement that filled
  the file began then; the size its position), ended by the next file's format
  description (its arrival: the old file was synced and closed); a format
  description created at start-up is a restart (down since the last commit).
* A live event arriving ``threshold`` s or more after the previous one opens a
  candidate (shape ``commit-gap``, arrival times); ``LOOKAHEAD_S`` after its end
  it is decided by `binlogkit.diagnosis.verdict.decide_one`, which reads no
  further, and ``emit(kind, payload)`` is called with ``"stall"`` and a dict
  (the fields of `binlogkit report --format json`'s stalls, plus ``id`` and
  ``state``).  Idle gaps and restarts are no stall lines (restarts are events).
* Online-only candidate shaping (`binlogkit.watch.shaping`): the "ongoing"
  rotation alert (a Rotate whose next file has not come for ``threshold`` s),
  gap chains and slowed runs, which the shared ``commit_sync`` rule decides.

Rotations, restarts and lost connections are emitted as they happen
(``"rotation"``, ``"restart"``, ``"shutdown"``).  Events flagged `catchup`
(written while the watcher was away) update the timeline but never open a
candidate, and a gap that spans a lost connection is no stall: a stall is
never reported twice, nor made up by a reconnection.
"""
import datetime
import math
import time
from collections import deque

from binlogkit.binlog import layout as L
from binlogkit.diagnosis import verdict
from binlogkit.diagnosis.causes.binlog_rotation import match_rotations
from binlogkit.diagnosis.timeline import LOOKAHEAD_S, MIN_WAIT_S, RESTART_AFTER_S, Timeline
from binlogkit.watch import shaping
from binlogkit.watch.arrivals import Arrivals

__all__ = ["OnlineDiagnosis", "iso", "stall_dict"]

_TXN_STARTS = frozenset({L.GTID_EVENT, L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT,
                         L.GTID_TAGGED_LOG_EVENT})
FORGET_S = 30.0          # candidates look back less than this
PROBE_AFTER_S = 0.3      # commits stopped this long after flowing: SHOW BINARY LOGS is sent
PROBE_BLOCKED_S = 0.5    # it blocked this long (and commits stopped --threshold s): rotating
NO_STALL = ("idle", "restart")


def iso(t):
    if t is None or (isinstance(t, float) and math.isnan(t)):
        return None
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


class OnlineDiagnosis:
    def __init__(self, threshold=1.0, emit=None, window_s=60.0, live=True, res=0.0):
        self.threshold = threshold
        self.live = live        # arrival instants are real (not a replay of event times)
        self.res = res          # time resolution of the arrival instants (a replay's whole seconds)
        self.emit = emit or (lambda kind, payload: None)
        self.arrivals = Arrivals(window_s=window_s)
        self.evidence = Timeline(commit_res=0.0, exact_commits=True, arrivals=live)
        self.open = []          # commit gaps waiting for their look-ahead: [start, end, last_seen]
        self.count = 0          # stall ids given
        self.last_live = None   # arrival of the last live transaction event
        self.away = False       # the connection was lost since last_live
        self.stopped = False    # a Stop event since the last start
        self.txn_when = None    # the header second of the GTID event of the transaction under way
        self.used = set()       # rotations (the timeline's) matched to a candidate
        self.by_ref = {}        # the arrivals' Rotation under way -> the timeline's
        self.stalls_by_cause = {}
        self.next_forget = 0.0
        self.slowed = None      # a run of slowed writes (commit_sync), or None
        self.chain = None       # lock stalls one right after another (shaping.Chain)
        self.said = deque(maxlen=64)        # (start, end) of the stalls emitted lately
        self.file, self.pos = None, 0       # where the last live event ended
        self.probe = None       # [started, finished or None] of SHOW BINARY LOGS in this gap
        self.probed_gap = None  # last_live of the gap the probe was sent in
        self.held = None        # the arrivals' Rotation said ongoing from a blocked probe
        self.early = None       # [gap start, the next file's arrival] of a rotation in an open gap
        self.gap_from = None    # a gap's part up to here was said already (a rotation's)

    @property
    def timeline(self):
        return self.arrivals

    # -- input ---------------------------------------------------------------
    def feed(self, a):
        kind = a.kind
        if kind == "event":
            self._event(a)
        elif kind == "rotate":
            self._rotate(a)
        elif kind == "fde":
            self._fde(a)
        elif kind == "stop":
            self.arrivals.note_marker(a.at, "stop", a.file)
            self.stopped = True
            self.emit("shutdown", {"at": iso(a.at), "file": a.file, "what": "server stopped "
                                   "(Stop event)", "server_time": iso(a.when)})
        self.tick(a.at)

    def _event(self, a):
        arr, now = self.arrivals, a.at
        arr.note_event(a)
        if a.catchup:
            self.txn_when = None
            return
        start = self.last_live
        if start is not None and self.gap_from is not None and self.gap_from > start:
            start = self.gap_from           # its rotation's part was said at once
        if start is not None and not self.away and now - start >= self.threshold:
            self.open.append([start, now, now])
        self.early = self.gap_from = None
        for gap in self.open:
            if now <= gap[1] + LOOKAHEAD_S + self.res:
                gap[2] = now
        if a.type_code in _TXN_STARTS:
            self.txn_when = a.when          # the GTID event: the committing statement's start
        if a.is_commit:
            if self.txn_when is None:
                self.txn_when = a.when
            self._committed(now)
        if a.is_commit or a.commit_us:
            arr.note_commit(a)
        self.last_live = now
        self.away = False
        self.file, self.pos = a.file, a.end

    def _committed(self, now):
        """A transaction written at ``now``: a commit instant, and a wait when it
        began well before (module doc)."""
        skew = self.arrivals.skew()
        began = self.txn_when + skew
        waited = now - (began + 1.0)
        if waited >= MIN_WAIT_S:
            self.evidence.add_wait(began, now, "binlog", "commit", 0.0, waited)
        self.evidence.add_commit(now)
        self.txn_when = None

    def _rotate(self, a):
        rot = self.arrivals.note_rotation(a)
        held = self.held
        if held is not None and held.from_file == a.file and not a.catchup:
            rot.alerted, held.closed = held.alerted, True    # said ongoing from the probe
            rot.began = held.at
            self.held = None
        shared = self.evidence.add_rotation(a.when + self.arrivals.skew(), a.file, a.next_file,
                                            a.end, None, ref=rot)
        self.by_ref[rot] = shared
        if a.catchup:
            self._rotation_event(rot)

    def _fde(self, a):
        arr = self.arrivals
        rot = arr.note_fde(a)
        if rot is not None:
            shared = self.by_ref.pop(rot, None)
            if shared is not None:
                shared.opened_by = a.at
                if self.live:               # sent once the old file was synced and closed
                    shared.ended_by = a.at
                    self._rotation_wait(rot, a.at)
            if not rot.catchup:
                self._rotation_event(rot)
                last = self.last_live
                if (self.live and last is not None and not self.away and not a.created
                        and a.at - last >= self.threshold):
                    self.early = [last, a.at]   # the rotation ended in an open gap
        if a.created:
            arr.note_marker(a.at, "startup", a.file)
            down_from = self.last_live if self.last_live is not None else a.at
            self.evidence.add_restart(a.file, a.at, "clean shutdown" if self.stopped else None,
                                      min(down_from, a.at), a.at + RESTART_AFTER_S)
            self.stopped = False
            self.emit("restart", {"at": iso(a.at), "file": a.file, "server_version":
                                  a.server_version, "what": "server started (binlog created "
                                  "at start-up)", "server_time": iso(a.created)})

    def _rotation_wait(self, rot, ended):
        """A rotation that held the binlog lock MIN_WAIT_S or more right after a commit,
        commits flowing: the statement whose commit filled the file waited for it (a
        wait no arrival shows: its commit was written before the Rotate).  Measured
        from the Rotate's arrival on MariaDB, from the commits' stop when a blocked
        probe said it (MySQL sends the Rotate after the sync)."""
        began = rot.at if rot.began is None else min(rot.at, rot.began)
        last = self.last_live
        if (rot.catchup or last is None or ended - began < MIN_WAIT_S or began - last > 1.0
                or self.arrivals.rate(began, 5.0) < 1.0):
            return
        self.evidence.add_wait(began, ended, "binlog", "commit", 0.0, ended - began)

    def _rotation_event(self, rot):
        self.emit("rotation", {"from_file": rot.from_file, "to_file": rot.to_file,
                               "at": iso(rot.at), "size_bytes": rot.size,
                               "sync_s": None if rot.sync_s is None else round(rot.sync_s, 3),
                               "catchup": rot.catchup})

    def feed_slow(self, entry, now=None):
        """A slow-log entry: evidence (a statement end; a wait when it is a write or
        COMMIT of ``MIN_WAIT_S`` or more), and part of a run of slowed writes that
        may be a ``commit_sync`` stall (shaping.slowed_row)."""
        q = entry.query or b""
        if (q if isinstance(q, bytes) else str(q).encode()).startswith(b"/* binlogkit watch */"):
            return                          # the watcher's own probe (watch.run.PROBE_SQL)
        self.arrivals.note_slow(entry)
        self.evidence.add_statement_end(entry.end)
        if entry.kind not in ("write", "commit") or shaping.sleeps(entry):
            return
        if entry.query_time >= MIN_WAIT_S:
            # MariaDB logs the start's whole second: the end is known to a second, the latest
            whole = 1.0 if entry.start == int(entry.start) else 0.0
            self.evidence.add_wait(entry.start, entry.end + whole, "slow log", entry.kind,
                                   entry.lock_time, entry.query_time, whole)
        if entry.query_time < shaping.SLOWED_SHARE * self.threshold:
            return
        run = self.slowed
        if run is not None and entry.start > run.end + shaping.SLOWED_GAP_S:
            self._decide_slowed()
            run = None
        if run is None:
            self.slowed = run = shaping.SlowedRun(entry)
        else:
            run.add(entry)
        run.last_wall = time.time() if now is None else now

    def lost(self, at, message=""):
        """The connection was lost: the gap it makes is no stall."""
        self.arrivals.note_marker(at, "disconnect", detail=message)
        self.away = True

    # -- decisions -----------------------------------------------------------
    def tick(self, now):
        self._ongoing(now)
        run = self.slowed
        if run is not None and now - run.last_wall >= shaping.SLOWED_GAP_S:
            self._decide_slowed()
        if now >= self.next_forget:
            self.next_forget = now + 5.0
            self.arrivals.forget_before(now - FORGET_S)
            self.evidence.forget_before(now - FORGET_S)
            kept = set(self.evidence.rotations)
            self.used &= kept
            self.by_ref = {k: v for k, v in self.by_ref.items() if v in kept}
        early = self.early
        if early is not None and now >= early[1] + LOOKAHEAD_S:
            self.early = None
            if self.last_live == early[0]:
                self._decide_early(early)
        if self.open:
            keep = []
            for gap in self.open:
                if now >= gap[1] + LOOKAHEAD_S + self.res:
                    self._decide(gap)
                else:
                    keep.append(gap)
            self.open = keep
        chain = self.chain
        if chain is not None and chain.due(now) and not self.open:
            self._say_chain()

    def flush(self):
        """Decide every open candidate (at exit)."""
        for gap in self.open:
            self._decide(gap)
        self.open = []
        self._close_chain()

    def _decide(self, gap):
        start, end, last_seen = gap
        ev = self.evidence
        row = shaping.gap_row(start, end, self.arrivals.slow, end + LOOKAHEAD_S + self.res,
                              self.res)
        free = [r for r in ev.rotations if r not in self.used]
        rot = match_rotations([row], free).get(0)
        if rot is not None:
            self.used.add(rot)
        row["_rot"] = rot
        before = set(ev.claimed)
        for r in verdict.decide_one(row, ev):
            self._verdict(r, last_seen, before)
        for rot in self.arrivals.rotations_between(start - 1.0, end):
            if rot.alerted is not None and not rot.closed:     # said ongoing, no stall took it
                self._cancel_ref(rot, start, end)
        held = self.held
        if held is not None and start <= held.at <= end:
            self.held = None                # no Rotate came: the binlog lock was not a rotation
            if not held.closed:
                held.closed = True
                self.emit("stall", {"id": held.alerted, "state": "cancelled",
                                    "start": iso(start), "end": iso(end), "cause": None,
                                    "hint": "no rotation followed: not a rotation stall"})

    def _decide_early(self, early):
        """The part of a still open gap up to the end of the rotation in it (the next
        file's arrival), decided LOOKAHEAD_S after that: a rotation stall that idle
        time or a lock follows is said then, not when the commits resume.  When it is
        no rotation stall nothing is said, and the whole gap is decided when it ends."""
        start, end = early
        ev = self.evidence
        row = shaping.gap_row(start, end, self.arrivals.slow, end + LOOKAHEAD_S, 0.0)
        free = [r for r in ev.rotations if r not in self.used]
        rot = match_rotations([row], free).get(0)
        if rot is None:
            return
        row["_rot"] = rot
        before = set(ev.claimed)
        got = verdict.decide_one(row, ev)
        head = got[0]
        if head["cause"] != "binlog_rotation" or (head["end"] - head["start"] < self.threshold
                                                   and getattr(rot.ref, "alerted", None) is None):
            ev.claimed = before             # not said: the gap is decided whole when it ends
            return
        self.used.add(rot)
        self._close_chain()
        self._emit_row(head)
        self.gap_from = head["end"]

    def _verdict(self, r, last_seen, claimed_before):
        ref = getattr(r.get("_rot"), "ref", None)
        if (r["cause"] == "binlog_rotation" and ref is not None and ref.alerted is not None
                and not ref.closed):
            self._close_chain()
            self._emit_row(r)               # said ongoing: its end is due, however short
            return
        if r["cause"] in NO_STALL or r["end"] - r["start"] < self.threshold:
            self._close_chain()
            self._cancel(r)
            return
        if r["cause"] in ("lock", "unknown") and r["shape"] == "commit-gap":
            self._link(r, last_seen - r["end"] > shaping.FLOWED_ON_S, claimed_before)
            return
        self._close_chain()
        self._emit_row(r)

    # -- chains: commits stopping again and again ----------------------------
    def _link(self, r, flowed, claimed_before):
        """A lock (or unknown) gap: the first link of a chain, or the next one
        (shaping.Chain); said at once when the commits flowed on after it."""
        chain = self.chain
        if chain is not None and r["start"] - chain.links[-1]["end"] > shaping.CHAIN_LINK_S:
            self._close_chain()
            chain = None
        if chain is None:
            chain = self.chain = shaping.Chain(claimed_before)
        chain.links.append(r)
        if flowed:
            self._close_chain()

    def _close_chain(self):
        chain = self.chain
        if chain is not None and len(chain.links) > chain.said:
            self._say_chain()
        self.chain = None

    def _say_chain(self):
        """Say the chain (again, with the same id, when it grew since)."""
        chain = self.chain
        if len(chain.links) == 1:
            row = chain.links[0]
        else:
            ev = self.evidence
            whole = shaping.chain_row(chain, self.arrivals.slow,
                                      chain.links[-1]["end"] + LOOKAHEAD_S)
            held, ev.claimed = ev.claimed, set(chain.claimed_before)   # its links' waits
            try:
                got = verdict.decide_one(whole, ev)
            finally:
                ev.claimed = held | ev.claimed
            row = got[0]
            if row["cause"] in NO_STALL:
                row = chain.links[-1]
        first = chain.id is None
        if first:
            self.count += 1
            chain.id = self.count
        chain.said = len(chain.links)
        self._emit_row(row, chain.id, update=not first)

    def _decide_slowed(self):
        run, self.slowed = self.slowed, None
        row = shaping.slowed_row(run, self.threshold, self.said)
        if row is None:
            return
        got = verdict.decide_one(row, self.evidence)
        if got and got[0]["cause"] not in NO_STALL:
            self._emit_row(got[0])

    # -- the rotation under way ----------------------------------------------
    def wants_probe(self, now) -> bool:
        """Commits stopped PROBE_AFTER_S ago after flowing: time to ask the server
        whether its binlog lock is held (SHOW BINARY LOGS blocks while a MySQL binlog
        rotates; MySQL sends the Rotate only once the next file is open).  Once a gap."""
        last = self.last_live
        if (last is None or self.away or self.probed_gap == last
                or now - last < PROBE_AFTER_S or self.arrivals.rate(last, 5.0) < 1.0):
            return False
        self.probed_gap = last
        return True

    def probed(self, started, finished=None):
        """The probe was sent at `started`; it returned at `finished` (None: not yet)."""
        if self.probed_gap is not None and started >= self.probed_gap:
            self.probe = [started, finished]

    def _blocked(self, now):
        """SHOW BINARY LOGS blocked PROBE_BLOCKED_S or more while commits have stopped
        for `threshold` s: a rotation is holding them now (said as ongoing)."""
        probe = self.probe
        if (probe is None or probe[1] is not None or self.held is not None or self.away
                or self.last_live is None or probe[0] < self.last_live
                or now - probe[0] < PROBE_BLOCKED_S or now - self.last_live < self.threshold
                or self.arrivals.pending_rotation is not None):
            return
        from binlogkit.watch.arrivals import Rotation as Pending
        from binlogkit.diagnosis.timeline import Rotation
        held = Pending(self.last_live, self.file, None, self.pos, int(self.last_live))
        self.count += 1
        held.alerted = self.count
        self.held, self.probe = held, None          # said once per probe
        row = shaping.gap_row(self.last_live, now, (), now)
        row.update(cause="binlog_rotation", _rot=Rotation(held.at, held.from_file, None,
                                                          held.size, ref=held), hint=(
            f"SHOW BINARY LOGS has been blocked {now - probe[0]:.1f} s while commits stopped: "
            f"the binlog lock is held, {held.from_file} is being rotated (closed and synced)"))
        payload = stall_dict(row, self.count, self.threshold)
        payload["state"] = "ongoing"
        self.emit("stall", payload)

    def _ongoing(self, now):
        """A Rotate whose next file has not come for `threshold` s while commits were
        flowing just before it: the rotation is stalling the commits now.  Said at once
        (state "ongoing"), then again with the same id when it ends."""
        self._blocked(now)
        rot = self.arrivals.pending_rotation
        if (rot is None or rot.catchup or rot.alerted is not None or self.away
                or now - rot.at < self.threshold or self.last_live is None
                or rot.at - self.last_live > 1.0 or self.arrivals.rate(rot.at, 5.0) < 1.0):
            return
        self.count += 1
        rot.alerted = self.count
        start = min(self.last_live, rot.at)
        row = shaping.gap_row(start, now, (), now)
        row.update(cause="binlog_rotation", rotation_from=rot.from_file, hint=(
            f"{rot.from_file} is still being closed and synced"), _rot=self.by_ref.get(rot))
        payload = stall_dict(row, self.count, self.threshold)
        payload["state"] = "ongoing"
        self.emit("stall", payload)

    def _cancel(self, r):
        """An ongoing alert whose gap turned out to be no stall (nobody waited)."""
        ref = getattr(r.get("_rot"), "ref", None)
        if ref is not None:
            self._cancel_ref(ref, r["start"], r["end"])

    def _cancel_ref(self, ref, start, end):
        if ref.alerted is not None and not ref.closed:
            ref.closed = True
            self.emit("stall", {"id": ref.alerted, "state": "cancelled",
                                "start": iso(start), "end": iso(end),
                                "cause": None, "hint": "nothing waited: not a stall"})

    def _emit_row(self, r, sid=None, update=False):
        ref = getattr(r.get("_rot"), "ref", None) if r["cause"] == "binlog_rotation" else None
        if ref is not None and ref.alerted is not None:
            sid = ref.alerted                   # the end of a stall said while it went on
            ref.closed = True
        elif sid is None:
            self.count += 1
            sid = self.count
        if not update:
            self.stalls_by_cause[r["cause"]] = self.stalls_by_cause.get(r["cause"], 0) + 1
        self.said.append((r["start"], r["end"]))
        payload = stall_dict(r, sid, self.threshold, self._binlog_waits(r))
        if update:
            payload["update"] = True
        self.emit("stall", payload)


    def _binlog_waits(self, r):
        """Transactions that waited through the stall (written at its end)."""
        lo, hi = r["start"], r["end"] + LOOKAHEAD_S
        return [w for w in self.evidence.waits
                if w.source == "binlog" and w.start < r["end"] and lo < w.end <= hi]


def stall_dict(r, sid, threshold, waited=()):
    """The fields of `report --format json`'s stalls, for one online stall, plus
    ``id``, ``state`` and ``waiting_commits`` / ``max_wait_s`` (the transactions
    written after it that began before it)."""
    rot = r.get("_rot") if r.get("cause") == "binlog_rotation" else None
    rotation = None
    if rot is not None:
        ref = rot.ref
        sync = None if ref is None or ref.sync_s is None else round(ref.sync_s, 3)
        rotation = {"from_file": rot.from_file, "to_file": rot.to_file,
                    "at": iso(ref.at if ref is not None else rot.at),
                    "size_bytes": rot.size_bytes, "sync_s": sync}
    slow = [m for m in r.get("members") or () if hasattr(m, "query_time")]
    duration = r["end"] - r["start"]
    return {
        "id": sid, "state": "ended",
        "start": iso(r["start"]), "end": iso(r["end"]), "duration_s": round(duration, 3),
        "queries": r.get("queries", 0), "writes": r.get("writes", 0),
        "commits": r.get("commits", 0), "reads": r.get("reads", 0),
        "others": r.get("others", 0),
        "max_query_time_s": round(float(r.get("max_query_time") or 0.0), 6),
        "lock_share": round(float(r.get("lock_share") or 0.0), 4),
        "shape": r["shape"], "over_threshold": bool(duration >= threshold),
        "cause": r["cause"], "rotation": rotation, "hint": r.get("hint"),
        "top_classes": _top_classes(slow),
        "time_res_s": 0.0, "evidence": "slow log + binlog" if slow else r.get("evidence"),
        "commit_gap_s": round(float(r.get("commit_gap_s") or duration), 6),
        "waiting_commits": len(waited),
        "max_wait_s": round(max((w.query_time for w in waited), default=0.0), 3),
    }


def _top_classes(slow, limit=3):
    from binlogkit.slowlog.fingerprint import fingerprint, short_id
    counts = {}
    for e in slow:
        if e.query:
            fp = fingerprint(e.query).decode("utf-8", "replace")
            counts[fp] = counts.get(fp, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [{"fingerprint": fp, "count": n, "id": short_id(fp)} for fp, n in top]

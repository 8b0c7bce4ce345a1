"""Online stall diagnosis: arrivals in, stall verdicts out, each once.

    diag = OnlineDiagnosis(threshold=1.0, emit=callback)
    diag.feed(arrival)          # every binlog Arrival, in order
    diag.feed_slow(entry)       # every slow-log SlowEntry (writes slowed, not stopped: commit_sync)
    diag.lost(at) / diag.tick(now)

A live commit that arrives `threshold` seconds or more after the previous one
opens a `Candidate`; the events of the next `settle` seconds are its evidence
(how many of them waited through the gap: `Timeline.waited`), then the cause
rules (`binlogkit.watch.rules`) decide, and `emit(kind, payload)` is called with
``"stall"`` and a dict (the fields of `binlogkit report --format json`'s stalls,
plus ``id``), within `settle` (+ one tick) of the stall's end.  Rotations,
restarts and lost connections are emitted as they happen (``"rotation"``,
``"restart"``, ``"disconnect"``, ``"reconnect"``).

Events flagged `catchup` (written while the watcher was away) update the
timeline but never open a candidate, and a gap that spans a lost connection is
a restart, not a stall: a stall is never reported twice, nor made up by a
reconnection.
"""
import datetime
import math
import time
from collections import deque

from binlogkit.watch import rules
from binlogkit.watch.timeline import Timeline

__all__ = ["OnlineDiagnosis", "iso"]


def iso(t):
    if t is None or (isinstance(t, float) and math.isnan(t)):
        return None
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


class OnlineDiagnosis:
    def __init__(self, threshold=1.0, emit=None, settle=0.5, window_s=60.0):
        self.threshold = threshold
        self.settle = settle
        self.emit = emit or (lambda kind, payload: None)
        self.timeline = Timeline(window_s=window_s)
        self.timeline.threshold = threshold
        self.open = []          # candidates gathering evidence
        self.count = 0          # stalls emitted
        self.last_live = None   # arrival of the last live transaction event
        self.away = False       # the connection was lost since last_live
        self.stalls_by_cause = {}
        self.next_forget = 0.0
        self.slowed = None      # a run of slowed writes (commit_sync), or None
        self.chain = []         # (candidate, verdict) of lock stalls one right after another
        self.said = deque(maxlen=64)        # (start, end) of the stalls emitted lately

    # -- input ---------------------------------------------------------------
    def feed(self, a):
        kind = a.kind
        if kind == "event":
            self._event(a)
        elif kind == "rotate":
            rot = self.timeline.note_rotation(a)
            if a.catchup:
                self._rotation_event(rot)
        elif kind == "fde":
            self._fde(a)
        elif kind == "stop":
            self.timeline.note_marker(a.at, "stop", a.file)
            self.emit("shutdown", {"at": iso(a.at), "file": a.file, "what": "server stopped "
                                   "(Stop event)", "server_time": iso(a.when)})
        self.tick(a.at)

    def _event(self, a):
        tl = self.timeline
        tl.note_event(a)
        if a.catchup:
            return
        now = a.at
        if self.last_live is not None and not self.away and now - self.last_live >= self.threshold:
            cand = rules.Candidate(self.last_live, now, a)
            self.open.append(cand)
        if self.open:
            waited = tl.waited(a)
            for cand in self.open:
                if now <= cand.end + self.settle:
                    cand.add(a, waited)
        if a.is_commit or a.commit_us:
            tl.note_commit(a)
        self.last_live = now
        self.away = False

    def _fde(self, a):
        tl = self.timeline
        rot = tl.note_fde(a)
        if rot is not None and not rot.catchup:
            self._rotation_event(rot)
        if a.created:
            tl.note_marker(a.at, "startup", a.file)
            self.emit("restart", {"at": iso(a.at), "file": a.file, "server_version":
                                  a.server_version, "what": "server started (binlog created "
                                  "at start-up)", "server_time": iso(a.created)})

    def _rotation_event(self, rot):
        self.emit("rotation", {"from_file": rot.from_file, "to_file": rot.to_file,
                               "at": iso(rot.at), "size_bytes": rot.size,
                               "sync_s": None if rot.sync_s is None else round(rot.sync_s, 3),
                               "catchup": rot.catchup})

    def feed_slow(self, entry, now=None):
        """A slow-log entry; writes and COMMITs of half the threshold or more that end one after
        another make a run that may be a ``commit_sync`` stall (rules.slowed_verdict)."""
        self.timeline.note_slow(entry)
        if (entry.kind not in ("write", "commit")
                or entry.query_time < rules.SLOWED_SHARE * self.threshold):
            return
        run = self.slowed
        if run is not None and entry.start > run.end + rules.SLOWED_GAP_S:
            self._decide_slowed()
            run = None
        if run is None:
            self.slowed = run = rules.SlowedRun(entry)
        else:
            run.add(entry)
        run.last_wall = time.time() if now is None else now

    def lost(self, at, message=""):
        """The connection was lost: the gap it makes is no stall."""
        self.timeline.note_marker(at, "disconnect", detail=message)
        self.away = True

    # -- decisions -----------------------------------------------------------
    def tick(self, now):
        self._ongoing(now)
        run = self.slowed
        if run is not None and now - run.last_wall >= rules.SLOWED_GAP_S:
            self._decide_slowed()
        if now >= self.next_forget:
            self.next_forget = now + 5.0
            self.timeline.forget_before(now - 30.0)     # candidates look back less than that
        if self.open:
            keep = []
            for cand in self.open:
                if now > cand.end + self.settle:
                    self._decide(cand)
                else:
                    keep.append(cand)
            self.open = keep
        chain = self.chain
        if chain and now > chain[-1][0].end + rules.CHAIN_HOLD_S and not self.open:
            self._close_chain()

    def _ongoing(self, now):
        """A Rotate whose next file has not come for `threshold` s while commits were
        flowing just before it: the rotation is stalling the commits now.  Said at once
        (state "ongoing"), then again with the same id when it ends."""
        rot = self.timeline.pending_rotation
        if (rot is None or rot.catchup or rot.alerted is not None or self.away
                or now - rot.at < self.threshold or self.last_live is None
                or rot.at - self.last_live > 1.0 or self.timeline.rate(rot.at, 5.0) < 1.0):
            return
        self.count += 1
        rot.alerted = self.count
        cand = rules.Candidate(min(self.last_live, rot.at), now)
        cand.id = self.count
        verdict = rules.Verdict("binlog_rotation", True, rotation=rot,
                                hint=f"{rot.from_file} is still being closed and synced")
        payload = stall_dict(cand, verdict, self.threshold)
        payload["state"] = "ongoing"
        self.emit("stall", payload)

    def flush(self):
        """Decide every open candidate (at exit)."""
        for cand in self.open:
            self._decide(cand)
        self.open = []
        self._close_chain()

    def _decide(self, cand):
        while cand is not None:
            verdict = rules.decide(cand, self.timeline, self.settle)
            if verdict.stall and cand.duration >= self.threshold:
                if verdict.cause in rules.CHAINED:
                    self._chain(cand, verdict)
                else:
                    self._close_chain()
                    self._emit_stall(cand, verdict)
            else:
                self._close_chain()
                self._cancel(cand)
            cand = verdict.rest

    def _chain(self, cand, verdict):
        """Commits that stop again right after a small burst, gap after gap, were slowed,
        not stopped: a lock (or unknown) stall after which the commits did not flow on
        (none in CHAIN_LINK_S..settle after its end) is held until the next gap."""
        chain = self.chain
        if chain and cand.start - chain[-1][0].end > rules.CHAIN_LINK_S:
            self._close_chain()
        self.chain.append((cand, verdict))
        if cand.last_seen - cand.end > rules.FLOWED_ON_S:
            self._close_chain()             # the commits flowed on: the stall ended here

    def _close_chain(self):
        chain, self.chain = self.chain, []
        if not chain:
            return
        if len(chain) == 1:
            self._emit_stall(*chain[0])
            return
        first, last = chain[0][0], chain[-1][0]
        whole = rules.Candidate(first.start, last.end)
        for cand, _ in chain:
            whole.waiting_commits += cand.waiting_commits
            whole.max_wait = max(whole.max_wait, cand.max_wait)
        slow = [e for _, v in chain for e in v.slow]
        self._emit_stall(whole, rules.Verdict(
            "commit_sync", True, slow=slow,
            hint=f"commits stopped {len(chain)} times in a row, each for about "
                 f"{sum(c.duration for c, _ in chain) / len(chain):.2f} s, with a few between: "
                 "commits slowed, not stopped (binlog or redo log sync: sync_binlog, "
                 "innodb_flush_log_at_trx_commit, the disk)"))

    def _decide_slowed(self):
        run, self.slowed = self.slowed, None
        verdict = rules.slowed_verdict(run, self.threshold, self.said)
        if verdict is not None:
            cand = rules.Candidate(run.start, run.end)
            self._emit_stall(cand, verdict)

    def _cancel(self, cand):
        """An ongoing alert whose gap turned out to be no stall (nobody waited)."""
        for rot in self.timeline.rotations_between(cand.start - rules.ROTATION_EARLY_S, cand.end):
            if rot.alerted is not None and not rot.closed:
                rot.closed = True
                self.emit("stall", {"id": rot.alerted, "state": "cancelled",
                                    "start": iso(cand.start), "end": iso(cand.end),
                                    "cause": None, "hint": "nothing waited: not a stall"})

    def _emit_stall(self, cand, verdict):
        rot = verdict.rotation
        if rot is not None and rot.alerted is not None and verdict.cause == "binlog_rotation":
            cand.id = rot.alerted               # the end of a stall said while it went on
            rot.closed = True
        else:
            self.count += 1
            cand.id = self.count
        self.stalls_by_cause[verdict.cause] = self.stalls_by_cause.get(verdict.cause, 0) + 1
        self.said.append((cand.start, cand.end))
        self.emit("stall", stall_dict(cand, verdict, self.threshold))


def stall_dict(cand, verdict, threshold):
    """The fields of `report --format json`'s stalls, for one online stall."""
    slow = verdict.slow
    kinds = {"write": 0, "commit": 0, "read": 0, "other": 0}
    for e in slow:
        kinds[e.kind if e.kind in kinds else "other"] += 1
    rot = verdict.rotation
    rotation = None
    if rot is not None:
        rotation = {"from_file": rot.from_file, "to_file": rot.to_file, "at": iso(rot.at),
                    "size_bytes": rot.size,
                    "sync_s": None if rot.sync_s is None else round(rot.sync_s, 3)}
    total_q = sum(e.query_time for e in slow)
    duration = cand.duration
    return {
        "id": cand.id, "state": "ended",
        "start": iso(cand.start), "end": iso(cand.end), "duration_s": round(duration, 3),
        "queries": len(slow), "writes": kinds["write"], "commits": kinds["commit"],
        "reads": kinds["read"], "others": kinds["other"],
        "max_query_time_s": round(max((e.query_time for e in slow), default=0.0), 6),
        "lock_share": round(sum(e.lock_time for e in slow) / total_q, 4) if total_q else 0.0,
        "shape": "pile-up", "over_threshold": bool(duration >= threshold),
        "cause": verdict.cause, "rotation": rotation, "hint": verdict.hint,
        "top_classes": _top_classes(slow),
        "time_res_s": 0.0, "evidence": "slow log + binlog" if slow else "binlog",
        "commit_gap_s": round(duration, 6),
        "waiting_commits": cand.waiting_commits, "max_wait_s": round(cand.max_wait, 3),
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

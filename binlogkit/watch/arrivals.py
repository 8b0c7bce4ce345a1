"""What arrived lately: the arrival side of the online diagnosis.

Fed one arrival at a time (`binlogkit.remote.follow.Arrival`, or the same from
local files) and one slow-log entry at a time; holds only the last `window_s`
seconds (and at most `cap` items of each kind), so a watcher that runs for weeks
keeps a flat memory.  The evidence itself (waits, rotations, restarts, commit
instants) goes into the timeline `binlogkit report` reads too
(`binlogkit.diagnosis.timeline`); this keeps what only a watcher needs: the
clocks' skew, the rotation under way (for the "ongoing" alert and its sync
time), the commit rate, and the slow-log entries a stall line describes.

Times here are arrival instants on this machine's clock (seconds since the
epoch, float).  A binlog event's header time (`when`) is its statement's start
on the server's clock, in whole seconds; `skew()` is the least (arrival - when)
seen lately, the offset between the two clocks (plus the time an event takes to
arrive), so `when + skew()` is its statement's start on this machine's clock.
"""
from collections import deque

__all__ = ["Arrivals", "Rotation", "Marker", "SlowEntry"]


FLOW_BREAKS = ("startup", "stop", "disconnect")
MIN_SPAN_S = 1.0          # a rate over less time than this says little

class Rotation:
    """A binlog rotation: the Rotate event's arrival, then the next file's format
    description's (the rotation's end: the old file was synced and closed)."""

    __slots__ = ("at", "done_at", "from_file", "to_file", "size", "when", "catchup", "alerted",
                 "closed", "began")

    def __init__(self, at, from_file, to_file, size, when, catchup=False):
        self.at, self.from_file, self.to_file, self.size = at, from_file, to_file, size
        self.when, self.catchup = when, catchup
        self.done_at = None
        self.alerted = None         # the id of the "ongoing" stall said for it
        self.closed = False
        self.began = None           # MySQL: the commits' stop its blocked probe says it began at

    @property
    def sync_s(self):
        return None if self.done_at is None else max(0.0, self.done_at - self.at)


class Marker:
    """A restart (Stop event, a log created at start-up) or a lost connection."""

    __slots__ = ("at", "kind", "file", "detail")

    def __init__(self, at, kind, file=None, detail=None):
        self.at, self.kind, self.file, self.detail = at, kind, file, detail


class SlowEntry:
    """What the rules need of a slow-log entry (times in seconds since the epoch)."""

    __slots__ = ("start", "end", "query_time", "lock_time", "rows_examined", "kind", "query")

    def __init__(self, start, end, query_time, lock_time, rows_examined, kind, query=None):
        self.start, self.end, self.query_time, self.lock_time = start, end, query_time, lock_time
        self.rows_examined, self.kind, self.query = rows_examined, kind, query


class Arrivals:
    def __init__(self, window_s=60.0, cap=20_000):
        self.window_s = window_s
        self.rotations = deque(maxlen=1000)
        self.markers = deque(maxlen=1000)
        self.slow = deque(maxlen=cap)
        self._skew = deque()            # (second, least arrival - when in it), last minute
        self._least = 0.0               # the least of those
        self.last_commit_at = None      # arrival of the last live transaction event
        self.last_commit_when = None
        self.pending_rotation = None    # a Rotate seen, its next file not yet
        self.commit_times = deque(maxlen=4096)      # arrivals of live commits (rate)
        self.flow_since = None          # the last start, stop or lost connection: commits
                                        # before it say nothing of the rate after it

    # -- feeding ---------------------------------------------------------------
    def note_event(self, a):
        second = int(a.at)
        offset = a.at - a.when
        skew = self._skew
        if skew and skew[-1][0] == second:
            if offset < skew[-1][1]:
                skew[-1] = (second, offset)
                if offset < self._least:
                    self._least = offset
        else:
            skew.append((second, offset))
            while skew and skew[0][0] < second - 60:
                skew.popleft()
            self._least = min(s for _, s in skew)      # once a second

    def note_commit(self, a):
        self.last_commit_at = a.at
        self.last_commit_when = a.when
        self.commit_times.append(a.at)

    def note_rotation(self, a):
        rot = Rotation(a.at, a.file, a.next_file, a.end, a.when, a.catchup)
        self.rotations.append(rot)
        self.pending_rotation = rot
        return rot

    def note_fde(self, a):
        """The next file's description: ends the rotation under way (returned)."""
        rot = self.pending_rotation
        self.pending_rotation = None
        if rot is not None and rot.to_file == a.file:
            rot.done_at = a.at
            return rot
        return None

    def note_marker(self, at, kind, file=None, detail=None):
        marker = Marker(at, kind, file, detail)
        self.markers.append(marker)
        if kind in FLOW_BREAKS:
            self.flow_since = at if self.flow_since is None else max(self.flow_since, at)
        return marker

    def note_slow(self, entry):
        self.slow.append(entry)

    def forget_before(self, now):
        horizon = now - self.window_s
        for items in (self.rotations, self.markers, self.slow):
            while items and _instant(items[0]) < horizon:
                items.popleft()

    # -- reading ---------------------------------------------------------------
    def skew(self):
        """Least (arrival - header time) over the last minute; 0 before any event."""
        return self._least

    def rate(self, now, span=5.0):
        """Live commits per second over the last `span` seconds before `now`, or since the
        server last started (or the connection was lost) when that is later: right after
        a restart the seconds it was down are no part of the rate (at least MIN_SPAN_S)."""
        since = now - span
        if self.flow_since is not None and self.flow_since > since:
            since = min(self.flow_since, now - MIN_SPAN_S)
        count = 0
        for at in reversed(self.commit_times):
            if at > now:
                continue
            if at < since:
                break
            count += 1
        return count / (now - since)

    def rotations_between(self, lo, hi):
        return [r for r in self.rotations if lo <= r.at <= hi]

    def markers_between(self, lo, hi):
        return [m for m in self.markers if lo <= m.at <= hi]

    def slow_between(self, lo, hi):
        """Slow-log entries that ended in [lo, hi]."""
        return [e for e in self.slow if lo <= e.end <= hi]


def _instant(item):
    return item.end if isinstance(item, SlowEntry) else item.at

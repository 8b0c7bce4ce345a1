"""Recorded binlogs and a slow log replayed through the online diagnosis, without sleeping.

    stalls = replay(binlog_paths, slowlog_paths, threshold=1.0)

Each event "arrives" at its own time: a MySQL transaction at its GTID event's
commit timestamp (µs, as a watcher would have read it), any other event at its
header time, never before the event before it (MariaDB events carry their
statement's start: a transaction written after a later-begun one arrives with
it, i.e. late, as it did).  Slow-log entries are fed once the replay's clock
passes their end; the watcher ticks every ``TICK_S`` of replayed time.  Whole-second
logs (no commit timestamps): the commits are placed inside their second
(`_placer`), and a gap's times are known to a second (its time resolution, as a
report reads them: decided 1 s later).  Returns
the stall lines (the last of each id), as `binlogkit watch` would have said them
(without what only real arrival instants show: when a rotation ended);
what the tests compare with `binlogkit report` on the same files (one evidence
timeline, one set of rules).  Also the long-replay memory bench's driver.
"""
import os

from binlogkit.binlog import layout as L
from binlogkit.remote.follow import arrival_of
from binlogkit.remote.framer import ReceivedEvents
from binlogkit.slowlog.parser import SlowlogParser
from binlogkit.watch.diagnosis import OnlineDiagnosis
from binlogkit.watch.slowtail import slow_entry

__all__ = ["replay", "replay_arrivals", "slow_entries"]

TICK_S = 0.2
END_S = 5.0              # replayed time after the last event: its gap is decided
_unpack_header = L.COMMON_HEADER.unpack_from


def _events(path):
    """(raw event, fde, position) of one binlog file, in order."""
    with open(path, "rb") as f:
        data = f.read()
    framer = ReceivedEvents(os.path.basename(path))
    pos = L.BIN_LOG_HEADER_SIZE
    while len(data) - pos >= L.LOG_EVENT_HEADER_LEN:
        size = _unpack_header(data, pos)[3]
        if size < L.LOG_EVENT_HEADER_LEN or len(data) - pos < size:
            return
        raw = framer.frame(data[pos:pos + size], pos)
        yield raw, framer.fde, pos
        pos += size


def _commit_seconds(paths) -> dict:
    """{second: commits} of whole-second logs: the commits whose header second is not
    before one written earlier (a commit written after a later-begun one was held:
    it arrives with the commit before it)."""
    counts = {}
    newest = None
    for a in _raw_arrivals(paths):
        if a.is_commit and (newest is None or a.when >= newest):
            newest = a.when
            counts[a.when] = counts.get(a.when, 0) + 1
    return counts


def _raw_arrivals(paths):
    for path in paths:
        name = os.path.basename(path)
        for raw, fde, pos in _events(path):
            yield arrival_of(0.0, raw, fde, name, pos)


def _placer(counts):
    """The instant of the k-th commit of a whole second: spread over the second when
    it is as full as its neighbours; packed at its start when commits stopped in it
    (the second before was full), at its end when they resumed in it."""
    full = 0.9

    def place(second, k):
        n = counts.get(second, 0) or 1
        before, after = counts.get(second - 1, 0), counts.get(second + 1, 0)
        rate = max(before, after, n)
        if n >= full * rate:
            return second + (k + 0.5) / n
        if before >= full * rate:
            return second + (k + 0.5) / rate
        if after >= full * rate:
            return second + 1 - (n - k - 0.5) / rate
        return second + (k + 0.5) / n
    return place


def replay_arrivals(paths, whole=False):
    """Arrivals of the files in order, each at its own time (module doc); ``whole``:
    commit instants placed inside their second (`_placer`), a transaction's events
    arriving with its commit."""
    last = 0.0
    place = _placer(_commit_seconds(paths)) if whole else None
    seen = {}
    held = []
    newest = None
    for a in _raw_arrivals(paths):
        if a.commit_us:
            at = a.commit_us / 1e6
        elif place is not None and a.kind == "event":
            if not a.is_commit:
                held.append(a)
                continue
            if newest is not None and a.when < newest:
                at = last                           # held: written after a later one
            else:
                newest = a.when
                k = seen.get(a.when, 0)
                seen[a.when] = k + 1
                at = place(a.when, k)
        else:
            at = float(a.when)
        last = max(at, last)
        for h in held:
            h.at = last
            yield h
        held = []
        a.at = last
        yield a
    for h in held:
        h.at = last
        yield h


def slow_entries(paths):
    out = []
    for path in paths:
        for entry in SlowlogParser(path):
            item = slow_entry(entry) if hasattr(entry, "end_us") else None
            if item is not None:
                out.append(item)
    out.sort(key=lambda e: e.end)
    return out


def whole_seconds(binlogs) -> bool:
    """True when the transactions carry no commit timestamp (MariaDB, MySQL before
    8.0): the replay's instants are then whole seconds."""
    for n, a in enumerate(_raw_arrivals(binlogs)):
        if a.commit_us:
            return False
        if n > 5000:
            break
    return True


def replay(binlogs, slowlogs=(), threshold=1.0, diag=None):
    """The stall lines of a replay (module doc)."""
    said = {}

    def emit(kind, payload):
        if kind == "stall" and payload.get("state") == "ended":
            said[payload["id"]] = payload

    whole = whole_seconds(binlogs)
    res = 1.0 if whole else 0.0     # instants placed inside their second: known to a second
    diag = diag or OnlineDiagnosis(threshold=threshold, emit=emit, live=False, res=res)
    slow = slow_entries(slowlogs)
    state = {"k": 0, "ticked": None}

    def advance(t):
        """Slow-log entries ended by ``t`` and the ticks before it, in time order."""
        while True:
            k, ticked = state["k"], state["ticked"]
            next_tick = None if ticked is None else ticked + TICK_S
            next_slow = slow[k].end if k < len(slow) else None
            if next_slow is not None and next_slow <= t and (next_tick is None
                                                             or next_slow <= next_tick):
                diag.feed_slow(slow[k], now=next_slow)
                state["k"] = k + 1
            elif next_tick is not None and next_tick < t:
                diag.tick(next_tick)
                state["ticked"] = next_tick
            else:
                return

    last = None
    for a in replay_arrivals(binlogs, whole=whole):
        advance(a.at)
        state["ticked"] = last = a.at
        diag.feed(a)
    ends = [t for t in (last, slow[-1].end if slow else None) if t is not None]
    if ends:
        advance(max(ends) + END_S)
    diag.flush()
    return sorted(said.values(), key=lambda p: p["start"])

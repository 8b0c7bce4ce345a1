"""Streaming slow query log parser (MySQL 5.0-8.x, Percona Server, MariaDB).

The input is read line by line (bytes, bounded memory: one entry at a time).
Entry boundaries follow pt-query-digest's SlowLogParser so that classes and
counts agree with it: an entry ends where a line ending in ``;`` is followed
by a line starting with ``#``.  Lines before the query are metadata:

* ``# Time:`` -- MySQL and Percona Server write the logging instant, i.e. the
  statement *end*; MariaDB writes the instant the statement *began* (checked
  on MariaDB 10.11: ``SELECT SLEEP(2.5)`` begun at 10:44:07.6 is logged with
  ``# Time: ... 10:44:07`` and ``SET timestamp`` of that second).  An entry is
  MariaDB's when a header line says so or it has ``QC_hit`` (MariaDB's
  spelling).  Servers print it only when the second changes, so it is inherited.
* ``# User@Host: user[user] @ host [ip]  Id: N`` (possibly on the Time line).
* ``# administrator command: Quit;``
* ``# Key: value  Key: value`` -- every pair becomes an attribute (Percona
  extended verbosity, MySQL 8.0.14+ ``log_slow_extra``, MariaDB extras).
* ``use db;`` and ``SET timestamp=N;`` (also ``insert_id``, ``last_insert_id``).

Server header lines (written at start-up and ``FLUSH LOGS``) are dropped
wherever they appear; lines that belong to no entry are counted in
``stats.skipped_lines``.  Nothing in the input makes the parser raise; only
I/O and corrupt compression do (as :class:`SlowlogError`).
"""

from __future__ import annotations

import re
from itertools import chain

from binlogkit.errors import SlowlogError
from binlogkit.slowlog.attrs import SET_META, attr_pairs, db_name, set_pairs, user_host
from binlogkit.slowlog.clock import LogClock
from binlogkit.slowlog.source import display_name, open_slowlog
from binlogkit.slowlog.timeparse import ServerZone, frac_us as _frac_us, in_range, parse_time_value

__all__ = ["Entry", "ParseStats", "Inherited", "SlowlogParser", "parse_slowlog", "NO_QUERY",
           "MAX_SECONDS"]

NO_QUERY = b"/* No query */"
# entries (or bytes) read without a sign of a slow log before the input is refused
_HOLD_MAX, _HOLD_BYTES = 1000, 64 << 20
_INF = float("inf")

_PT_TS = re.compile(rb"# Time: (?:[0-9: ]{15}|[-0-9: T]{19})")
_TS_VALUE = re.compile(rb"# Time:\s+(\S+(?:\s+\d{1,2}:\d\d:\d\d\S*)?)")
_USE = re.compile(rb"use ([^;]+)")
_HEADER = re.compile(
    rb"(?:T[cC][pP]\s[pP]ort:\s+\d+"
    rb"|[/A-Za-z].*?(?:mysqld|mariadbd)(?:-nt|-max|-debug)?(?:\.exe)?,\sVersion"
    rb".*(?:started\swith:|embedded\slibrary)"
    rb"|Time\s+Id\s+Command)")
_VERSION = re.compile(rb"Version: (\d+)\.(\d+)\.(\d+)(\S*)")
_NULL_QUERY_NEXT = re.compile(rb"#\s*[A-Z][a-z_]+: ")
_EOF_SEPARATOR = re.compile(rb";\n#?(?=\n?\Z)")
# a time value in one of the two strict shapes, split into whole second, fraction, zone
_TIME_FRACTION = re.compile(
    rb"(\d{6}\s+\d{1,2}:\d\d:\d\d|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d)\.(\d+)(Z|[+-]\d\d:?\d\d)?\Z")


class Entry:
    """One slow-log entry.  Times are integer microseconds since the epoch (UTC).

    ``attrs`` maps every ``Key: value`` pair (bytes to bytes) as written;
    typed, unit-normalised values come from :mod:`binlogkit.slowlog.fields`.
    """

    __slots__ = ("file", "offset", "line", "cmd", "query", "ts", "end_us", "start_us",
                 "user", "host", "ip", "db", "attrs", "query_time", "lock_time",
                 "rows_sent", "rows_examined", "ts_inherited", "fingerprint")

    def __repr__(self):
        return (f"Entry(line={self.line}, end_us={self.end_us}, "
                f"query_time={self.query_time}, query={self.query[:40]!r})")

    @property
    def text(self) -> str:
        """The query as str (invalid UTF-8 kept as surrogate escapes)."""
        return self.query.decode("utf-8", "surrogateescape")


class ParseStats:
    """Counts for one or more logs: ``lines``/``bytes`` read, ``entries`` kept,
    ``skipped_lines`` outside any entry, ``header_lines`` (server start-up and
    FLUSH LOGS), ``dropped_entries`` (no query), ``bad_times`` (entries whose
    end time, ``# Time`` or ``End:``, cannot be read) and ``bad_values``
    (entries whose Query_time is not a number)."""

    __slots__ = ("lines", "entries", "skipped_lines", "header_lines", "dropped_entries",
                 "bad_times", "bad_values", "bytes", "utc_offsets", "zone_assumed",
                 "zone_overridden", "first_skipped", "recognized")
    _FLAGS = ("zone_assumed", "zone_overridden")

    def __init__(self):
        self.lines = self.entries = self.skipped_lines = self.header_lines = 0
        self.dropped_entries = self.bad_times = self.bad_values = self.bytes = 0
        # the time base (binlogkit.slowlog.clock): server offsets derived from SET
        # timestamp (s east of UTC), and flags: a zone was assumed / --server-tz overridden
        self.utc_offsets = ()
        self.zone_assumed = self.zone_overridden = 0
        self.first_skipped = None      # (file, line number) of the first skipped line
        # entries with anything of a slow log's (a Time, User@Host or attribute line, an
        # administrator command): none, no server header and some bytes: not a slow log
        self.recognized = 0

    def skip(self, name, line, n=1):
        """Count ``n`` skipped lines, the first of them at ``line`` of ``name``."""
        self.skipped_lines += n
        if self.first_skipped is None:
            self.first_skipped = (name, line)

    def add(self, other):
        for k in self.__slots__:
            if k == "first_skipped":
                self.first_skipped = self.first_skipped or other.first_skipped
            elif k == "utc_offsets":
                self.utc_offsets = tuple(sorted(set(self.utc_offsets + other.utc_offsets)))
            elif k in self._FLAGS:
                setattr(self, k, max(getattr(self, k), getattr(other, k)))
            else:
                setattr(self, k, getattr(self, k) + getattr(other, k))

    def as_dict(self):
        got = {k: getattr(self, k) for k in self.__slots__
               if k not in ("first_skipped", "recognized")}
        got["utc_offsets"] = sorted(set(self.utc_offsets))
        return got


def _num(value):
    """A number, or None when absent or malformed (``1.5.3`` and ``1e999``,
    which overflows, are malformed)."""
    if value is None:
        return None
    if not value[:1].isdigit():
        return None
    try:
        got = float(value)
    except ValueError:
        return None
    return got if got != _INF else None


MAX_SECONDS = 1e12      # ~31,700 years: a longer Query_time/Lock_time is a corrupt value


def _seconds(value):
    """A duration in seconds, or None when absent, malformed or absurd."""
    got = _num(value)
    return got if got is None or got < MAX_SECONDS else None


class Inherited:
    """What an entry without its own ``# Time`` or ``use``/``Schema`` takes from
    the entries before it: the last ``# Time`` value as written (``ts``), its end
    instant (``end``, epoch microseconds) and the last database (``db``).  The
    line parser and the bulk scanner both keep it up to date."""

    __slots__ = ("ts", "end", "db")

    def __init__(self, ts=None, end=None, db=None):
        self.ts, self.end, self.db = ts, end, db

    def as_tuple(self):
        return self.ts, self.end, self.db


class SlowlogParser:
    """Iterate the entries of one slow log.

    ``zone`` is the server's zone for zone-less times (a :class:`ServerZone`
    or a name; None = this machine's local zone).  ``server_version`` (e.g.
    ``(8, 0, 15)``) decides what a bare ``SET timestamp=`` means when there
    is no ``# Time``; header lines in the log set it too.
    """

    def __init__(self, path, zone=None, server_version=None):
        self.path = path
        self.name = display_name(path)
        self.zone = zone if isinstance(zone, ServerZone) else ServerZone(zone)
        self.server_version = server_version
        self.mariadb = False
        self.stats = ParseStats()
        self.clock = LogClock(self.zone, self.stats)
        self.inherited = Inherited()
        self._ts_cache = {}

    @property
    def clock_offset(self):
        """The server's UTC offset (s) derived so far, or None (see LogClock)."""
        return self.clock.offset

    @clock_offset.setter
    def clock_offset(self, value):
        if value != self.clock.offset:
            self.clock.offset = value
            self._ts_cache.clear()

    def state(self):
        """What a parse at a later offset needs to go on as this one would
        (picklable; see :meth:`restore`)."""
        return {"inherited": self.inherited.as_tuple(), "server_version": self.server_version,
                "mariadb": self.mariadb, "clock_offset": self.clock_offset}

    def restore(self, state):
        """Go on from a :meth:`state` of a parse of the text before."""
        self.inherited = Inherited(*state["inherited"])
        self.server_version = state["server_version"]
        self.mariadb = state["mariadb"]
        self.clock_offset = state["clock_offset"]

    def __iter__(self):
        stream = open_slowlog(self.path)
        self._binary_head = is_binary(stream.peek(65536))     # open_slowlog: buffered
        machine = LineMachine(self)
        st = self.stats
        held = []       # entries kept back until the input shows it is a slow log
        try:
            for ev in chain(machine.run(stream), machine.finish()):
                if held is not None:
                    held.append(ev)
                    if not (st.recognized or st.header_lines):
                        if len(held) < _HOLD_MAX and machine.pos < _HOLD_BYTES:
                            continue
                        self.refuse_binary(held)
                    yield from held
                    held = None
                    continue
                yield ev
            if held is not None:
                if st.bytes and not (st.recognized or st.header_lines):
                    self.refuse_binary(held)
                yield from held
        except SlowlogError:
            raise
        except OSError as exc:
            raise SlowlogError(f"read error: {exc.strerror or exc}", path=self.name,
                               offset=machine.pos, line=machine.lineno) from None
        finally:
            if self.path not in (None, "-"):
                stream.close()

    def is_header(self, raw):
        """True when ``raw`` is a server header line (start-up, FLUSH LOGS); the
        server version and flavour it names are taken."""
        if not (raw.startswith((b"Tcp", b"TCP", b"Time")) or b", Version" in raw):
            return False
        if not _HEADER.match(raw):
            return False
        m = _VERSION.search(raw)
        if m:
            self.server_version = tuple(int(x) for x in m.groups()[:3])
            self.mariadb = b"MariaDB" in raw
        return True

    # -- one entry ----------------------------------------------------------

    def _build(self, meta, qlines, pos, line, at_eof, admin=None):
        ev = Entry()
        ev.file = self.name
        ev.offset = pos
        ev.line = line
        ev.cmd = b"Query"
        ev.query = None
        ev.user = ev.host = ev.ip = None
        db = ts = None
        attrs = {}
        got_uh = got_set = False
        for raw in meta:
            text = raw.rstrip(b"\n")
            if text[:1] == b"#":
                if ts is None and text.startswith(b"# Time:") and _PT_TS.match(text):
                    m = _TS_VALUE.match(text)
                    ts = m.group(1) if m else text[8:27]
                    if not got_uh and b"User@Host:" in text:
                        got_uh = self._user_host(ev, text, attrs)
                elif not got_uh and b"User@Host:" in text and self._user_host(ev, text, attrs):
                    got_uh = True
                elif text.startswith(b"# administrator command:"):
                    ev.cmd = b"Admin"
                    ev.query = text[1:].lstrip()
                    if raw is meta[-1] and raw[-2:] == b";\n":
                        ev.query = ev.query[:-1]   # the ";" of the entry separator
                else:
                    attrs.update(attr_pairs(text))
            elif text[:1] == b"u":
                if db is None:
                    m = _USE.match(text)
                    if m:
                        db = m.group(1)
            elif not got_set:
                pairs = set_pairs(text)
                if pairs is not None:
                    got_set = True
                    attrs.update(pairs)
        if admin is not None:
            ev.cmd = b"Admin"
            arg = b"".join(admin)[1:]
            if arg[-2:] == b";\n":
                arg = arg[:-2]
            elif arg[-1:] == b"\n":
                arg = arg[:-1]
            ev.query = arg.lstrip()
        elif qlines is not None:
            arg = b"".join(qlines)
            if arg[-2:] == b";\n":
                arg = arg[:-2]
            elif at_eof:
                arg = _EOF_SEPARATOR.sub(b"", arg, count=1)
            ev.query = arg
        if not ev.query or ev.query == b"0":
            self.stats.dropped_entries += 1
            return None
        if db is None:
            db = attrs.get(b"Schema")
        self._finish(ev, ts, db_name(db), attrs)
        self.stats.entries += 1
        if attrs or ts is not None or got_uh or ev.cmd == b"Admin":
            self.stats.recognized += 1
        return ev

    def _user_host(self, ev, text, attrs):
        got = user_host(text)
        if got is None:
            return False
        user, host, ip, thread_id = got
        ev.user = user
        ev.host = host or ip
        ev.ip = ip
        if thread_id and thread_id.strip(b"0"):
            attrs[b"Thread_id"] = thread_id
        return True

    def _finish(self, ev, ts, db, attrs):
        ev.attrs = attrs
        inherited = self.inherited
        if db is None:
            db = inherited.db
        else:
            inherited.db = db
        ev.db = db
        ev.query_time = qt = _seconds(attrs.get(b"Query_time"))
        if qt is None and b"Query_time" in attrs:
            self.stats.bad_values += 1
        ev.lock_time = _seconds(attrs.get(b"Lock_time"))
        ev.rows_sent = _num(attrs.get(b"Rows_sent"))
        ev.rows_examined = _num(attrs.get(b"Rows_examined"))
        ev.fingerprint = None
        mariadb = self.mariadb or b"QC_hit" in attrs
        if ts is None:
            ev.ts_inherited = inherited.ts is not None
            ts = inherited.ts
            end = inherited.end
        else:
            ev.ts_inherited = False
            end = self.line_time(ts, attrs.get(b"timestamp"), qt, mariadb)
            if end is None:
                self.stats.bad_times += 1
            inherited.ts, inherited.end = ts, end
        ev.ts = ts
        start = None
        start_raw = attrs.get(b"Start")
        if start_raw is not None:
            start = self._time(start_raw)
        qt_us = round(qt * 1_000_000) if qt is not None else 0
        if end is None:
            end = self._end_without_time(attrs, qt, start, mariadb)
        elif mariadb:                     # MariaDB's "# Time" is when the statement began
            start, end = end, end + qt_us
        elif b"End" in attrs and ev.ts_inherited:
            end = self._end_attr(attrs) or end
        if start is None and end is not None:
            start = end - qt_us
        ev.end_us = end if end is None else in_range(end)      # a huge Query_time too
        ev.start_us = start if start is None else in_range(start)

    def _end_without_time(self, attrs, qt, start, mariadb=False):
        """End instant when no ``# Time`` was ever seen (server-aware)."""
        if b"End" in attrs:
            return self._end_attr(attrs)
        raw = attrs.get(b"timestamp")
        if raw is None or not raw.isdigit():
            return None
        stamp = in_range(int(raw) * 1_000_000)
        if stamp is None:
            return None
        qt_us = round(qt * 1_000_000) if qt is not None else 0
        if start is not None or mariadb or (self.server_version or (0,)) >= (8, 0, 14):
            return stamp + qt_us          # SET timestamp= is the start (MariaDB, MySQL 8.0.14+)
        return stamp                      # MySQL before 8.0.14: the logging time

    def _end_attr(self, attrs):
        end = self._time(attrs[b"End"])
        if end is None:
            self.stats.bad_times += 1
        return end

    def line_time(self, raw, stamp, qt, mariadb):
        """Epoch microseconds of a ``# Time`` value: a zone-less one in the server
        offset its entry's ``SET timestamp`` shows (binlogkit.slowlog.clock)."""
        if self.clock.learn(raw, stamp, qt, mariadb):
            self._ts_cache.clear()
        return self._time(raw)

    def _time(self, raw):
        """Epoch microseconds of a time value, or None (cached; not counted here:
        ``stats.bad_times`` counts entries whose end time is unreadable)."""
        cache = self._ts_cache
        got = cache.get(raw, cache)
        if got is not cache:
            return got
        m = _TIME_FRACTION.match(raw)
        if m:   # one zone conversion per second, not per microsecond value
            whole = m.group(1) + (m.group(3) or b"")
            base = cache.get(whole, cache)
            if base is cache:
                base = cache[whole] = parse_time_value(whole, self.clock.zone)
            value = None if base is None else base + _frac_us(m.group(2))
        else:
            value = parse_time_value(raw, self.clock.zone)
        if len(cache) > 4096:
            cache.clear()
        cache[raw] = value
        return value


    def refuse_binary(self, held):
        """No slow-log header seen: the API reads text as queries, as pt-query-digest
        reads it (its own samples include such files; the digest command refuses it);
        binary input (random bytes, a binlog) is not a slow log."""
        if self._binary_head or any(is_binary(ev.query) for ev in held):
            self.not_a_slowlog()

    def not_a_slowlog(self):
        raise SlowlogError("not a slow log (no slow-log entries found)", path=self.name, offset=0)


_CONTROL = bytes(c for c in range(32) if c not in b"\t\n\r\f\v")


def is_binary(data) -> bool:
    """A NUL, or more than one byte in ten a control character: not text."""
    data = bytes(data[:65536])
    return b"\0" in data or len(data) - len(data.translate(None, _CONTROL)) > len(data) // 10


def parse_slowlog(paths, zone=None, server_version=None, stats=None):
    """Entries of several logs in order; ``stats`` (a ParseStats) is filled in."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    for path in paths:
        parser = SlowlogParser(path, zone=zone, server_version=server_version)
        yield from parser
        if stats is not None:
            stats.add(parser.stats)


class LineMachine:
    """pt-query-digest's entry boundaries as a resumable line state machine.

    :meth:`run` consumes lines (bytes, each ending in ``\\n`` but the very
    last line of the input) and yields the entries they complete; the state
    between calls is kept, so the lines of one log may arrive in several
    pieces.  :meth:`finish` flushes the last entry at the end of the input.

    ``resync(pos)`` (optional) is asked at every *clean boundary*: a point
    where the next line, if it starts with ``#``, opens a new entry exactly as
    at the start of a file.  When it returns True the machine stops before
    that line (``stopped`` is set) in the fresh state, so a caller can parse
    the following text by other means and come back later.
    """

    __slots__ = ("p", "meta", "qlines", "admin", "started", "prev_semi", "pos", "lineno",
                 "start_pos", "start_line", "stopped", "misaligned")

    def __init__(self, parser, pos=0, lineno=0):
        self.p = parser
        self.pos = pos
        self.lineno = lineno
        self.stopped = False
        self.reset()

    def reset(self):
        self.meta = []
        self.qlines = None
        self.admin = None          # lines of a pt-style "special case" admin statement
        self.started = False       # the current entry has at least one line
        self.prev_semi = False     # the last kept line ended with ";\n"
        self.start_pos = self.start_line = 0
        # pt's reader stands after a special-case admin statement (read up to ";\n"):
        # its next record starts on this line and gets a "#" put in front of it
        self.misaligned = False

    @property
    def pending(self):
        """True when lines of an unfinished entry are held."""
        return bool(self.meta) or self.qlines is not None or self.admin is not None

    def at_boundary(self):
        """True when the input may end here and the next line starts with ``#``:
        the held entry is complete (its last query line ended with ``;``)."""
        return self.admin is None and self.qlines is not None and self.prev_semi

    def run(self, lines, resync=None):  # noqa: C901  (one hot loop, kept flat for speed)
        p = self.p
        st = p.stats
        build = p._build
        is_header = p.is_header
        meta, qlines, admin = self.meta, self.qlines, self.admin
        started, prev_semi = self.started, self.prev_semi
        misaligned = self.misaligned
        pos, lineno = self.pos, self.lineno
        start_pos, start_line = self.start_pos, self.start_line
        pos0, lineno0 = pos, lineno
        self.stopped = False
        try:
            for raw in lines:
                lineno += 1
                length = len(raw)
                c = raw[:1]
                if qlines is not None:
                    if c == b"#" and prev_semi:
                        ev = build(meta, qlines, start_pos, start_line, False)
                        qlines = None
                        if ev is not None:
                            yield ev
                        if resync is not None and resync(pos):
                            lineno -= 1
                            meta, started, prev_semi = [], False, False
                            self.stopped = True
                            return
                        meta = [raw]
                        start_pos, start_line = pos, lineno
                    elif is_header(raw):
                        st.header_lines += 1
                        pos += length
                        continue
                    else:
                        qlines.append(raw)
                    prev_semi = raw[-2:] == b";\n"
                    pos += length
                    continue
                if admin is not None:
                    admin.append(raw)
                    pos += length
                    if raw[-2:] == b";\n":
                        ev = build(meta, None, start_pos, start_line, False, admin)
                        meta, admin, started, prev_semi = [], None, False, False
                        misaligned = True
                        if ev is not None:
                            yield ev
                    continue
                if misaligned:
                    misaligned = False
                    if c != b"#":
                        # pt reads "#" + this line: a meta line that says nothing
                        # (``#SELECT ...``, ``#use db;``); the record goes on from here
                        start_pos, start_line = pos, lineno
                        meta = [b"#" + raw]
                        started = True
                        prev_semi = raw[-2:] == b";\n"
                        pos += length
                        continue
                if c == b"#":
                    if prev_semi and started:
                        if any(m.startswith(b"# administrator command:") for m in meta):
                            ev = build(meta, None, start_pos, start_line, False)
                        elif _NULL_QUERY_NEXT.match(raw):
                            ev = build(meta, [NO_QUERY], start_pos, start_line, True)
                        else:
                            admin = [raw]
                            pos += length
                            if raw[-2:] != b";\n":
                                continue
                            ev = build(meta, None, start_pos, start_line, False, admin)
                            meta, admin, started, prev_semi = [], None, False, False
                            misaligned = True
                            if ev is not None:
                                yield ev
                            continue
                        meta = []
                        if ev is not None:
                            yield ev
                    if not meta:
                        start_pos, start_line = pos, lineno
                    meta.append(raw)
                    started = True
                elif (c == b"u" and raw.startswith(b"use ")) or (
                        c == b"S" and SET_META.match(raw)):
                    if not meta:
                        start_pos, start_line = pos, lineno
                    meta.append(raw)
                    started = True
                elif is_header(raw):
                    st.header_lines += 1
                    pos += length
                    continue
                elif started:
                    qlines = [raw]
                else:
                    st.skip(p.name, lineno)
                    pos += length
                    continue
                prev_semi = raw[-2:] == b";\n"
                pos += length
        finally:
            self.meta, self.qlines, self.admin = meta, qlines, admin
            self.started, self.prev_semi = started, prev_semi
            self.misaligned = misaligned
            self.start_pos, self.start_line = start_pos, start_line
            st.lines += lineno - lineno0
            st.bytes += pos - pos0
            self.pos, self.lineno = pos, lineno

    def finish(self):
        """The last entry at the end of the input (an entry cut short is kept)."""
        p = self.p
        meta = self.meta
        if self.qlines is not None:
            ev = p._build(meta, self.qlines, self.start_pos, self.start_line, True)
        elif self.admin is not None:
            ev = p._build(meta, None, self.start_pos, self.start_line, True, self.admin)
        elif meta and any(m.startswith(b"# administrator command:") for m in meta):
            ev = p._build(meta, None, self.start_pos, self.start_line, True)
        else:
            ev = None
            if meta:
                p.stats.dropped_entries += 1
                p.stats.skip(p.name, self.start_line, len(meta))
        self.reset()
        if ev is not None:
            yield ev

    def close_boundary(self):
        """Complete the held entry at a clean boundary (see :meth:`at_boundary`)."""
        ev = None
        if self.qlines is not None:
            ev = self.p._build(self.meta, self.qlines, self.start_pos, self.start_line, False)
        self.reset()
        return ev

"""mariadb-binlog 10.11's GTID options: positions as GTID lists, domain and server ids.

`--start-position=D-S-N,...` / `--stop-position=D-S-N,...` become one window
per domain (start exclusive, stop inclusive); `--do/--ignore-domain-ids` and
`--do/--ignore-server-ids` (`--server-id` is `--do-server-ids`) are allow or
deny lists.  The filters are asked at every GTID event whether its event
group is printed (server ids are also checked event by event), as in
client/mysqlbinlog.cc and sql/rpl_gtid.cc (Window_gtid_event_filter,
Id_delegating_gtid_event_filter, Intersecting_gtid_event_filter).

`GtidStateValidator` is Binlog_gtid_state_validator: with --gtid-strict-mode
(the default) an out-of-order GTID, a start position older than the logs or
a stop position the logs have already passed stops the dump with an error.

Option values are parsed as the real tool parses them (my_strtoll10 rules:
leading blanks, an optional sign, decimal digits); bad values raise
BinlogkitError with its message.
"""
from binlogkit.errors import BinlogkitError

UINT32_MAX = (1 << 32) - 1
UINT64_MAX = (1 << 64) - 1
_BLANKS = b" \t\n\v\f\r"


def strtoll10(text, pos):
    """my_strtoll10 over text[pos:]: (value, end, ok).  Negative, empty or
    overflowing numbers are not ok (the caller reports them)."""
    end = len(text)
    while pos < end and text[pos] in _BLANKS:
        pos += 1
    if pos < end and text[pos] in b"+-":
        negative = text[pos] == 0x2D
        pos += 1
    else:
        negative = False
    start = pos
    while pos < end and 0x30 <= text[pos] <= 0x39:
        pos += 1
    if pos == start:
        return 0, start, False
    value = int(text[start:pos])
    return value, pos, not negative and value <= UINT64_MAX


def _gtid(text, pos):
    """gtid_parser_helper: one D-S-N at text[pos:] -> ((d, s, n), end) or None."""
    parts = []
    for i in range(3):
        value, pos, ok = strtoll10(text, pos)
        if not ok:
            return None
        if i < 2:
            if value > UINT32_MAX or pos >= len(text) or text[pos] != 0x2D:
                return None
            pos += 1
        parts.append(value)
    return tuple(parts), pos


def parse_gtid_list(text):
    """gtid_parse_string_to_list: 'D-S-N,D-S-N' -> [(d, s, n), ...], or None."""
    data = text.encode() if isinstance(text, str) else text
    out, pos = [], 0
    while True:
        found = _gtid(data, pos)
        if found is None:
            return None
        gtid, pos = found
        out.append(gtid)
        if pos == len(data):
            return out
        if data[pos] != 0x2C:
            return None
        pos += 1


def parse_position(option, text):
    """--start-position / --stop-position: an offset (int) or a GTID list."""
    gtids = parse_gtid_list(text)
    if gtids is not None:
        return gtids
    digits = text[1:] if text.startswith("+") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        raise BinlogkitError(f"{option} argument value is invalid. Should be either a "
                             "positive integer or GTID.")
    return int(digits) & UINT64_MAX


def parse_id_list(option, text):
    """parse_u32_list: '1,2,3' -> [1, 2, 3] (values wrap to 32 bits like the real tool)."""
    data = text.encode()
    out, pos = [], 0
    while True:
        value, pos, ok = strtoll10(data, pos)
        if not ok:
            raise BinlogkitError(f"Input for {option} is invalid. Should be a list of "
                                 "positive integers")
        out.append(value & UINT32_MAX)
        if pos == len(data):
            return out
        if data[pos] != 0x2C:
            raise BinlogkitError(f"Input for {option} is invalid. Should be a list of "
                                 "positive integers")
        pos += 1


def gtid_text(gtid):
    return "%d-%d-%d" % gtid


# -- filters ---------------------------------------------------------------------------

class AcceptAll:
    stateful = False

    def exclude(self, gtid):
        return False

    def has_finished(self):
        return False

    def verify_completed_state(self, warn):
        return False


class RejectAll(AcceptAll):
    def exclude(self, gtid):
        return True


class WindowFilter:
    """Window_gtid_event_filter: the GTIDs of one domain after start, up to stop."""
    stateful = True

    def __init__(self):
        self.start = self.stop = None
        self.active = self.passed = False

    def exclude(self, gtid):
        domain, _, seq = gtid
        start, stop = self.start, self.stop
        if not self.active and not self.passed:
            if start is None and domain == stop[0] and seq <= stop[2]:
                self.active = True
                return False
            if (start is not None and domain == start[0] and seq >= start[2]
                    and (stop is None or (domain == stop[0] and seq <= stop[2]))):
                self.active = True
                if stop is not None and seq == stop[2]:
                    self.passed = True
                return seq == start[2]          # the start itself is excluded
            return True
        if self.active and not self.passed:
            if stop is not None and domain == stop[0] and seq >= stop[2]:
                self.active, self.passed = False, True
                return seq > stop[2]
            return False
        return True

    def has_finished(self):
        return self.passed if self.stop is not None else False

    def is_range_invalid(self):
        return self.start is not None and self.stop is not None and self.start[2] > self.stop[2]

    def verify_completed_state(self, warn):
        if self.stop is not None and not self.passed:
            warn(f"Did not reach stop position {gtid_text(self.stop)} before end of input")
            return True
        return False


class IdFilter:
    """Id_delegating_gtid_event_filter: one sub-filter per id, a default for the rest."""
    kind = "domain"

    def __init__(self):
        self.filters = {}           # id -> filter, in insertion order (as the hash is walked)
        self.default = AcceptAll()
        self.mode = None
        self.stateful = 0
        self.completed = 0

    @staticmethod
    def id_of(gtid):
        return gtid[0]

    def set_id_restrictions(self, ids, mode):
        """mode 'do' (allow list) or 'ignore' (deny list); a second list replaces the first."""
        if self.mode is not None:
            if mode != self.mode:
                other = "ignore" if mode == "do" else "do"
                raise BinlogkitError(f"Cannot create {mode} filtering rule for {self.kind} id "
                                     f"because {other} rule already exists")
            self.filters.clear()
        for value in ids:
            if value not in self.filters:
                self.filters[value] = AcceptAll() if mode == "do" else RejectAll()
                self.stateful += 1
        self.default = RejectAll() if mode == "do" else AcceptAll()
        self.mode = mode

    def exclude(self, gtid):
        sub = self.filters.get(self.id_of(gtid))
        if sub is None:
            return self.default.exclude(gtid)
        if sub.has_finished():
            return True
        excluded = sub.exclude(gtid)
        if sub.has_finished():
            self.completed += 1
        return excluded

    def has_finished(self):
        return bool(self.stateful) and self.completed == self.stateful

    def verify_completed_state(self, warn):
        if self.has_finished():
            return False
        incomplete = False
        for sub in self.filters.values():
            if sub.verify_completed_state(warn):
                incomplete = True
        return incomplete


class ServerFilter(IdFilter):
    kind = "server"

    @staticmethod
    def id_of(gtid):
        return gtid[1]

    def excludes_server(self, server_id):
        return self.exclude((0, server_id, 0))


class DomainFilter(IdFilter):
    """Domain_gtid_event_filter: also the windows of GTID start / stop positions."""

    def __init__(self):
        super().__init__()
        self.start_gtids = []
        self.stop_gtids = []

    def _window(self, domain):
        sub = self.filters.get(domain)
        if sub is None:
            sub = self.filters[domain] = WindowFilter()
        elif not isinstance(sub, WindowFilter):
            raise BinlogkitError(f"cannot subset domain id {domain} by position, another rule "
                                 "exists on that domain")
        return sub

    def add_start(self, gtid):
        window = self._window(gtid[0])
        if window.start is not None:
            raise BinlogkitError(f"Start position cannot have repeated domain ids (found "
                                 f"{gtid_text(gtid)} when {gtid_text(window.start)} was "
                                 "previously specified)")
        window.start = gtid
        self.start_gtids.append(gtid)

    def add_stop(self, gtid):
        window = self._window(gtid[0])
        if window.stop is not None:
            raise BinlogkitError(f"Stop position cannot have repeated domain ids (found "
                                 f"{gtid_text(gtid)} when {gtid_text(window.stop)} was "
                                 "previously specified)")
        window.stop = gtid
        self.stop_gtids.append(gtid)
        self.stateful += 1
        if isinstance(self.default, AcceptAll) and not isinstance(self.default, RejectAll):
            self.default = RejectAll()      # with stop positions, other domains are left out

    def invalid_range(self):
        """validate_window_filters: the first window whose start is past its stop."""
        for sub in self.filters.values():
            if isinstance(sub, WindowFilter) and sub.is_range_invalid():
                return sub
        return None

    def exclude(self, gtid):
        if self.stop_gtids:
            sub = self.filters.get(gtid[0])
            if isinstance(sub, WindowFilter) and sub.stop is None:
                return True
        return super().exclude(gtid)


class IntersectingFilter:
    """Intersecting_gtid_event_filter: excluded by any sub-filter (asked in order)."""

    def __init__(self, filters):
        self.filters = filters

    def exclude(self, gtid):
        return any(f.exclude(gtid) for f in self.filters)

    def has_finished(self):
        return any(f.has_finished() for f in self.filters)

    def verify_completed_state(self, warn):
        incomplete = False
        for f in self.filters:
            if f.verify_completed_state(warn):
                incomplete = True
        return incomplete


# -- Binlog_gtid_state_validator ------------------------------------------------------------

class _Audit:
    __slots__ = ("start", "last", "late")

    def __init__(self, start, last):
        self.start = start
        self.last = last
        self.late = []          # (real, previous) out-of-order pairs


class GtidStateValidator:
    """Binlog_gtid_state_validator: is the GTID stream of the logs consistent?"""

    def __init__(self):
        self.domains = {}

    def initialize_start_gtids(self, gtids):
        for gtid in gtids:
            audit = self.domains.get(gtid[0])
            if audit is not None:
                if gtid[2] > audit.start[2]:
                    audit.start = gtid
                continue
            self.domains[gtid[0]] = _Audit(gtid, (gtid[0], 0, 0))

    def initialize_gtid_state(self, gtids):
        """The first Gtid_list of the logs; returns the error messages."""
        if not self.domains:
            self.initialize_start_gtids(gtids)
        errors = []
        for gtid in gtids:
            audit = self.domains.get(gtid[0])
            if audit is None:
                errors.append(f"Starting GTID position list does not specify an initial value "
                              f"for domain {gtid[0]}, whose events may be present in the "
                              f"requested binlog file(s). The last known position for this "
                              f"domain was {gtid_text(gtid)}.")
                continue
            if audit.start[2] < gtid[2]:
                errors.append(f"Binary logs are missing data for domain {gtid[0]}. Expected "
                              f"data to start from state {gtid_text(audit.start)}; however, "
                              f"the initial GTID state of the logs was {gtid_text(gtid)}.")
                continue
            if gtid[2] > audit.last[2]:
                audit.last = gtid
        return errors

    def verify_stop_state(self, stop_gtids):
        """An error message when a stop GTID is already behind the logs' state."""
        for gtid in stop_gtids:
            audit = self.domains.get(gtid[0])
            if audit is not None and gtid[2] <= audit.start[2]:
                return (f"--stop-position GTID {gtid_text(gtid)} does not exist in the "
                        f"specified binlog files. The current GTID state of domain {gtid[0]} "
                        f"in the specified binary logs is {gtid_text(audit.start)}")
        return None

    def verify_gtid_state(self, gtid):
        """-vvv: a warning when a Gtid_list mentions GTIDs the dump has not seen."""
        audit = self.domains.get(gtid[0])
        if audit is None:
            return (f"Binary logs are missing data for domain {gtid[0]}. The current binary "
                    f"log specified its current state for this domain as {gtid_text(gtid)}, "
                    "but neither the starting GTID position list nor any processed events "
                    "have mentioned this domain.")
        if audit.last[2] < gtid[2]:
            return (f"Binary logs are missing data for domain {gtid[0]}. The current binary "
                    f"log state is {gtid_text(gtid)}, but the last seen event was "
                    f"{gtid_text(audit.last)}.")
        return None

    def record(self, gtid):
        """A GTID of a printed event group; True when it is out of order."""
        audit = self.domains.get(gtid[0])
        if audit is None:
            self.domains[gtid[0]] = _Audit((gtid[0], 0, 0), gtid)
            return False
        if audit.start[2] <= gtid[2] <= audit.last[2]:
            audit.late.append((gtid, audit.last))
            return True
        audit.last = gtid
        return False

    def findings(self):
        out = []
        for audit in self.domains.values():
            if audit.last[2] < audit.start[2]:
                out.append(f"Binary logs never reached expected GTID state of "
                           f"{gtid_text(audit.start)}")
            for real, previous in audit.late:
                out.append(f"Found out of order GTID. Got {gtid_text(real)} after "
                           f"{gtid_text(previous)}")
        return out


# -- what the printer asks ---------------------------------------------------------------------

class GtidFiltering:
    """The GTID filters and the stream validator of one mariadb-binlog run."""

    def __init__(self, options):
        self.strict = options.gtid_strict_mode
        self.verbose = options.verbose
        self.validator = GtidStateValidator()
        self.position = self.domain = self.server = None
        if options.start_gtids is not None or options.stop_gtids is not None:
            self.position = DomainFilter()
            for gtid in options.start_gtids or ():
                if gtid[2]:                     # a start GTID with seq_no 0 is left out
                    self.position.add_start(gtid)
            for gtid in options.stop_gtids or ():
                self.position.add_stop(gtid)
        id_filters = options.id_filters
        if not id_filters and options.server_id:    # PrintOptions(server_id=N) from Python
            id_filters = (("do", "server", (options.server_id,)),)
        for mode, kind, ids in id_filters:
            if kind == "domain":
                self.domain = self.domain or DomainFilter()
                self.domain.set_id_restrictions(ids, mode)
            else:
                self.server = self.server or ServerFilter()
                self.server.set_id_restrictions(ids, mode)
        if self.position is not None:
            bad = self.position.invalid_range() if self.strict else None
            if bad is not None:
                raise BinlogkitError(
                    f"Queried GTID range is invalid in strict mode. Stop position "
                    f"{gtid_text(bad.stop)} is not greater than or equal to start "
                    f"{gtid_text(bad.start)}.")
            self.validator.initialize_start_gtids(self.position.start_gtids)
        filters = [f for f in (self.position, self.domain, self.server) if f is not None]
        self.event_filter = (None if not filters else filters[0] if len(filters) == 1
                             else IntersectingFilter(filters))
        # only position and domain filters switch whole event groups off
        self.group_filtering = self.position is not None or self.domain is not None
        self.first_gtid_list_done = options.start_position > 4

    @property
    def any_filter(self):
        """Whether the postamble restores SERVER_ID and GTID_DOMAIN_ID."""
        return self.event_filter is not None

    def gtid_list(self, gtids, warn):
        """A Gtid_list event (with a timestamp); returns error messages (stop the dump)."""
        errors = []
        validator = self.validator
        if validator is not None and not self.first_gtid_list_done and gtids:
            errors = validator.initialize_gtid_state(gtids)
            if not errors and self.position is not None and not self.position.start_gtids:
                message = validator.verify_stop_state(self.position.stop_gtids)
                if message:
                    errors = [message]
        if not errors and validator is not None and self.verbose >= 3:
            for gtid in gtids:
                message = validator.verify_gtid_state(gtid)
                if message:
                    warn(message)
        self.first_gtid_list_done = True
        return errors

    def gtid(self, gtid, group_active):
        """A GTID event: (stop, active, error messages)."""
        if self.event_filter is not None:
            if self.event_filter.has_finished():
                return True, group_active, []
            excluded = self.event_filter.exclude(gtid)
            if self.group_filtering:
                group_active = not excluded
        errors = []
        if self.validator is not None and group_active:
            if not (self.strict or self.verbose >= 3):
                self.validator = None
            elif self.validator.record(gtid) and self.strict:
                errors = self.validator.findings()
        return False, group_active, errors

    def verify_completed_state(self, warn):
        if self.event_filter is not None:
            self.event_filter.verify_completed_state(warn)

    def final_report(self):
        """(errors, warnings) the validator reports at the end of a successful run."""
        if self.validator is None:
            return [], []
        findings = self.validator.findings()
        return (findings, []) if self.strict else ([], findings)

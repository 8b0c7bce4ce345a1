"""`binlogkit print`'s options -> a typed printer.run.PrintJob; the job run, its
errors written as mysqlbinlog writes them, the exit status back (cli.exits).
"""
import os
import sys

from binlogkit.cli import exits
from binlogkit.cli.outputs import refuse_input_as_output  # noqa: F401  (print's, and tests')
from binlogkit.errors import BinlogkitError
from binlogkit.printer import safety
from binlogkit.printer.mariadb.gtid_filter import parse_id_list, parse_position
from binlogkit.printer.run import PrintJob, print_job, print_remote_job
from binlogkit.printer.state import MY_TIME_T_MAX, PrintOptions
from binlogkit.tz import ZoneTable

_DATETIME = (
    r"^\s*(\d{2,4})[-/.:]?(\d{1,2})[-/.:]?(\d{1,2})[ T]+(\d{1,2})(?:[:.]?(\d{1,2})(?:[:.]?(\d{1,2}))?)?"
    r"(?:\.(\d{1,6}))?\s*$")
_COMPACT_DATETIME = r"^\s*(\d{2}|\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:\.(\d{1,6}))?\s*$"


def parse_datetime(text, zone):
    """str_to_datetime + my_system_gmt_sec: a full local date and time -> epoch
    ("YYYY-MM-DD hh[:mm[:ss]]" with any of -/.: as separators, or YYYYMMDDhhmmss / YYMMDDhhmmss)."""
    import calendar     # lazy: only --start/--stop-datetime need them (start-up)
    import re
    match = re.match(_DATETIME, text) or re.match(_COMPACT_DATETIME, text)
    if not match:
        raise BinlogkitError(f"Incorrect date and time argument: {text}")
    year, month, day, hour, minute, second = (int(g or 0) for g in match.groups()[:6])
    if len(match.group(1)) == 2:
        year += 2000 if year < 70 else 1900
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1] and hour < 24
            and minute < 60 and second < 60):
        raise BinlogkitError(f"Incorrect date and time argument: {text}")
    return zone.mktime_first(year, month, day, hour, minute, second)


def build_options(kw, zone):
    mode = kw["base64_output"].lower()
    if mode == "unspec":
        mode = "auto"
    start, start_gtids = _position(kw, "start_position", "--start-position", 4)
    stop, stop_gtids = _position(kw, "stop_position", "--stop-position", (1 << 64) - 1)
    row_count = kw["print_row_count"]
    if row_count is None:       # on unless --short-form (and not asked for)
        row_count = not kw["short_form"]
    return PrintOptions(
        short_form=kw["short_form"], hexdump=kw["hexdump"], base64_output=mode,
        verbose=0 if kw["short_form"] else kw["verbose"],
        start_position=start, stop_position=stop,
        start_datetime=parse_datetime(kw["start_datetime"], zone) if kw["start_datetime"] else 0,
        stop_datetime=(parse_datetime(kw["stop_datetime"], zone) if kw["stop_datetime"]
                       else MY_TIME_T_MAX),
        stop_datetime_text=kw["stop_datetime"],
        database=kw["database"].encode() if kw["database"] is not None else None,
        table=kw["table"].encode() if kw["table"] is not None else None,
        server_id=_mysql_server_id(kw.get("server_id")), offset=kw["offset"],
        local_load=kw["local_load"],
        force_if_open=kw["force_if_open"], force_read=kw["force_read"],
        verify_checksum=kw["verify_binlog_checksum"], print_row_count=row_count,
        print_row_event_positions=kw["print_row_event_positions"],
        skip_annotate_row_events=kw["skip_annotate_row_events"],
        disable_log_bin=kw["disable_log_bin"], set_charset=kw["set_charset"],
        print_table_metadata=kw["print_table_metadata"],
        mysqlbinlog_version=None if kw.get("mysqlbinlog_version", "auto") == "auto"
        else kw["mysqlbinlog_version"],
        idempotent=bool(kw.get("idempotent")), require_row_format=bool(kw.get("require_row_format")),
        # mariadb-binlog turns flashback on whenever the option is given, =0 and --skip- too
        flashback=kw.get("flashback") is not None,
        rewrite_db=tuple(parse_rewrite_db(rule) for rule in kw.get("rewrite_db") or ()),
        start_gtids=start_gtids, stop_gtids=stop_gtids,
        gtid_strict_mode=kw.get("gtid_strict_mode", True),
        id_filters=_id_filters(kw),
    )


def _position(kw, key, option, default):
    """(offset, GTID list or None) of --start-position / --stop-position."""
    text = kw.get(key)
    if text is None:
        return default, None
    value = parse_position(option, str(text))
    if isinstance(value, list):
        return default, tuple(value)
    return value, None


_ID_KINDS = {"server-id": ("do", "server"), "do-server-ids": ("do", "server"),
             "ignore-server-ids": ("ignore", "server"), "do-domain-ids": ("do", "domain"),
             "ignore-domain-ids": ("ignore", "domain")}


def _id_filters(kw):
    """--server-id, --do/--ignore-server-ids, --do/--ignore-domain-ids in option order."""
    order = kw.get("id_filter_order")
    if order is None:       # called without the command line: a fixed order
        order = [(name, kw.get(name.replace("-", "_"))) for name in _ID_KINDS]
        order = [(name, value) for name, value in order if value is not None]
    out = []
    for name, value in order:
        mode, kind = _ID_KINDS[name]
        out.append((mode, kind, tuple(parse_id_list("--" + name, str(value)))))
    return tuple(out)


def _mysql_server_id(text):
    """mysqlbinlog 8.0's --server-id: one number (0: no filter)."""
    if text is None:
        return 0
    try:
        return int(str(text), 10)
    except ValueError:
        return -1       # not a number: only MariaDB's lists accept it (checked per flavor)


def parse_rewrite_db(rule):
    """Rpl_filter::add_rewrite_db: 'from->to', blanks around either name ignored."""
    source, arrow, target = rule.partition("->")
    source, target = source.strip(" \t\n\v\f\r"), target.strip(" \t\n\v\f\r")
    if not arrow or not source or not target:
        raise BinlogkitError("Bad syntax in rewrite-db. Expected syntax is FROM->TO.")
    return source.encode(), target.encode()


def load_zone(name):
    """--timezone NAME (an unknown name is an error), else $TZ with glibc's rules (an
    unknown $TZ is UTC, as for the real tool)."""
    try:
        if name is None:
            return ZoneTable.from_tz(os.environ.get("TZ"))
        table = ZoneTable.from_tz(name)
    except (ValueError, OSError) as exc:
        raise BinlogkitError(f"cannot load time zone {name!r}: {exc}") from None
    if table.source == "posix" and not any(char.isdigit() for char in name):
        # no zone file of that name, and a POSIX TZ string needs an offset
        raise BinlogkitError(f"unknown time zone {name!r}: no such zone file and not a POSIX TZ string")
    return table


def print_job_from(files, kw):
    """The command line's keywords -> PrintJob (bad values raise BinlogkitError)."""
    zone = load_zone(kw["timezone"])
    return PrintJob(
        files=list(files), options=build_options(kw, zone), zone=zone,
        flavor=kw.get("flavor") or "auto", include_gtids=kw.get("include_gtids"),
        exclude_gtids=kw.get("exclude_gtids"), skip_gtids=bool(kw.get("skip_gtids")),
        mariadb_id_lists=tuple(name for name in ("do_server_ids", "ignore_server_ids",
                                                 "do_domain_ids", "ignore_domain_ids")
                               if kw.get(name) is not None))


def _warn(message):
    sys.stderr.write(f"WARNING: {message}\n")


def _error(message):
    sys.stderr.write(f"ERROR: {message}\n")


def remote_requested(kw):
    """-R, --read-from-remote-master, or MySQL's --read-from-remote-source."""
    return bool(kw.get("read_from_remote_server") or kw.get("read_from_remote_master")
                or kw.get("read_from_remote_source"))


def run_print(files, kw):
    """Run the print command; returns the exit status."""
    safety.reset()
    try:
        return _run_print(files, kw)
    finally:
        if safety.escaped():
            _warn(safety.WARNING)


NO_FILES = "ERROR: Please provide the log file(s). Run with '--help' for usage instructions.\n"


def no_files(kw, usage_text):
    """No log named: mariadb-binlog's one line; with --flavor mysql, mysqlbinlog's answer
    (its usage, ``usage_text()``, on standard output); exit status 1 either way."""
    if kw.get("flavor") == "mysql":
        sys.stdout.write(usage_text())
        sys.stdout.flush()
    else:
        sys.stderr.write(NO_FILES)
    return exits.EXIT_ERROR


def _run_print(files, kw):
    out = None
    try:
        if kw.get("mysql_password_warning") or (kw.get("password_on_command_line")
                                                and kw.get("flavor") == "mysql"):
            from binlogkit.cli.passwords import MYSQL_WARNING
            sys.stderr.write(MYSQL_WARNING + "\n")
        if kw.get("ssl_mode") is not None:
            from binlogkit.cli.remote import check_ssl_mode
            check_ssl_mode(kw["ssl_mode"])
        if (kw.get("read_from_remote_server")
                and (kw.get("read_from_remote_source") or "").upper() == "BINLOG-DUMP-GTIDS"):
            # mysqlbinlog 9.7 refuses the pair (the source option alone reads remotely)
            raise BinlogkitError("The option read-from-remote-server cannot be used when "
                                 "read-from-remote-source is defined and is not equal to "
                                 "BINLOG-DUMP-NON-GTIDS")
        if kw.get("raw"):
            if not remote_requested(kw):
                raise BinlogkitError("The --raw mode only works with --read-from-remote-server")
            from binlogkit.cli.remote import run_raw       # only -R --raw loads the backup
            return run_raw(list(files), kw)
        job = print_job_from(files, kw)
        remote = None
        if remote_requested(kw):
            from binlogkit.cli.remote import remote_source
            remote = remote_source(kw, job.options)
        if kw["result_file"]:
            refuse_input_as_output(files, kw["result_file"])
            out = open(kw["result_file"], "wb")
        else:
            out = sys.stdout.buffer
        if remote is not None:
            print_remote_job(job, out, remote, warn=_warn, error=_error)
        else:
            print_job(job, out, warn=_warn, error=_error)
        out.flush()
        return exits.EXIT_OK
    except BrokenPipeError:
        exits.silence_stdout()
        return exits.EXIT_ERROR
    except (*exits.HANDLED, KeyboardInterrupt) as exc:
        # ^C on a --stop-never print: what was printed stays
        _flush_quietly(out)
        if not isinstance(exc, KeyboardInterrupt):
            sys.stderr.write(exits.mysqlbinlog_lines(exc))
        return exits.status_for(exc)
    finally:
        if out is not None and out is not sys.stdout.buffer:
            out.close()


def _flush_quietly(out):
    try:
        if out is not None:
            out.flush()
    except OSError:
        pass

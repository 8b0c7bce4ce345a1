"""GTID positions, domain/server id lists and the strict-mode checks (gtid_filter.py).

The recorded mariadb-binlog runs (test_print_oracle.py) check whole outputs;
these check the rules one by one: option parsing as the real tool parses
(values observed with mariadb-binlog 10.11.19), window edges, how filters
combine, the GTID stream validator, and the option order on the command line.
"""
import io
import sys
from pathlib import Path

import pytest

from binlogkit.cli.mysqlargs import id_filter_order
from binlogkit.errors import BinlogkitError
from binlogkit.printer.mariadb.driver import dump
from binlogkit.printer.mariadb.gtid_filter import (
    DomainFilter, GtidFiltering, GtidStateValidator, ServerFilter, WindowFilter, parse_gtid_list,
    parse_id_list, parse_position,
)
from binlogkit.printer.state import PrintOptions
from binlogkit.tz import ZoneTable

ROOT = Path(__file__).resolve().parents[1]
CRC32 = sorted((ROOT / "fixtures" / "binlog" / "crc32").glob("mariadb-bin.0*"))


@pytest.mark.parametrize("text, gtids", [
    ("0-1-5", [(0, 1, 5)]), ("0-1-5,1-2-7", [(0, 1, 5), (1, 2, 7)]),
    (" 0-1-5", [(0, 1, 5)]), ("0-1-+5", [(0, 1, 5)]), ("4294967295-4294967295-18446744073709551615",
                                                     [(4294967295, 4294967295, (1 << 64) - 1)]),
    ("0-1", None), ("0-1-5,", None), (",0-1-5", None), ("0-1-5 ", None), ("0 -1-5", None),
    ("4294967296-1-5", None), ("0-1-18446744073709551616", None), ("0-1--5", None), ("", None),
])
def test_gtid_lists(text, gtids):
    assert parse_gtid_list(text) == gtids


@pytest.mark.parametrize("text, value", [("256", 256), ("+256", 256), ("00256", 256),
                                         ("18446744073709551616", 0), ("0-1-5", [(0, 1, 5)])])
def test_positions(text, value):
    assert parse_position("--start-position", text) == value


@pytest.mark.parametrize("text", ["abc", " 256", "256 ", "-5", "+", "", "0x10", "1e3"])
def test_bad_positions(text):
    with pytest.raises(BinlogkitError, match="^--start-position argument value is invalid"):
        parse_position("--start-position", text)


@pytest.mark.parametrize("text, ids", [("1", [1]), ("1,2", [1, 2]), ("1, 2", [1, 2]), (" 1", [1]),
                                       ("+1", [1]), ("4294967297", [1])])
def test_id_lists(text, ids):
    assert parse_id_list("--do-domain-ids", text) == ids


@pytest.mark.parametrize("text", ["", "x", "1,,2", "1 ", "-1", "18446744073709551616"])
def test_bad_id_lists(text):
    with pytest.raises(BinlogkitError, match="^Input for --do-domain-ids is invalid"):
        parse_id_list("--do-domain-ids", text)


def _window(start=None, stop=None):
    w = WindowFilter()
    w.start, w.stop = start, stop
    return w


def test_window_start_is_exclusive_stop_inclusive():
    w = _window((0, 1, 3), (0, 1, 5))
    seen = [n for n in range(1, 9) if not w.exclude((0, 1, n))]
    assert seen == [4, 5] and w.has_finished()


def test_window_once_open_stays_open_without_a_stop():
    w = _window(start=(0, 1, 3))
    seen = [n for n in (1, 3, 4, 2, 9) if not w.exclude((0, 1, n))]
    assert seen == [4, 2, 9] and not w.has_finished()


def test_window_stop_only_includes_up_to_stop():
    w = _window(stop=(0, 1, 2))
    seen = [n for n in (1, 2, 3, 1) if not w.exclude((0, 1, n))]
    assert seen == [1, 2] and w.has_finished()


def test_window_that_never_opens_reports_its_stop():
    w = _window((0, 1, 30), (0, 1, 20))
    assert w.is_range_invalid()
    assert all(w.exclude((0, 1, n)) for n in range(1, 40))
    warnings = []
    assert w.verify_completed_state(warnings.append)
    assert warnings == ["Did not reach stop position 0-1-20 before end of input"]


def test_stop_positions_leave_other_domains_out():
    f = DomainFilter()
    f.add_start((0, 1, 1))
    f.add_stop((1, 1, 3))
    assert f.exclude((0, 1, 5))             # domain 0 has a start but no stop
    assert f.exclude((2, 1, 1))             # no rule: left out once there are stops
    assert not f.exclude((1, 1, 2)) and not f.exclude((1, 1, 3))
    assert f.has_finished()


def test_repeated_domains_are_refused():
    f = DomainFilter()
    f.add_start((0, 1, 5))
    with pytest.raises(BinlogkitError, match=r"found 0-2-6 when 0-1-5 was previously specified"):
        f.add_start((0, 2, 6))


def test_id_lists_do_ignore_and_replace():
    f = ServerFilter()
    f.set_id_restrictions([1, 2], "do")
    assert not f.excludes_server(2) and f.excludes_server(3)
    f.set_id_restrictions([3], "do")        # a second list replaces the first
    assert f.excludes_server(2) and not f.excludes_server(3)
    with pytest.raises(BinlogkitError, match="Cannot create ignore filtering rule for server id "
                                             "because do rule already exists"):
        f.set_id_restrictions([4], "ignore")
    g = ServerFilter()
    g.set_id_restrictions([1], "ignore")
    assert g.excludes_server(1) and not g.excludes_server(0)


def test_validator_out_of_order_between_start_and_last():
    v = GtidStateValidator()
    v.initialize_start_gtids([(0, 1, 5)])
    assert not any(v.record((0, 1, n)) for n in (1, 2, 6, 7))   # below the start: not checked
    assert v.record((0, 1, 5))
    assert v.findings() == ["Found out of order GTID. Got 0-1-5 after 0-1-7"]


def test_validator_first_gtid_list():
    v = GtidStateValidator()
    v.initialize_start_gtids([(0, 1, 20)])
    assert v.initialize_gtid_state([(0, 1, 53), (1, 3, 2)]) == [
        "Binary logs are missing data for domain 0. Expected data to start from state 0-1-20; "
        "however, the initial GTID state of the logs was 0-1-53.",
        "Starting GTID position list does not specify an initial value for domain 1, whose "
        "events may be present in the requested binlog file(s). The last known position for "
        "this domain was 1-3-2."]
    w = GtidStateValidator()
    assert w.initialize_gtid_state([(0, 2, 88), (0, 1, 1008)]) == []
    assert w.verify_stop_state([(0, 1, 1000)]).startswith("--stop-position GTID 0-1-1000 does not exist")
    assert w.verify_stop_state([(0, 1, 1009)]) is None


def test_not_strict_stops_checking_at_the_first_printed_group():
    filtering = GtidFiltering(PrintOptions(gtid_strict_mode=False))
    assert filtering.gtid((0, 1, 1), True) == (False, True, [])
    assert filtering.validator is None


def test_invalid_range_is_an_error_in_strict_mode_only():
    with pytest.raises(BinlogkitError, match="Queried GTID range is invalid in strict mode"):
        GtidFiltering(PrintOptions(start_gtids=((0, 1, 30),), stop_gtids=((0, 1, 20),)))
    GtidFiltering(PrintOptions(start_gtids=((0, 1, 30),), stop_gtids=((0, 1, 20),),
                               gtid_strict_mode=False))


def test_option_order_is_kept():
    args = ["-v", "--server-id=3", "--do-domain-ids", "1", "--ignore-server-ids=2", "--", "--server-id=9"]
    assert id_filter_order(args) == [("server-id", "3"), ("do-domain-ids", "1"),
                                     ("ignore-server-ids", "2")]


def _dump(options):
    out = io.BytesIO()
    dump([str(p) for p in CRC32[1:2]], out, options, ZoneTable.from_tz("UTC"))
    return out.getvalue()


def test_server_id_from_python_is_a_do_list():
    """PrintOptions(server_id=N), the pre-10.11 spelling, filters as --do-server-ids=N."""
    by_id = _dump(PrintOptions(server_id=2))
    by_list = _dump(PrintOptions(id_filters=(("do", "server", (2,)),)))
    assert by_id == by_list and b"server id 2 " in by_id and b"server id 3 " not in by_id
    assert by_id.endswith(b"/*!100001 SET @@SESSION.GTID_DOMAIN_ID=@@GLOBAL.GTID_DOMAIN_ID */;\n")


def test_out_of_order_gtids_stop_a_default_dump(tmp_path):
    out = io.BytesIO()
    with pytest.raises(BinlogkitError, match="Found out of order GTID. Got 0-1-1 after 0-1-53"):
        dump([str(CRC32[0]), str(CRC32[0])], out, PrintOptions(local_load=str(tmp_path)),
             ZoneTable.from_tz("UTC"))
    assert b"# End of log file" not in out.getvalue()


def test_cli_reports_bad_options_before_any_output(tmp_path):
    import subprocess
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "--do-domain-ids=1",
                           "--ignore-domain-ids=2", str(CRC32[0])], capture_output=True)
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr == (b"ERROR: Cannot create ignore filtering rule for domain id because "
                           b"do rule already exists\n")

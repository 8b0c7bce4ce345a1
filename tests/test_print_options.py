"""`binlogkit print` parses its options without click (cli.print_options); the click
command built from the same table must see exactly the same values."""
import subprocess
import sys

import click
import pytest

from binlogkit.cli import print_options
from binlogkit.cli.mysqlargs import normalize_args
from binlogkit.cli.print_cmd import MysqlbinlogCommand, print_cmd

COMMAND_LINES = [
    ["f1"],
    ["-vv", "--start-position", "5", "-s", "f1", "f2"],
    ["--skip-gtid-strict-mode", "--base64-output=DECODE-ROWS", "-d", "x", "f1"],
    ["--rewrite-db=a->b", "--rewrite-db", "c->d", "--flashback=0", "f"],
    ["-R", "-hlocalhost", "-P3307", "-uroot", "--password=secret", "--stop-never",
     "--stop-never-slave-server-id=4", "--raw", "--result-file=/tmp/x-", "mariadb-bin.000001"],
    ["--force-if-open=0", "-tF", "--flavor=MySQL", "--include-gtids=u:1-3", "--skip-gtids", "f"],
    ["--read-from-remote-source=binlog-dump-gtids", "--exclude-gtids=", "--connect-retries", "3",
     "-R", "f"],
    ["--offset=7", "--server-id=3", "--do-domain-ids=1,2", "--ignore-server-ids=4", "--",
     "--odd-name"],
    ["-c", "-f", "-D", "--print-row-count=0", "--print-row-event-positions",
     "--print-table-metadata", "--set-charset=utf8mb4", "--timezone=UTC", "-H", "-l", "/tmp", "f"],
    ["--ssl-ca=/ca.pem", "--ssl-verify-server-cert", "--protocol=tcp", "--skip-annotate-row-events",
     "-j", "0-1-5", "--stop-position=0-1-9", "--start-datetime=2024-01-01 00:00:00", "f"],
]


def click_params(normalized):
    MysqlbinlogCommand.normalized = True
    try:
        ctx = print_cmd.make_context("print", list(normalized))
    finally:
        MysqlbinlogCommand.normalized = False
    params = dict(ctx.params)
    return list(params.pop("files")), params


@pytest.mark.parametrize("args", COMMAND_LINES, ids=lambda a: " ".join(a)[:40])
def test_table_parse_equals_click(args):
    normalized = normalize_args(["--no-defaults"] + args, print_options.getopt_spec())
    assert print_options.parse(normalized) == click_params(normalized)


def test_every_option_of_the_table_is_on_the_click_command():
    names = {name for p in print_cmd.params if isinstance(p, click.Option)
             for name in p.opts + p.secondary_opts}
    for option in print_options.OPTIONS:
        assert set(option.decls) <= names, option


@pytest.mark.parametrize("normalized", [
    ["--offset=x", "f"],            # a number click must word the error for
    ["--flavor=oracle", "f"],       # not a choice
    ["--verbose=2", "f"],           # a counted option takes no value
    ["--skip-database", "f"],       # --skip- of an option that is not boolean
    ["--nonsense", "f"],
])
def test_what_click_must_handle_is_handed_over(normalized):
    with pytest.raises(print_options.UnparsedError):
        print_options.parse(normalized)


def test_no_files_is_not_handed_over():
    """print_run answers it as mariadb-binlog does (tests/test_cli_exits.py)."""
    files, kw = print_options.parse(["--verbose"])
    assert files == [] and kw["verbose"] == 1


def test_print_runs_without_importing_click():
    code = ("import sys\nfrom binlogkit.cli import run\n"
            "sys.argv = ['binlogkit', 'print', '--no-defaults', 'fixtures/binlog/crc32/mariadb-bin.000001']\n"
            "try:\n    run()\nexcept SystemExit as exc:\n"
            "    sys.stderr.write('click' if 'click' in sys.modules else 'no click')\n"
            "    sys.stderr.write(' %s' % exc.code)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=_root())
    assert r.stderr.decode().endswith("no click 0"), r.stderr.decode()[-500:]
    assert r.stdout.startswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n")


def test_a_bad_value_gets_clicks_message_and_status():
    r = subprocess.run([sys.executable, "-m", "binlogkit", "print", "--no-defaults", "--flavor=x",
                        "f"], capture_output=True, text=True, cwd=_root())
    assert r.returncode == 2 and "Invalid value for '--flavor'" in r.stderr
    assert r.stderr.count("Usage:") == 1


def _root():
    from pathlib import Path
    return Path(__file__).resolve().parent.parent


def test_the_command_ends_print_without_teardown_and_keeps_its_status():
    """script(): output flushed, status kept, and no interpreter teardown (an atexit
    hook is not run) after a print; other commands exit as Python does."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: sys.stderr.write('TEARDOWN'))\n"
            "from binlogkit.cli import script\n"
            "sys.argv = ['binlogkit'] + sys.argv[1:]\n"
            "script()\n")
    tiny = "fixtures/binlog/none/mariadb-bin.000004"
    ok = subprocess.run([sys.executable, "-c", code, "print", "--no-defaults", tiny],
                        capture_output=True, cwd=_root())
    assert ok.returncode == 0 and ok.stderr == b""
    assert ok.stdout.endswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")
    bad = subprocess.run([sys.executable, "-c", code, "print", "--no-defaults", "no/such/file"],
                         capture_output=True, cwd=_root())
    assert bad.returncode == 1 and bad.stderr.startswith(b"ERROR: ")
    assert b"TEARDOWN" not in bad.stderr
    other = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True,
                           cwd=_root())
    assert other.returncode == 0 and other.stderr == b"TEARDOWN"

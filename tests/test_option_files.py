"""Option files and the my_getopt command line of `binlogkit print`, as mariadb-binlog 10.11 has them.

The expectations were taken from mariadb-binlog 10.11.19; where the real tool is installed the
same runs are also made with it and compared (stdout, stderr, exit status), in a temporary HOME.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from binlogkit.cli.mygetopt import Getopt, GetoptError
from binlogkit.cli.optionfile import DefaultsError, load_defaults, option_argument

ROOT = Path(__file__).resolve().parents[1]
BINLOG = str(ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000002")
REAL = shutil.which("mariadb-binlog")


def _env(home, **extra):
    return {"TZ": "UTC", "LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home), "TMPDIR": tempfile.gettempdir(), **extra}


def _binlogkit(args, env):
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args], capture_output=True,
                          env=env, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def _real(args, env):
    proc = subprocess.run(["mariadb-binlog", *args], capture_output=True, env=env, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def _same(args, env):
    """binlogkit's (exit, stdout, stderr); equal to the real tool's where it is installed."""
    got = _binlogkit(args, env)
    if REAL:
        want = _real(args, env)
        assert got[0] == want[0], (got, want)
        assert got[2] == want[2]
        assert got[1] == want[1]
    return got


TRICKY = ("[client]\na = 'x' y\nb = \"x'\n  c d  =  1 2  \n[ mysqlbinlog ]\ne=1\n[MYSQLBINLOG]\nf=1\n"
          "[client]\ng=a#b\nh=\"a#b\" # c\ni=\nj = \"\"\nk=\"a\\\"b\"\n!include nonexist\nl=\\\n#x\n"
          "; y\nm=a \\\n[client]\n\tn\t=\t2\t\no=\\n\\t\\r\\b\\s\\\\\\x\n[client] # c\np\n"
          "[client]x\nq=1\n[mysqld]\nr=1\n")
TRICKY_ARGS = ["--a='x' y", "--b=\"x'", "--c d=1 2", "--f=1", "--g=a", "--h=a#b", "--i=", "--j=",
               '--k=a"b', "--l=\\", "--m=a \\", "--n=2", "--o=\n\t\r\b \\\\x", "--p", "--q=1"]


def test_option_file_lines(tmp_path):
    (tmp_path / "t.cnf").write_text(TRICKY)
    _, file_args, rest = load_defaults([f"--defaults-file={tmp_path}/t.cnf", "x"], environ={})
    assert file_args == TRICKY_ARGS and rest == ["x"]
    code, out, err = _same([f"--defaults-file={tmp_path}/t.cnf", "--print-defaults"], _env(tmp_path))
    assert code == 0 and out.endswith(b" --p --q=1 \n")


def test_file_order_suffix_and_includes(tmp_path):
    (tmp_path / ".my.cnf").write_text("[client]\nhome=1\n[mysqlbinlog_x]\nsuffix=1\n")
    (tmp_path / "inc.cnf").write_text("[client]\ninc=1\n")
    (tmp_path / "extra.cnf").write_text(f"[client]\nextra=1\n!include {tmp_path}/inc.cnf\n"
                                        "[mariadb-binlog]\nextra2=1\n")
    (tmp_path / "d").mkdir()
    for name in ("b.cnf", "a.cnf", "A.cnf", "c.txt"):
        (tmp_path / "d" / name).write_text(f"[client-mariadb]\nd_{name[0]}=1\n")
    (tmp_path / "mh").mkdir()
    (tmp_path / "mh" / "my.cnf").write_text(f"[client-server]\nmh=1\n!includedir {tmp_path}/d\n")
    env = _env(tmp_path, MYSQL_HOME=str(tmp_path / "mh"))
    args = [f"--defaults-extra-file={tmp_path}/extra.cnf", "--defaults-group-suffix=_x",
            "--print-defaults", "-v"]
    code, out, _ = _same(args, env)
    assert code == 0
    assert out.split(b"\n")[1].endswith(b"--mh=1 --d_A=1 --d_a=1 --d_b=1 --extra=1 --inc=1 "
                                        b"--extra2=1 --home=1 --suffix=1 -v ")
    found, file_args, _ = load_defaults(args[:3], environ={"HOME": str(tmp_path)})
    assert found.print_defaults and file_args[-5:] == ["--extra=1", "--inc=1", "--extra2=1",
                                                      "--home=1", "--suffix=1"]


@pytest.mark.parametrize("text, first_line", [
    ("foo\n", b"error: Found option without preceding group in config file: {f} at line: 1"),
    ("[client\n", b"error: Wrong group definition in config file: {f} at line 1"),
    ("[client]\n!includedir /nonexistent-dir\n",
     b"\amariadb-binlog: Can't read dir of '/nonexistent-dir' (Errcode: 2 \"No such file or directory\")"),
])
def test_bad_option_file_is_fatal(tmp_path, text, first_line):
    (tmp_path / "b.cnf").write_text(text)
    code, out, err = _same([f"--defaults-file={tmp_path}/b.cnf", BINLOG], _env(tmp_path))
    assert code == 1 and out == b""
    assert err == first_line.replace(b"{f}", f"{tmp_path}/b.cnf".encode()) + \
        b"\nFatal error in defaults handling. Program aborted\n"
    with pytest.raises(DefaultsError):
        load_defaults([f"--defaults-file={tmp_path}/b.cnf"], environ={})


def test_world_writable_file_is_ignored(tmp_path):
    (tmp_path / ".my.cnf").write_text("[mysqlbinlog]\nshort-form\n")
    os.chmod(tmp_path / ".my.cnf", 0o666)
    code, out, err = _same([BINLOG], _env(tmp_path))
    assert code == 0 and b"BINLOG '" in out
    assert err == f"Warning: World-writable config file '{tmp_path}/.my.cnf' is ignored\n".encode()


def test_options_from_files_apply_and_the_command_line_wins(tmp_path):
    (tmp_path / ".my.cnf").write_text("[client]\nuser=someone\nsocket=/x\nport=3307\n"
                                      "[mariadb-binlog]\nshort_form\nverbose\nstart-position = 4\n")
    plain = _binlogkit(["--no-defaults", "--short-form", BINLOG], _env(tmp_path))
    code, out, err = _same([BINLOG], _env(tmp_path))
    assert (code, out, err) == (0, plain[1], b"")
    code, out, _ = _same([BINLOG, "--skip-short-form"], _env(tmp_path))
    assert code == 0 and out == _binlogkit(["--no-defaults", "-v", BINLOG], _env(tmp_path))[1]


def test_unknown_options_in_files_are_all_reported(tmp_path):
    (tmp_path / ".my.cnf").write_text("[client]\nfoo=bar\nloose-baz=1\nloose_qux\nshort-form=2\n")
    code, out, err = _same([BINLOG, "--start-pos=4"], _env(tmp_path))
    assert code == 7 and out == b""
    assert err == (b"mariadb-binlog: unknown variable 'foo=bar'\n"
                   b"Warning: mariadb-binlog: unknown variable 'loose-baz=1'\n"
                   b"Warning: mariadb-binlog: unknown option '--loose_qux'\n"
                   b"Warning: mariadb-binlog: ignoring option '--short-form' due to invalid value '2'\n"
                   b"Info: Using unique option prefix 'start-pos' is error-prone and can break in the "
                   b"future. Please use the full name 'start-position' instead.\n")
    code, _, err = _same([BINLOG, "--foo"], _env(tmp_path))
    assert code == 2 and err.endswith(b"mariadb-binlog: unknown option '--foo'\n")


@pytest.mark.parametrize("args, code, err", [
    (["--foo=bar"], 7, b"mariadb-binlog: unknown variable 'foo=bar'\n"),
    (["--foo"], 2, b"mariadb-binlog: unknown option '--foo'\n"),
    (["-x"], 2, b"mariadb-binlog: unknown option '-x'\n"),
    (["--loose-foo=1"], 0, b"Warning: mariadb-binlog: unknown variable 'loose-foo=1'\n"),
    (["--start=4"], 3, b"mariadb-binlog: ambiguous option '--start=4' (start-datetime, start-position)\n"),
    (["--print"], 3, b"mariadb-binlog: ambiguous option '--print' (print-row-count, print-table-metadata)\n"),
    (["--offset"], 5, b"mariadb-binlog: option '--offset' requires an argument\n"),
    (["-j"], 5, b"mariadb-binlog: option '-j' requires an argument\n"),
    (["--verbose=3"], 4, b"mariadb-binlog: option '--verbose' cannot take an argument\n"),
    (["--offset=-1"], 13, b"Incorrect unsigned value: '-1' for offset\n"
                          b"mariadb-binlog: Error while setting value '-1' to 'offset'\n"),
    (["--open-files-limit=9x"], 9,
     b"Unknown suffix 'x' used for variable 'open_files_limit' (value '9x'). Legal suffix characters "
     b"are: K, M, G, T, P, E\nmariadb-binlog: Error while setting value '9x' to 'open_files_limit'\n"),
    (["--base64-output=always"], 1, b"Unknown option to base64-output: always\n"
                                    b"Alternatives are: 'NEVER','AUTO','UNSPEC','DECODE-ROWS'\n"),
    (["--short-form=yes"], 0, b"Warning: mariadb-binlog: ignoring option '--short-form' due to "
                              b"invalid value 'yes'\n"),
    (["--skip-short-form", "--skip-hexdump", "--skip-annotate-row-events", "--skip-print-table-metadata",
      "--open-files-limit=3k", "--binlog-row-event-max-size=1024", "--character-sets-dir=/x",
      "--skip-gtid-strict-mode", "--disable-verify-binlog-checksum", "--enable-force-if-open",
      "--maximum-offset=3", "--base64-output=decode", "-vvo1"], 0, b""),
])
def test_command_line_as_my_getopt(tmp_path, args, code, err):
    got = _same(["--no-defaults", BINLOG, *args], _env(tmp_path))
    assert got[0] == code and got[2] == err


def test_version_is_printed_and_nothing_else(tmp_path):
    code, out, err = _binlogkit(["-V"], _env(tmp_path))
    assert code == 0 and err == b""
    assert out.startswith(b"mariadb-binlog Ver 3.5 for binlogkit-") and out.count(b"\n") == 1
    code, out2, err = _binlogkit([BINLOG, "--vers"], _env(tmp_path))
    assert code == 0 and out2 == out and err.startswith(b"Info: Using unique option prefix 'vers'")


def test_getopt_output_is_plain_long_options():
    getopt = Getopt(extras={"flavor": (None, "str")})
    assert getopt.parse(["--short_form=ON", "--offset=2k"], ["-vvj4", "f", "--flav", "mysql", "--", "-x"]) == [
        "--short-form", "--offset=2048", "--verbose", "--verbose", "--start-position=4", "f",
        "--flavor=mysql", "--", "-x"]
    with pytest.raises(GetoptError) as info:
        Getopt().parse([], ["--skip-nothing"])
    assert info.value.code == 2
    assert option_argument("x = 'a b'  # c") == "--x=a b"

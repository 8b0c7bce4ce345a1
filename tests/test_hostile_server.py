"""Issue 26 against the scripted hostile server (binlogkit/lab/hostile.py): what no
real server does.  Passwords leave `ps` and never travel in clear, server-sent names
never escape the result directory, and a short seeded fuzz of the client runs clean
(bench/fuzz_remote.py runs thousands of sessions)."""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from binlogkit.lab.hostile import HOSTILE_NAMES, PASSWORD, HostileServer, Plan, run_session

ROOT = Path(__file__).resolve().parent.parent


def binlogkit(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "binlogkit", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=kw.pop("cwd", None), **kw)


def run_cli(*args, cwd=None, timeout=60):
    proc = binlogkit(*args, cwd=cwd)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err.decode("utf-8", "replace")


def silent(session):
    """Accept and say nothing: the client waits for the greeting (connect_timeout)."""
    session.sock.settimeout(30)
    try:
        session.sock.recv(1)
    except OSError:
        pass


def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read()


@pytest.mark.parametrize("form, masked", [
    (["-pSECRET-pw"], b"-px\0xxxxxxx"),
    (["--password=SECRET-pw"], b"--password=x\0xxxxxxx"),
    (["-vpSECRET-pw"], b"-vpx\0xxxxxxx"),
    (["--pass=SECRET-pw"], b"--pass=x\0xxxxxxx"),          # a unique prefix, as my_getopt
])
def test_password_leaves_the_command_line(form, masked):
    """Read from another process, as `ps` does: the real tools' 'x', NUL, 'x's."""
    with HostileServer(silent, timeout=30) as server:
        proc = binlogkit("print", "-R", "-h127.0.0.1", f"-P{server.port}", "-urepl", *form,
                         "mariadb-bin.000001")
        try:
            deadline = time.monotonic() + 20
            line = cmdline(proc.pid)
            while (b"SECRET" in line or not line) and time.monotonic() < deadline:
                time.sleep(0.05)
                line = cmdline(proc.pid)
            assert proc.poll() is None, proc.communicate()
            assert b"SECRET" not in line, line
            assert b"\0" + masked + b"\0" in line, line
            while not server.sessions and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.sessions, "the client never connected"
        finally:
            proc.kill()
            proc.communicate()


def test_report_password_leaves_the_command_line():
    with HostileServer(silent, timeout=30) as server:
        proc = binlogkit("report", "-h", "127.0.0.1", "-P", str(server.port), "-u", "u",
                         "-p", "SECRET-pw", "--protocol", "tcp")
        try:
            deadline = time.monotonic() + 30
            while not server.sessions and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.sessions
            line = cmdline(proc.pid)
            assert b"SECRET" not in line and b"\0-p\0x\0xxxxxxx\0" in line, line
        finally:
            proc.kill()
            proc.communicate()


def plan(**changes):
    fields = dict(seed=1, greeting="normal", auth="ok", query="ok", dump="none", client="raw",
                  name=b"mariadb-bin.000001", at=2, flips=1)
    fields.update(changes)
    return Plan(**fields)


def cli_against(plan_, *extra, tmp_path):
    result = tmp_path / "result"
    result.mkdir(exist_ok=True)
    with HostileServer(plan_.play, timeout=5) as server:
        code, out, err = run_cli("print", "-R", "--raw", f"--result-file={result}/", "-h127.0.0.1",
                                 f"-P{server.port}", "-urepl", f"-p{PASSWORD}", *extra,
                                 "mariadb-bin.000001")
        received = server.received()
    return code, err, received


@pytest.mark.parametrize("auth, plugin", [("clear_password", "mysql_clear_password"),
                                          ("dialog", "dialog")])
def test_cleartext_plugins_refused(tmp_path, auth, plugin):
    code, err, received = cli_against(plan(auth=auth), tmp_path=tmp_path)
    assert code == 1
    assert err == (f"ERROR: Failed on connect: Authentication plugin '{plugin}' cannot be loaded: "
                   "plugin not enabled (binlogkit sends a password in clear only with "
                   "--enable-cleartext-plugin)\n")
    assert PASSWORD.encode() not in received
    # asked for, the password goes (that is what the option is for)
    code, err, received = cli_against(plan(auth=auth), "--enable-cleartext-plugin",
                                      tmp_path=tmp_path)
    assert PASSWORD.encode() + b"\0" in received


def test_full_auth_without_tls_needs_a_key(tmp_path):
    """caching_sha2_password's full authentication over TCP without TLS: libmysql's
    refusal unless --get-server-public-key; never the password in clear."""
    code, err, received = cli_against(plan(greeting="mysql", auth="caching_full"),
                                      "--ssl-mode=DISABLED", tmp_path=tmp_path)
    assert code == 1
    assert err.endswith("ERROR: Failed on connect: Authentication plugin 'caching_sha2_password' "
                        "reported error: Authentication requires secure connection.\n"), err
    assert PASSWORD.encode() not in received
    code, err, received = cli_against(plan(greeting="mysql", auth="caching_full"),
                                      "--ssl-mode=DISABLED", "--get-server-public-key",
                                      tmp_path=tmp_path)
    assert code == 1 and PASSWORD.encode() not in received      # a bad key: RSA fails


def test_password_never_in_errors(tmp_path):
    for p in (plan(auth="error"), plan(auth="clear_password"), plan(greeting="ssl_offered"),
              plan(auth="unknown_plugin"), plan(query="error"), plan(dump="error_packet")):
        code, err, received = cli_against(p, tmp_path=tmp_path)
        assert code == 1, (p, err)
        assert PASSWORD not in err and "Hostile" not in err, (p, err)
        assert len(err.strip().splitlines()) == 1, (p, err)


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
def test_server_sent_names_never_escape(tmp_path, name):
    """A fake Rotate naming a path: one ERROR line, exit 1, nothing written."""
    code, err, _ = cli_against(plan(dump="hostile_rotate", name=name, at=2), tmp_path=tmp_path)
    assert code == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ERROR: binlog name ") \
        and "is not a plain file name" in lines[0], err
    assert "\x1b" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result"]
    assert list((tmp_path / "result").iterdir()) == []
    assert not Path("/tmp/binlogkit-hostile-abs").exists()


def test_a_later_rotate_stops_before_writing_its_file(tmp_path):
    """The first log is copied; the hostile name that follows creates nothing."""
    code, err, _ = cli_against(plan(dump="hostile_rotate", name=b"../escaped.000001", at=3),
                               "--to-last-log", tmp_path=tmp_path)
    assert code == 1 and "'../escaped.000001' is not a plain file name" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result"]
    assert [p.name for p in (tmp_path / "result").iterdir()] == ["mariadb-bin.000001"]


def test_seeded_fuzz_runs_clean():
    """A short run of bench/fuzz_remote.py: no traceback, no hang, no write outside the
    result directory, the password never in clear nor in an error."""
    kinds = {}
    for seed in range(120):
        p = Plan.random(seed)
        with tempfile.TemporaryDirectory(prefix="binlogkit-hostile-") as workdir:
            began = time.monotonic()
            outcome = run_session(p, workdir, timeout=0.5)
            took = time.monotonic() - began
        assert not outcome.problems, (outcome, outcome.error)
        assert took < 15, (p, took)
        kinds[outcome.exit_kind] = kinds.get(outcome.exit_kind, 0) + 1
    assert set(kinds) <= {"ok", "error"} and kinds.get("error", 0) > 50, kinds

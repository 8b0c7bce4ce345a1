"""Point-in-time recovery with hostile names, on a real server (issue 13).

One throw-away MariaDB server for the module runs fixtures/gen_hostile.py's
workload: a database, table, primary-key column and user variable whose
names hold a line feed followed by `CREATE DATABASE pwned_...; #`, written in
ROW, STATEMENT and MIXED format, then ROW changes after a mark.  Its binlog,
printed by binlogkit (several option sets) and replayed with the mariadb
client after dropping everything, restores the same CHECKSUM TABLE and
creates no pwned_ database; `--flashback` from the mark undoes the last
changes.  The same replay of mariadb-binlog's output does create them (the
hole this guards against), which shows the check can fail.
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from binlogkit.lab.server import MariaDBServer, find_binary, server_available

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gen_hostile", ROOT / "fixtures" / "gen_hostile.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

if not server_available() or find_binary("mariadb-binlog", "mysqlbinlog") is None:
    pytest.skip("needs mariadbd and mariadb-binlog", allow_module_level=True)


class Lab:
    def __init__(self, srv, binlog, mark, before, after):
        self.srv, self.binlog, self.mark = srv, binlog, mark
        self.before, self.after = before, after

    def reset(self):
        dbs = self.srv.sql("SHOW DATABASES").splitlines()
        drop = [d for d in dbs if d.startswith("pwned_") or d == "victim"]
        drop.append(gen.DB)
        self.srv.sql("SET sql_log_bin=0;\n" + "".join(
            f"DROP DATABASE IF EXISTS {gen.q(d)};\n" for d in drop))

    def replay(self, sql, force=False):
        """Run the printed SQL with the mariadb client (--force: past errors)."""
        try:
            self.srv.sql(b"SET sql_log_bin=0;\n" + sql, extra_args=["--force"] if force else [])
        except RuntimeError:
            if not force:
                raise

    def pwned(self):
        return sorted(d for d in self.srv.sql("SHOW DATABASES").splitlines()
                      if d.startswith("pwned_"))

    def checksum(self):
        return self.srv.sql(gen.CHECKSUM)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with MariaDBServer(options=gen.SERVER_OPTIONS, env={"TZ": gen.TZ}) as srv:
        mark, before, after = gen.run_workload(srv)
        binlog = tmp_path_factory.mktemp("hostile") / "mariadb-bin.000001"
        binlog.write_bytes(srv.binlog_files()[0].read_bytes())
        yield Lab(srv, binlog, mark, before, after)


def _binlogkit(args, binlog):
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, str(binlog)],
                          capture_output=True, env=dict(os.environ, TZ=gen.TZ), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _real(args, binlog):
    tool = find_binary("mariadb-binlog", "mysqlbinlog")
    return subprocess.run([tool, *args, str(binlog)], capture_output=True, check=True,
                          env=dict(os.environ, TZ=gen.TZ), timeout=120).stdout


@pytest.mark.parametrize("args", [[], ["-vv"], ["-v", "--print-table-metadata"]],
                         ids=["default", "vv", "v_table_metadata"])
def test_replay_restores_every_table_and_runs_no_name(lab, args):
    lab.reset()
    lab.replay(_binlogkit(args, lab.binlog))
    assert lab.pwned() == []
    assert lab.checksum() == lab.after


def test_flashback_undoes_the_last_changes(lab):
    lab.reset()
    lab.replay(_binlogkit([], lab.binlog))
    lab.replay(_binlogkit(["--flashback", f"--start-position={lab.mark}"], lab.binlog))
    assert lab.pwned() == []
    assert lab.checksum() == lab.before


def test_the_real_tools_output_runs_the_names(lab):
    """The hole itself: mariadb-binlog's -v output, replayed, runs the name tails."""
    lab.reset()
    lab.replay(_real(["-v", "--print-table-metadata"], lab.binlog), force=True)
    assert {"pwned_tbl", "pwned_db", "pwned_pk"} <= set(lab.pwned())
    lab.reset()
    lab.replay(_real(["--flashback", f"--start-position={lab.mark}"], lab.binlog), force=True)
    assert "pwned_tbl" in lab.pwned()

"""What `binlogkit print` loads to print a small MariaDB binlog: start-up is most of the
time when scripts run it once per file (bench/bench_startup.py measures it against
mariadb-binlog).  Modules that the default path does not need must stay out of it."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000004"

# heavy, or only needed by other commands / options / flavors
NOT_LOADED = [
    "click", "pandas", "numpy", "matplotlib", "pymysql", "zstandard", "pytz",
    "dataclasses", "inspect", "typing", "datetime", "hashlib", "json", "decimal", "tempfile",
    "binlogkit.slowlog", "binlogkit.analysis", "binlogkit.report", "binlogkit.remote",
    "binlogkit.lab", "binlogkit.printer.mysql", "binlogkit.cli.group", "binlogkit.cli.print_cmd",
    "binlogkit.printer.mariadb.flashback", "binlogkit.printer.mariadb.rows_verbose",
]


def loaded_by_print(*args):
    code = ("import atexit, sys\n"
            "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + ' '.join(sys.modules)))\n"
            "from binlogkit.cli import run\n"
            f"sys.argv = ['binlogkit', 'print', '--no-defaults', *{list(args)!r}]\n"
            "run()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert r.stdout.endswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")    # both flavors
    return set(r.stderr.decode().rpartition("MODULES ")[2].split())


# the standard library modules a small MariaDB print does without (beyond what the
# interpreter loaded itself: an editable install's finder loads re and friends at start)
STDLIB_NOT_LOADED = ["re", "enum", "collections", "functools", "contextlib", "threading",
                     "zlib", "binascii", "array", "bisect", "mmap", "copy"]


def test_default_print_loads_only_what_it_uses():
    modules = loaded_by_print(str(TINY))
    extra = modules - interpreter_modules()
    assert [name for name in STDLIB_NOT_LOADED if name in extra] == []
    loaded = [name for name in NOT_LOADED
              if name in modules or any(m.startswith(name + ".") for m in modules)]
    assert loaded == []


def test_the_check_sees_a_module_an_option_loads():
    """--flashback loads the flashback printer: the list above is not vacuous."""
    rows_log = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"
    assert "binlogkit.printer.mariadb.flashback" in loaded_by_print("--flashback", str(rows_log))


# the MySQL flavor: a print of an 8.0 binlog (bench/make_mysql_compressed_binlog.py writes one)
MYSQL_NOT_LOADED = [
    "re", "enum", "collections", "functools", "typing", "decimal", "datetime", "copy",
    "weakref", "zlib", "zstandard", "platform", "binascii", "click", "pandas",
    "binlogkit.printer.mariadb.flashback",
]


@pytest.fixture(scope="module")
def mysql_binlogs(tmp_path_factory):
    pytest.importorskip("zstandard")
    out = tmp_path_factory.mktemp("mysql-startup")
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_mysql_compressed_binlog.py"),
                    "--mb", "0.05", "--out", str(out)], check=True, capture_output=True)
    return {p.name.split("-")[1].split(".")[0]: p for p in out.glob("mysql80-*.000001")}


def interpreter_modules():
    """What this Python loads before any binlogkit code (site; an editable install's
    finder loads re, pathlib and more): a print is not to blame for those."""
    r = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"],
                       capture_output=True, text=True, cwd=ROOT, check=True)
    return set(r.stdout.split())


def test_mysql_print_loads_only_what_it_uses(mysql_binlogs):
    baseline = interpreter_modules()
    for args in ([], ["-vv"]):
        modules = loaded_by_print(*args, str(mysql_binlogs["plain"])) - baseline
        assert "binlogkit.printer.mysql.driver" in modules
        loaded = [name for name in MYSQL_NOT_LOADED
                  if name in modules or any(m.startswith(name + ".") for m in modules)]
        assert loaded == [], args
    # a Transaction_payload loads zstandard: the list above is not vacuous
    assert "zstandard" in loaded_by_print(str(mysql_binlogs["compressed"]))

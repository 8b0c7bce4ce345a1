"""What `binlogkit print` loads to print a small MariaDB binlog: start-up is most of the
time when scripts run it once per file (bench/bench_startup.py measures it against
mariadb-binlog).  Modules that the default path does not need must stay out of it."""
import subprocess
import sys
from pathlib import Path

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
    assert r.stdout.startswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n")
    return set(r.stderr.decode().rpartition("MODULES ")[2].split())


def test_default_print_loads_only_what_it_uses():
    modules = loaded_by_print(str(TINY))
    loaded = [name for name in NOT_LOADED
              if name in modules or any(m.startswith(name + ".") for m in modules)]
    assert loaded == []


def test_the_check_sees_a_module_an_option_loads():
    """--flashback loads the flashback printer: the list above is not vacuous."""
    rows_log = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"
    assert "binlogkit.printer.mariadb.flashback" in loaded_by_print("--flashback", str(rows_log))

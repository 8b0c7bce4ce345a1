"""The C accelerator's enums equal the Python tables they mirror.

binlogkit/csrc/*.c/.h repeat a few numberings of the Python code: the
column ops of binlog/coltypes.py's table (OP_*; the op record size of rowcompile), the row-walk
steps of binlog/rows.py (STEP_*), the value types of rowvalues.C_TYPES
(T_*) and the positions in print_row_statements' context tuple.  The C
source is read here and its enum values compared with the Python ones, so
that a new column type or context entry cannot drift on one side only.
"""
import re
from pathlib import Path

import pytest

from binlogkit.binlog import coltypes, rowcompile, rowvalues
from binlogkit.binlog import rows as R
from binlogkit.printer.mysql import fast

CSRC = Path(__file__).resolve().parent.parent / "binlogkit" / "csrc"


def c_enums():
    """{name: value} of every enum constant in the accelerator's sources."""
    values = {}
    for path in sorted(CSRC.glob("*.[ch]")):
        text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
        for body in re.findall(r"\benum\s*\{(.*?)\}", text, flags=re.S):
            value = -1
            for item in body.split(","):
                item = item.strip()
                if not item:
                    continue
                name, _, expr = (part.strip() for part in item.partition("="))
                if expr:
                    value = int(expr, 0) if re.fullmatch(r"\d+|0x[0-9a-fA-F]+", expr) else values[expr]
                else:
                    value += 1
                assert name not in values or values[name] == value, name
                values[name] = value
        for name, value in re.findall(r"#define\s+(OP_SIZE)\s+(\d+)", text):
            values[name] = int(value)
    return values


C = c_enums()


@pytest.mark.parametrize("name", sorted(n for n in dir(coltypes) if re.fullmatch(r"OP_[A-Z0-9]+", n)))
def test_column_ops(name):
    assert C[name] == getattr(coltypes, name)


def test_column_op_set_is_the_same_both_sides():
    python = {n for n in dir(coltypes) if re.fullmatch(r"OP_[A-Z0-9]+", n)}
    c_ops = {n for n in C if re.fullmatch(r"OP_[A-Z0-9]+", n)} - {"OP_LAST", "OP_SIZE"}
    assert c_ops == python
    assert C["OP_LAST"] == max(getattr(coltypes, n) for n in python)
    assert C["OP_SIZE"] == rowcompile._OP_RECORD.size
    # every op of the table is one the C walker knows, and every C op has a type
    assert {t.op for t in coltypes.COLUMN_TYPES} - {coltypes.NO_OP} == {C[n] for n in c_ops}


def test_column_type_table():
    """One row per type code, named as its MYSQL_TYPE_ constant (which rows.py re-exports)."""
    codes = [t.code for t in coltypes.COLUMN_TYPES]
    assert len(codes) == len(set(codes)) == len(coltypes.BY_CODE)
    for t in coltypes.COLUMN_TYPES:
        assert getattr(coltypes, "MYSQL_TYPE_" + t.name) == t.code == getattr(R, "MYSQL_TYPE_" + t.name)
        assert t.meta in (coltypes.META_NONE, coltypes.META_1, coltypes.META_2LE, coltypes.META_2BE)
        assert t.fixed_size is None or t.meta in (coltypes.META_NONE, coltypes.META_1)
    constants = {n for n in dir(coltypes) if n.startswith("MYSQL_TYPE_")}
    assert constants == {"MYSQL_TYPE_" + t.name for t in coltypes.COLUMN_TYPES}


def test_row_walk_steps():
    steps = {n for n in dir(R) if re.fullmatch(r"STEP_[A-Z0-9]+", n)}
    assert steps and all(C[n] == getattr(R, n) for n in steps)


def test_value_types_order():
    names = ["T_" + getattr(t, "__name__", "ABSENT").upper() for t in rowvalues.C_TYPES]
    assert [C[n] for n in names] == list(range(len(names)))
    assert C["T_SIZE"] == len(names)


def test_mariadb_context_positions():
    from binlogkit.printer.mariadb import fast as mariadb_fast
    assert C["CTX_SIZE"] == mariadb_fast.CTX_SIZE
    assert C["CTX_SIZE_MYSQL"] == mariadb_fast.CTX_SIZE_MYSQL
    printer = type("P", (), {})()
    printer.gtids = type("G", (), {"event_filter": None})()
    printer._server_filter = None
    printer.flashback = None
    printer.options = type("O", (), {"gtid_strict_mode": True, "verbose": 0})()
    fde = type("F", (), {"binlog_version": 4})()
    tail = mariadb_fast.Steady(printer).context_tail(fde, True, None)
    assert mariadb_fast.CTX_SIZE + len(tail) == C["CTX_SIZE_MYSQL"]
    assert tail[C["CTX_GTID_AUDIT"] - C["CTX_SIZE"]] is printer.gtids
    assert tail[C["CTX_TRX_STATE"] - C["CTX_SIZE"]] is not None
    assert tail[C["CTX_FLASHBACK"] - C["CTX_SIZE"]] is None


def test_mysql_context_positions():
    assert C["CTX_TRX_STATE"] == fast.CTX_TRX_STATE
    assert C["CTX_SIZE_MYSQL"] == fast.CTX_SIZE_MYSQL
    assert C["CTX_FLAVOR"] == C["CTX_SIZE"]

"""slowlog/ keeps its modules apart: one attribute grammar (slowlog/attrs.py) shared by the
line parser and the bulk scanner, no private names imported across modules and no private
state written into another module's objects (issue 14)."""

from __future__ import annotations

import ast
import pathlib

import pytest

from binlogkit.errors import BinlogkitError, SlowlogError

SLOWLOG = pathlib.Path(__file__).resolve().parent.parent / "binlogkit" / "slowlog"
MODULES = sorted(SLOWLOG.glob("*.py"))


def _tree(path):
    return ast.parse(path.read_text(), str(path))


def _own_private_attrs(tree):
    """Private attribute names a module's own classes define (``__slots__`` or ``self._x =``)."""
    got = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "__slots__":
                    got |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)
                            and isinstance(c.value, str)}
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == "self"):
            got.add(node.attr)
    return {name for name in got if name.startswith("_")}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_private_import_across_modules(path):
    bad = [f"{node.module}.{alias.name}" for node in ast.walk(_tree(path))
           if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("binlogkit")
           for alias in node.names if alias.name.startswith("_")]
    assert not bad, f"{path.name} imports private names {bad}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_private_state_written_across_modules(path):
    tree = _tree(path)
    own = _own_private_attrs(tree)
    bad = sorted({f"{ast.unparse(node.value)}.{node.attr} (line {node.lineno})"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and node.attr.startswith("_")
                  and not node.attr.startswith("__")
                  and isinstance(node.ctx, ast.Store) and node.attr not in own})
    assert not bad, f"{path.name} writes another module's private state: {bad}"


def test_one_grammar_for_parser_and_scanner():
    """The attribute, User@Host and SET patterns are compiled in attrs.py only."""
    for marker in (rb"(\w+):\s+(\S+|\Z)", rb"# User@Host: ([^\[]+", rb"SET\s+([^;]*)",
                   rb"# +[A-Z][A-Za-z_]+: \S"):
        where = [p.name for p in MODULES if marker.decode() in p.read_text()]
        assert where == ["attrs.py"], (marker, where)
    for name in ("parser.py", "scan.py"):
        text = (SLOWLOG / name).read_text()
        assert "from binlogkit.slowlog.attrs import" in text, name


def test_slowlog_error_names_file_and_offset():
    err = SlowlogError("read error: Input/output error", path="slow.log", offset=4096, line=77)
    assert isinstance(err, BinlogkitError)
    assert str(err) == "slow.log, offset 4096, line 77: read error: Input/output error"
    assert str(SlowlogError("cannot open: No such file", path="x.log")) == "x.log: cannot open: No such file"


def test_read_error_carries_offset(tmp_path, monkeypatch):
    """An I/O error in the middle of a log: one SlowlogError with the byte offset reached."""
    from binlogkit.slowlog import scan
    from binlogkit.slowlog.digest import Digest
    path = tmp_path / "slow.log"
    entry = (b"# Time: 240101 10:00:00\n# User@Host: a[a] @ h [1.2.3.4]\n"
             b"# Query_time: 1.0  Lock_time: 0.0  Rows_sent: 1  Rows_examined: 1\n"
             b"SET timestamp=1704103200;\nSELECT 1;\n")
    path.write_bytes(entry * 50)
    real = scan.open_slowlog

    class Failing:
        def __init__(self, stream):
            self.stream, self.reads = stream, 0

        def read(self, n):
            self.reads += 1
            if self.reads > 1:
                raise OSError(5, "Input/output error")
            return self.stream.read(n)

        def close(self):
            self.stream.close()
    monkeypatch.setattr(scan, "open_slowlog", lambda p: Failing(real(p)))
    scanner = scan.BulkScanner(path, zone="UTC", chunk_size=len(entry) * 3 + 5)
    with pytest.raises(SlowlogError) as got:
        scanner.scan(Digest())
    assert got.value.offset == scanner.machine.pos > 0
    assert str(got.value).startswith(f"{path}, offset {got.value.offset}, line ")

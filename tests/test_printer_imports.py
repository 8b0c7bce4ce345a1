"""The import structure of binlog/ and printer/: the two printer flavors share a
core and never import each other, binlog/ never imports the printer, and no
import cycle (imports inside functions included) runs through either."""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "binlogkit"


def _modules():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(module, path):
    """Every binlogkit module `module` imports, at any depth of its code."""
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                     for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                out.add(name)
    return out


GRAPH = {module: _imported(module, path) for module, path in MODULES.items()}
SCOPE = ("binlogkit.binlog", "binlogkit.printer")


def _in(module, prefix):
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("flavor,other", [("mariadb", "mysql"), ("mysql", "mariadb")])
def test_flavors_do_not_import_each_other(flavor, other):
    wrong = sorted((m, i) for m, imports in GRAPH.items() if _in(m, f"binlogkit.printer.{flavor}")
                   for i in imports if _in(i, f"binlogkit.printer.{other}"))
    assert not wrong


def test_printer_core_imports_no_flavor():
    flavors = ("binlogkit.printer.mariadb", "binlogkit.printer.mysql")
    core = [m for m in GRAPH if _in(m, "binlogkit.printer") and not any(_in(m, f) for f in flavors)
            and m not in ("binlogkit.printer.command", "binlogkit.printer.remote_command")]
    assert "binlogkit.printer.driver" in core
    wrong = sorted((m, i) for m in core for i in GRAPH[m] if any(_in(i, f) for f in flavors))
    assert not wrong


def test_binlog_does_not_import_the_printer():
    wrong = sorted((m, i) for m, imports in GRAPH.items() if _in(m, "binlogkit.binlog")
                   for i in imports if _in(i, "binlogkit.printer"))
    assert not wrong


def test_no_import_cycles():
    """Tarjan's strongly connected components over binlog/ and printer/ modules."""
    nodes = [m for m in GRAPH if any(_in(m, p) for p in SCOPE)]
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if not any(_in(w, p) for p in SCOPE):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in nodes:
        if v not in index:
            visit(v)
    assert not cycles

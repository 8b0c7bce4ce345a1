"""The house rules of the import graph (README, "Architecture"), checked on the source.

Every `import` of a binlogkit module is read from the syntax tree, inside
functions too, so a lazy import cannot hide an upward edge or a cycle.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "binlogkit"

# Lowest first.  A module may import its own layer and any lower layer; the
# packages of a layer of ROOMS (printer, slowlog) do not import each other.
LAYERS = [
    ("foundation", ["binlogkit", "binlogkit.errors", "binlogkit._accel", "binlogkit._speedups",
                    "binlogkit._record", "binlogkit._csrc_hash", "binlogkit.tz", "binlogkit.posixtz"]),
    ("binlog", ["binlogkit.binlog"]),
    ("sources", ["binlogkit.remote"]),
    ("readers", ["binlogkit.printer", "binlogkit.slowlog", "binlogkit.sqlgen"]),
    ("diagnosis", ["binlogkit.diagnosis"]),
    ("analysis", ["binlogkit.analysis", "binlogkit.frames"]),
    ("report", ["binlogkit.report"]),
    ("watch", ["binlogkit.watch"]),
    ("commands", ["binlogkit.cli", "binlogkit.__main__", "binlogkit.lab"]),
]
ROOMS = {"readers"}
RANK = {unit: rank for rank, (_, units) in enumerate(LAYERS) for unit in units}


def module_files():
    """{dotted module name: path} of every .py file of the package."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = module_files()


def resolve(name):
    """The module a dotted import name lands in (a name inside a module: that module)."""
    while name and name not in MODULES and name != "binlogkit._speedups":
        name = name.rpartition(".")[0]
    return name


def imports_of(path):
    """[(imported module, line, inside a function)] of one file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name == "binlogkit" or name.startswith("binlogkit."):
                found.add((resolve(name), node.lineno, node.col_offset > 0))
    return sorted(found)


GRAPH = {name: imports_of(path) for name, path in MODULES.items()}


def unit_of(module):
    """The layer unit a module belongs to: the longest listed prefix."""
    best = None
    for unit in RANK:
        if module == unit or module.startswith(unit + "."):
            if best is None or len(unit) > len(best):
                best = unit
    return best


def test_every_module_has_a_layer():
    assert [m for m in MODULES if unit_of(m) is None] == []


def test_imports_only_look_down():
    upward = []
    for module, imports in GRAPH.items():
        here = unit_of(module)
        for target, line, _ in imports:
            there = unit_of(target)
            if there == here or there == "binlogkit":
                continue
            rooms = LAYERS[RANK[here]][0] in ROOMS
            if RANK[there] > RANK[here] or (RANK[there] == RANK[here] and rooms):
                upward.append(f"{MODULES[module].relative_to(ROOT)}:{line}: {module} -> {target}")
    assert upward == [], "imports of a higher (or sibling) layer:\n" + "\n".join(upward)


def test_only_the_command_line_knows_click():
    offenders = []
    for module, path in MODULES.items():
        if unit_of(module) == "binlogkit.cli":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) else [])
            if any(name and name.split(".")[0] == "click" for name in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


FLAVORS = ("binlogkit.printer.mariadb", "binlogkit.printer.mysql")
DOORS = {"binlogkit.printer.run"}       # chooses the flavor that prints a job


def flavor_of(module):
    return next((f for f in FLAVORS if module == f or module.startswith(f + ".")), None)


def test_the_printer_flavors_are_rooms_over_one_core():
    """printer/mariadb/ and printer/mysql/ never import each other; the shared core
    (the rest of printer/) imports neither, except the door that picks one."""
    crossing = []
    for module, imports in GRAPH.items():
        if unit_of(module) != "binlogkit.printer" or module in DOORS:
            continue
        mine = flavor_of(module)
        for target, line, _ in imports:
            theirs = flavor_of(target)
            if theirs is not None and theirs != mine:
                crossing.append(f"{MODULES[module].relative_to(ROOT)}:{line}: {module} -> {target}")
    assert crossing == [], "\n".join(crossing)


def strongly_connected(graph):
    """Tarjan's components of more than one module (iterative)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted({t for t, _, _ in graph[root]})))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph or child == node:
                    continue
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted({t for t, _, _ in graph[child]}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return comps


def test_no_import_cycles():
    """No cycle between modules, counting imports inside functions too."""
    cycles = strongly_connected(GRAPH)
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": [("b", 1, False)], "b": [("c", 1, True)], "c": [("a", 1, False)], "d": []}
    assert strongly_connected(graph) == [["a", "b", "c"]]


def test_an_upward_import_is_caught(tmp_path):
    """The walker reads imports inside functions (the way cycles used to be hidden)."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from binlogkit.cli.print_run import run_print\n")
    assert imports_of(src) == [("binlogkit.cli.print_run", 2, True)]


@pytest.mark.parametrize("lower", ["binlogkit.binlog", "binlogkit.printer", "binlogkit.slowlog",
                                   "binlogkit.remote"])
def test_lower_layers_know_no_pandas(lower):
    """pandas belongs to analysis and up (`binlogkit print` must not load it)."""
    offenders = []
    for module, path in MODULES.items():
        if unit_of(module) != lower:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) else [])
            if any(name and name.split(".")[0] in ("pandas", "numpy", "matplotlib")
                   for name in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []

"""notebooks/*.ipynb: committed without outputs, they run top to bottom without an error or a
warning, use only the public API, and the tour's panels show what they say."""
import ast
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PUBLIC = {"binlogkit.frames"}      # what a notebook may import from binlogkit
LAB = sorted((ROOT / "fixtures" / "lab").glob("mariadb-bin.*"))
BINLOG_MAGIC = 4

# run after the notebook's cells: what the tests look at, as one JSON line on stdout
PROBES = {"binlog_tour.ipynb": """
import json as _json
_line = growth_ax.get_lines()[0]
print("PROBE", _json.dumps({
    "growth_mib": [float(y) for y in _line.get_ydata()],
    "growth_title": growth_ax.get_title(),
    "event_files": [str(c) for c in events["file"].cat.categories],
    "rotation_files": [str(f) for f in files["file"]],
}))
"""}


def _code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {"binlog_tour.ipynb", "investigate_stall.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_are_stripped(path):
    nb = json.loads(path.read_text())
    for cell in _code_cells(nb):
        assert cell["outputs"] == [], f"{path.name}: cell {cell.get('id')} has outputs"
        assert cell["execution_count"] is None
    assert "widgets" not in nb["metadata"]


def _imports(source):
    """Modules a cell imports (IPython magics and shell lines left out)."""
    code = "\n".join(line for line in source.splitlines()
                     if not line.lstrip().startswith(("%", "!")))
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_only_the_public_api(path):
    """binlogkit.frames and the df.binlogkit accessor, not private modules."""
    nb = json.loads(path.read_text())
    used = {m for c in _code_cells(nb) for m in _imports("".join(c["source"]))}
    ours = {m for m in used if m == "binlogkit" or m.startswith("binlogkit.")}
    assert ours and ours <= PUBLIC, f"{path.name} imports {sorted(ours - PUBLIC)}"


_RUNS = {}


def _executed(path):
    """The notebook after a run (once per test session), plus its probe's answer."""
    if path not in _RUNS:
        nbformat = pytest.importorskip("nbformat")
        nbclient = pytest.importorskip("nbclient")
        pytest.importorskip("ipykernel")
        nb = nbformat.read(path, as_version=4)
        probe = PROBES.get(path.name)
        if probe:
            nb.cells.append(nbformat.v4.new_code_cell(probe))
        with pytest.MonkeyPatch.context() as mp:   # the kernel inherits it: deprecations
            mp.setenv("PYTHONWARNINGS",             # inside libraries show too
                      "default::DeprecationWarning,default::PendingDeprecationWarning")
            nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                    resources={"metadata": {"path": str(path.parent)}}).execute()
        answer = None
        if probe:
            cell = nb.cells.pop()
            text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            answer = json.loads(text.split("PROBE ", 1)[1])
        _RUNS[path] = nb, answer
    return _RUNS[path]


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _text(output):
    if output.output_type == "stream":
        return output.text
    if output.output_type == "error":
        return f"{output.ename}: {output.evalue}"
    return output.get("data", {}).get("text/plain", "")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_without_errors_or_warnings(path):
    nb, _ = _executed(path)
    outputs = _outputs(nb)
    assert not [o for o in outputs if o.output_type == "error"]
    noise = [_text(o) for o in outputs if (o.output_type == "stream" and o.name == "stderr")
             or "Warning" in _text(o)]
    assert not noise, f"{path.name} printed: {noise}"
    assert [o for o in outputs if "image/png" in o.get("data", {})], "the notebook draws no figure"


def test_tour_growth_panel_shows_the_binlogs_growing():
    nb, probe = _executed(ROOT / "notebooks" / "binlog_tour.ipynb")
    mib = probe["growth_mib"]
    written = sum(os.path.getsize(p) - BINLOG_MAGIC for p in LAB)   # every event's bytes
    assert probe["growth_title"] == "binlog size written"
    assert round(mib[-1] * (1 << 20)) == written > 1 << 20     # ends at what the files hold
    assert all(a <= b for a, b in zip(mib, mib[1:]))            # a size over time only grows
    assert mib[0] < mib[-1] / 10 and len(set(mib)) > 20         # not a flat line
    steps = [b - a for a, b in zip(mib, mib[1:-1])]
    assert 0 in steps, "no second without growth: the rotation stalls are not visible"


def test_tour_file_columns_are_base_names():
    nb, probe = _executed(ROOT / "notebooks" / "binlog_tour.ipynb")
    crc32 = sorted(p.name for p in (ROOT / "fixtures" / "binlog" / "crc32").glob("mariadb-bin.*"))
    assert probe["event_files"] == crc32
    assert probe["rotation_files"] == [p.name for p in LAB]
    shown = [_text(o) for o in _outputs(nb)]
    assert any("mariadb-bin.000001" in t for t in shown)
    assert not [t for t in shown if str(ROOT) in t or "..." in t and "/mariadb-bin" in t]


def _readme_command(prefix):
    lines = [line.strip() for line in (ROOT / "README.md").read_text().splitlines()]
    found = [line for line in lines if line.startswith(prefix)]
    assert len(found) == 1, f"README should say once how to run the notebooks ({prefix}...)"
    return found[0]


def test_extras_have_what_the_readme_runs_the_notebooks_with():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    install = _readme_command("pip install -e '.[notebooks]'")
    assert install and "notebooks" in extras
    for extra in ("test", "notebooks"):
        names = {re.split(r"[<>=\[ ]", req, maxsplit=1)[0].lower() for req in extras[extra]}
        assert {"nbconvert", "jupyter_core", "ipykernel"} <= names, extra


def test_readme_nbconvert_command_runs_the_notebooks(tmp_path):
    """README's line, as a user types it (its output dir swapped for tmp_path)."""
    pytest.importorskip("nbconvert")
    command = _readme_command("jupyter nbconvert ")
    argv = shlex.split(command.replace("/tmp/binlogkit-notebooks", str(tmp_path)))
    argv[:1] = [sys.executable, "-m", "jupyter"]       # the venv's `jupyter`, PATH or not
    notebooks = [a for a in argv if a.endswith("*.ipynb")]
    argv = [a for a in argv if a not in notebooks] + [str(p) for p in NOTEBOOKS]
    assert notebooks == ["notebooks/*.ipynb"]
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    for path in NOTEBOOKS:
        html = (tmp_path / path.with_suffix(".html").name).read_text()
        assert "<img" in html and "Traceback" not in html

"""Run recorded mariadb-binlog cases against `binlogkit print`, byte for byte.

fixtures/expected/manifest.json (written by fixtures/generate.py) lists, per
case, the arguments, input files, TZ, and the real tool's stdout / exit code
(and --result-file content).  The only normalisation is the manifest's own
masks: temp-dir paths, which the real tool also varies between runs.

stderr (check_stderr): the messages of the ERROR / WARNING lines (and of a failing run's bare
lines) must be the real tool's, in order; binlogkit's "<file>, offset N[, event type T]: "
location, the program-name prefix and the bell are not compared.
"""
import difflib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFEST_PATH = ROOT / "fixtures" / "expected" / "manifest.json"


def load_manifest():
    return json.loads(MANIFEST_PATH.read_text())


def case_id(case):
    return f"{case['set']}/{case['case']}@{case['tz']}"


def apply_masks(data, masks, definitions):
    for name in masks:
        rule = definitions[name]
        data = re.sub(rule["regex"].encode(), rule["replace"].encode(), data)
    return data


def run_case(case, workdir, env=None):
    """Run one case through the real CLI; returns (stdout, stderr, exit, result_bytes).

    `env`: extra environment variables (e.g. BINLOGKIT_PURE=1)."""
    workdir = pathlib.Path(workdir)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="binlogkit-mbtmp-", dir=workdir))
    local_load = pathlib.Path(tempfile.mkdtemp(prefix="binlogkit-localload-", dir=workdir))
    result_file = workdir / "binlogkit-mbtmp-result.txt"
    args = [a.replace("{RESULT_FILE}", str(result_file)).replace("{LOCAL_LOAD_DIR}", str(local_load))
            for a in case["args"]]
    files = [str(ROOT / f) for f in case["files"]]
    for f in files:
        if f.endswith("a-directory"):
            os.makedirs(f, exist_ok=True)
    stdin = None
    if case["stdin"]:
        stdin = pathlib.Path(files[0]).read_bytes()
        files = []
    env = dict(os.environ, **(env or {}), TZ=case["tz"], LC_ALL="C", TMPDIR=str(tmp))
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, *files],
                          input=stdin, capture_output=True, env=env, cwd=ROOT)
    result = result_file.read_bytes() if case.get("result_file") and result_file.exists() else None
    return proc.stdout, proc.stderr, proc.returncode, result


def diff_text(expected, actual, name):
    lines = difflib.unified_diff(expected.decode("latin-1").splitlines(keepends=True),
                                 actual.decode("latin-1").splitlines(keepends=True),
                                 fromfile=f"mariadb-binlog/{name}", tofile=f"binlogkit/{name}", n=2)
    text = "".join(lines)
    return text[:20000] + ("\n... (diff cut)" if len(text) > 20000 else "")


_LOCATION = re.compile(r"^ERROR: .*?, offset \d+(?:, event type \d+)?: ")
_PROGNAME = re.compile(r"^\a?(?:\S*/)?(?:mariadb-binlog|mysqlbinlog): ")


def stderr_messages(data, root=None):
    """The comparable messages of a stderr text (see the module docstring)."""
    text = data.decode("latin-1")
    if root is not None:
        text = text.replace(str(root) + "/", "")
    out = []
    for line in text.splitlines():
        if not line.strip() or line.startswith(("Info: ", "Warning: ")):
            continue
        line = _PROGNAME.sub("", _LOCATION.sub("ERROR: ", line))
        out.append(line[len("ERROR: "):] if line.startswith("ERROR: ") else line)
    return out


def check_stderr(case, workdir, env=None):
    """Assert binlogkit's stderr messages are the real tool's for a recorded case."""
    _, stderr, code, _ = run_case(case, workdir, env)
    want = (ROOT / case["stderr"]).read_bytes() if case["stderr"] else b""
    expected, actual = stderr_messages(want), stderr_messages(stderr, ROOT)
    assert actual == expected, (f"{case_id(case)} stderr:\n  mariadb-binlog: {expected}\n"
                                f"  binlogkit:      {actual}")
    assert code == case["exit"]


def check_case(case, workdir, manifest, env=None):
    """Assert binlogkit reproduces a recorded case; raises AssertionError with a diff."""
    stdout, stderr, code, result = run_case(case, workdir, env)
    masks, defs = case.get("masks", []), manifest["mask_definitions"]
    expected = apply_masks((ROOT / case["stdout"]).read_bytes(), masks, defs)
    actual = apply_masks(stdout, masks, defs)
    name = case_id(case)
    assert b"Traceback" not in stderr, stderr.decode(errors="replace")
    assert actual == expected, diff_text(expected, actual, name)
    assert code == case["exit"], f"exit {code}, expected {case['exit']}; stderr: {stderr!r}"
    if case["exit"] != 0:
        lines = stderr.decode(errors="replace").strip().splitlines()
        assert lines and lines[-1].strip(), "an error must say what went wrong on stderr"
    if not case["stderr"] and case["exit"] == 0:    # the real tool said nothing: nor do we
        assert stderr_messages(stderr, ROOT) == [], stderr.decode(errors="replace")
    if case.get("result_file"):
        want = apply_masks((ROOT / case["result_file"]).read_bytes(), masks, defs)
        got = apply_masks(result or b"", masks, defs)
        assert got == want, diff_text(want, got, name + " (result file)")

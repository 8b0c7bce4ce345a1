"""The stall lab against a real MariaDB: injected slow binlog syncs must come out of
`binlogkit report` as binlog_rotation stalls of the right file at the right time.

Server-backed (about 2 minutes): skipped when mariadbd or gcc is missing.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogkit.cli import main
from binlogkit.lab.stall_lab import LabConfig, build_shim, lab_available, read_shim_log, run_lab
from binlogkit.lab.server import find_binary

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report import check_against_truth, seconds  # noqa: E402

needs_lab = pytest.mark.skipif(not lab_available(), reason="needs mariadbd, mariadb-install-db, gcc")

LABS = {
    # ~3 s stalls: 1 MiB files, 3 s per MiB
    "1mb-3s": LabConfig(max_binlog_size=1 << 20, seconds_per_mb=3.0, long_query_time=0.0,
                        duration_s=30.0, fill_s=5.0, row_bytes=1000, seed=11),
    # ~2 s stalls: 2 MiB files, 1 s per MiB, only statements of 1 s or more logged
    "2mb-2s": LabConfig(max_binlog_size=2 << 20, seconds_per_mb=1.0, long_query_time=1.0,
                        duration_s=36.0, fill_s=7.0, row_bytes=2000, seed=12),
    # control: same traffic, no delay
    "control": LabConfig(max_binlog_size=1 << 20, seconds_per_mb=0.0, long_query_time=0.0,
                         duration_s=25.0, fill_s=5.0, row_bytes=1000, seed=13),
}


@pytest.fixture(scope="module", params=list(LABS))
def lab(request, tmp_path_factory):
    name = request.param
    run = run_lab(LABS[name], tmp_path_factory.mktemp(f"lab-{name}"))
    res = CliRunner().invoke(main, ["report", "--binlog", *map(str, run.binlogs), "--slowlog",
                                    str(run.slowlog), "--server-tz", "UTC", "--format", "json"],
                             catch_exceptions=False)
    return name, run, res.exit_code, json.loads(res.output)


@pytest.mark.server
@needs_lab
def test_lab_report_matches_ground_truth(lab):
    name, run, code, doc = lab
    cfg = LABS[name]
    big = [d for d in run.delays if d["duration_s"] >= 1.0]
    rot = [s for s in doc["stalls"] if s["cause"] == "binlog_rotation"]
    if cfg.seconds_per_mb == 0:
        assert run.delays == []
        # the control must have rotated (and synced) like the others, only fast
        rotated = [s for s in run.syncs if s["size"] >= cfg.max_binlog_size]
        assert len(rotated) >= 2 and len(doc["rotations"]) >= 2
        assert rot == [], f"control run reported binlog_rotation stalls: {rot}"
    else:
        expect = cfg.seconds_per_mb * cfg.max_binlog_size / (1 << 20)
        assert len(big) >= 2, run.delays
        assert all(expect <= d["duration_s"] < expect * 1.2 for d in big)
        assert check_against_truth(doc, run.delays) == []
        assert len(rot) == len(big)
        assert code == 3
    assert code == (3 if any(s["over_threshold"] for s in doc["stalls"]) else 0)


@pytest.mark.server
@needs_lab
def test_lab_mariadb_slow_log_time_is_statement_start(lab):
    """MariaDB writes the statement's start in '# Time' (the report relies on it)."""
    name, run, _, _ = lab
    if not run.delays:
        pytest.skip("no injected delay in the control run")
    text = Path(run.slowlog).read_text()
    first = run.delays[0]
    start, end = seconds(first["start"]), seconds(first["end"])
    stalled = []
    for entry in text.split("# User@Host:")[1:]:
        if "Query_time: " not in entry or "SET timestamp=" not in entry:
            continue
        qt = float(entry.split("Query_time: ")[1].split()[0])
        stamp = int(entry.split("SET timestamp=")[1].split(";")[0])
        if qt >= 0.9 * (end - start) and start - 1.5 <= stamp <= start + 0.5:
            stalled.append((stamp, qt))
    assert stalled, "no statement logged with the stall's start second"
    for stamp, qt in stalled:
        assert abs(stamp + qt - end) < 1.5       # start + Query_time = release


@needs_lab
def test_shim_delays_only_matching_files_in_proportion_to_size(tmp_path):
    shim = build_shim(tmp_path)
    log, armed = tmp_path / "shim.log", tmp_path / "armed"
    binlog, other = tmp_path / "x-bin.000001", tmp_path / "other.dat"
    binlog.write_bytes(b"b" * (1 << 20))
    other.write_bytes(b"o" * (1 << 20))
    small = tmp_path / "x-bin.000002"
    small.write_bytes(b"s" * 100)
    code = ("import os, sys\n"
            "for p in sys.argv[1:]:\n"
            "    fd = os.open(p, os.O_RDWR)\n"
            "    os.fdatasync(fd); os.fsync(fd); os.close(fd)\n")
    env = dict(os.environ, LD_PRELOAD=str(shim), BINLOGKIT_SLOWSYNC_PATTERN="*-bin.[0-9]*",
               BINLOGKIT_SLOWSYNC_SEC_PER_MB="0.2", BINLOGKIT_SLOWSYNC_MIN_BYTES="1000",
               BINLOGKIT_SLOWSYNC_LOG=str(log), BINLOGKIT_SLOWSYNC_ARMED=str(armed))
    args = [sys.executable, "-c", code, str(binlog), str(other), str(small)]
    subprocess.run(args, env=env, check=True)          # not armed: logged, not delayed
    armed.touch()
    subprocess.run(args, env=env, check=True)
    rows = read_shim_log(log)
    assert [(r["call"], r["file"]) for r in rows] == [
        ("fdatasync", binlog.name), ("fsync", binlog.name),
        ("fdatasync", small.name), ("fsync", small.name)] * 2
    delays = [r["delay_us"] for r in rows]
    assert delays == [0, 0, 0, 0, 200000, 200000, 0, 0]
    for r in rows:
        assert r["end_us"] - r["start_us"] >= r["delay_us"]
        assert r["size"] == (1 << 20 if r["file"] == binlog.name else 100)


@needs_lab
def test_shim_source_builds_without_warnings(tmp_path):
    cc = find_binary("gcc", "cc")
    src = Path(__file__).resolve().parents[1] / "binlogkit" / "lab" / "slowsync.c"
    r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-o",
                        str(tmp_path / "s.so"), str(src), "-ldl"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == ""


@pytest.mark.server
@needs_lab
def test_lab_lock_confounders_are_not_rotations(tmp_path):
    """Live, short (~20 s): FLUSH TABLES WITH READ LOCK and LOCK TABLES held 3 s
    on a server in another zone (America/Sao_Paulo), with no slow sync at all:
    each is a stall of cause lock, none is blamed on a rotation, and the report
    needs no --server-tz."""
    from binlogkit.lab.score import score
    cfg = LabConfig(max_binlog_size=1 << 20, seconds_per_mb=0.0, long_query_time=0.0,
                    duration_s=12.0, fill_s=30.0, row_bytes=300, noise_every_s=0.0, seed=41,
                    time_zone="America/Sao_Paulo",
                    episodes=(("ftwrl", 2.0, 3.0), ("lock_tables", 7.5, 3.0)))
    run = run_lab(cfg, tmp_path / "lab")
    assert [e["kind"] for e in run.episodes] == ["ftwrl", "lock_tables"]
    res = CliRunner().invoke(main, ["report", "--binlog", *map(str, run.binlogs), "--slowlog",
                                    str(run.slowlog), "--format", "json"], catch_exceptions=False)
    doc = json.loads(res.output)
    got = score(doc, json.loads(run.truth_path.read_text()))
    assert got["lock"]["recall"] == 1.0 and got["lock"]["precision"] == 1.0, got
    assert not any(s["cause"] == "binlog_rotation" for s in doc["stalls"])
    assert doc["inputs"]["server_zone"] == "UTC-03:00 (from SET timestamp)"

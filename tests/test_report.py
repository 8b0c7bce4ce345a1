"""`binlogkit report` on the recorded stall-lab run (fixtures/lab, made by fixtures/gen_lab.py).

The ground truth (truth.json) was written by the LD_PRELOAD shim while the
server ran; every check here compares the report against it.
"""
import base64
import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogkit.cli import main

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "fixtures" / "lab"
TRUTH = json.loads((LAB / "truth.json").read_text())
BINLOGS = sorted(str(p) for p in LAB.glob("mariadb-bin.0*"))
SLOW = str(LAB / "slow.log.gz")
TOLERANCE_S = 1.5


def run(*args):
    res = CliRunner().invoke(main, ["report", *args], catch_exceptions=False)
    return res.exit_code, res.output


def report_json(*extra, binlogs=BINLOGS, slow=SLOW):
    code, out = run("--binlog", *binlogs, "--slowlog", slow, "--server-tz", "UTC",
                    "--format", "json", *extra)
    return code, json.loads(out)


def seconds(iso):
    from datetime import datetime
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def check_against_truth(doc, delays):
    """Every delay >= 1 s is a binlog_rotation stall of its file, within tolerance; no extras."""
    big = [d for d in delays if d["duration_s"] >= 1.0]
    rot = [s for s in doc["stalls"] if s["cause"] == "binlog_rotation"]
    problems = []
    for d in big:
        hits = [s for s in rot if s["rotation"]["from_file"] == d["file"]]
        if len(hits) != 1:
            problems.append(f"{d['file']}: {len(hits)} binlog_rotation stalls")
            continue
        s = hits[0]
        for key in ("start", "end"):
            err = abs(seconds(s[key]) - seconds(d[key]))
            if err > TOLERANCE_S:
                problems.append(f"{d['file']}: {key} {s[key]} vs truth {d[key]} ({err:.2f} s)")
    files = {d["file"] for d in delays}
    extra = [s for s in rot if s["rotation"]["from_file"] not in files]
    problems += [f"extra binlog_rotation stall at {s['start']} ({s['rotation']['from_file']})"
                 for s in extra]
    return problems


def test_fixture_has_ground_truth():
    assert len(TRUTH["delays"]) >= 3
    assert all(d["duration_s"] >= 1.0 for d in TRUTH["delays"])
    assert len(BINLOGS) == len(TRUTH["binlogs"])


def test_stalls_match_ground_truth():
    code, doc = report_json()
    assert check_against_truth(doc, TRUTH["delays"]) == []
    assert code == 3
    assert len(doc["stalls"]) == len(TRUTH["delays"])
    for s in doc["stalls"]:
        assert s["rotation"]["to_file"] > s["rotation"]["from_file"]
        assert s["writes"] + s["commits"] >= 3 and s["over_threshold"]


def test_json_schema():
    _, doc = report_json()
    assert isinstance(doc["verdict"], str)
    iso = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
    for s in doc["stalls"]:
        assert iso.match(s["start"]) and iso.match(s["end"]) and iso.match(s["rotation"]["at"])
        assert isinstance(s["duration_s"], float) and isinstance(s["queries"], int)
        assert s["cause"] in ("binlog_rotation", "lock", "commit_sync", "unknown")
    sizes = {Path(p).name: Path(p).stat().st_size for p in BINLOGS}
    assert [r["from_file"] for r in doc["rotations"]] == [Path(p).name for p in BINLOGS[:-1]]
    for r in doc["rotations"]:
        assert iso.match(r["at"]) and r["size_bytes"] == sizes[r["from_file"]]
        assert r["stall_s"] and r["stall_s"] > 1.0
    c = doc["cadence"]
    n = len(TRUTH["delays"])
    assert (c["rotations"], c["rotations_with_stall"], c["stalls"], c["stalls_explained"]) == \
        (n, n, n, n)


def test_text_reads_naturally():
    code, out = run("--binlog", *BINLOGS, "--slowlog", SLOW, "--server-tz", "UTC")
    n = len(TRUTH["delays"])
    first = out.splitlines()[2]
    assert first.startswith(f"{n} stalls of 1 s or more from ")
    assert "all at binlog rotations" in out
    worst = max(TRUTH["delays"], key=lambda d: d["duration_s"])
    assert "Worst: 2.0 s" in out or f"Worst: {worst['duration_s']:.1f} s" in out
    for d in TRUTH["delays"]:
        assert f"rotation {d['file']} -> " in out
    for title in ("Stalls of 1 s or more (UTC", "Binlog rotations (UTC", "Cadence", "What it means", "Inputs"):
        assert title in out
    assert f"{n} of {n} rotations caused a stall; rotations explain {n} of {n} stalls." in \
        " ".join(out.split())
    assert "sync_binlog" in out
    assert "Traceback" not in out


def test_markdown():
    code, out = run("--binlog", *BINLOGS, "--slowlog", SLOW, "--server-tz", "UTC",
                    "--format", "markdown")
    assert code == 3
    assert out.startswith("# binlogkit report: ")
    assert "## Stalls of 1 s or more (UTC" in out and "| start | end | duration |" in out
    assert out.count("| rotation mariadb-bin.") == len(TRUTH["delays"])


def test_html_is_self_contained_with_picture(tmp_path):
    html_path, png_path = tmp_path / "r.html", tmp_path / "r.png"
    code, _ = run("--binlog", *BINLOGS, "--slowlog", SLOW, "--server-tz", "UTC", "--format",
                  "html", "--output", str(html_path), "--plot", str(png_path))
    assert code == 3
    html = html_path.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert not re.search(r"""(src|href)=["']https?:""", html)
    m = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert m
    embedded = base64.b64decode(m.group(1))
    assert embedded[:8] == b"\x89PNG\r\n\x1a\n"
    png = png_path.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width >= 800 and height >= 300


def test_threshold_above_every_stall_exits_0():
    code, doc = report_json("--threshold", "5")
    assert code == 0
    assert doc["verdict"].startswith("No stall of 5 s or more")
    assert len(doc["stalls"]) == len(TRUTH["delays"])
    assert not any(s["over_threshold"] for s in doc["stalls"])


def test_since_until_window():
    delays = TRUTH["delays"]
    mid = delays[len(delays) // 2]["start"]
    since = mid[:19].replace("T", " ") + "Z"
    code, doc = report_json("--since", since)
    later = [d for d in delays if seconds(d["end"]) > seconds(mid)]
    assert check_against_truth(doc, later) == []
    assert len(doc["stalls"]) == len(later)
    code, doc = report_json("--until", since)
    assert all(seconds(s["start"]) <= seconds(mid) + 1 for s in doc["stalls"])
    assert len(doc["stalls"]) == len(delays) - len(later) + (1 if doc["stalls"] and seconds(
        doc["stalls"][-1]["end"]) > seconds(mid) else 0)


def _slow_prefix(dest, until_s):
    """The slow log's entries whose '# Time' is before until_s (a log read mid-day)."""
    text = gzip.open(SLOW, "rt").read()
    entries = re.split(r"(?m)^(?=# Time: )", text)
    keep = [e for e in entries if not e.startswith("# Time: ")
            or _entry_second(e) < until_s]
    dest.write_text("".join(keep))


def _entry_second(entry):
    import calendar
    import time
    stamp = entry.split("\n", 1)[0][len("# Time: "):].strip()
    return calendar.timegm(time.strptime(stamp, "%y%m%d %H:%M:%S"))


def test_state_makes_runs_incremental(tmp_path):
    """Cron: a first run on the logs as they were mid-run, a second on the full logs."""
    delays = TRUTH["delays"]
    cut = seconds(delays[2]["end"]) + 1.5          # between the 3rd and 4th stall
    part = tmp_path / "slow-part.log"
    _slow_prefix(part, cut)
    n_files = next(i for i, p in enumerate(BINLOGS) if Path(p).name == delays[3]["file"]) + 1
    state = tmp_path / "state.json"
    # the file that rotated after the cut was still being written then: leave it out
    code1, doc1 = report_json("--state", str(state), binlogs=BINLOGS[:n_files - 1],
                              slow=str(part))
    code2, doc2 = report_json("--state", str(state))
    code3, doc3 = report_json("--state", str(state))
    first = {s["rotation"]["from_file"] for s in doc1["stalls"]}
    second = {s["rotation"]["from_file"] for s in doc2["stalls"]}
    assert first == {d["file"] for d in delays[:3]}
    assert second == {d["file"] for d in delays[3:]}
    assert check_against_truth(doc2, delays[3:]) == []
    assert (code1, code2, code3) == (3, 3, 0)
    assert doc3["stalls"] == [] and doc3["verdict"].startswith("No slow-log statements in the "
                                                                "window (none newer than")
    saved = json.loads(state.read_text())
    assert saved["runs"] == 3 and doc2["state"]["previous_watermark"] == doc1["state"]["watermark"]
    assert {r["from_file"] for r in doc2["rotations"]} == {d["file"] for d in delays[3:]}


def test_state_file_not_json(tmp_path):
    bad = tmp_path / "state.json"
    bad.write_text("{not json")
    code, out = run("--binlog", *BINLOGS, "--slowlog", SLOW, "--state", str(bad))
    assert code == 1
    assert out.startswith("binlogkit report: ") and "not a binlogkit report state file" in out
    assert len(out.strip().splitlines()) == 1


def test_binlog_args_greedy_and_repeated():
    code_a, a = report_json()
    args = [x for p in BINLOGS for x in ("--binlog", p)]
    code_b, out = run(*args, "--slowlog", SLOW, "--server-tz", "UTC", "--format", "json")
    b = json.loads(out)
    assert code_a == code_b and a["stalls"] == b["stalls"]


def test_binlogs_in_any_order():
    _, a = report_json()
    _, b = report_json(binlogs=list(reversed(BINLOGS)))
    assert a["stalls"] == b["stalls"] and a["rotations"] == b["rotations"]


# -- bad or mismatched inputs -------------------------------------------------------------

def _one_error_line(code, out):
    assert code == 1
    lines = out.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("binlogkit report: ")
    assert "Traceback" not in out
    return lines[0]


def test_not_a_binlog():
    bad = ROOT / "fixtures" / "binlog" / "bad" / "not-a-binlog.txt"
    line = _one_error_line(*run("--binlog", str(bad), "--slowlog", SLOW))
    assert "not-a-binlog.txt" in line and "offset 0" in line and "not a binary log" in line


def test_truncated_last_binlog_is_read_to_its_last_complete_event(tmp_path):
    """The live file (or one copied while being written) ends inside an event:
    the report uses it up to there, says so, and still finds the stalls."""
    for p in BINLOGS[:-1]:
        shutil.copy(p, tmp_path)
    last = Path(BINLOGS[-1])
    cut_at = last.stat().st_size * 2 // 3 + 7
    (tmp_path / last.name).write_bytes(last.read_bytes()[:cut_at])
    given = sorted(str(p) for p in tmp_path.glob("mariadb-bin.0*"))
    code, doc = report_json(binlogs=given)
    _, full = report_json()
    assert code == 3
    notes = [n for n in doc["notes"] if last.name in n and "last complete event" in n]
    assert len(notes) == 1 and "byte" in notes[0]
    keep = [s for s in full["stalls"] if s["end"] < doc["inputs"]["binlog_span"][1]]
    assert [s for s in doc["stalls"] if s["cause"] == "binlog_rotation"] == \
        [s for s in keep if s["cause"] == "binlog_rotation"]


def test_truncated_binlog_before_the_last_is_an_error(tmp_path):
    cut = tmp_path / "mariadb-bin.000001"
    cut.write_bytes(Path(BINLOGS[0]).read_bytes()[:5000])
    shutil.copy(BINLOGS[1], tmp_path)
    line = _one_error_line(*run("--binlog", str(cut), str(tmp_path / Path(BINLOGS[1]).name),
                                "--slowlog", SLOW))
    assert str(cut) in line and "offset" in line


def test_missing_file(tmp_path):
    line = _one_error_line(*run("--binlog", *BINLOGS, "--slowlog", str(tmp_path / "nope.log")))
    assert "nope.log" in line


def test_slowlog_that_is_not_a_slow_log():
    line = _one_error_line(*run("--binlog", *BINLOGS, "--slowlog", BINLOGS[0]))
    assert "no slow-log entries" in line and "mariadb-bin.000001" in line


def _shifted_slowlog(dest, days):
    """The lab's slow log as if written ``days`` earlier (test input made here)."""
    import calendar
    import time

    def day(m):
        t = calendar.timegm(time.strptime(m.group(1), "%y%m%d")) - days * 86400
        return "# Time: " + time.strftime("%y%m%d", time.gmtime(t))

    text = gzip.open(SLOW, "rt").read()
    text = re.sub(r"# Time: (\d{6})", day, text)
    text = re.sub(r"SET timestamp=(\d+)", lambda m: f"SET timestamp={int(m.group(1)) - days * 86400}",
                  text)
    dest.write_text(text)
    return str(dest)


def test_slowlog_from_another_day(tmp_path):
    other = _shifted_slowlog(tmp_path / "slow.log", 1)
    line = _one_error_line(*run("--binlog", *BINLOGS, "--slowlog", other, "--server-tz", "UTC"))
    assert "do not overlap in time: are they from the same server and day?" in line
    assert "--server-tz" not in line
    day_before = TRUTH["delays"][0]["start"][:10]
    assert f"the binlogs ({day_before}" in line


def test_wrong_server_tz_is_overridden_by_set_timestamp():
    """SET timestamp (an epoch) against # Time gives the server's real offset:
    a wrong --server-tz does not break the analysis, a note says so."""
    code, doc = report_json("--server-tz", "Asia/Tokyo")
    _, right = report_json()
    assert code == 3 and doc["stalls"] == right["stalls"]
    assert any("--server-tz Asia/Tokyo disagrees" in n for n in doc["notes"])
    assert doc["inputs"]["server_zone"] == "UTC+00:00 (from SET timestamp)"


def _zone_shifted_log(dest, hours_minutes, keep_stamps=True):
    """The lab slow log as a server east of UTC by hours_minutes would write it:
    zone-less # Time lines moved to that wall clock (SET timestamp stays an epoch)."""
    import datetime
    shift = datetime.timedelta(hours=hours_minutes[0], minutes=hours_minutes[1])
    out = []
    for line in gzip.decompress(Path(SLOW).read_bytes()).split(b"\n"):
        if line.startswith(b"# Time: "):
            wall = datetime.datetime.strptime(line[8:].decode().strip(), "%y%m%d %H:%M:%S")
            t = wall + shift
            line = f"# Time: {t:%y%m%d} {t.hour:2d}:{t:%M:%S}".encode()
        elif line.startswith(b"SET timestamp=") and not keep_stamps:
            continue
        out.append(line)
    dest.write_bytes(b"\n".join(out))
    return str(dest)


def test_server_in_another_zone_without_server_tz(tmp_path):
    """A server in Asia/Kolkata (+05:30) analysed here (UTC) with no --server-tz:
    the offset comes from the log; stalls are those of the UTC original."""
    kolkata = _zone_shifted_log(tmp_path / "slow.log", (5, 30))
    code, out = run("--binlog", *BINLOGS, "--slowlog", kolkata, "--format", "json")
    doc = json.loads(out)
    _, right = report_json()
    assert code == 3 and doc["stalls"] == right["stalls"]
    assert doc["inputs"]["server_zone"] == "UTC+05:30 (from SET timestamp)"
    assert not any("zone" in n for n in doc["notes"])


def test_wrong_zone_is_suggested_without_set_timestamp(tmp_path):
    """Without SET timestamp lines the zone cannot be derived: a wrong --server-tz
    makes the inputs not overlap, and the shift that would fix it is suggested."""
    bare = _zone_shifted_log(tmp_path / "slow.log", (0, 0), keep_stamps=False)
    line = _one_error_line(*run("--binlog", *BINLOGS, "--slowlog", bare,
                                "--server-tz", "Asia/Tokyo"))
    assert "do not overlap" in line
    assert "Shifted by +9 h they would overlap" in line and "Asia/Tokyo" in line


def _first_file_before_its_rotate(dest):
    """The first binlog as it was before it rotated (cut at its ROTATE event)."""
    from binlogkit.binlog.reader import BinlogReader
    with BinlogReader(BINLOGS[0]) as r:
        r.read_magic()
        pos = next(e.pos for e in r.events() if e.type_code == 4 and e.pos > 4)
    dest.write_bytes(Path(BINLOGS[0]).read_bytes()[:pos])
    return str(dest)


def test_no_rotations_is_said(tmp_path):
    live = _first_file_before_its_rotate(tmp_path / "mariadb-bin.000001")
    code, doc = report_json(binlogs=[live])
    assert doc["rotations"] == []
    assert any("contain no rotation" in n for n in doc["notes"])
    assert any("stalls outside the binlogs' time cannot be matched" in n for n in doc["notes"])
    assert len(doc["stalls"]) == len(TRUTH["delays"])
    assert all(s["cause"] != "binlog_rotation" and s["rotation"] is None for s in doc["stalls"])
    assert code == 3                         # the stalls are still there
    assert all("binlogs given do not cover" in s["hint"] or "no binlog rotation near" in s["hint"]
               for s in doc["stalls"])


def test_rotation_seen_from_the_next_file_only():
    """Only the live file given: its start still shows the rotation that opened it."""
    code, doc = report_json(binlogs=BINLOGS[-1:])
    last = TRUTH["delays"][-1]
    assert [r["from_file"] for r in doc["rotations"]] == [last["file"]]
    assert doc["rotations"][0]["inferred"] and doc["rotations"][0]["size_bytes"] is None
    assert check_against_truth(doc, [last]) == []
    rot = [s for s in doc["stalls"] if s["cause"] == "binlog_rotation"]
    assert len(rot) == 1 and rot[0]["rotation"]["size_bytes"] is None
    others = [s for s in doc["stalls"] if s["cause"] != "binlog_rotation"]
    assert len(others) == len(TRUTH["delays"]) - 1
    assert all("binlogs given do not cover" in s["hint"] for s in others)


def test_until_before_since_is_a_usage_error():
    res = CliRunner().invoke(main, ["report", "--binlog", *BINLOGS, "--slowlog", SLOW,
                                    "--since", "2026-01-02", "--until", "2026-01-01"])
    assert res.exit_code == 2 and "--until" in res.output


def test_help_documents_exit_status():
    res = CliRunner().invoke(main, ["report", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "0 no stall of --threshold seconds or more; 3 at least one; 1 error" in text


def test_cli_entry_point_exit_code(tmp_path):
    """The installed command returns 3 (not only click's runner)."""
    r = subprocess.run([sys.executable, "-m", "binlogkit", "report", "--binlog", *BINLOGS,
                        "--slowlog", SLOW, "--server-tz", "UTC", "--format", "json"],
                       capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert json.loads(r.stdout)["stalls"]


def test_print_still_does_not_import_pandas_or_matplotlib():
    code = ("import sys, binlogkit.cli; "
            "print('pandas' in sys.modules, 'matplotlib' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "False False"


@pytest.mark.skipif(shutil.which("binlogkit") is None, reason="console script not installed")
def test_console_script_help():
    r = subprocess.run(["binlogkit", "report", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--state FILE" in r.stdout


def test_state_not_advanced_when_the_report_cannot_be_written(tmp_path):
    state = tmp_path / "state.json"
    code, out = run("--binlog", *BINLOGS, "--slowlog", SLOW, "--server-tz", "UTC",
                    "--state", str(state), "-o", str(tmp_path / "missing" / "r.txt"))
    assert code == 1 and "r.txt" in out
    assert not state.exists()
    code, doc = report_json("--state", str(state))
    assert len(doc["stalls"]) == len(TRUTH["delays"]) and state.exists()

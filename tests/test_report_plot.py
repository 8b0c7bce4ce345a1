"""The timeline plot: plain functions over an Axes (what df.binlogkit.timeline() forwards to)."""
import json
from pathlib import Path

import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402

from binlogkit.analysis.plot import plot_timeline, png_bytes, timeline_figure  # noqa: E402
from binlogkit.analysis.pileups import statements_frame  # noqa: E402
from binlogkit.analysis.rotations import rotations_frame, rotations_table  # noqa: E402
from binlogkit.analysis.stalls import find_stalls  # noqa: E402

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab"
BINLOGS = sorted(str(p) for p in LAB.glob("mariadb-bin.0*"))
TRUTH = json.loads((LAB / "truth.json").read_text())


@pytest.fixture(scope="module")
def frames():
    st = statements_frame(LAB / "slow.log.gz", zone="UTC")
    files = rotations_frame(BINLOGS)
    rot = rotations_table(files)
    return st, files, rot, find_stalls(st, rot)


def _vlines(ax):
    return [ln for ln in ax.lines if ln.get_linestyle() == "--"]


def test_draws_points_rotations_and_stalls(frames):
    st, files, rot, stalls = frames
    ax = Figure().add_subplot()
    assert plot_timeline(ax, st, rot, stalls, threshold=1.0) is ax
    assert len(_vlines(ax)) == len(rot) == len(TRUTH["delays"])
    assert len(ax.patches) == len(stalls)
    points = sum(len(c.get_offsets()) for c in ax.collections)
    assert points == len(st)
    labels = ax.get_legend_handles_labels()[1]
    assert "stall: binlog rotation" in labels and "binlog rotation" in labels
    assert ax.get_yscale() == "log"


def test_accepts_the_per_file_frame_and_read_slowlog(frames):
    """df.binlogkit.timeline(rotations=rotations_frame(...)) on a read_slowlog frame."""
    from binlogkit.analysis.slowlog_frame import read_slowlog
    _, files, rot, stalls = frames
    slow = read_slowlog(str(LAB / "slow.log.gz"), server_tz="UTC")
    ax = Figure().add_subplot()
    plot_timeline(ax, slow, files, stalls[["start", "end"]])
    assert len(_vlines(ax)) == files["rotate_to"].notna().sum()
    assert len(ax.patches) == len(stalls)
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(slow)


def test_big_frames_are_sampled_but_keep_every_slow_statement(frames):
    st = frames[0]
    big = pd.concat([st] * 30, ignore_index=True)
    ax = Figure().add_subplot()
    plot_timeline(ax, big, max_points=20_000, threshold=1.0)
    drawn = sum(len(c.get_offsets()) for c in ax.collections)
    assert drawn == 20_000
    tops = [max(c.get_offsets()[:, 1]) for c in ax.collections]
    assert max(tops) == pytest.approx(big["query_time"].max())


def test_png(frames):
    st, _, rot, stalls = frames
    png = png_bytes(timeline_figure(st, rot, stalls, 1.0, title="t"))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


def test_empty_inputs():
    st = pd.DataFrame({"end": pd.to_datetime([], utc=True), "query_time": []})
    ax = Figure().add_subplot()
    plot_timeline(ax, st, None, None)
    assert len(ax.collections) == 0 and len(ax.patches) == 0 and ax.get_legend() is None


def test_no_matplotlib_cache_warning_without_a_writable_home(tmp_path):
    """A cron job as a user whose HOME cannot be written: matplotlib used to warn on every
    run ('Matplotlib created a temporary cache directory...')."""
    import os
    import pathlib
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parent.parent
    lab = root / "fixtures" / "lab"
    env = {k: v for k, v in os.environ.items()
           if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env["HOME"] = "/proc/binlogkit-no-home"      # not creatable, even by root
    env["TMPDIR"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "report", "--binlog",
                           *map(str, sorted(lab.glob("mariadb-bin.*"))), "--slowlog",
                           str(lab / "slow.log.gz"), "--server-tz", "UTC", "--format", "html",
                           "-o", str(tmp_path / "r.html")], capture_output=True, env=env)
    assert proc.returncode in (0, 3), proc.stderr
    assert b"atplotlib" not in proc.stderr, proc.stderr.decode()
    assert (tmp_path / "r.html").stat().st_size > 1000

"""The stall timeline: statement latency over time, rotation markers, shaded stalls.

Plain functions over a matplotlib Axes and DataFrames (``df.binlogkit.timeline()``
forwards to :func:`plot_timeline`)::

    fig = timeline_figure(statements, rotations, stalls, threshold=1.0)
    fig.savefig("stalls.png")

``statements`` needs ``end`` (datetime64 UTC) and ``query_time``; ``kind``
(write/commit/read/other) colours the points when present (else it is
derived from ``query``), ``time_res_s`` centres whole-second times.
``rotations`` is a rotations table (``at``, ``from_file``, ``to_file``) or the
per-file frame (``rotated_at``, ``file``, ``rotate_to``).  ``stalls`` needs
``start``, ``end`` and optionally ``cause`` and ``duration_s``.
No pyplot: figures are plain ``matplotlib.figure.Figure`` objects (no GUI).
"""
from __future__ import annotations

import io
import os
import tempfile

import numpy as np
import pandas as pd

__all__ = ["plot_timeline", "timeline_figure", "png_bytes", "KIND_COLORS"]

KIND_COLORS = {"write": "#c0392b", "commit": "#8e44ad", "read": "#2471a3", "other": "#7f8c8d"}
KIND_LABELS = {"write": "writes", "commit": "COMMIT", "read": "reads", "other": "other"}
CAUSE_COLORS = {"binlog_rotation": "#f39c12", "lock": "#8e44ad", "commit_sync": "#2980b9",
                "restart": "#c0392b", "unknown": "#95a5a6"}
MIN_Y = 1e-5
LABELLED_ROTATIONS = 30      # more rotations than this: only those with a stall get a label
LABELLED_STALLS = 25         # the longest stalls get a duration label



def quiet_matplotlib_cache():
    """Give matplotlib a config/cache directory of its own under the temp dir when the
    default one (~/.config/matplotlib) cannot be written, e.g. a cron job as a user
    without a writable HOME: matplotlib would warn on every run and rebuild its font
    cache each time.  Call before matplotlib is imported; MPLCONFIGDIR wins if set."""
    if os.environ.get("MPLCONFIGDIR"):
        return
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    for path in (os.path.join(base, "matplotlib"), base, os.path.dirname(base)):
        if os.path.isdir(path):
            if os.access(path, os.W_OK):
                return
            break
    private = os.path.join(tempfile.gettempdir(), f"binlogkit-matplotlib-{os.getuid()}")
    os.makedirs(private, mode=0o700, exist_ok=True)
    os.environ["MPLCONFIGDIR"] = private

def _naive(series: pd.Series) -> np.ndarray:
    """UTC datetimes as tz-naive numpy datetime64 (what matplotlib plots fastest)."""
    s = pd.to_datetime(series, utc=True)
    return s.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()


def _kinds(statements: pd.DataFrame) -> pd.Series:
    if "kind" in statements:
        return statements["kind"].astype(str)
    if "query" in statements:
        from binlogkit.analysis.pileups import statement_kind
        return statements["query"].map(lambda q: statement_kind(str(q).encode("utf-8", "replace")))
    return pd.Series("other", index=statements.index)


def _sample(statements: pd.DataFrame, max_points: int, keep_above: float) -> pd.DataFrame:
    """All slow statements, plus a fixed-seed sample of the fast ones."""
    if len(statements) <= max_points:
        return statements
    slow = statements[statements["query_time"] >= keep_above]
    fast = statements[statements["query_time"] < keep_above]
    room = max(max_points - len(slow), 0)
    return pd.concat([slow, fast.sample(n=min(room, len(fast)), random_state=0)])


def _rotation_points(rotations: pd.DataFrame):
    if rotations is None or not len(rotations):
        return []
    if "at" in rotations:
        at, src, dst = rotations["at"], rotations["from_file"], rotations["to_file"]
    else:
        rows = rotations[rotations["rotated_at"].notna()]
        at, src, dst = rows["rotated_at"], rows["file"], rows["rotate_to"]
    return list(zip(_naive(at), src, dst))


def _short(name: str) -> str:
    return str(name).rsplit(".", 1)[-1] if "." in str(name) else str(name)


def plot_timeline(ax, statements: pd.DataFrame, rotations: pd.DataFrame | None = None,
                  stalls: pd.DataFrame | None = None, threshold: float | None = None,
                  max_points: int = 60_000, idle: pd.DataFrame | None = None):
    """Draw the timeline on ``ax``; returns ``ax``.  ``idle``: commit gaps where
    nothing waited (shaded grey, not stalls)."""
    quiet_matplotlib_cache()
    import matplotlib.dates as mdates
    st = _sample(statements, max_points, threshold or 0.5)
    end = pd.to_datetime(st["end"], utc=True)
    if "time_res_s" in st:
        end = end + pd.to_timedelta(st["time_res_s"] / 2, unit="s")
    x = _naive(end)
    y = np.maximum(st["query_time"].to_numpy(dtype=float), MIN_Y)
    kinds = _kinds(st).to_numpy()
    for kind, color in KIND_COLORS.items():
        sel = kinds == kind
        if sel.any():
            ax.scatter(x[sel], y[sel], s=6, c=color, alpha=0.8, linewidths=0, zorder=3,
                       label=f"{KIND_LABELS[kind]} ({int(sel.sum())})")
    _draw_idle(ax, idle)
    _draw_stalls(ax, stalls)
    _draw_rotations(ax, rotations, stalls)
    if threshold:
        ax.axhline(threshold, color="#555555", lw=0.8, ls=":", label=f"threshold {threshold:g} s")
    ax.set_yscale("log")
    ax.set_ylabel("statement latency (Query_time, s)")
    coarse = "time_res_s" in st and bool((st["time_res_s"] >= 1).any())
    ax.set_xlabel("statement end (UTC)" + (", whole-second log times drawn mid-second"
                                             if coarse else ""))
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M:%S"))
    ax.grid(True, which="major", alpha=0.25)
    if ax.get_legend_handles_labels()[1]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, framealpha=0.85,
                  markerscale=2, borderaxespad=0.0)
    return ax


def _draw_idle(ax, idle):
    if idle is None or not len(idle):
        return
    first = True
    for a, b in zip(_naive(idle["start"]), _naive(idle["end"])):
        ax.axvspan(a, b, color="#bdc3c7", alpha=0.25, lw=0, hatch="//", zorder=0,
                   label="idle (nothing waited)" if first else None)
        first = False


def _draw_stalls(ax, stalls):
    if stalls is None or not len(stalls):
        return
    causes = stalls["cause"] if "cause" in stalls else pd.Series("unknown", index=stalls.index)
    durs = stalls["duration_s"] if "duration_s" in stalls else pd.Series(np.nan,
                                                                         index=stalls.index)
    labelled = set(durs.astype(float).fillna(0).nlargest(LABELLED_STALLS).index)
    seen = set()
    for k, (i, a, b, cause, dur) in enumerate(zip(stalls.index, _naive(stalls["start"]),
                                                  _naive(stalls["end"]), causes, durs)):
        color = CAUSE_COLORS.get(cause, CAUSE_COLORS["unknown"])
        label = None if cause in seen else f"stall: {cause.replace('_', ' ')}"
        seen.add(cause)
        ax.axvspan(a, b, color=color, alpha=0.3, lw=0, label=label, zorder=1)
        if dur == dur and i in labelled:
            ax.annotate(f"{dur:.1f} s", xy=(a, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(2, -12 - 9 * (k % 3)), textcoords="offset points", fontsize=7,
                        color="#7d4e00")


def _draw_rotations(ax, rotations, stalls=None):
    """A dashed line and a label per rotation; with more than LABELLED_ROTATIONS, a
    tick per rotation along the bottom (taller where several share a second) and
    a line and label only for those that caused a stall."""
    points = _rotation_points(rotations)
    if len(points) <= LABELLED_ROTATIONS:
        for k, (at, src, dst) in enumerate(points):
            _rotation_line(ax, at, src, dst, "binlog rotation" if k == 0 else None)
        return
    stalled = set()
    if stalls is not None and len(stalls) and "rotation_from" in stalls:
        stalled = set(stalls["rotation_from"].dropna())
    at = np.array([p[0] for p in points])
    secs, counts = np.unique(at.astype("datetime64[s]"), return_counts=True)
    height = 0.03 + 0.05 * counts / counts.max()
    ax.vlines(secs + np.timedelta64(500, "ms"), 0, height, transform=ax.get_xaxis_transform(),
              color="#1e8449", lw=0.8, zorder=2,
              label=f"binlog rotations ({len(points)}; a tick per second, taller for more)")
    first = True
    for t, src, dst in points:
        if src in stalled:
            _rotation_line(ax, t, src, dst, "rotation that stalled" if first else None)
            first = False


def _rotation_line(ax, at, src, dst, label):
    ax.axvline(at, color="#1e8449", lw=1.0, ls="--", alpha=0.9, zorder=2, label=label)
    ax.annotate(f"{_short(src)}\u2192{_short(dst)}", xy=(at, 0.0),
                xycoords=("data", "axes fraction"), xytext=(2, 3), textcoords="offset points",
                fontsize=7, color="#1e8449", rotation=90, va="bottom")


def timeline_figure(statements, rotations=None, stalls=None, threshold=None, title=None,
                    size=(12, 4.8), dpi=100, idle=None):
    """A Figure with the timeline (see :func:`plot_timeline`)."""
    quiet_matplotlib_cache()
    from matplotlib.figure import Figure
    fig = Figure(figsize=size, dpi=dpi, layout="constrained")
    ax = fig.add_subplot()
    plot_timeline(ax, statements, rotations, stalls, threshold, idle=idle)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def png_bytes(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()

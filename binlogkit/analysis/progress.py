"""Progress bars for long reads: tqdm, only when someone is watching."""
from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["interactive", "progress_bar"]

MIN_BYTES = 64 << 20   # smaller inputs finish before a bar is worth drawing


def interactive():
    """True in a Jupyter kernel or when stderr is a terminal."""
    shell = sys.modules.get("IPython")
    if shell is not None:
        get = getattr(shell, "get_ipython", None)
        ip = get() if get is not None else None
        if ip is not None and type(ip).__name__ == "ZMQInteractiveShell":
            return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _total_bytes(paths):
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):
            total += os.stat(path).st_size
    return total


def _tqdm_class():
    """tqdm's notebook widget when ipywidgets is there, else the text bar."""
    try:
        import ipywidgets  # noqa: F401
        from tqdm.auto import tqdm
    except ImportError:
        from tqdm import tqdm
    return tqdm


@contextlib.contextmanager
def progress_bar(paths, enabled=None, desc="reading"):
    """Yield an update(nbytes) callable, or None when no bar is shown.

    enabled=None: a bar when interactive and the input is at least MIN_BYTES.
    """
    total = _total_bytes(paths)
    if enabled is None:
        enabled = interactive() and total >= MIN_BYTES
    if not enabled:
        yield None
        return
    try:
        tqdm = _tqdm_class()
    except ImportError:
        yield None
        return
    with tqdm(total=total, unit="B", unit_scale=True, desc=desc, file=sys.stderr) as bar:
        yield bar.update

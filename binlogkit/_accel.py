"""The optional C accelerator, `binlogkit._speedups`.

It is built by setup.py when a compiler is available and holds only hot
inner loops (event framing, header text, base64 lines, row counting); the
pure-Python code next to each use is the reference and the fallback.
BINLOGKIT_PURE=1 in the environment forces the pure-Python path.
"""
import os

speedups = None
if os.environ.get("BINLOGKIT_PURE", "") in ("", "0"):
    try:
        from binlogkit import _speedups as speedups
    except ImportError:
        speedups = None

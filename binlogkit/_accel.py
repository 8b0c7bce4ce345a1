"""The optional C accelerator, `binlogkit._speedups` (sources: binlogkit/csrc/).

setup.py builds it when a compiler is available.  It holds the hot paths:
event framing, header lines, base64 lines, row counting, whole row statements
of both flavors (default, -v/-vv, decode-rows; MySQL GTID/Xid/BEGIN/COMMIT and
Transaction_payload events), row-image values, and the slow log's number
parsing.  The pure-Python code next to each use is the reference and the
fallback; tests/test_speedups*.py compare the two.  BINLOGKIT_PURE=1 in the
environment forces the pure-Python path.
"""
import os

speedups = None
if os.environ.get("BINLOGKIT_PURE", "") in ("", "0"):
    try:
        from binlogkit import _speedups as speedups
    except ImportError:
        speedups = None

"""The optional C accelerator, `binlogkit._speedups` (sources: binlogkit/csrc/).

setup.py builds it when a compiler is available.  It holds the hot paths:
event framing, header lines, base64 lines, row counting, whole row statements
of both flavors (default, -v/-vv, decode-rows; MySQL GTID/Xid/BEGIN/COMMIT and
Transaction_payload events; MySQL JSON columns and partial JSON updates in
csrc/json.c), row-image values, and the slow log's entry reader
and number parsing.  The pure-Python code next to each use is the reference and
the fallback; tests/test_speedups*.py compare the two.  BINLOGKIT_PURE=1 in the
environment forces the pure-Python path.

Where the sources sit beside the module (an in-place or editable build), a build
whose SOURCE_HASH differs from them is stale: it is left unused, with one line on
stderr saying how to rebuild, rather than run against code it was not built for.
"""
import os
import sys

speedups = None
if os.environ.get("BINLOGKIT_PURE", "") in ("", "0"):
    try:
        from binlogkit import _speedups as speedups
    except ImportError:
        speedups = None


def _stale(module):
    """Whether sources beside the module differ from those it was built from.  An
    install has no sources beside it; in a source tree, sources no newer than the
    build are the build's own (hashed only when one is newer: start-up counts)."""
    from binlogkit._csrc_hash import newest_source, source_hash
    try:
        built_at = os.stat(module.__file__).st_mtime
    except (OSError, TypeError):
        built_at = 0
    if newest_source() <= built_at:
        return False
    built = getattr(module, "SOURCE_HASH", "")
    current = source_hash()
    return bool(current) and built != current


if speedups is not None and _stale(speedups):
    sys.stderr.write("binlogkit: the C accelerator was built from other sources than "
                     "binlogkit/csrc/ holds; using pure Python (rebuild: python setup.py "
                     "build_ext --inplace)\n")
    speedups = None

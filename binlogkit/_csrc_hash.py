"""The hash of the C accelerator's sources (binlogkit/csrc/*.c, *.h): setup.py builds
it into binlogkit._speedups, binlogkit/_accel.py compares it with the sources beside
an in-place build.  No binlogkit imports (setup.py loads this file on its own), and
at import only os, which Python loads anyway: start-up counts."""
import os

CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")


def source_hash(folder=CSRC):
    """CRC-32 over the names and bytes of the folder's .c and .h files ("" without them):
    enough to tell a stale build from a current one."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith((".c", ".h")))
    except OSError:
        return ""
    import zlib     # only when sources are there to hash (a source tree, not an install)
    crc = 0
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            crc = zlib.crc32(name.encode() + b"\0" + f.read() + b"\0", crc)
    return f"{crc:08x}" if names else ""


def newest_source(folder=CSRC):
    """The newest modification time of the folder's .c and .h files (0 without them)."""
    try:
        with os.scandir(folder) as entries:
            return max((e.stat().st_mtime for e in entries if e.name.endswith((".c", ".h"))),
                       default=0)
    except OSError:
        return 0

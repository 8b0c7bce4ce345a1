"""The peer data some tests read: public binlogs and slow logs of other projects in
../shared/peer (beside the checkout), never copied into the project.  Without it those tests
skip; the summary line says how many and what they need (conftest.py)."""
from __future__ import annotations

import re
from pathlib import Path

PEER = Path(__file__).resolve().parents[2] / "shared" / "peer"
# the skip reasons of the tests that need it (they name ../shared or the peer data)
_NEEDS_PEER = re.compile(r"\.\./shared|peer (binlog|data)|shared/peer", re.I)


def skip_reason(report) -> str:
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def summary_line(skipped) -> str | None:
    """One line for the end of the run when tests skipped for want of the peer data."""
    n = sum(1 for report in skipped if _NEEDS_PEER.search(skip_reason(report)))
    if not n:
        return None
    return (f"{n} tests skipped: they need ../shared/peer ({PEER}): public binlogs and slow "
            f"logs of other projects (rust_mysql_common, mysql-binlog-connector-java, "
            f"percona-toolkit); README 'Set up' says how to get them")

"""The throw-away MySQL 9.7 of binlogkit/lab/mysql_root.py, for tests.

Tests that need it use ``needs_mysql``: they skip where the root cannot be had
(no root user, no cached root), except under CI (``CI=true``), where .ci/run has
built it and a missing root is a failure, not a skip.
"""
import os

import pytest

from binlogkit.lab.mysql_root import (  # noqa: F401
    MySQLServer, copy_into_root, in_root, mysqlbinlog, root_available, root_dir,
)

_WHY = "no MySQL 9.7 root (python3 -m binlogkit.lab.mysql_root build, as root)"

if not root_available() and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI builds the MySQL root first (.ci/run), but there is none: {_WHY}")

needs_mysql = pytest.mark.skipif(not root_available(), reason=_WHY)

"""One evidence timeline, one set of cause rules: the recorded life runs (fixtures/life,
real MariaDB and MySQL 9.7 servers) replayed through `binlogkit watch`'s ONLINE path
(binlogkit.watch.replay: each event arrives at its own time, no sleeping) and compared
with `binlogkit report` on the same files.

MySQL binlogs carry each transaction's commit instant (µs): the replay is what a
watcher read, and every stall must come out the same, cause, file and start (to the
millisecond), except restarts, which `watch` says as events, not stalls, and a stall
that never ended in the binlogs (the last rotation before the server was stopped: no
commit after it, so no commit gap online).  MariaDB binlogs carry whole seconds only,
and a watcher's evidence is its arrival instants: a replay places the commits inside
their second (packed where commits stopped or resumed), so it is no stand-in for
them.  There every stall the replay says must be one the report says, with the same
cause and file, starting within the time resolution (1 s), and every lock stall is
found.
"""
import datetime
from pathlib import Path

import pytest

from binlogkit.analysis.stallreport import build_report
from binlogkit.watch.replay import replay

LIFE = Path(__file__).resolve().parents[1] / "fixtures" / "life"


def _t(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def _both(name):
    run = LIFE / name
    binlogs = sorted(str(p) for p in run.iterdir() if p.name.split(".")[-1].isdigit())
    slow = [str(run / "slow.log.gz")]
    report = [s for s in build_report(binlogs, slow).doc["stalls"] if s["over_threshold"]]
    online = replay(binlogs, slow, threshold=1.0)
    return report, online


def _key(s):
    return s["cause"], (s["rotation"] or {}).get("from_file")


def _stopped_before_resuming(s, run):
    """The stall ran into the end of the binlogs given / a server stop (no commit after)."""
    from binlogkit.watch.replay import replay_arrivals
    end = _t(s["end"])
    binlogs = sorted(str(p) for p in run.iterdir() if p.name.split(".")[-1].isdigit())
    return not any(a.kind == "event" and a.is_commit and a.at > end - 1.0
                   for a in replay_arrivals(binlogs))


def test_mysql_replay_says_what_the_report_says():
    report, online = _both("mysql")
    expected = [s for s in report if s["cause"] != "restart"
                and not _stopped_before_resuming(s, LIFE / "mysql")]
    assert len(expected) >= 14
    show = "\n".join(["online:"] + [f"{_key(s)} {s['start']} {s['end']}" for s in online] +
                     ["report:"] + [f"{_key(s)} {s['start']} {s['end']}" for s in expected])
    assert [_key(s) for s in online] == [_key(s) for s in expected], show
    for s, r in zip(online, expected):      # µs instants, a millisecond's rounding
        assert abs(_t(s["start"]) - _t(r["start"])) <= 0.002, show
        assert abs(_t(s["end"]) - _t(r["end"])) <= 0.05, show
    assert sum(s["cause"] == "binlog_rotation" for s in online) >= 12
    assert sum(s["cause"] == "lock" for s in online) == 3


@pytest.mark.parametrize("name", ["mariadb", "mariadb-mixed"])
def test_mariadb_replay_says_nothing_the_report_does_not(name):
    report, online = _both(name)
    assert online, "the replay says no stall"
    for s in online:
        same = [r for r in report if _key(r) == _key(s)
                and abs(_t(r["start"]) - _t(s["start"])) <= 1.0 + 1e-6]
        assert same, (s, [(_key(r), r["start"]) for r in report])
    if name == "mariadb":            # long_query_time=0: the waits are in the slow log
        locks = [r for r in report if r["cause"] == "lock"]
        assert len(locks) == 3 and all(
            any(s["cause"] == "lock" and abs(_t(s["start"]) - _t(r["start"])) <= 1.0
                for s in online) for r in locks), (locks, online)

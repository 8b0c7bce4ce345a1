"""Fuzz binlogkit's client against the scripted hostile server (binlogkit/lab/hostile.py).

    python bench/fuzz_remote.py                 # 2,000 seeded sessions
    python bench/fuzz_remote.py --sessions 5000 --seed 7

Each session draws a hostile plan (odd greeting, auth switch, bad query answers,
a damaged or endless dump, hostile Rotate names) and points the raw backup or
`print -R` at it.  Fails (exit 1) on any session that raised outside binlogkit's
error tree (a traceback), took longer than --limit seconds (a read without a
timeout), wrote outside its result directory, sent the password in clear or put
it in an error; prints the outcome counts, the slowest session, and the
process's memory (peak RSS, and the RSS growth over the run: bounded means flat).
"""
import argparse
import collections
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlogkit.lab.hostile import Plan, run_session  # noqa: E402


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / (1 << 20)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="first seed (one seed a session)")
    parser.add_argument("--timeout", type=float, default=1.0, help="the client's read timeout")
    parser.add_argument("--limit", type=float, default=20.0, help="a session's time limit")
    args = parser.parse_args(argv)
    kinds, stages, failures = collections.Counter(), collections.Counter(), []
    slowest, start, rss_early = (0.0, None), time.monotonic(), None
    for i, seed in enumerate(range(args.seed, args.seed + args.sessions)):
        plan = Plan.random(seed)
        with tempfile.TemporaryDirectory(prefix="binlogkit-fuzz-remote-") as workdir:
            began = time.monotonic()
            outcome = run_session(plan, workdir, timeout=args.timeout)
            took = time.monotonic() - began
        kinds[outcome.exit_kind] += 1
        stages[_stage(plan)] += 1
        slowest = max(slowest, (took, plan))
        problems = list(outcome.problems) + ([f"took {took:.1f} s"] if took > args.limit else [])
        if problems:
            failures.append((plan, problems, outcome.error))
            print(f"FAIL {plan}: {problems}\n{outcome.error}", flush=True)
        if i == 99:
            rss_early = rss_mb()
    elapsed = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.sessions} sessions (seeds {args.seed}..{args.seed + args.sessions - 1}) "
          f"in {elapsed:.0f} s: {dict(kinds)}; misbehaving stage: {dict(stages)}")
    print(f"slowest session {slowest[0]:.2f} s ({slowest[1]})")
    print(f"memory: peak RSS {peak:.0f} MB (server and client in one process); RSS after 100 "
          f"sessions {rss_early or 0:.0f} MB, at the end {rss_mb():.0f} MB")
    print(f"{len(failures)} failing sessions")
    return 1 if failures else 0


def _stage(plan):
    if plan.greeting not in ("normal", "mysql"):
        return "greeting"
    if plan.auth != "ok":
        return "auth"
    if plan.query != "ok":
        return "query"
    return "dump"


if __name__ == "__main__":
    sys.exit(main())

"""The long fuzz run (issue 13): N mutated binlogs and slow logs through
`binlogkit print` (every option set, in turn), `slowlog digest`, `report` and
the Python API, each process under a 1 GiB address-space limit and a timeout.

    nice python bench/fuzz.py --count 10000 --seed 1 [--jobs 2] [--workdir DIR] [--no-peer]

Prints the counts per run kind and verdict (ok, traceback, hang, memory,
crash, outside = an API exception outside BinlogkitError) and the first bad
cases; the bad inputs stay in the work directory.  Exit status 1 when any run
was bad.  The mutator and the runners are tests/fuzz.py (its fast slice is
tests/test_fuzz.py).
"""
import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import fuzz  # noqa: E402


def _chunk(spec):
    """One chunk of the campaign (in a pool process): (inputs, counts, bad runs)."""
    first, n, seed, workdir, peer, report_every = spec
    Path(workdir).mkdir(parents=True, exist_ok=True)
    campaign = fuzz.Campaign(n, seed * 100_003 + first, workdir, peer=peer,
                             report_every=report_every)
    counts, found = campaign.run()
    return n, dict(counts), found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", default=None, help="where inputs are written (default: a temp dir)")
    ap.add_argument("--no-peer", action="store_true", help="leave ../shared/peer out of the corpus")
    ap.add_argument("--chunk", type=int, default=250, help="inputs per progress line")
    ap.add_argument("--jobs", type=int, default=1, help="chunks run at once")
    ap.add_argument("--report-every", type=int, default=5,
                    help="every N-th input also goes through report")
    args = ap.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="binlogkit-fuzz-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    total, bad = {}, []
    chunks = [(first, min(args.chunk, args.count - first), args.seed, str(workdir / f"{first:07d}"),
               not args.no_peer, args.report_every) for first in range(0, args.count, args.chunk)]
    done = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for n, counts, found in pool.map(_chunk, chunks):
            for key, value in counts.items():
                total[key] = total.get(key, 0) + value
            bad += found
            done += n
            for b in found:
                print(f"BAD {b['run']} {b['verdict']} {b['input']}\n{b['detail']}", flush=True)
            print(f"{done} inputs, {len(bad)} bad, {time.monotonic() - started:.0f} s", flush=True)
    print(json.dumps(dict(sorted(total.items())), indent=1))
    verdicts = {}
    for key, value in total.items():
        what, verdict = key.split(":")
        if what != "inputs":
            verdicts[verdict] = verdicts.get(verdict, 0) + value
    print(f"inputs: {sum(v for k, v in total.items() if k.startswith('inputs:'))}  runs: "
          f"{sum(verdicts.values())}  " + "  ".join(f"{k}: {v}" for k, v in sorted(verdicts.items())))
    print(f"seed {args.seed}, workdir {workdir}, {time.monotonic() - started:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

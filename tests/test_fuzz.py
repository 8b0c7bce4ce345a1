"""A fixed-seed slice of the fuzz campaign (tests/fuzz.py; the long run is bench/fuzz.py).

120 mutated binlogs and slow logs of the committed fixtures (the peer data
is left out so that the slice is the same everywhere) through print (every
option set, in turn), slowlog digest, report and the Python API, each process
under a 1 GiB address-space limit and a timeout: no traceback, no hang, no
memory error, no exception outside BinlogkitError.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz  # noqa: E402

SEED = 13
COUNT = 120


def test_mutator_is_deterministic_and_mutates():
    binlogs, slowlogs = fuzz.corpus(peer=False)
    base = fuzz._plain(binlogs[0])
    first = [fuzz.Mutator(SEED * 1_000_003 + n).binlog(base) for n in range(20)]
    again = [fuzz.Mutator(SEED * 1_000_003 + n).binlog(base) for n in range(20)]
    assert first == again
    assert all(m != base for m in first)
    assert any(len(m) != len(base) for m in first)      # truncations and duplicated chunks
    logs = [fuzz.Mutator(n).slowlog(fuzz._plain(slowlogs[0])) for n in range(40)]
    assert any(m[:2] == b"\x1f\x8b" for m in logs)      # compressed ones too


def test_fuzz_slice(tmp_path):
    campaign = fuzz.Campaign(COUNT, SEED, tmp_path, peer=False, report_every=6, api_batch=60)
    counts, bad = campaign.run()
    assert counts["inputs:binlog"] + counts["inputs:slowlog"] == COUNT
    assert counts["inputs:binlog"] >= COUNT // 3 and counts["inputs:slowlog"] >= COUNT // 6
    assert sum(v for k, v in counts.items() if k.startswith("print:")) == counts["inputs:binlog"]
    assert bad == [], "\n\n".join(f"{b['run']} {b['verdict']} {b['input']}\n{b['detail']}"
                                  for b in bad[:5])

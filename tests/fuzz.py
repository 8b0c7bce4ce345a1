"""Seeded mutation fuzzing of binlogkit (issue 13): hostile input never crashes,
never hangs, never eats memory, and the Python API raises only BinlogkitError.

A `Mutator` damages copies of real inputs (the binlog fixtures of both
flavors, the slow-log fixtures, and ../shared/peer when present): flipped
bits, random bytes, interesting values in length fields, truncation,
duplicated chunks; slow logs also line-wise (absurd numbers and times) and
compressed.  Each mutated input then goes through

* `binlogkit print` with one of `PRINT_OPTION_SETS` (in turn),
* `binlogkit slowlog digest` and, every few inputs, `binlogkit report`,
* the Python API (BinlogReader + decode_event, iter_rows_events with their
  rows, events_frame, transactions_frame; parse_slowlog, slowlog_frame),
  many inputs per worker process,

every process under a 1 GiB address-space limit and a timeout.  A result is
bad when stderr holds a traceback, a run times out, a process dies of a
signal or of memory, or the API raises something outside BinlogkitError.

tests/test_fuzz.py runs a small fixed-seed slice; bench/fuzz.py the long run.
"""
import bz2
import gzip
import json
import lzma
import os
import random
import resource
import signal
import struct
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "peer"
LAB = ROOT / "fixtures" / "lab"
MEMORY_LIMIT = 1 << 30
CLI_TIMEOUT = 60
API_TIMEOUT = 30        # per input, inside a worker
MAX_BASE = 128 << 10    # inputs are cut to this many bytes before mutating
BINLOG_MAGIC = b"\xfebin"

PRINT_OPTION_SETS = (
    (),
    ("-v",),
    ("-vv", "--base64-output=decode-rows"),
    ("--hexdump",),
    ("--short-form",),
    ("--flashback",),
    ("--start-position=START",),
    ("-vv", "--print-table-metadata", "--verify-binlog-checksum"),
)
INTERESTING_32 = (0, 1, 18, 19, 20, 23, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000,
                  0x7FFFFFFF, 0x80000000, 0xFFFFFFF0, 0xFFFFFFFF)
ABSURD_NUMBERS = (b"99999999999999999999999", b"1e308", b"1e999", b"-1", b"nan", b"inf",
                  b"0", b"18446744073709551616", b"-9223372036854775809", b"1.5.3")
ABSURD_TIMES = (b"# Time: 9999-12-31T23:59:59.999999+99:99", b"# Time: 0000-00-00T00:00:00",
                b"# Time: 991399 99:99:99", b"# Time: 1-01-01T00:00:00Z",
                b"SET timestamp=99999999999999999;", b"SET timestamp=-5;",
                b"# Time: 2262-04-12T00:00:00.000000Z", b"# Time: 1677-01-01T00:00:00Z")


# -- the corpus ---------------------------------------------------------------------------

def _is_binlog(path):
    with open(path, "rb") as f:
        return f.read(4) == BINLOG_MAGIC


def corpus(peer=True):
    """(binlogs, slowlogs): the seed files, sorted (the peer's only when present)."""
    binlogs = [p for p in sorted((ROOT / "fixtures" / "binlog").rglob("*"))
               if p.is_file() and "bad" not in p.parts and _is_binlog(p)]
    slowlogs = [p for p in sorted((ROOT / "fixtures" / "slowlog").glob("*.log"))]
    if peer and (PEER / "mysql-binlogs").is_dir():
        binlogs += [p for p in sorted((PEER / "mysql-binlogs").rglob("*"))
                    if p.is_file() and _is_binlog(p)]
    if peer and (PEER / "slowlogs").is_dir():
        slowlogs += [p for p in sorted((PEER / "slowlogs").rglob("*"))
                     if p.is_file() and p.suffix in (".txt", ".log", ".gz")]
    return binlogs, slowlogs


def _plain(path):
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            pass
    return data[:MAX_BASE]


# -- mutations ----------------------------------------------------------------------------

def event_offsets(data):
    """Offsets of the event headers of a binlog (as far as its sizes lead)."""
    out, pos = [], 4
    while pos + 19 <= len(data) and len(out) < 100_000:
        out.append(pos)
        size = struct.unpack_from("<I", data, pos + 9)[0]
        if size < 19:
            break
        pos += size
    return out


class Mutator:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def bits(self, data):
        for _ in range(self.rng.randint(1, 8)):
            i = self.rng.randrange(len(data))
            data[i] ^= 1 << self.rng.randrange(8)
        return data

    def bytes_(self, data):
        for _ in range(self.rng.randint(1, 8)):
            data[self.rng.randrange(len(data))] = self.rng.choice((0, 0xFF, self.rng.randrange(256)))
        return data

    def truncate(self, data):
        return data[:self.rng.randrange(len(data))]

    def duplicate(self, data):
        start = self.rng.randrange(len(data))
        chunk = data[start:start + self.rng.randint(1, 512)]
        at = self.rng.randrange(len(data) + 1)
        return data[:at] + chunk * self.rng.randint(1, 3) + data[at:]

    def delete(self, data):
        start = self.rng.randrange(len(data))
        return data[:start] + data[start + self.rng.randint(1, 256):]

    def length_field(self, data):
        """An interesting value in an event's size or in a field of its body."""
        rng = self.rng
        offsets = event_offsets(data)
        value = rng.choice(INTERESTING_32 + (rng.randrange(1 << 32),))
        if offsets and rng.random() < 0.4:
            pos = rng.choice(offsets)
            field = rng.choice((9, 9, 13, 4))       # event_size, log_pos, type code
            if field == 4:
                data[pos + 4] = rng.randrange(256)
            else:
                struct.pack_into("<I", data, pos + field, value)
            return data
        if offsets:
            pos = rng.choice(offsets)
            size = struct.unpack_from("<I", data, pos + 9)[0]
            i = pos + 19 + rng.randrange(max(min(size, len(data) - pos) - 19, 1))
        else:
            i = rng.randrange(len(data))
        width = rng.choice((1, 2, 4, 8))
        if i + width > len(data):
            return self.bits(data)
        data[i:i + width] = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
        return data

    def binlog(self, base):
        data = bytearray(base)
        ops = (self.bits, self.bytes_, self.length_field, self.length_field, self.truncate,
               self.duplicate, self.delete)
        for _ in range(self.rng.choice((1, 1, 1, 2, 3))):
            if len(data) <= 4:
                break
            data = self.rng.choice(ops)(data)
        return bytes(data)

    def slow_lines(self, data):
        rng = self.rng
        lines = data.split(b"\n")
        for _ in range(rng.randint(1, 4)):
            if not lines:
                lines = [b""]
            i = rng.randrange(len(lines))
            op = rng.randrange(4)
            if op == 0:
                lines.insert(i, rng.choice(ABSURD_TIMES))
            elif op == 1:       # a number of the line made absurd
                words = lines[i].split(b" ")
                nums = [k for k, w in enumerate(words) if w[:1].isdigit()]
                if nums:
                    words[rng.choice(nums)] = rng.choice(ABSURD_NUMBERS)
                lines[i] = b" ".join(words)
            elif op == 2:
                lines[i:i] = lines[i:i + rng.randint(1, 20)]
            else:
                del lines[i:i + rng.randint(1, 5)]
        return bytearray(b"\n".join(lines))

    def slowlog(self, base):
        data = bytearray(base)
        rng = self.rng
        if len(data) < 2:
            return bytes(data)
        data = rng.choice((self.slow_lines, self.slow_lines, self.bits, self.bytes_,
                           self.truncate, self.duplicate))(data) or bytearray(b"#")
        roll = rng.random()
        if roll < 0.25:         # compressed, and maybe the compressed bytes damaged
            pack = rng.choice((gzip.compress, bz2.compress, lzma.compress))
            data = bytearray(pack(bytes(data)))
            if rng.random() < 0.7:
                data = rng.choice((self.bits, self.truncate, self.bytes_))(data)
        return bytes(data)


# -- running --------------------------------------------------------------------------------

def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    os.nice(0)


def _classify_process(returncode, stderr, timed_out):
    if timed_out:
        return "hang"
    text = stderr.decode("utf-8", "replace")
    if "Traceback (most recent call last)" in text:
        return "traceback"
    if "MemoryError" in text or "Fatal Python error" in text:
        return "memory"
    if returncode < 0 or returncode not in (0, 1, 2, 3):
        return "crash"
    return "ok"


def run_cli(args, timeout=CLI_TIMEOUT, env=None):
    """(verdict, stderr tail) of one binlogkit command under the limits."""
    argv = [sys.executable, "-m", "binlogkit", *args]
    # LOAD DATA temp files (SQL_LOAD_MB-*) of mutated binlogs go to a directory of the run's own
    with tempfile.TemporaryDirectory(prefix="binlogkit-fuzz-run-") as tmp:
        env = dict(os.environ if env is None else env, TMPDIR=tmp)
        try:
            proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, timeout=timeout, preexec_fn=_limit,
                                  cwd=ROOT, env=env)
        except subprocess.TimeoutExpired:
            return "hang", ""
    verdict = _classify_process(proc.returncode, proc.stderr, False)
    return verdict, proc.stderr.decode("utf-8", "replace")[-600:]


def print_args(options, path, data):
    args = []
    for opt in options:
        if opt == "--start-position=START":
            offsets = event_offsets(data)[1:] or [4]
            rng = random.Random(len(data))
            opt = f"--start-position={rng.choice(offsets + [rng.randrange(max(len(data), 5))])}"
        args.append(opt)
    return ["print", *args, str(path)]


def run_api(items, timeout=API_TIMEOUT):
    """{path: (verdict, detail)} for [(kind, path)] run through the API in workers."""
    results = {}
    todo = list(items)
    while todo:
        with tempfile.NamedTemporaryFile("w+", suffix=".jsonl") as out:
            argv = [sys.executable, str(Path(__file__).resolve()), "--api-worker", str(timeout)]
            feed = "".join(f"{kind}\t{path}\n" for kind, path in todo)
            try:
                proc = subprocess.run(argv, input=feed.encode(), stdout=out, stderr=subprocess.PIPE,
                                      timeout=timeout * len(todo) + 60, preexec_fn=_limit,
                                      cwd=ROOT)
                died = proc.returncode != 0
                stderr = proc.stderr.decode("utf-8", "replace")[-600:]
            except subprocess.TimeoutExpired:
                died, stderr = "hang", ""
            out.seek(0)
            started = None
            for line in out:
                rec = json.loads(line)
                if rec["event"] == "begin":
                    started = rec["path"]
                else:
                    results[rec["path"]] = (rec["verdict"], rec["detail"])
                    started = None
        done = set(results)
        if started is not None:     # the worker died (or hung) on this one
            verdict = "hang" if died == "hang" else (
                "memory" if "MemoryError" in stderr else "crash")
            results[started] = (verdict, stderr)
            done.add(started)
        elif died and not all(p in done for _, p in todo):
            results[todo[0][1]] = ("crash", stderr)
            done.add(todo[0][1])
        todo = [(k, p) for k, p in todo if p not in done]
    return results


def _api_binlog(path):
    from binlogkit.analysis.frames import events_frame, transactions_frame
    from binlogkit.binlog.events import decode_event
    from binlogkit.binlog.reader import BinlogReader
    from binlogkit.binlog.rowevents import iter_rows_events

    def walk():
        with BinlogReader(path) as reader:
            reader.read_magic()
            for raw in reader.events():
                decode_event(raw, reader.fde, reader.display_name)

    def rows():
        for ev in iter_rows_events(path):
            if ev.rows is not None:
                for _ in ev.rows:
                    pass

    return (walk, rows, lambda: events_frame(path, query=True), lambda: transactions_frame(path))


def _api_slowlog(path):
    from binlogkit.analysis.frames import slowlog_frame
    from binlogkit.slowlog.parser import parse_slowlog

    def parse():
        for _ in parse_slowlog([path], zone="UTC"):
            pass

    return (parse, lambda: slowlog_frame(path, server_tz="UTC"))


class _Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise _Hang()


def api_worker(timeout):
    """Read `kind\\tpath` lines; one JSON line before and after each input."""
    from binlogkit.errors import BinlogkitError
    signal.signal(signal.SIGALRM, _alarm)
    for line in sys.stdin:
        kind, path = line.rstrip("\n").split("\t")
        print(json.dumps({"event": "begin", "path": path}), flush=True)
        verdict, detail = "ok", ""
        steps = _api_binlog(path) if kind == "binlog" else _api_slowlog(path)
        signal.alarm(timeout)
        try:
            for step in steps:
                try:
                    step()
                except BinlogkitError:
                    pass
                except MemoryError:
                    verdict, detail = "memory", f"{step.__name__}"
                    break
                except Exception as exc:    # noqa: BLE001  what the harness looks for
                    import traceback
                    verdict = "outside"
                    detail = "".join(traceback.format_exception(exc)[-3:])[-600:]
                    break
        except _Hang:
            verdict, detail = "hang", "alarm"
        finally:
            signal.alarm(0)
        print(json.dumps({"event": "end", "path": path, "verdict": verdict, "detail": detail}),
              flush=True)


# -- a campaign -------------------------------------------------------------------------------

class Campaign:
    """`count` mutated inputs from `seed`: every input through the API, each binlog
    through one print option set (in turn), each slow log through digest, and
    every `report_every`-th input through report as well."""

    def __init__(self, count, seed, workdir, *, peer=True, report_every=5, api_batch=50,
                 log=None):
        self.count, self.seed, self.workdir = count, seed, Path(workdir)
        self.binlogs, self.slowlogs = corpus(peer)
        self.report_every, self.api_batch, self.log = report_every, api_batch, log
        self.counts = Counter()
        self.bad = []
        self._bases = {}

    def _base(self, path):
        got = self._bases.get(path)
        if got is None:
            got = self._bases[path] = _plain(path)
        return got

    def _record(self, what, path, verdict, detail):
        self.counts[f"{what}:{verdict}"] += 1
        if verdict != "ok":
            self.bad.append({"run": what, "input": str(path), "verdict": verdict,
                             "detail": detail})
            if self.log:
                self.log(f"BAD {what} {verdict} {path}\n{detail}")

    def inputs(self):
        """[(kind, path, data)] of the campaign, written to workdir."""
        rng = random.Random(self.seed)
        out = []
        for n in range(self.count):
            mut = Mutator(self.seed * 1_000_003 + n)
            kind = "binlog" if rng.random() < 0.6 else "slowlog"
            source = rng.choice(self.binlogs if kind == "binlog" else self.slowlogs)
            base = self._base(source)
            data = mut.binlog(base) if kind == "binlog" else mut.slowlog(base)
            path = self.workdir / f"{n:06d}.{'bin' if kind == 'binlog' else 'log'}"
            path.write_bytes(data)
            out.append((kind, path, data, source))
        return out

    def run(self):
        items = self.inputs()
        lab_binlogs = [str(p) for p in sorted(LAB.glob("mariadb-bin.*"))]
        lab_slowlog = str(LAB / "slow.log.gz")
        for start in range(0, len(items), self.api_batch):
            batch = items[start:start + self.api_batch]
            api = run_api([(kind, str(path)) for kind, path, _, _ in batch])
            for n, (kind, path, data, source) in enumerate(batch, start):
                verdict, detail = api.get(str(path), ("ok", ""))
                self._record("api", path, verdict, detail)
                if kind == "binlog":
                    options = PRINT_OPTION_SETS[n % len(PRINT_OPTION_SETS)]
                    self._record("print", path, *run_cli(print_args(options, path, data)))
                    if n % self.report_every == 0:
                        self._record("report", path, *run_cli(
                            ["report", "--binlog", str(path), "--slowlog", lab_slowlog,
                             "--server-tz", "UTC"]))
                else:
                    self._record("digest", path, *run_cli(["slowlog", "digest", str(path)]))
                    if n % self.report_every == 0:
                        self._record("report", path, *run_cli(
                            ["report", "--binlog", *lab_binlogs, "--slowlog", str(path),
                             "--server-tz", "UTC"]))
                self.counts[f"inputs:{kind}"] += 1
                if not any(b["input"] == str(path) for b in self.bad[-4:]):
                    path.unlink()       # bad inputs stay in workdir, to reproduce
        return self.counts, self.bad


if __name__ == "__main__" and sys.argv[1:2] == ["--api-worker"]:
    sys.path.insert(0, str(ROOT))
    api_worker(int(sys.argv[2]))

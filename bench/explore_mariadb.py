#!/usr/bin/env python3
"""Differential exploration: `binlogkit print` against the real mariadb-binlog on
binlogs the fixtures never saw.  Not part of the test suite (takes minutes).

    python bench/explore_mariadb.py                      # build every scenario, compare all
    python bench/explore_mariadb.py --scenarios row_full --features random_types --options v,vv
    python bench/explore_mariadb.py --compare-only       # reuse the binlogs of the last build
    python bench/explore_mariadb.py --list               # scenarios, features, options

1. build: for every scenario a throw-away server (binlogkit/lab/server.py) with
   its own settings runs a seeded, randomised workload (bench/explore_workload.py;
   one client session per feature; a feature the server refuses is recorded, not
   fatal), with restarts, crashes, FLUSH LOGS and rotations as the scenario says;
   the binlogs land in OUT/<scenario>/binlog/, the SQL each feature ran in
   OUT/<scenario>/sql/.
2. compare: for every scenario and every option of the matrix (positions,
   datetimes, GTIDs, ids and names picked from the binlogs themselves), under
   TZ=UTC and TZ=America/New_York, LC_ALL=C, both tools run on the same files;
   stdout (temp paths masked as tests/oracle.py does), stderr and exit status are
   compared.  OUT/results.jsonl has one line per run, OUT/diffs/ the diffs.
3. summary: every changed block of every mismatch, normalised (digits, quoted
   strings, base64) and grouped, with the options and scenarios it came from
   (OUT/summary.txt).

Minimising a finding: --sql FILE runs only the setup feature and that file, --set
VAR=VALUE changes a server option, --options/--tz narrow the matrix, --out keeps the
run apart.  --snapshot REV compares a private copy of a committed revision instead of
the shared work tree.  Findings and reproducers: bench/explore_findings.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import difflib
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zoneinfo
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "fixtures"))

from binlogkit.lab.server import MariaDBServer, find_binary, server_available  # noqa: E402
import walk  # noqa: E402  (fixtures/walk.py: header walker, no binlogkit code)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explore_workload import FEATURES, ROW_FEATURES, SMALL, feature  # noqa: E402

MARIADB_BINLOG = find_binary("mariadb-binlog", "mysqlbinlog") or "/usr/bin/mariadb-binlog"
BASE = "mariadb-bin"
CLIENT_ARGS = ["--local-infile=1", "--default-character-set=utf8mb4"]
ZONES = ["UTC", "America/New_York"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ===================================================================== scenarios
COMMON = {"log_bin": BASE, "server_id": 1, "local_infile": "ON", "character_set_server": "utf8mb4",
          "collation_server": "utf8mb4_general_ci", "max_binlog_size": 64 * 1024 * 1024}
SCENARIOS = {
    "row_full": {"options": {"binlog_format": "ROW", "binlog_row_image": "FULL", "binlog_row_metadata": "FULL",
                             "binlog_checksum": "CRC32"}, "features": ROW_FEATURES},
    "row_minimal": {"options": {"binlog_format": "ROW", "binlog_row_image": "MINIMAL",
                                "binlog_row_metadata": "MINIMAL", "binlog_checksum": "NONE"},
                    "features": SMALL + ["generated_invisible", "system_versioned", "big_trx", "ddl_misc",
                                         "incident", "old_temporal", "gtid_seq_wrap"]},
    "row_noblob": {"options": {"binlog_format": "ROW", "binlog_row_image": "NOBLOB", "binlog_row_metadata": "NO_LOG",
                               "binlog_annotate_row_events": "OFF", "binlog_row_event_max_size": 1024},
                   "features": SMALL + ["generated_invisible", "partitioned", "load_data"]},
    "statement": {"options": {"binlog_format": "STATEMENT", "binlog_checksum": "CRC32"},
                  "features": ROW_FEATURES + ["flush_logs", "collation_uca1400"], "stop": True},
    "mixed_compressed": {"options": {"binlog_format": "MIXED", "log_bin_compress": "ON", "log_bin_compress_min_len": 10,
                                     "binlog_row_metadata": "FULL"},
                         "features": ROW_FEATURES, "stop": True},
    "row_compressed": {"options": {"binlog_format": "ROW", "log_bin_compress": "ON", "log_bin_compress_min_len": 10,
                                   "binlog_checksum": "NONE", "binlog_row_image": "MINIMAL"},
                       "features": SMALL + ["big_trx", "long_query", "load_data", "old_temporal", "incident",
                                            "odd_query_bytes"]},
    "rotations": {"options": {"binlog_format": "MIXED", "max_binlog_size": 4096, "server_id": 4294967295,
                              "gtid_domain_id": 7, "binlog_alter_two_phase": "ON"},
                  "features": ["setup", "many_small_trx", "restart", "multi_table", "flush_logs", "crash",
                               "gtid_changes", "checksum_switch", "xa", "ddl_misc", "restart", "upsert"]},
    "do_db": {"options": {"binlog_format": "MIXED", "binlog_do_db": "d1"},
              "features": ["setup", "multi_table", "user_vars", "odd_names", "session_vars"]},
    "encrypted": {"options": {"binlog_format": "ROW", "encrypt_binlog": "ON", "plugin_load_add": "file_key_management",
                              "file_key_management_filename": "{KEYFILE}"},
                  "features": ["setup", "multi_table", "xa", "upsert"], "stop": True},
}


def build_scenario(name, cfg, out_dir: Path, rng_seed: int, features=None) -> dict:
    sdir = out_dir / name
    shutil.rmtree(sdir, ignore_errors=True)
    (sdir / "binlog").mkdir(parents=True)
    (sdir / "sql").mkdir()
    keyfile = sdir / "keys.txt"
    keyfile.write_text("1;" + "a7" * 32 + "\n")
    opts = dict(COMMON, **{k: (str(keyfile) if v == "{KEYFILE}" else v) for k, v in cfg["options"].items()})
    rng = random.Random(f"{rng_seed}:{name}")
    notes = {"refused": [], "notes": [], "features": []}
    ctx = {"loaddir": sdir / "load", "notes": notes["notes"]}
    wanted = cfg["features"] if features is None else ["setup"] + [f for f in features if f != "setup"]
    with MariaDBServer(options=opts, env={"TZ": "UTC", "LC_ALL": "C"}) as srv:
        tzsql = subprocess.run([find_binary("mariadb-tzinfo-to-sql", "mysql_tzinfo_to_sql"),
                                "/usr/share/zoneinfo/Europe/Berlin", "Europe/Berlin"],
                               capture_output=True, check=True).stdout
        srv.sql(b"SET SESSION sql_log_bin = 0;\n" + tzsql, database="mysql")   # not binlogged
        for i, fname in enumerate(wanted):
            fn = FEATURES[fname]
            notes["features"].append(fname)
            log(f"  [{name}] {fname}")
            try:
                if fn.python:
                    fn(srv, rng, ctx)
                    continue
                text = fn(rng, ctx)
                data = text.encode() if isinstance(text, str) else text
                (sdir / "sql" / f"{i:02d}_{fname}.sql").write_bytes(data)
                srv.sql(data, extra_args=CLIENT_ARGS)
            except Exception as e:  # a refused feature is a note, not fatal
                msg = str(e).strip().splitlines()
                notes["refused"].append(f"{fname}: {msg[-1] if msg else e!r}")
        if cfg.get("stop"):
            srv.stop()
        for f in srv.binlog_files():
            shutil.copyfile(f, sdir / "binlog" / f.name)
    (sdir / "notes.json").write_text(json.dumps(notes, indent=1) + "\n")
    return notes


# ===================================================================== option matrix
def events_of(path: Path):
    data = path.read_bytes()
    try:
        return data, list(walk.walk(data))
    except ValueError:
        return data, []


def gtids_of(files):
    out = []
    for f in files:
        data, evs = events_of(f)
        for off, ts, typ, sid, size, log_pos, flags in evs:
            if typ == 162:
                seq, dom = struct.unpack_from("<QI", data, off + 19)
                out.append((dom, sid, seq))
    return out


def local_text(epoch: int, tz: str) -> str:
    return _dt.datetime.fromtimestamp(epoch, zoneinfo.ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M:%S")


def option_matrix(files: list[Path], tz: str, only=None):
    """(name, args, files) triples for one scenario under one zone."""
    first, last = files[0], files[-1]
    _, ev1 = events_of(first)
    _, evl = events_of(last)
    allev = [(f, e) for f in files for e in events_of(f)[1]]
    sids = Counter(e[3] for _, e in allev)
    gt = gtids_of(files)
    doms = sorted({g[0] for g in gt})
    m = [("default", [], files), ("v", ["-v"], files), ("vv", ["-vv"], files),
         ("vv_decode_rows", ["-vv", "--base64-output=decode-rows"], files),
         ("decode_rows", ["--base64-output=decode-rows"], files),
         ("hexdump", ["--hexdump"], files), ("short_form", ["--short-form"], files),
         ("base64_never", ["--base64-output=never"], files),
         ("print_table_metadata", ["--print-table-metadata"], files),
         ("verify_checksum", ["--verify-binlog-checksum"], files),
         ("skip_annotate", ["--skip-annotate-row-events"], files),
         ("vv_skip_annotate_no_pos", ["-vv", "--skip-annotate-row-events", "--skip-print-row-count",
                                      "--skip-print-row-event-positions"], files),
         ("flashback", ["--flashback"], files), ("flashback_vv", ["--flashback", "-vv"], files),
         ("rewrite_db", ["--rewrite-db=d1->x1"], files), ("database_d1", ["--database=d1"], files),
         ("database_d1_v", ["--database=d1", "-v"], files), ("database_odd", ["--database=odd`name"], files),
         ("table_t", ["--table=t"], files), ("table_t_v", ["--table=t", "-v"], files),
         ("disable_log_bin", ["--disable-log-bin"], files), ("set_charset", ["--set-charset=latin1"], files),
         ("offset", [f"--offset={len(allev) // 3}"], files), ("stdin", ["-"], [first]),
         ("vvv", ["-vvv"], files), ("hexdump_vv", ["--hexdump", "-vv"], files),
         ("short_form_v", ["--short-form", "-v"], files), ("local_load", ["--local-load={LOCAL}"], files),
         ("rewrite_db_v", ["--rewrite-db=d1->x1", "-v"], files),
         ("skip_annotate_v", ["--skip-annotate-row-events", "-v"], files),
         ("database_table_v", ["--database=d1", "--table=t", "-v"], files),
         ("two_databases", ["--database=d1", "--database=d2"], files),
         ("force_if_open_0", ["--force-if-open=0"], [last])]
    if len(ev1) > 6:
        mid, mid2 = ev1[len(ev1) // 3][0], ev1[2 * len(ev1) // 3][0]
        m += [("start_position", [f"--start-position={mid}"], files),
              ("start_position_mid_header", [f"--start-position={mid + 7}"], [first]),
              ("stop_position", [f"--stop-position={mid2}"], [first]),
              ("stop_position_mid", [f"--stop-position={mid2 + 5}"], [first]),
              ("start_stop_v", [f"--start-position={mid}", f"--stop-position={mid2}", "-v"], [first])]
    if len(evl) > 6 and len(files) > 1:
        m.append(("stop_position_last", [f"--stop-position={evl[len(evl) // 2][0]}"], files))
    prng = random.Random(f"{first}:{len(ev1)}")
    if len(ev1) > 6:
        for k, e in enumerate(sorted(prng.sample(ev1[2:], min(5, len(ev1) - 2)))):
            m.append((f"start_position_rand{k}", [f"--start-position={e[0]}", "-v"], [first]))
        for k, e in enumerate(sorted(prng.sample(ev1[2:], min(5, len(ev1) - 2)))):
            m.append((f"stop_position_rand{k}", [f"--stop-position={e[0]}", "-v"], [first]))
        m.append(("stop_position_beyond", [f"--stop-position={first.stat().st_size + 1000}"], [first]))
        # LOAD DATA events (BEGIN_LOAD_QUERY, APPEND_BLOCK, EXECUTE_LOAD_QUERY): start / stop on them
        loads = [e for e in ev1 if e[2] in (9, 17, 18)]
        for k, e in enumerate(loads[:4] + loads[-2:]):
            m.append((f"load_start{k}", [f"--start-position={e[0]}", "--local-load={LOCAL}"], [first]))
            m.append((f"load_stop{k}", [f"--stop-position={e[0]}", "--local-load={LOCAL}"], [first]))
        if loads:
            m.append(("load_offset", [f"--offset={ev1.index(loads[1 if len(loads) > 1 else 0])}",
                                      "--local-load={LOCAL}"], [first]))
            m.append(("load_database_d2", ["--database=d2", "--local-load={LOCAL}"], [first]))
            m.append(("load_short_form", ["--short-form", "--local-load={LOCAL}"], [first]))
    for k in range(3):
        m.append((f"offset_rand{k}", [f"--offset={prng.randrange(max(1, len(allev)))}"], files))
    stamps = sorted({e[1] for _, e in allev if e[1] > 1})
    if len(stamps) > 2:
        a, b = stamps[len(stamps) // 3], stamps[2 * len(stamps) // 3]
        m += [("start_datetime", [f"--start-datetime={local_text(a, tz)}"], files),
              ("stop_datetime", [f"--stop-datetime={local_text(b, tz)}"], files),
              ("start_stop_datetime_vv", [f"--start-datetime={local_text(a, tz)}",
                                          f"--stop-datetime={local_text(b, tz)}", "-vv"], files)]
    if len(sids) > 1:
        sid = [s for s, _ in sids.most_common()][-1]
        m += [("server_id", [f"--server-id={sid}"], files), ("do_server_ids", [f"--do-server-ids={sid}"], files),
              ("ignore_server_ids", [f"--ignore-server-ids={sid}"], files)]
    if gt:
        d, s, n = gt[len(gt) // 2]
        d2, s2, n2 = gt[(3 * len(gt)) // 4]
        m += [("start_position_gtid", [f"--start-position={d}-{s}-{n}"], files),
              ("stop_position_gtid", [f"--stop-position={d2}-{s2}-{n2}"], files)]
        if len(doms) > 1:
            m += [("do_domain_ids", [f"--do-domain-ids={doms[-1]}"], files),
                  ("ignore_domain_ids", [f"--ignore-domain-ids={doms[0]}"], files)]
    if only:
        m = [x for x in m if x[0] in only]
    return m


# ===================================================================== comparison
BINLOGKIT_TREE = ROOT      # where `python -m binlogkit` is imported from (--snapshot: a copy of HEAD)


def make_snapshot(out: Path, rev: str = "HEAD") -> Path:
    """A private copy of a committed revision, C accelerator built in place, so
    that a run never sees other engineers' half-edited files in the work tree."""
    sha = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    d = (out / f"snapshot-{sha[:12]}").resolve()
    if not (d / ".built").exists():
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        arc = subprocess.run(["git", "archive", sha], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(d)], input=arc, check=True)
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=d,
                       capture_output=True)
        (d / ".built").write_text(sha + "\n")
    return d


MASK_PATH = re.compile(rb"/[^'\s]*/(?:xp-(?:mb|bk)-)[A-Za-z0-9_]+")


def run_tool(which: str, args, files, tz: str, tmp_root: Path):
    tmp = Path(tempfile.mkdtemp(prefix=f"xp-{which}-", dir=tmp_root))
    args = [a.replace("{LOCAL}", str(tmp)) for a in args]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": tz, "LC_ALL": "C", "TMPDIR": str(tmp),
           "HOME": str(tmp)}
    stdin = None
    if args and args[-1] == "-":
        stdin = files[0].read_bytes()
        paths = []
    else:
        paths = [str(f) for f in files]
    if which == "mb":
        cmd = [MARIADB_BINLOG, "--no-defaults", *args, *paths]
    else:
        env["PYTHONPATH"] = str(BINLOGKIT_TREE)
        cmd = [sys.executable, "-m", "binlogkit", "print", *args, *paths]
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=600, cwd=BINLOGKIT_TREE,
                           stdin=None if stdin is not None else subprocess.DEVNULL)
        res = (r.stdout, r.stderr, r.returncode)
    except subprocess.TimeoutExpired:
        res = (b"", b"TIMEOUT", -9)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out, err, code = res
    return MASK_PATH.sub(b"<TMP>", out), MASK_PATH.sub(b"<TMP>", err), code, time.monotonic() - t0


def first_diff(a: bytes, b: bytes, context=3, limit=80):
    """(head of the unified diff, [signature line of every changed block])."""
    al, bl = a.decode("latin-1").splitlines(keepends=True), b.decode("latin-1").splitlines(keepends=True)
    lines = list(difflib.unified_diff(al, bl, "mariadb-binlog", "binlogkit", n=context))
    sigs = []
    sm = difflib.SequenceMatcher(None, al, bl)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        old = al[i1].rstrip("\n") if i1 < i2 else ""
        new = bl[j1].rstrip("\n") if j1 < j2 else ""
        sigs.append(f"-{old[:100]} | +{new[:100]}")
        if len(sigs) >= 200:
            break
    return "".join(lines[:limit]), sigs


def signature(name, sig):
    if sig is None:
        return f"{name}: (no line diff)"
    norm = re.sub(r"\d+", "N", sig)
    norm = re.sub(r"'[^']*'", "'S'", norm)
    norm = re.sub(r"0x[0-9a-fA-FN]+", "0xH", norm)
    norm = re.sub(r"[A-Za-z0-9+/=]{60,}", "B64", norm)
    return f"{name}: {norm[:200]}"


def compare(scen, name, args, files, tz, out_dir: Path, tmp_root: Path):
    mo, me, mc, mt = run_tool("mb", args, files, tz, tmp_root)
    bo, be, bc, bt = run_tool("bk", args, files, tz, tmp_root)
    rec = {"scenario": scen, "option": name, "args": args, "files": [f.name for f in files], "tz": tz,
           "exit": [mc, bc], "stdout_same": mo == bo, "stderr_same": me == be, "time": [round(mt, 3), round(bt, 3)],
           "traceback": b"Traceback" in be, "mb_stderr": me.decode(errors="replace")[-400:],
           "bk_stderr": be.decode(errors="replace")[-400:]}
    if not rec["stdout_same"]:
        text, sigs = first_diff(mo, bo)
        rec["signature"] = signature(name, sigs[0] if sigs else None)
        rec["hunks"] = sorted({signature("", x)[2:] for x in sigs})
        d = out_dir / "diffs" / scen
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{name}@{tz.replace('/', '_')}.diff").write_text(text)
        rec["diff_head"] = text[:1500]
    elif mc != bc:
        rec["signature"] = f"{name}: exit {mc} vs {bc}"
    elif not rec["stderr_same"]:
        rec["signature"] = f"{name}: stderr differs"
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(ROOT / "bench" / "work" / "explore"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenarios", default=None, help="comma list (default: all)")
    ap.add_argument("--features", default=None, help="comma list replacing each scenario's features")
    ap.add_argument("--options", default=None, help="comma list of option names (default: all)")
    ap.add_argument("--tz", default=",".join(ZONES))
    ap.add_argument("--sql", default=None, metavar="FILE",
                    help="minimising: run only setup + this SQL file (one client session)")
    ap.add_argument("--set", action="append", default=[], metavar="VAR=VALUE",
                    help="minimising: server option for the scenarios built (repeatable)")
    ap.add_argument("--compare-only", action="store_true")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--snapshot", default=None, metavar="REV",
                    help="compare a private copy of this git revision (e.g. HEAD) instead of the work tree")
    a = ap.parse_args(argv)
    if a.list:
        print("scenarios:", ", ".join(SCENARIOS))
        print("features:", ", ".join(FEATURES))
        print("options:", ", ".join(n for n, _, _ in option_matrix([ROOT / "fixtures/binlog/crc32/mariadb-bin.000002"], "UTC")))
        return 0
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    names = a.scenarios.split(",") if a.scenarios else list(SCENARIOS)
    feats = a.features.split(",") if a.features else None
    if a.sql:
        text = Path(a.sql).read_bytes()
        feature("custom_sql")(lambda rng, ctx: text)
        feats = ["custom_sql"]
    for kv in a.set:
        k, _, v = kv.partition("=")
        for n in names:
            SCENARIOS[n]["options"][k] = v
    if not a.compare_only:
        if not server_available():
            log("mariadbd not installed")
            return 2
        for n in names:
            t0 = time.monotonic()
            notes = build_scenario(n, SCENARIOS[n], out, a.seed, feats)
            log(f"== {n}: built in {time.monotonic() - t0:.0f}s; refused: {notes['refused']}")
    if a.build_only:
        return 0
    global BINLOGKIT_TREE
    if a.snapshot:
        BINLOGKIT_TREE = make_snapshot(out, a.snapshot)
        log(f"binlogkit from {BINLOGKIT_TREE}")
    only = set(a.options.split(",")) if a.options else None
    results = []
    tmp_root = Path(tempfile.mkdtemp(prefix="xp-root-"))
    shutil.rmtree(out / "diffs", ignore_errors=True)
    try:
        for n in names:
            files = sorted((out / n / "binlog").glob(BASE + ".[0-9]*"))
            if not files:
                continue
            for tz in a.tz.split(","):
                for oname, args, fl in option_matrix(files, tz, only):
                    rec = compare(n, oname, args, fl, tz, out, tmp_root)
                    results.append(rec)
                    if "signature" in rec or rec["traceback"]:
                        log(f"  DIFF {n} {oname}@{tz}: {rec.get('signature')}")
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    with open(out / "results.jsonl", "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    groups = defaultdict(list)
    for r in results:
        for h in r.get("hunks") or ([r["signature"]] if "signature" in r else []):
            groups[h].append(f"{r['scenario']}/{r['option']}@{r['tz']}")
    tb = [r for r in results if r["traceback"]]
    print(f"{len(results)} runs, {sum('signature' in r for r in results)} mismatches, "
          f"{len(groups)} distinct changed blocks, {len(tb)} tracebacks")
    summary = []
    for sig, where in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        opts = Counter(w.split("/")[1].split("@")[0] for w in where)
        scen = Counter(w.split("/")[0] for w in where)
        summary.append(f"[{len(where):3d}] {sig}\n       options: {dict(opts.most_common(8))}\n"
                       f"       scenarios: {dict(scen.most_common(9))}")
    (out / "summary.txt").write_text("\n".join(summary) + "\n")
    print("\n".join(summary[:200]))
    mb = sum(r["time"][0] for r in results)
    bk = sum(r["time"][1] for r in results)
    print(f"total wall time: mariadb-binlog {mb:.1f}s, binlogkit {bk:.1f}s (ratio {bk / max(mb, 1e-9):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

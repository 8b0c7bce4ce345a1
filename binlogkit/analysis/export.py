"""Export events, transactions or slow-log entries to Parquet, CSV or JSON lines.

`export(paths, output, what=..., fmt=..., jobs=N)` streams each input file in
chunks of typed frames (`binlogkit.analysis.frames`) into one output file.
With ``jobs > 1`` each file is decoded by a worker process that writes a part
file of its own; the parts are appended to the output in input order as they
complete, so the result is the same as with one job, and a worker holds one
chunk at a time whatever the size of its file.

Columns are those of the frames (see `binlogkit.analysis.frames`).  Slow-log
entries get the fixed columns of `SLOWLOG_DTYPES`: the common ones plus
``attrs``, the entry's other ``Key: value`` attributes (the set of keys varies
from log to log, a file format needs one schema).  ``attrs`` is what
``binlogkit slowlog events`` writes: an object in JSON lines (``{}`` when the
entry has none), keys in log order; CSV and Parquet have no objects, so there
it is that object's JSON text (a string column).
"""
from __future__ import annotations

import os
import resource
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pandas as pd

from binlogkit.analysis import frames as F
from binlogkit.analysis.progress import progress_bar
from binlogkit.analysis.records import chunked
from binlogkit.errors import BinlogError, BinlogkitError

__all__ = ["export", "FORMATS", "WHATS", "SLOWLOG_DTYPES", "file_chunks", "ExportResult"]

FORMATS = ("parquet", "csv", "jsonl")
WHATS = ("events", "transactions", "slowlog")
EXPORT_CHUNK = 50_000

SLOWLOG_DTYPES = {
    "file": "string", "offset": "int64", "line": "int64", "start": F.UTC_NS, "end": F.UTC_NS,
    "ts_inherited": "bool", "user": "string", "host": "string", "ip": "string",
    "db": "string", "cmd": "string", "query_time": "float64", "lock_time": "float64",
    "rows_sent": "Int64", "rows_examined": "Int64", "id": "string", "fingerprint": "string",
    "query": "string", "attrs": "string",
}


def _slowlog_chunks(path, chunk_size, server_tz=None, server_version=None):
    from binlogkit.slowlog.fields import attrs_text, entry_row
    from binlogkit.slowlog.clock import warn_zone
    from binlogkit.slowlog.parser import ParseStats, parse_slowlog
    stats = ParseStats()
    entries = parse_slowlog([path], zone=server_tz, server_version=server_version, stats=stats)
    for chunk in chunked(entries, chunk_size):
        rows = []
        for ev in chunk:
            row = entry_row(ev)
            row["attrs"] = attrs_text(row["attrs"])
            rows.append(row)
        yield _slowlog_frame(rows)
    warn_zone(stats, server_tz)    # times are UTC; say when the server's zone was assumed


# columns holding JSON text that JSON lines write as the value itself (an object)
JSON_COLUMNS = {"events": (), "transactions": (), "slowlog": ("attrs",)}


def _slowlog_frame(rows):
    df = pd.DataFrame(rows, columns=list(SLOWLOG_DTYPES))
    for col in ("start", "end"):
        df[col] = pd.to_datetime(df[col], utc=True, format="ISO8601").astype(F.UTC_NS)
    for col, dtype in SLOWLOG_DTYPES.items():
        if col not in ("start", "end"):
            df[col] = df[col].astype(dtype)
    return df


def file_chunks(path, what="events", *, query=False, chunk_size=EXPORT_CHUNK,
                progress=None, server_tz=None):
    """Typed frames of one input file, `chunk_size` rows at a time."""
    if what == "events":
        return F.events_chunks(path, query=query, chunk_size=chunk_size, progress=progress)
    if what == "transactions":
        return F.transactions_chunks(path, chunk_size=chunk_size, progress=progress)
    if what == "slowlog":
        return _slowlog_chunks(path, chunk_size, server_tz)
    raise ValueError(f"what must be one of {WHATS}, not {what!r}")


def empty_export_frame(what, query=False):
    if what == "slowlog":
        return _slowlog_frame([])
    return F.empty_frame(what, query)


# -- writers -------------------------------------------------------------------------------

CSV_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"   # every time column is UTC


def _text_columns(df):
    """Durations as seconds (float) in text formats; Parquet keeps the duration type."""
    for col in df.columns[(df.dtypes == "timedelta64[ns]").to_numpy()]:
        df = df.assign(**{col: df[col].dt.total_seconds()})
    return df


class _TextWriter:
    """CSV or JSON lines: chunks appended as text; parts concatenated as bytes.
    `json_columns` (the frame's last columns) hold JSON text: CSV writes the text,
    JSON lines the value it spells."""

    def __init__(self, target, fmt, header, json_columns=()):
        self.fmt = fmt
        self.json_columns = tuple(json_columns)
        self.stream = target if hasattr(target, "write") else open(target, "wb")
        self.owned = not hasattr(target, "write")
        if header is not None and fmt == "csv":
            self.stream.write(header.to_csv(index=False).encode())

    def write(self, df):
        df = _text_columns(df)
        if self.fmt == "csv":
            text = df.to_csv(index=False, header=False, date_format=CSV_TIME)
        else:
            text = _json_lines(df, self.json_columns)
        self.stream.write(text.encode("utf-8"))

    def append_part(self, part):
        with open(part, "rb") as src:
            shutil.copyfileobj(src, self.stream, 1 << 20)

    def close(self):
        if self.owned:
            self.stream.close()
        else:
            self.stream.flush()


class _ParquetWriter:
    """Parquet with the schema of the empty frame.  Parts (from workers) are Arrow IPC
    streams of the same chunks, so the output is encoded once, here, as with one job."""

    def __init__(self, target, schema):
        import pyarrow.parquet as pq
        self.schema = schema
        self.writer = pq.ParquetWriter(target, schema, compression="zstd")

    def write(self, df):
        self.writer.write_table(_arrow_table(df, self.schema))

    def append_part(self, part):
        import pyarrow as pa
        with pa.OSFile(part, "rb") as source, pa.ipc.open_stream(source) as reader:
            for batch in reader:
                self.writer.write_table(pa.Table.from_batches([batch], self.schema))

    def close(self):
        self.writer.close()


class _ArrowPartWriter:
    """A worker's part for a Parquet export: the typed chunks as an Arrow IPC stream."""

    def __init__(self, target, schema):
        import pyarrow as pa
        self.schema = schema
        self.sink = pa.OSFile(target, "wb")
        self.writer = pa.ipc.new_stream(self.sink, schema)

    def write(self, df):
        for batch in _arrow_table(df, self.schema).combine_chunks().to_batches():
            self.writer.write_batch(batch)

    def close(self):
        self.writer.close()
        self.sink.close()


def _arrow_table(df, schema):
    import pyarrow as pa
    return pa.Table.from_pandas(df, preserve_index=False).cast(schema)


def arrow_schema(what, query=False):
    """The Parquet schema of an export: the frame's, dictionaries indexed by int32."""
    import pyarrow as pa
    schema = pa.Schema.from_pandas(empty_export_frame(what, query), preserve_index=False)
    fields = []
    for field in schema:
        if pa.types.is_dictionary(field.type):
            field = field.with_type(pa.dictionary(pa.int32(), pa.string()))
        elif pa.types.is_large_string(field.type):
            field = field.with_type(pa.string())
        fields.append(field)
    return pa.schema(fields, metadata=schema.metadata)


def _json_lines(df, json_columns=()):
    """One JSON object per row; the `json_columns` (last in `df`) spliced in as values."""
    if df.empty:
        return ""
    plain = df.drop(columns=list(json_columns)) if json_columns else df
    text = plain.to_json(orient="records", lines=True, date_format="iso",
                         date_unit="us", force_ascii=False)
    # pandas escapes every '/'; an escaped backslash before one stays intact
    text = text.replace("\\/", "/").rstrip("\n")
    if not json_columns:
        return text + "\n"
    lines = text.split("\n")       # not splitlines(): U+2028 may sit raw inside a string
    tails = zip(*(df[c].tolist() for c in json_columns))
    out = []
    for line, values in zip(lines, tails):
        extra = "".join(f',"{c}":{"null" if pd.isna(v) else v}'
                        for c, v in zip(json_columns, values))
        out.append(line[:-1] + extra + "}\n")
    return "".join(out)


def _open_writer(target, fmt, what, query, header=True, part=False):
    if fmt == "parquet":
        cls = _ArrowPartWriter if part else _ParquetWriter
        return cls(target, arrow_schema(what, query))
    if fmt in ("csv", "jsonl"):
        return _TextWriter(target, fmt, empty_export_frame(what, query) if header else None,
                           JSON_COLUMNS[what])
    raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")


# -- one file, in this process or a worker ------------------------------------------------

class ExportResult:
    """What an export did: row count and each worker's peak RSS (KiB)."""

    def __init__(self):
        self.rows = 0
        self.files = 0
        self.peak_rss_kib = {}   # pid -> ru_maxrss of that process
        self.cpu_s = {}          # pid -> CPU seconds of that process

    def as_dict(self):
        rss, cpu = _usage()
        return {"rows": self.rows, "files": self.files,
                "workers": len(self.peak_rss_kib),
                "peak_rss_kib": sorted(self.peak_rss_kib.values()),
                "worker_cpu_s": sorted(round(c, 2) for c in self.cpu_s.values()),
                "main_peak_rss_kib": rss, "main_cpu_s": round(cpu, 2)}


def _write_file(writer, path, what, opts, progress=None):
    rows = 0
    for df in file_chunks(path, what, progress=progress, **opts):
        writer.write(df)
        rows += len(df)
    return rows


def _export_part(path, part, what, fmt, opts):
    """Worker: one input file to one part file.  Errors come back as text
    (BinlogError's keyword arguments do not survive pickling)."""
    writer = _open_writer(part, fmt, what, opts.get("query", False), header=False, part=True)
    rows, error = 0, None
    try:
        rows = _write_file(writer, path, what, opts)
    except BinlogkitError as exc:
        error = str(exc)
    finally:
        writer.close()
    return rows, error, os.getpid(), _usage()


def _usage():
    """(peak RSS KiB, CPU seconds) of this process so far."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def _part_dir(output):
    where = None
    if output not in (None, "-") and not hasattr(output, "write"):
        where = os.path.dirname(os.path.abspath(output))
    return tempfile.mkdtemp(prefix=".binlogkit-export-", dir=where)


def _mp_context():
    """fork (workers start at once) while this process runs no other thread; else spawn."""
    import multiprocessing
    import threading
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return get_context("fork")
    return get_context("spawn")


class _Workers:
    """One task per input file, started before the output is opened (so fork is safe)."""

    def __init__(self, paths, output, what, fmt, jobs, opts):
        self.paths, self.what = paths, what
        self.tmp = _part_dir(output)
        self.parts = [os.path.join(self.tmp, f"part-{i:06d}") for i in range(len(paths))]
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_mp_context())
        self.futures = [self.pool.submit(_export_part, p, part, what, fmt, opts)
                        for p, part in zip(paths, self.parts)]

    def collect(self, writer, result, update):
        """Append each part to `writer` in input order as soon as it is done."""
        for path, part, fut in zip(self.paths, self.parts, self.futures):
            rows, error, pid, (rss, cpu) = fut.result()
            writer.append_part(part)
            os.remove(part)
            result.rows += rows
            result.files += 1
            result.peak_rss_kib[pid] = max(rss, result.peak_rss_kib.get(pid, 0))
            result.cpu_s[pid] = max(cpu, result.cpu_s.get(pid, 0.0))
            if update is not None:
                update(_size(path))
            if error is not None:
                raise (BinlogkitError if self.what == "slowlog" else BinlogError)(error)

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self.tmp, ignore_errors=True)


def _size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def export(paths, output, *, what="events", fmt="parquet", jobs=1, query=False,
           chunk_size=EXPORT_CHUNK, progress=None, server_tz=None):
    """Write the `what` rows of the files `paths` to `output` (a path, or a
    binary stream for csv/jsonl) in format `fmt`; returns an ExportResult.

    On bad input the rows read before the error are written, the output is
    closed, and the BinlogError (or SlowlogError) is raised.
    """
    paths = F.paths_list(paths)
    if what not in WHATS:
        raise ValueError(f"what must be one of {WHATS}, not {what!r}")
    opts = {"chunk_size": chunk_size}
    if what == "events":
        opts["query"] = query
    if what == "slowlog":
        opts["server_tz"] = server_tz
    result = ExportResult()
    jobs = max(1, min(jobs, len(paths)))
    workers = _Workers(paths, output, what, fmt, jobs, opts) if jobs > 1 else None
    try:
        writer = _open_writer(output, fmt, what, query)
        try:
            with progress_bar(paths, enabled=progress, desc="export") as update:
                if workers is not None:
                    workers.collect(writer, result, update)
                else:
                    for path in paths:
                        result.rows += _write_file(writer, path, what, opts, update)
                        result.files += 1
                    rss, cpu = _usage()
                    result.peak_rss_kib[os.getpid()] = rss
                    result.cpu_s[os.getpid()] = cpu
        finally:
            writer.close()
    finally:
        if workers is not None:
            workers.close()
    return result

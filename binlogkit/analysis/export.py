"""Export events, transactions or slow-log entries to Parquet, CSV or JSON lines.

`export(paths, output, what=..., fmt=..., jobs=N)` streams each input file in
chunks of typed frames (`binlogkit.analysis.frames`) into one output file.
With ``jobs > 1`` each file is decoded by a worker process that writes a part
file of its own; the parts are appended to the output in input order as they
complete, so the result is the same as with one job, and a worker holds one
chunk at a time whatever the size of its file.

Columns are those of the frames (see `binlogkit.analysis.frames`).  Slow-log
entries get the fixed columns of `SLOWLOG_DTYPES`: the common ones plus
``attrs``, the entry's other ``Key: value`` attributes as a JSON object (the
set of keys varies from log to log, a file format needs one schema).
"""
from __future__ import annotations

import json
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
    from binlogkit.slowlog.fields import entry_row
    from binlogkit.slowlog.parser import parse_slowlog
    entries = parse_slowlog([path], zone=server_tz, server_version=server_version)
    for chunk in chunked(entries, chunk_size):
        rows = []
        for ev in chunk:
            row = entry_row(ev)
            row["attrs"] = json.dumps(row["attrs"], sort_keys=True) if row["attrs"] else None
            rows.append(row)
        yield _slowlog_frame(rows)


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
    """CSV or JSON lines: chunks appended as text; parts concatenated as bytes."""

    def __init__(self, target, fmt, header):
        self.fmt = fmt
        self.stream = target if hasattr(target, "write") else open(target, "wb")
        self.owned = not hasattr(target, "write")
        if header is not None and fmt == "csv":
            self.stream.write(header.to_csv(index=False).encode())

    def write(self, df):
        df = _text_columns(df)
        if self.fmt == "csv":
            text = df.to_csv(index=False, header=False, date_format=CSV_TIME)
        else:
            text = df.to_json(orient="records", lines=True, date_format="iso",
                              date_unit="us", force_ascii=False)
            # pandas escapes every '/'; an escaped backslash before one stays intact
            text = text.replace("\\/", "/")
            if text and not text.endswith("\n"):
                text += "\n"
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
    """Parquet with the schema of the empty frame; parts are re-read row group by row group."""

    def __init__(self, target, schema):
        import pyarrow.parquet as pq
        self.schema = schema
        self.writer = pq.ParquetWriter(target, schema, compression="zstd")

    def write(self, df):
        import pyarrow as pa
        table = pa.Table.from_pandas(df, preserve_index=False).cast(self.schema)
        self.writer.write_table(table)

    def append_part(self, part):
        import pyarrow.parquet as pq
        pf = pq.ParquetFile(part)
        for i in range(pf.num_row_groups):
            self.writer.write_table(pf.read_row_group(i).cast(self.schema))

    def close(self):
        self.writer.close()


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


def _open_writer(target, fmt, what, query, header=True):
    if fmt == "parquet":
        return _ParquetWriter(target, arrow_schema(what, query))
    if fmt in ("csv", "jsonl"):
        return _TextWriter(target, fmt, empty_export_frame(what, query) if header else None)
    raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")


# -- one file, in this process or a worker ------------------------------------------------

class ExportResult:
    """What an export did: row count and each worker's peak RSS (KiB)."""

    def __init__(self):
        self.rows = 0
        self.files = 0
        self.peak_rss_kib = {}   # pid -> ru_maxrss of that process

    def as_dict(self):
        return {"rows": self.rows, "files": self.files,
                "workers": len(self.peak_rss_kib),
                "peak_rss_kib": sorted(self.peak_rss_kib.values())}


def _write_file(writer, path, what, opts, progress=None):
    rows = 0
    for df in file_chunks(path, what, progress=progress, **opts):
        writer.write(df)
        rows += len(df)
    return rows


def _export_part(path, part, what, fmt, opts):
    """Worker: one input file to one part file.  Errors come back as text
    (BinlogError's keyword arguments do not survive pickling)."""
    writer = _open_writer(part, fmt, what, opts.get("query", False), header=False)
    rows, error = 0, None
    try:
        rows = _write_file(writer, path, what, opts)
    except BinlogkitError as exc:
        error = str(exc)
    finally:
        writer.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rows, error, os.getpid(), rss


def _part_dir(output):
    where = None
    if output not in (None, "-") and not hasattr(output, "write"):
        where = os.path.dirname(os.path.abspath(output))
    return tempfile.mkdtemp(prefix=".binlogkit-export-", dir=where)


def _run_parallel(paths, output, writer, what, fmt, jobs, opts, result, update):
    tmp = _part_dir(output)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"))
    try:
        parts = [os.path.join(tmp, f"part-{i:06d}") for i in range(len(paths))]
        futures = [pool.submit(_export_part, p, part, what, fmt, opts)
                   for p, part in zip(paths, parts)]
        for path, part, fut in zip(paths, parts, futures):
            rows, error, pid, rss = fut.result()
            writer.append_part(part)
            os.remove(part)
            result.rows += rows
            result.files += 1
            result.peak_rss_kib[pid] = max(rss, result.peak_rss_kib.get(pid, 0))
            if update is not None:
                update(_size(path))
            if error is not None:
                raise (BinlogkitError if what == "slowlog" else BinlogError)(error)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(tmp, ignore_errors=True)


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
    writer = _open_writer(output, fmt, what, query)
    try:
        with progress_bar(paths, enabled=progress, desc="export") as update:
            if jobs == 1:
                for path in paths:
                    result.rows += _write_file(writer, path, what, opts, update)
                    result.files += 1
                result.peak_rss_kib[os.getpid()] = resource.getrusage(
                    resource.RUSAGE_SELF).ru_maxrss
            else:
                _run_parallel(paths, output, writer, what, fmt, jobs, opts, result, update)
    finally:
        writer.close()
    return result

"""`binlogkit stats` as pandas frames: one row per (file, table) with the rows and bytes
of each DML type (`dml_frame`), and one row per transaction that changed rows
(`dml_transactions_frame`).  The numbers are `binlogkit.sqlgen.stats.collect`'s."""
import pandas as pd

from binlogkit.sqlgen.stats import KINDS, collect

__all__ = ["dml_frame", "dml_transactions_frame", "DML_DTYPES", "DML_TRANSACTION_DTYPES"]

DML_DTYPES = {"file": "string", "db": "string", "table": "string",
              **{f"{k}_{what}": "int64" for k in KINDS for what in ("rows", "bytes")}}
DML_TRANSACTION_DTYPES = {"file": "string", "start_pos": "int64", "end_pos": "int64",
                          "gtid": "string", "start": "datetime64[ns, UTC]", "rows": "int64",
                          "bytes": "int64", "duration_s": "int64", "tables": "object"}


def _frame(records, dtypes):
    df = pd.DataFrame.from_records(records, columns=list(dtypes))
    if "start" in df:
        df["start"] = pd.to_datetime(df["start"], unit="s", utc=True)
    return df.astype(dtypes)


def dml_frame(paths, **filters):
    """Rows and bytes per (file, table) and DML type.  `filters`: window=, row_filter=
    as `collect` takes them."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    doc = collect([str(p) for p in paths], top=0, **filters)
    return _frame(doc["files"], DML_DTYPES)


def dml_transactions_frame(paths, **filters):
    """One row per transaction that changed rows: position, GTID, start, rows, bytes,
    duration (s, from the event times) and the tables it touched."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    doc = collect([str(p) for p in paths], top=None, **filters)
    df = _frame(doc["transactions"]["biggest"], DML_TRANSACTION_DTYPES)
    return df.sort_values(["file", "start_pos"], kind="stable").reset_index(drop=True)

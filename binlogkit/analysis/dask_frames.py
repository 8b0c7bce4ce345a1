"""The per-file frame functions on Dask: many servers' binlogs, one partition per file.

    from dask.distributed import Client
    from binlogkit.analysis.dask_frames import dask_frame
    client = Client()                       # or a cluster's scheduler address
    ddf = dask_frame(paths, "transactions") # lazy; one partition per binlog file
    ddf.groupby("server_id")["rows"].sum().compute()
    ddf.to_parquet("out/")                  # one Parquet part per file, in parallel

Each partition is `binlogkit.analysis.frames.file_frame(path, what)`: the same
function `binlogkit export --jobs` runs in its worker processes.  Needs the
``dask`` extra (``pip install 'binlogkit[dask]'``).
"""
from __future__ import annotations

import pandas as pd

from binlogkit.analysis import frames as F

__all__ = ["dask_frame"]


def _partition(path, what, file_dtype, kw):
    return F.file_frame(path, what, file_dtype=file_dtype, **kw)


def dask_frame(paths, what="events", **kw):
    """A dask DataFrame of `what` (events or transactions) with one partition per file.

    Columns and dtypes are those of the pandas frames; ``file`` is a category
    of all `paths`.  Keyword arguments go to the per-file function (``query``
    for events, ``chunk_size``).
    """
    import dask.dataframe as dd
    if what not in ("events", "transactions"):
        raise ValueError(f"what must be events or transactions, not {what!r}")
    paths = F.paths_list(paths)
    file_dtype = pd.CategoricalDtype(list(dict.fromkeys(paths)))
    meta = F.empty_frame(what, kw.get("query", False))
    meta["file"] = meta["file"].astype(file_dtype)
    return dd.from_map(_partition, paths, what=what, file_dtype=file_dtype, kw=kw,
                       meta=meta, divisions=[None] * (len(paths) + 1),
                       enforce_metadata=False)

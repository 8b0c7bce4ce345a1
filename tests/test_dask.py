"""The per-file frame function on a local Dask cluster gives the pandas frames."""
from pathlib import Path

import pandas as pd
import pytest

from binlogkit.frames import events_frame, transactions_frame

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
# three "servers": the same workload logged with crc32, no checksums, compression
FILES = sorted(str(p) for s in ("crc32", "none", "compressed")
               for p in (ROOT / "fixtures" / "binlog" / s).glob("mariadb-bin.*"))


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.mark.parametrize("what", ["events", "transactions"])
def test_dask_frame_equals_pandas_frame(client, what):
    from binlogkit.analysis.dask_frames import dask_frame
    ddf = dask_frame(FILES, what)
    assert ddf.npartitions == len(FILES)
    got = client.compute(ddf).result().reset_index(drop=True)
    want = (events_frame if what == "events" else transactions_frame)(FILES)
    pd.testing.assert_frame_equal(got, want)


def test_dask_aggregation_per_file(client):
    from binlogkit.analysis.dask_frames import dask_frame
    ddf = dask_frame(FILES, "transactions")
    got = client.compute(ddf.groupby("file", observed=True)["bytes"].sum()).result()
    want = transactions_frame(FILES).groupby("file", observed=True)["bytes"].sum()
    pd.testing.assert_series_equal(got.sort_index(), want.sort_index())

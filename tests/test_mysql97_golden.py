"""binlogkit print == mysqlbinlog 9.7.4 on the outputs MySQL 9.7's own test suite records.

fixtures/mysql97_golden/ holds mysqlbinlog 9.7.4 outputs cut from the .result files of
Debian's mysql-testsuite 9.7.4 and the std_data binlogs they were made from
(fixtures/gen_mysql97_golden.py; sources in SOURCES.md).  The logs are from 5.x-8.0
servers, so binlogkit is asked for 9.7's text (--mysqlbinlog-version=9.7); each case runs in
MTR's TZ=GMT-3, applies the .test file's masks to binlogkit's output (the expected text is
masked already) and compares bytes.
"""
import json
import pathlib

import pytest

from test_mysql_print_golden import apply_masks, assert_same, hash_lines, run_print

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "fixtures" / "mysql97_golden"
SPEC = json.loads((GOLDEN / "cases.json").read_text())


@pytest.mark.parametrize("case", SPEC["cases"], ids=[c["name"] for c in SPEC["cases"]])
def test_mysql_testsuite_974_result(case, tmp_path):
    path = GOLDEN / case["input"]
    code, out, err = run_print(SPEC["binlogkit_args"] + case["args"], path, case["tz"], tmp_path,
                               case["stdin"])
    assert "Traceback" not in err, err
    actual = apply_masks(out, case["masks"])
    if case["filter"] == "hash_lines":
        actual = hash_lines(actual)
    assert_same((GOLDEN / case["expected"]).read_bytes(), actual, case["name"])
    assert code == case["exit"], f"exit {code}, expected {case['exit']}: {err}"

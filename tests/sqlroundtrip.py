"""Round trips of `binlogkit sql` on real servers (MariaDB and MySQL 9.7).

A schema with every column type (and hostile names) is filled to a snapshot; a
workload (inserts, updates with key changes, deletes, multi-table transactions)
runs under a given binlog_row_image / binlog_row_metadata; then
  * the --flashback SQL applied to the end state must give the snapshot's
    CHECKSUM TABLE values, and
  * the forward SQL applied to the snapshot must give the end state's.
The snapshot is kept in a copy database and restored between the two.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DB = "rt db`;\\x"          # hostile: backquote, semicolon, backslash
T_ALL = "all types"
T_NOKEY = "no key"
T_UNIQ = "uniq"
T_HOSTILE = "t`1; DROP TABLE x; --\n/*"
C_HOSTILE = "c'\"`\\ -- \n;"

_COMMON_COLS = """
  `ti` TINYINT, `tiu` TINYINT UNSIGNED, `si` SMALLINT, `siu` SMALLINT UNSIGNED,
  `mi` MEDIUMINT, `miu` MEDIUMINT UNSIGNED, `i` INT, `iu` INT UNSIGNED,
  `bi` BIGINT, `biu` BIGINT UNSIGNED,
  `d1` DECIMAL(10,2), `d2` DECIMAL(65,30), `d3` DECIMAL(5,0) UNSIGNED,
  `f` FLOAT, `dbl` DOUBLE,
  `b1` BIT(1), `b10` BIT(10), `b64` BIT(64),
  `dt` DATE, `dtm0` DATETIME, `dtm3` DATETIME(3), `dtm6` DATETIME(6),
  `ts0` TIMESTAMP NULL DEFAULT NULL, `ts6` TIMESTAMP(6) NULL DEFAULT NULL,
  `tm` TIME, `tm6` TIME(6), `yr` YEAR,
  `c` CHAR(10) CHARACTER SET utf8mb4, `vc` VARCHAR(300) CHARACTER SET utf8mb4,
  `lat` VARCHAR(20) CHARACTER SET latin1, `u2` VARCHAR(20) CHARACTER SET ucs2,
  `u16` VARCHAR(20) CHARACTER SET utf16, `sj` VARCHAR(20) CHARACTER SET sjis,
  `bn` BINARY(8), `vb` VARBINARY(50), `tb` TINYBLOB, `bl` BLOB, `mb` MEDIUMBLOB,
  `lb` LONGBLOB, `tx` TEXT CHARACTER SET utf8mb4, `ltx` LONGTEXT CHARACTER SET utf8mb4,
  `e` ENUM('a','b','c'), `s` SET('x','y','z'),
  `j` JSON, `g` GEOMETRY, `pt` POINT"""

_EXTRA = {"mariadb": ",\n  `ip` INET6, `uu` UUID",
          "mysql": ",\n  `vec` VECTOR(3)"}


def q(name):
    return "`" + name.replace("`", "``") + "`"


def schema_sql(flavor):
    cols = _COMMON_COLS + _EXTRA[flavor]
    d = q(DB)
    return f"""
CREATE DATABASE {d} CHARACTER SET utf8mb4;
CREATE TABLE {d}.{q(T_ALL)} (`id` INT NOT NULL AUTO_INCREMENT PRIMARY KEY,{cols}) ENGINE=InnoDB;
CREATE TABLE {d}.{q(T_NOKEY)} (`a` INT, `b` VARCHAR(20), `f` FLOAT, `x` DOUBLE, `bb` BLOB, `j` JSON) ENGINE=InnoDB;
CREATE TABLE {d}.{q(T_UNIQ)} (`k` VARCHAR(20) NOT NULL, `n` INT, `v` TEXT, UNIQUE KEY (`k`)) ENGINE=InnoDB;
CREATE TABLE {d}.{q(T_HOSTILE)} ({q(C_HOSTILE)} INT NOT NULL PRIMARY KEY, `v``2` VARCHAR(30)) ENGINE=InnoDB;
"""


def _row(flavor, n, **over):
    v = {
        "ti": -128 + n, "tiu": 255 - n, "si": -32768 + n, "siu": 65535 - n, "mi": -8388608 + n,
        "miu": 16777215 - n, "i": -2147483648 + n, "iu": 4294967295 - n,
        "bi": -9223372036854775808 + n, "biu": 18446744073709551615 - n,
        "d1": "-12345678.9%d" % n, "d2": "-12345678901234567890123456789012345.12345678901234567890123456789%d" % n,
        "d3": "99999", "f": "0.1", "dbl": "-1.7976931348623157e308",
        "b1": "b'1'", "b10": "b'1010101010'", "b64": "b'1111111111111111111111111111111111111111111111111111111111111110'",
        "dt": "'2024-02-29'", "dtm0": "'1000-01-01 00:00:00'", "dtm3": "'2024-03-31 02:30:00.123'",
        "dtm6": "'9999-12-31 23:59:59.999999'", "ts0": "'2038-01-19 03:14:07'",
        "ts6": "'1970-01-01 00:00:01.000001'", "tm": "'-838:59:59'", "tm6": "'12:34:56.000789'",
        "yr": "2155", "c": "'abc  '", "vc": "'caf\u00e9 \u2603 \U0001F600 it''s \\\\ back'",
        "lat": "_latin1 X'e9e8'", "u2": "'\u00e9t\u00e9'", "u16": "'\U0001F600x'",
        "sj": "_sjis X'835c'", "bn": "X'0001'", "vb": "X'00ff5c27'", "tb": "X''",
        "bl": "X'00010203'", "mb": "REPEAT('m', 300)", "lb": "REPEAT(X'00ff', 300)",
        "tx": "'line1\\nline2\\t''q''\\0z'", "ltx": "REPEAT('\u00fc', 700)",
        "e": "'b'", "s": "'x,z'",
        "j": "'{\"k\": [1, 2.5, -0.0, 1e300, \"\\\\u0000\\\\\\\\ \\\\\"q\\\\\"\", true, null, {\"n\": 18446744073709551615}], \"\u00e9\": \"v\"}'",
        "g": "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))')",
        "pt": "ST_GeomFromText('POINT(1.5 -2.25)')",
    }
    if flavor == "mariadb":
        v.update(ip="'2001:db8::ff00:42:8329'", uu="'123e4567-e89b-12d3-a456-426614174000'")
    else:
        v.update(vec="STRING_TO_VECTOR('[1.5, -0.1, 3e38]')")
    v.update(over)
    return v


def _insert(table, row):
    cols = ", ".join(q(c) for c in row)
    return f"INSERT INTO {q(DB)}.{q(table)} ({cols}) VALUES ({', '.join(str(x) for x in row.values())});"


def snapshot_sql(flavor):
    rows = [_row(flavor, n) for n in range(1, 4)]
    nulls = {c: "NULL" for c in _row(flavor, 0)}
    zeros = _row(flavor, 0, ti=0, tiu=0, bi=0, biu=0, f="-0.0", dbl="0", b1="b'0'", b10="0",
                 b64="0", dt="'0000-00-00'", dtm0="'0000-00-00 00:00:00'", ts0="0", ts6="0",
                 yr="0", e="0", s="''", c="''", vc="''", j="'[]'")
    out = [_insert(T_ALL, r) for r in rows] + [_insert(T_ALL, nulls)]
    out.append("SET SESSION sql_mode='';")
    out.append(_insert(T_ALL, zeros))
    d = q(DB)
    out += [f"INSERT INTO {d}.{q(T_NOKEY)} VALUES (1, 'a', 0.1, 0.3, X'00', '[1]'), "
            f"(1, 'a', 0.1, 0.3, X'00', '[1]'), (2, NULL, -3.4e38, 1e-300, NULL, NULL), "
            f"(3, 'x ', 1.17549435e-38, 5e-324, REPEAT('b', 1000), '{{}}');",
            f"INSERT INTO {d}.{q(T_UNIQ)} VALUES ('k1', 1, 'one'), ('k2', 2, NULL), ('k 3''', 3, 'x');",
            f"INSERT INTO {d}.{q(T_HOSTILE)} VALUES (1, 'a'), (2, 'b`'), (3, '\\\\');"]
    out.append("SET SESSION sql_mode=DEFAULT;")
    return "SET NAMES utf8mb4;\n" + "\n".join(out) + "\n"


def workload_sql(flavor):
    d = q(DB)
    a, nk, u, h = (f"{d}.{q(t)}" for t in (T_ALL, T_NOKEY, T_UNIQ, T_HOSTILE))
    new = _row(flavor, 7, vc="'new row'", j="'{\"a\": {\"b\": [true, false]}}'")
    return "\n".join([
        "SET NAMES utf8mb4;",
        # a multi-table transaction
        "BEGIN;",
        _insert(T_ALL, new),
        f"UPDATE {a} SET `ti` = `ti` + 1, `vc` = CONCAT(`vc`, '!'), `j` = JSON_SET(`j`, '$.z', 1.25) WHERE `id` = 1;",
        f"UPDATE {h} SET {q(C_HOSTILE)} = 10 WHERE {q(C_HOSTILE)} = 1;",
        f"DELETE FROM {u} WHERE `k` = 'k2';",
        "COMMIT;",
        # the bad DELETE, statement by statement
        f"DELETE FROM {a} WHERE `id` IN (2, 3);",
        f"UPDATE {a} SET `id` = `id` + 100 WHERE `id` >= 4 ORDER BY `id` DESC;",
        f"UPDATE {nk} SET `b` = 'changed' WHERE `a` = 1 LIMIT 1;",
        f"DELETE FROM {nk} WHERE `a` = 2;",
        f"UPDATE {nk} SET `x` = `x` * 2 WHERE `a` = 3;",
        f"INSERT INTO {nk} VALUES (4, 'four', 2.5, NULL, X'ff', '\"s\"');",
        f"UPDATE {u} SET `k` = 'k1b', `v` = REPEAT('v', 500) WHERE `k` = 'k1';",
        f"INSERT INTO {u} VALUES ('k2', 22, 'again');",
        f"UPDATE {a} SET `lb` = REPEAT(X'01', 10), `ts6` = '2001-02-03 04:05:06.5' WHERE `id` = 1;",
        f"UPDATE {h} SET `v``2` = 'x\\ny' WHERE {q(C_HOSTILE)} = 2;",
        f"DELETE FROM {h} WHERE {q(C_HOSTILE)} = 3;",
        f"UPDATE {a} SET `tiu` = 0, `biu` = 0 WHERE `id` = 1;",
    ]) + "\n"


def checksums(srv, db=DB):
    tables = [T_ALL, T_NOKEY, T_UNIQ, T_HOSTILE]
    out = srv.sql("".join(f"CHECKSUM TABLE {q(db)}.{q(t)};\n" for t in tables))
    values = [line.rsplit("\t", 1)[-1] for line in out.splitlines() if line.strip()]
    return dict(zip(tables, values))


def copy_db(srv, src, dst):
    """dst := a copy of src's tables (rows included), not logged."""
    stmts = ["SET sql_log_bin=0;", "SET SESSION sql_mode = '';", f"DROP DATABASE IF EXISTS {q(dst)};",
             f"CREATE DATABASE {q(dst)} CHARACTER SET utf8mb4;"]
    for t in (T_ALL, T_NOKEY, T_UNIQ, T_HOSTILE):
        stmts.append(f"CREATE TABLE {q(dst)}.{q(t)} LIKE {q(src)}.{q(t)};")
        stmts.append(f"INSERT INTO {q(dst)}.{q(t)} SELECT * FROM {q(src)}.{q(t)};")
    srv.sql("\n".join(stmts) + "\n")


def binlogkit_sql(args, check=True):
    env = dict(os.environ, TZ="UTC")
    r = subprocess.run([sys.executable, "-m", "binlogkit", "sql", *map(str, args)],
                       capture_output=True, env=env, cwd=ROOT)
    if check and r.returncode != 0:
        raise AssertionError(f"binlogkit sql {args} failed ({r.returncode}): "
                             + r.stderr.decode(errors="replace"))
    return r


def apply(srv, sql_bytes):
    srv.sql(b"SET sql_log_bin=0;\n" + sql_bytes)


def show_create(srv):
    out = []
    for t in (T_ALL, T_NOKEY, T_UNIQ, T_HOSTILE):
        with srv.connect() as conn, conn.cursor() as cur:
            cur.execute(f"SHOW CREATE TABLE {q(DB)}.{q(t)}")
            out.append(cur.fetchone()[1] + ";\n")
    return f"USE {q(DB)};\n" + "".join(out)


def run_workload(srv, flavor, image="FULL", metadata="FULL"):
    """From a fresh server: schema, snapshot, workload. Returns (files, snap, end)."""
    srv.sql(f"SET sql_log_bin=0; DROP DATABASE IF EXISTS {q(DB)}; DROP DATABASE IF EXISTS snapshot;"
            "SET GLOBAL binlog_row_metadata='FULL';\n")
    srv.sql(schema_sql(flavor))
    srv.sql(snapshot_sql(flavor))
    snap = checksums(srv)
    copy_db(srv, DB, "snapshot")
    srv.sql("FLUSH BINARY LOGS;")
    first = len(srv.binlog_files())
    srv.sql(f"SET GLOBAL binlog_row_metadata='{metadata}';\n")
    srv.sql(f"SET SESSION binlog_row_image='{image}';\n" + workload_sql(flavor))
    end = checksums(srv)
    srv.sql("FLUSH BINARY LOGS;")
    files = srv.binlog_files()[first - 1:-1]
    return files, snap, end


def restore_snapshot(srv):
    copy_db(srv, "snapshot", DB)

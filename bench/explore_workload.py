"""Workload for bench/explore_mariadb.py: a catalogue of column types and edge
values, and the features (SQL text or Python steps) a scenario's server runs, one
client session each.  Seeded: the same seed gives the same SQL."""

from __future__ import annotations

import threading
import time


def q(s: str) -> str:
    """SQL string literal (backslash escapes on: the server's default sql_mode)."""
    return "'" + s.replace("\\", "\\\\").replace("'", "''").replace("\n", "\\n").replace("\0", "\\0") + "'"


# ===================================================================== value catalogue
# Each column kind: (sql type text, list of SQL value expressions).  The lists
# hold edges (min, max, zero, NULL, odd bytes); rows draw from them at random.

def _ints(rng):
    out = []
    for name, bits in (("TINYINT", 8), ("SMALLINT", 16), ("MEDIUMINT", 24), ("INT", 32), ("BIGINT", 64)):
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        out.append((name, [str(v) for v in (lo, hi, 0, -1, 1, lo + 1, rng.randint(lo, hi))]))
        out.append((name + " UNSIGNED", [str(v) for v in (0, (1 << bits) - 1, 1, 1 << (bits - 1),
                                                           hi, rng.randint(0, (1 << bits) - 1))]))
    out.append(("INT ZEROFILL", ["0", "42", "4294967295"]))
    return out


def _decimals(rng):
    out = []
    for p, s in ((1, 0), (65, 0), (65, 30), (10, 10), (9, 4), (18, 9), (19, 1), (4, 2),
                 (rng.randint(1, 65), None)):
        if s is None:
            s = rng.randint(0, min(p, 30))
        ip, fp = p - s, s
        big = ("9" * ip or "0") + ("." + "9" * fp if fp else "")
        vals = ["0", big, "-" + big, "NULL"]
        if fp:
            vals += ["0." + "0" * (fp - 1) + "1", "-0." + "0" * (fp - 1) + "1", "-0.5" if ip or fp > 1 else "0.5"]
        if ip >= 3:
            vals.append("-123" + (".5" if fp else ""))
        out.append((f"DECIMAL({p},{s})", vals))
        out.append((f"DECIMAL({p},{s}) UNSIGNED", ["0", big]))
    return out


FLOATS = ["0", "-0.0", "1.5", "-3.4e38", "3.4e38", "1.17549e-38", "1e-45", "123456.789", "0.1", "16777217",
          "-1.0e10", "NULL"]
DOUBLES = ["0", "-0.0", "1e308", "-1.7976931348623157e308", "2.2250738585072014e-308", "4.9e-324", "0.1",
           "1/3", "-123456789.123456789", "1e15", "1e16", "123456789012345678", "100", "1e-5", "0.0001",
           "1e21", "NULL"]


def _temporal(rng):
    out = [("DATE", ["'0000-00-00'", "'1000-01-01'", "'9999-12-31'", "'2024-02-29'", "'0001-01-01'",
                     "'2024-00-00'", "'2024-07-00'", "NULL"]),
           ("YEAR", ["0", "1901", "2155", "2000", "69", "70", "NULL"])]
    for f in (0, 1, 3, 6, rng.randint(0, 6)):
        frac = ("." + "9" * f) if f else ""
        frac5 = ("." + "5".ljust(f, "0")) if f else ""
        out.append((f"TIME({f})", ["'-838:59:59'", "'838:59:59'", "'00:00:00'", f"'-00:00:00{frac5}'",
                                   f"'12:34:56{frac}'", f"'-01:02:03{frac5}'", "'100:00:00'", "NULL"]))
        out.append((f"DATETIME({f})", ["'0000-00-00 00:00:00'", "'1000-01-01 00:00:00'",
                                       f"'9999-12-31 23:59:59{frac}'", f"'2024-03-10 02:30:00{frac5}'",
                                       "'2024-00-00 00:00:00'", "NULL"]))
        out.append((f"TIMESTAMP({f}) NULL DEFAULT NULL",
                    ["'1970-01-01 00:00:01'", f"'2038-01-19 03:14:07{frac}'", "'0000-00-00 00:00:00'",
                     f"'2024-11-03 01:30:00{frac5}'", "'2001-09-09 01:46:40'", "NULL"]))
    return out


ODD_STRINGS = ["''", "'a'", "'it''s'", "'back\\\\slash'", "'nl\\nnl'", "'tab\\tx'", "'nul\\0byte'",
               "'trailing  '", "'\"dq\"'", "'*/ end comment'", "'; DROP'"]
CHARSETS = {"latin1": ["_latin1 X'E9E8FF'", "'caf\u00e9'"], "utf8mb3": ["'\u00fc\u20ac'", "'\u65e5\u672c'"],
            "utf8mb4": ["'\u2603'", "'\U0001D11E x'", "'\u00e9'"], "ucs2": ["'\u00fc\u20ac'"],
            "utf16": ["'\U0001D11E'"], "utf32": ["'\u00e9'"], "cp1251": ["_cp1251 X'CFF0E8'"],
            "sjis": ["_sjis X'955C'"], "gbk": ["_gbk X'D5C5'"], "big5": ["_big5 X'A55C'"],
            "binary": ["X'00FF7F80'"], "ascii": ["'plain'"]}


def _strings(rng):
    out = []
    for cs, extra in CHARSETS.items():
        n = rng.choice([1, 4, 10, 64, 255])
        vals = ODD_STRINGS[:6] + extra + ["NULL"]
        if cs != "binary":
            out.append((f"CHAR({n}) CHARACTER SET {cs}", vals))
        m = rng.choice([5, 100, 300, 1000])
        out.append((f"VARCHAR({m}) CHARACTER SET {cs}", vals + [f"REPEAT('x', {m})"]))
    out += [("BINARY(4)", ["X'00'", "X'FFFFFFFF'", "''", "'ab'", "NULL"]),
            ("VARBINARY(300)", ["X'00'", "REPEAT(X'FF', 300)", "''", "NULL"]),
            ("CHAR(255) CHARACTER SET utf8mb4", ["REPEAT('\u00e9', 255)", "'x'", "NULL"]),
            ("CHAR(0)", ["''", "NULL"])]
    for t, n in (("TINY", 255), ("", 1000), ("MEDIUM", 70000), ("LONG", 5000)):
        out.append((f"{t}BLOB", ["''", "X'00FF'", f"REPEAT('b', {n})", "NULL"] + ODD_STRINGS[4:8]))
        out.append((f"{t}TEXT CHARACTER SET utf8mb4", ["''", f"REPEAT('\u2603', {min(n, 60)})", "NULL"]))
    out.append(("TEXT CHARACTER SET latin1", ["_latin1 X'E9'", "NULL"]))
    return out


def _others(rng):
    enum_big = ",".join(f"'e{i}'" for i in range(300))
    set64 = ",".join(f"'s{i}'" for i in range(64))
    return [
        ("ENUM('a','b''q','c\\\\d','')", ["'a'", "'b''q'", "''", "NULL", "2"]),
        (f"ENUM({enum_big})", ["'e0'", "'e299'", "'e255'", "NULL"]),
        (f"SET({set64})", ["'s0'", "'s63'", "'s0,s63'", "''", "NULL", "18446744073709551615"]),
        ("SET('x','y','z')", ["'x,z'", "''", "7", "NULL"]),
        ("BIT(1)", ["b'0'", "b'1'", "NULL"]), ("BIT(9)", ["b'100000001'", "0"]),
        ("BIT(64)", ["b'" + "1" * 64 + "'", "0", "1"]), (f"BIT({rng.randint(2, 63)})", ["0", "1", "NULL"]),
        ("JSON", ["'{}'", "'[]'", "'null'", "'true'", "'1.5'", "'\"s\\\\\"q\"'", "'[18446744073709551615]'",
                  "'{\"a\": {\"b\": [1, -9223372036854775808, 1e308, \"\u00e9\"]}}'", "NULL"]),
        ("GEOMETRY", ["POINT(1, 2)", "ST_GeomFromText('LINESTRING(0 0,1 1,2 2)')",
                      "ST_GeomFromText('GEOMETRYCOLLECTION EMPTY')", "NULL"]),
        ("POINT", ["POINT(-1.5, 1e300)", "NULL"]),
        ("MULTIPOLYGON", ["ST_GeomFromText('MULTIPOLYGON(((0 0,1 0,1 1,0 0)))')", "NULL"]),
        ("INET6", ["'::'", "'::1'", "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'", "'::ffff:1.2.3.4'", "NULL"]),
        ("INET4", ["'0.0.0.0'", "'255.255.255.255'", "NULL"]),
        ("UUID", ["'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
                  "'123e4567-e89b-12d3-a456-426655440000'", "NULL"]),
        ("FLOAT", FLOATS), ("FLOAT(10,3)", ["1.5", "-9999999.999", "0", "NULL"]), ("DOUBLE", DOUBLES),
        ("DOUBLE(20,6) UNSIGNED", ["0", "123.456", "NULL"]), ("BOOLEAN", ["TRUE", "FALSE", "NULL"]),
    ]


def column_catalogue(rng):
    return _ints(rng) + _decimals(rng) + _temporal(rng) + _strings(rng) + _others(rng)


# ===================================================================== features
# A feature: fn(rng, ctx) -> SQL text (str or bytes), or a Python step taking a
# server (marked with .python = True).  ctx: {"loaddir": Path, "fmt": default binlog_format}.

FEATURES = {}


def feature(name, python=False):
    def deco(fn):
        fn.python = python
        FEATURES[name] = fn
        return fn
    return deco


@feature("setup")
def f_setup(rng, ctx):
    return """
CREATE DATABASE d1; CREATE DATABASE d2 CHARACTER SET latin1;
CREATE DATABASE `odd``name`; CREATE DATABASE `d\u00e9\u2603`; CREATE DATABASE `with space`; CREATE DATABASE `q'uote`;
CREATE TABLE d1.t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, s VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE d1.m (id INT AUTO_INCREMENT PRIMARY KEY, a INT) ENGINE=MyISAM;
CREATE TABLE d1.ar (id INT AUTO_INCREMENT PRIMARY KEY, a INT) ENGINE=Aria;
CREATE TABLE d2.t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, s VARCHAR(100)) ENGINE=InnoDB;
"""


@feature("random_types")
def f_random_types(rng, ctx):
    cat = column_catalogue(rng)
    out = ["SET SESSION sql_mode = '';", "USE d1;"]
    for tno in range(4):
        cols = rng.sample(cat, k=rng.randint(6, 16))
        pk = tno % 2 == 0
        defs = (["id INT AUTO_INCREMENT PRIMARY KEY"] if pk else []) + \
            [f"c{i} {typ}" for i, (typ, _) in enumerate(cols)]
        out.append(f"CREATE TABLE rt{tno} ({', '.join(defs)}) ENGINE=InnoDB;")
        names = [f"c{i}" for i in range(len(cols))]
        for _ in range(3):
            rows = []
            for _ in range(rng.randint(1, 4)):
                rows.append("(" + ", ".join(rng.choice(vals) for _, vals in cols) + ")")
            out.append(f"INSERT INTO rt{tno} ({', '.join(names)}) VALUES {', '.join(rows)};")
        for _ in range(2):
            i = rng.randrange(len(cols))
            out.append(f"UPDATE rt{tno} SET c{i} = {rng.choice(cols[i][1])} LIMIT 2;")
        out.append(f"DELETE FROM rt{tno} LIMIT 1;")
    # more than 250 columns: 2-byte packed column count, long NULL bitmaps
    out.append("CREATE TABLE wide300 (" + ", ".join(f"w{i} INT" for i in range(300)) + ");")
    out.append("INSERT INTO wide300 (w0, w150, w299) VALUES (1, NULL, 3), (4, 5, NULL);")
    out.append("UPDATE wide300 SET w1 = 7 WHERE w0 = 1;")
    return "\n".join(out)


@feature("generated_invisible")
def f_generated(rng, ctx):
    return """USE d1;
CREATE TABLE gen (id INT PRIMARY KEY, a INT, v INT AS (a * 2) VIRTUAL, p INT AS (a + 1) PERSISTENT,
  h INT INVISIBLE DEFAULT 9, s VARCHAR(10) AS (CONCAT('x', a)) STORED);
INSERT INTO gen (id, a) VALUES (1, 10), (2, NULL);
INSERT INTO gen (id, a, h) VALUES (3, 30, 33);
UPDATE gen SET a = a + 1;
DELETE FROM gen WHERE id = 2;
"""


@feature("system_versioned")
def f_versioned(rng, ctx):
    return """USE d1;
CREATE TABLE sv (id INT PRIMARY KEY, a INT) WITH SYSTEM VERSIONING;
INSERT INTO sv VALUES (1, 1), (2, 2);
UPDATE sv SET a = 10 WHERE id = 1;
DELETE FROM sv WHERE id = 2;
CREATE TABLE svp (id INT, a INT, s DATE, e DATE, PERIOD FOR p(s, e)) ;
INSERT INTO svp VALUES (1, 1, '2024-01-01', '2024-12-31');
UPDATE svp FOR PORTION OF p FROM '2024-03-01' TO '2024-04-01' SET a = 5;
CREATE TABLE svtx (id INT PRIMARY KEY, a INT, rs BIGINT UNSIGNED AS ROW START INVISIBLE,
  re BIGINT UNSIGNED AS ROW END INVISIBLE, PERIOD FOR SYSTEM_TIME(rs, re)) WITH SYSTEM VERSIONING ENGINE=InnoDB;
INSERT INTO svtx (id, a) VALUES (1, 1);
UPDATE svtx SET a = 2;
"""


@feature("sequences")
def f_sequences(rng, ctx):
    return """USE d1;
CREATE SEQUENCE seq1 START WITH 100 INCREMENT BY 7 CACHE 2;
SELECT NEXTVAL(seq1); SELECT NEXTVAL(seq1); SELECT NEXTVAL(seq1);
CREATE TABLE useq (id INT DEFAULT NEXTVAL(seq1), a INT);
INSERT INTO useq (a) VALUES (1), (2);
SELECT SETVAL(seq1, 5000);
ALTER SEQUENCE seq1 RESTART WITH 1;
SELECT NEXTVAL(seq1);
CREATE SEQUENCE seq2 MINVALUE 1 MAXVALUE 3 CYCLE CACHE 0;
SELECT NEXTVAL(seq2), NEXTVAL(seq2), NEXTVAL(seq2), NEXTVAL(seq2);
DROP SEQUENCE seq2;
"""


@feature("partitioned")
def f_partitioned(rng, ctx):
    return """USE d1;
CREATE TABLE pr (id INT, a INT, PRIMARY KEY (id)) PARTITION BY RANGE (id)
  (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (100), PARTITION p2 VALUES LESS THAN MAXVALUE);
INSERT INTO pr VALUES (1, 1), (50, 50), (500, 500);
UPDATE pr SET id = id + 60 WHERE id = 1;
ALTER TABLE pr TRUNCATE PARTITION p2;
CREATE TABLE ph (id INT, a VARCHAR(10)) PARTITION BY HASH (id) PARTITIONS 4;
INSERT INTO ph VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd');
DELETE FROM ph WHERE id IN (2, 3);
ALTER TABLE pr REORGANIZE PARTITION p2 INTO (PARTITION p2a VALUES LESS THAN (2000), PARTITION p2b VALUES LESS THAN MAXVALUE);
"""


@feature("triggers_procs")
def f_triggers(rng, ctx):
    return """USE d1;
CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(40), at DATETIME(6));
CREATE TABLE tr (id INT PRIMARY KEY, a INT);
CREATE TRIGGER tr_ai AFTER INSERT ON tr FOR EACH ROW INSERT INTO audit (what, at) VALUES (CONCAT('ins ', NEW.id), NOW(6));
CREATE TRIGGER tr_bu BEFORE UPDATE ON tr FOR EACH ROW SET NEW.a = NEW.a * 10;
INSERT INTO tr VALUES (1, 1), (2, 2);
UPDATE tr SET a = 3 WHERE id = 1;
DELIMITER //
CREATE PROCEDURE fill(n INT) BEGIN DECLARE i INT DEFAULT 0; WHILE i < n DO INSERT INTO audit (what) VALUES (CONCAT('proc ', i)); SET i = i + 1; END WHILE; END //
CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC BEGIN INSERT INTO audit (what) VALUES ('func'); RETURN x * 2; END //
DELIMITER ;
CALL fill(3);
SELECT twice(4);
INSERT INTO tr VALUES (10, twice(5));
CREATE EVENT ev1 ON SCHEDULE AT '2035-01-01 00:00:00' DO DELETE FROM audit;
DROP EVENT ev1;
"""


@feature("multi_table")
def f_multi(rng, ctx):
    return """USE d1;
INSERT INTO d1.t (a, s) VALUES (1, 'x'), (2, 'y'), (3, 'z');
INSERT INTO d2.t (a, s) VALUES (1, 'x'), (2, 'y');
UPDATE d1.t JOIN d2.t USING (a) SET d1.t.s = 'both', d2.t.s = 'both' WHERE d1.t.a <= 2;
DELETE d1.t, d2.t FROM d1.t JOIN d2.t USING (a) WHERE d1.t.a = 1;
DELETE FROM d1.t WHERE a = 3 ORDER BY id LIMIT 1;
"""


@feature("upsert")
def f_upsert(rng, ctx):
    return """USE d1;
CREATE TABLE up (id INT PRIMARY KEY, a INT, u INT UNIQUE);
INSERT INTO up VALUES (1, 1, 1), (2, 2, 2);
INSERT INTO up VALUES (1, 9, 9) ON DUPLICATE KEY UPDATE a = a + VALUES(a);
INSERT INTO up VALUES (3, 3, 3), (2, 0, 0) ON DUPLICATE KEY UPDATE a = 100;
REPLACE INTO up VALUES (1, 7, 7);
REPLACE INTO up VALUES (4, 4, 2);
INSERT IGNORE INTO up VALUES (4, 5, 5), (5, 5, 5);
INSERT INTO up SELECT id + 10, a, u + 10 FROM up;
"""


@feature("load_data")
def f_load(rng, ctx):
    d = ctx["loaddir"]
    d.mkdir(parents=True, exist_ok=True)
    names = ["plain.csv", "with space 'quote' \u00e9.csv", "semi;colon.txt"]
    out = ["USE d1;", "CREATE TABLE ld (id INT, name VARCHAR(64), note VARCHAR(200)) CHARACTER SET utf8mb4;",
           "SET SESSION read_buffer_size = 8192;"]
    for i, n in enumerate(names):
        p = d / n
        with open(p, "wb") as f:
            for r in range(60 * (i + 1)):
                f.write(f'{r},"n\u00e9 {r}","{"x" * (r % 50)}"\n'.encode("latin1" if i == 1 else "utf8"))
        cs = " CHARACTER SET latin1" if i == 1 else ""
        out.append(f"LOAD DATA LOCAL INFILE {q(str(p))} INTO TABLE ld{cs} FIELDS TERMINATED BY ',' "
                   f"ENCLOSED BY '\"' LINES TERMINATED BY '\\n' (id, name, note);")
    out.append(f"LOAD DATA LOCAL INFILE {q(str(d / names[0]))} IGNORE INTO TABLE ld FIELDS TERMINATED BY ',' "
               "(@a, @b) SET id = @a + 1000, note = @b;")
    (d / "empty.csv").write_bytes(b"")
    out.append(f"LOAD DATA LOCAL INFILE {q(str(d / 'empty.csv'))} INTO TABLE ld;")
    return "\n".join(out)


@feature("user_vars")
def f_user_vars(rng, ctx):
    return """USE d1;
SET SESSION sql_mode = '';
SET @i = 42, @neg = -9223372036854775808, @ubig = 18446744073709551615, @zero = 0;
SET @r = 3.14159e-5, @rneg = -1e308, @rz = 0e0, @dec = 123456789.0123456789, @dneg = -0.5, @dbig = 99999999999999999999999999999999999.999999999999999999999999999999;
SET @dz = 0.000, @n = NULL, @e = '', @u = _utf8mb4 '\u2603 it''s \\\\ "q"', @l = _latin1 X'E9FF00', @b = _binary X'00FF27';
SET @ucs = _ucs2 'ab', @sj = _sjis X'955C', @big5 = _big5 X'A55C5C', @`odd``var` = 1, @`v\u00e9` = 'x';
SET @long = REPEAT('L', 3000), @nl = 'a\\nb\\rc', @dt = NOW(), @bool = TRUE, @bit = b'101';
INSERT INTO d1.t (a, s) VALUES (@i, @u), (@neg DIV 1e18, @l), (@ubig DIV 1e18, @b), (1, CONCAT(@r, @rneg, @rz, @dec, @dneg, @dbig, @dz)),
  (2, @n), (3, @e), (4, @ucs), (5, @sj), (6, @big5), (@`odd``var`, @`v\u00e9`), (7, LEFT(@long, 90)), (8, @nl), (9, @dt), (@bool, @bit), (@zero, 'z');
"""


@feature("xa")
def f_xa(rng, ctx):
    return """USE d1;
XA START 'x1'; INSERT INTO t (a, s) VALUES (1, 'xa commit'); XA END 'x1'; XA PREPARE 'x1'; XA COMMIT 'x1';
XA START 'x2', 'br''q', 3; INSERT INTO t (a, s) VALUES (2, 'xa rollback'); XA END 'x2', 'br''q', 3; XA PREPARE 'x2', 'br''q', 3; XA ROLLBACK 'x2', 'br''q', 3;
XA START X'00ff', X'', 0; INSERT INTO t (a, s) VALUES (3, 'one phase'); XA END X'00ff', X'', 0; XA COMMIT X'00ff', X'', 0 ONE PHASE;
XA START 'x4'; INSERT INTO m (a) VALUES (4); INSERT INTO t (a, s) VALUES (4, 'mixed engines'); XA END 'x4'; XA PREPARE 'x4'; XA COMMIT 'x4';
XA START 'x5'; XA END 'x5'; XA PREPARE 'x5'; XA COMMIT 'x5';
XA START 'x6'; INSERT INTO t (a, s) VALUES (6, 'prepared then rollback'); XA END 'x6'; XA PREPARE 'x6'; XA ROLLBACK 'x6';
"""


@feature("big_trx")
def f_big(rng, ctx):
    return """USE d1;
CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(2000), lb LONGBLOB) ENGINE=InnoDB;
BEGIN;
INSERT INTO big (id, pad) SELECT seq, REPEAT(CHAR(65 + seq % 26), 1500) FROM seq_1_to_900;
UPDATE big SET pad = REPEAT('u', 1800) WHERE id <= 400;
COMMIT;
INSERT INTO big VALUES (5000, 'one huge row', REPEAT('H', 2100000));
UPDATE big SET lb = REPEAT('I', 1200000) WHERE id = 5000;
DELETE FROM big;
"""


@feature("long_query")
def f_long_query(rng, ctx):
    long = "x" * 70000
    return f"""USE d1;
CREATE TABLE lq (id INT AUTO_INCREMENT PRIMARY KEY, s LONGTEXT);
INSERT INTO lq (s) VALUES ('{long}') /* {'c' * 300} */;
SET SESSION binlog_format = 'STATEMENT';
INSERT INTO lq (s) VALUES ('{long}');
INSERT INTO lq (s) VALUES (CONCAT({", ".join(f"'{i}'" for i in range(3000))}));
"""


@feature("odd_names")
def f_odd_names(rng, ctx):
    return """
CREATE TABLE `odd``name`.`tab``le` (`co``l` INT PRIMARY KEY, `\u00e9\u2603` VARCHAR(10), `sp ace` INT);
INSERT INTO `odd``name`.`tab``le` VALUES (1, '\u00e9', 2);
CREATE TABLE `d\u00e9\u2603`.`t\u00e4b` (id INT PRIMARY KEY, `c\u2603` INT);
INSERT INTO `d\u00e9\u2603`.`t\u00e4b` VALUES (1, 1);
UPDATE `d\u00e9\u2603`.`t\u00e4b` SET `c\u2603` = 2;
CREATE TABLE `with space`.`a b` (id INT PRIMARY KEY);
INSERT INTO `with space`.`a b` VALUES (1);
CREATE TABLE `q'uote`.`t"q` (id INT PRIMARY KEY);
INSERT INTO `q'uote`.`t"q` VALUES (1);
USE `odd``name`;
INSERT INTO `tab``le` VALUES (2, 'x', 3);
USE `q'uote`;
DELETE FROM `t"q`;
"""


@feature("temp_tables")
def f_temp(rng, ctx):
    return """USE d1;
CREATE TEMPORARY TABLE tmp1 (id INT, a VARCHAR(10));
INSERT INTO tmp1 VALUES (1, 'tmp');
INSERT INTO d1.t (a, s) SELECT id, a FROM tmp1;
DROP TEMPORARY TABLE tmp1;
DROP TEMPORARY TABLE IF EXISTS nosuch;
CREATE TEMPORARY TABLE tmp2 ENGINE=MyISAM SELECT 1 AS x;
"""


@feature("ddl_misc")
def f_ddl(rng, ctx):
    return """USE d1;
CREATE TABLE cs SELECT id, a FROM t WHERE id < 5;
CREATE TABLE cs2 (x INT PRIMARY KEY) SELECT 7 AS x;
CREATE TABLE cl LIKE t;
ALTER ONLINE TABLE cs ADD COLUMN b INT DEFAULT 5;
ALTER TABLE cs ADD INDEX (a), ALGORITHM=INPLACE, LOCK=NONE;
RENAME TABLE cs TO cs_renamed, cl TO cl2;
TRUNCATE TABLE cl2;
DROP TABLE IF EXISTS cl2, nonexist1, nonexist2;
DROP TABLE IF EXISTS nonexist3;
DROP DATABASE IF EXISTS nodb;
CREATE DATABASE IF NOT EXISTS d1;
CREATE OR REPLACE TABLE cor (a INT);
CREATE OR REPLACE TABLE cor (b INT);
CREATE VIEW vv AS SELECT 1 AS one;
CREATE OR REPLACE VIEW vv AS SELECT 2 AS two;
CREATE USER 'u1'@'%' IDENTIFIED BY 'secret';
GRANT SELECT, INSERT ON d1.* TO 'u1'@'%';
ALTER USER 'u1'@'%' IDENTIFIED BY 'other';
DROP USER 'u1'@'%';
CREATE ROLE r1; DROP ROLE r1;
ANALYZE TABLE t; OPTIMIZE TABLE m; REPAIR TABLE m;
CREATE INDEX ia ON t (a);
ALTER DATABASE d2 CHARACTER SET utf8mb4;
CREATE TABLE fk_p (id INT PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE fk_c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES fk_p (id) ON DELETE CASCADE) ENGINE=InnoDB;
INSERT INTO fk_p VALUES (1); INSERT INTO fk_c VALUES (1, 1);
DELETE FROM fk_p;
"""


@feature("savepoints_nontrans")
def f_savepoints(rng, ctx):
    return """USE d1;
BEGIN; INSERT INTO t (a, s) VALUES (1, 'sp'); SAVEPOINT `s p1`; INSERT INTO m (a) VALUES (2);
ROLLBACK TO SAVEPOINT `s p1`; RELEASE SAVEPOINT `s p1`; COMMIT;
BEGIN; INSERT INTO t (a, s) VALUES (3, 'rb'); INSERT INTO m (a) VALUES (4); INSERT INTO ar (a) VALUES (5); ROLLBACK;
BEGIN; INSERT INTO m (a) VALUES (6); INSERT INTO t (a, s) VALUES (7, 'm first'); COMMIT;
BEGIN; INSERT INTO ar (a) VALUES (8); ROLLBACK;
BEGIN; COMMIT;
SET autocommit = 0; INSERT INTO t (a, s) VALUES (9, 'ac0'); INSERT INTO m (a) VALUES (10); COMMIT; SET autocommit = 1;
INSERT INTO m (a) SELECT a FROM t LIMIT 3;
"""


@feature("kill_nontrans", python=True)
def f_kill(srv, rng, ctx):
    """A statement on MyISAM killed half way (error_code in the Query event /
    partial rows), and an InnoDB+MyISAM transaction that fails."""
    srv.sql("CREATE TABLE IF NOT EXISTS d1.km (id INT PRIMARY KEY, a INT) ENGINE=MyISAM;"
            "CREATE TABLE IF NOT EXISTS d1.ki (id INT PRIMARY KEY, a INT) ENGINE=InnoDB;")
    for fmt in ("STATEMENT", "ROW"):
        a = srv.connect(autocommit=True, database="d1")
        cur = a.cursor()
        cur.execute(f"SET SESSION binlog_format = '{fmt}'")
        cur.execute("SELECT CONNECTION_ID()")
        cid = cur.fetchone()[0]
        base = 100000 if fmt == "ROW" else 0

        def killer():
            time.sleep(0.6)
            b = srv.connect(autocommit=True)
            b.cursor().execute(f"KILL QUERY {cid}")
            b.close()
        t = threading.Thread(target=killer)
        t.start()
        try:
            cur.execute(f"INSERT INTO d1.km SELECT seq + {base}, SLEEP(0.02) FROM seq_1_to_200")
        except Exception as e:  # expected: query interrupted
            ctx["notes"].append(f"kill {fmt}: {e}")
        t.join()
        try:  # duplicate key half way through a MyISAM multi-row insert: error_code in the event
            cur.execute(f"INSERT INTO d1.km VALUES ({base + 50000}, 1), ({base + 50001}, 1), ({base + 50000}, 2)")
        except Exception as e:
            ctx["notes"].append(f"dup {fmt}: {e}")
        cur.execute("BEGIN")
        cur.execute(f"INSERT INTO d1.ki VALUES ({base + 1}, 1)")
        cur.execute(f"INSERT INTO d1.km VALUES ({base + 60000}, 1)")
        try:
            cur.execute(f"INSERT INTO d1.km VALUES ({base + 60001}, 1), ({base + 60000}, 1)")
        except Exception as e:
            ctx["notes"].append(f"mixed {fmt}: {e}")
        cur.execute("ROLLBACK")
        a.close()


@feature("session_vars")
def f_session(rng, ctx):
    modes = ["ORACLE", "MSSQL,IGNORE_SPACE", "ANSI", "TRADITIONAL", "NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION",
             "PAD_CHAR_TO_FULL_LENGTH", "TIME_ROUND_FRACTIONAL,EMPTY_STRING_IS_NULL,SIMULTANEOUS_ASSIGNMENT",
             "NO_BACKSLASH_ESCAPES", "HIGH_NOT_PRECEDENCE,REAL_AS_FLOAT,NO_UNSIGNED_SUBTRACTION"]
    out = ["USE d1;", "SET SESSION binlog_format = 'STATEMENT';"]
    for i, m in enumerate(modes):
        out += [f"SET SESSION sql_mode = '{m}';", f"INSERT INTO t (a, s) VALUES ({i}, 'mode {i}');"]
    out += ["SET SESSION sql_mode = DEFAULT;"]
    for n in ("latin1", "utf8mb3", "cp1251", "sjis", "gbk", "big5", "binary", "utf8mb4 COLLATE utf8mb4_bin",
              "latin1 COLLATE latin1_bin", "koi8r", "ascii", "utf8mb4 COLLATE utf8mb4_unicode_520_ci"):
        out += [f"SET NAMES {n};", f"INSERT INTO t (a, s) VALUES (1, 'names {n.split()[0]}');"]
    out += ["SET NAMES utf8mb4;", "SET collation_connection = utf8mb4_unicode_520_ci;",
            "INSERT INTO t (a, s) VALUES (2, 'coll conn');", "SET character_set_client = latin1;",
            "INSERT INTO t (a, s) VALUES (3, 'client only');", "SET NAMES utf8mb4;"]
    for tz in ("+00:00", "-12:59", "+13:00", "SYSTEM", "Europe/Berlin", "+01:30"):
        out += [f"SET time_zone = '{tz}';", "INSERT INTO t (a, s) VALUES (4, @@time_zone);"]
    out += ["SET time_zone = DEFAULT;"]
    for lc in ("fr_FR", "zh_CN", "ar_SA", "en_US"):
        out += [f"SET lc_time_names = '{lc}';", "INSERT INTO t (a, s) VALUES (5, 'lc');"]
    out += ["SET SESSION auto_increment_increment = 65535, auto_increment_offset = 65535;",
            "INSERT INTO t (a, s) VALUES (6, 'aii');",
            "SET SESSION auto_increment_increment = 1, auto_increment_offset = 1;",
            "SET SESSION pseudo_thread_id = 4294967295;", "INSERT INTO t (a, s) VALUES (7, 'ptid');",
            "SET timestamp = 1700000000.000001;", "INSERT INTO t (a, s) VALUES (8, 'ts usec');",
            "SET timestamp = 2147483647.999999;", "INSERT INTO t (a, s) VALUES (9, 'ts max');",
            "SET timestamp = DEFAULT;", "SET SESSION sql_log_bin = 0;", "INSERT INTO t (a, s) VALUES (10, 'hidden');",
            "SET SESSION sql_log_bin = 1;", "SET SESSION skip_replication = 1;",
            "INSERT INTO t (a, s) VALUES (11, 'skip_replication');", "SET SESSION skip_replication = 0;",
            "SET SESSION foreign_key_checks = 0, unique_checks = 0, sql_auto_is_null = 1, autocommit = 0;",
            "INSERT INTO t (a, s) VALUES (12, 'flags');", "COMMIT;",
            "SET SESSION foreign_key_checks = 1, unique_checks = 1, sql_auto_is_null = 0, autocommit = 1;",
            "SET SESSION binlog_format = 'ROW';", "SET SESSION sql_mode = 'ORACLE';",
            "INSERT INTO t (a, s) VALUES (13, 'oracle row');", "SET SESSION sql_mode = DEFAULT;",
            "SET SESSION character_set_database = cp1251; SET SESSION collation_server = latin2_general_ci;",
            "SET SESSION binlog_format = 'STATEMENT';", "INSERT INTO t (a, s) VALUES (14, 'cs db');"]
    return "\n".join(out)


@feature("charset_bytes")
def f_charset_bytes(rng, ctx):
    # query text in non-UTF8 client charsets, incl. 0x5C as a second byte (sjis/gbk/big5)
    parts = [b"USE d1;\nSET SESSION binlog_format = 'STATEMENT';\n"]
    for cs, raw in (("latin1", b"caf\xe9 \xff"), ("sjis", b"\x95\x5c\x95\x5c"), ("gbk", b"\xd5\x5c"),
                    ("big5", b"\xa5\x5c"), ("cp1251", b"\xcf\xf0\xe8")):
        parts.append(f"charset {cs}\n".encode())    # the client's own parser charset too
        parts.append(b"INSERT INTO t (a, s) VALUES (1, '" + raw + b"');\n")
        parts.append(b"SET @v = '" + raw + b"';\nINSERT INTO t (a, s) VALUES (2, @v);\n")
    parts.append(b"charset utf8mb4\n")
    parts.append(b"SET SESSION binlog_format = 'ROW';\ncharset latin1\n"
                 b"INSERT INTO t (a, s) VALUES (3, 'row caf\xe9');\ncharset utf8mb4\n")
    return b"".join(parts)


@feature("rand_uuid_mixed")
def f_rand(rng, ctx):
    return """USE d1;
SET SESSION binlog_format = 'MIXED';
INSERT INTO t (a, s) VALUES (1, UUID());
INSERT INTO t (a, s) VALUES (2, RAND(7));
INSERT INTO t (a, s) VALUES (LAST_INSERT_ID(), 'lii');
SET INSERT_ID = 777;
INSERT INTO t (a, s) VALUES (3, 'insert_id');
INSERT INTO t (a, s) VALUES (4, CONNECTION_ID() > 0);
INSERT INTO t (a, s) VALUES (5, SYSDATE());
INSERT INTO t (a, s) VALUES (6, USER());
INSERT INTO t (a, s) SELECT a, s FROM t LIMIT 1;
"""


@feature("gtid_changes")
def f_gtid(rng, ctx):
    return """USE d1;
SET SESSION gtid_domain_id = 3, server_id = 22;
INSERT INTO t (a, s) VALUES (1, 'd3 s22');
SET SESSION gtid_seq_no = 500;
INSERT INTO t (a, s) VALUES (2, 'seq 500');
SET SESSION server_id = 4294967295;
INSERT INTO t (a, s) VALUES (3, 'max server id');
SET SESSION gtid_domain_id = 4294967295, server_id = 1;
INSERT INTO t (a, s) VALUES (4, 'max domain');
SET SESSION gtid_domain_id = 1;
INSERT INTO t (a, s) VALUES (6, 'd1');
"""


@feature("compressed_columns")
def f_compressed_cols(rng, ctx):
    return """USE d1; SET SESSION sql_mode = '';
CREATE TABLE cc (id INT PRIMARY KEY, v VARCHAR(20) COMPRESSED, b BLOB COMPRESSED, t TEXT COMPRESSED CHARACTER SET latin1,
  vb VARBINARY(300) COMPRESSED);
INSERT INTO cc VALUES (1, '', '', NULL, 'x'), (2, 'short', REPEAT('z', 500), REPEAT('t', 200), REPEAT(X'00', 300)), (3, NULL, NULL, '', NULL);
UPDATE cc SET v = 'upd' WHERE id = 1;
DELETE FROM cc WHERE id = 3;
"""


@feature("collation_uca1400")
def f_uca1400(rng, ctx):
    return """USE d1;
SET SESSION binlog_format = 'STATEMENT';
SET NAMES utf8mb4 COLLATE utf8mb4_uca1400_ai_ci;
INSERT INTO t (a, s) VALUES (1, 'uca1400 connection');
SET NAMES utf8mb3 COLLATE utf8mb3_uca1400_as_cs;
INSERT INTO t (a, s) VALUES (2, 'uca1400 utf8mb3');
SET NAMES utf8mb4;
CREATE TABLE u14 (id INT, s VARCHAR(10)) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci;
SET @u = _utf8mb4 'x' COLLATE utf8mb4_uca1400_ai_ci;
INSERT INTO u14 VALUES (1, @u);
SET SESSION binlog_format = 'ROW';
INSERT INTO u14 VALUES (2, 'row');
SET SESSION collation_server = utf8mb4_uca1400_ai_ci;
SET SESSION binlog_format = 'STATEMENT';
INSERT INTO u14 VALUES (3, 'server coll');
"""


@feature("gtid_seq_wrap")
def f_gtid_wrap(rng, ctx):
    """gtid_seq_no at its maximum: the next GTID gets sequence number 0,
    which mariadb-binlog reads as an invalid event."""
    return """USE d1;
SET SESSION gtid_seq_no = 18446744073709551615;
INSERT INTO t (a, s) VALUES (5, 'max seq');
INSERT INTO t (a, s) VALUES (6, 'seq 0');
INSERT INTO t (a, s) VALUES (7, 'seq 1');
"""


@feature("old_temporal")
def f_old_temporal(rng, ctx):
    """MariaDB 5.3 hi-res temporal columns (mysql56_temporal_format=OFF):
    binlogged as MYSQL_TYPE_TIME/DATETIME/TIMESTAMP with a precision."""
    return """USE d1; SET SESSION sql_mode = '';
SET GLOBAL mysql56_temporal_format = OFF;
CREATE TABLE ot (id INT PRIMARY KEY, t0 TIME, t3 TIME(3), t6 TIME(6), d0 DATETIME, d2 DATETIME(2), d6 DATETIME(6),
  s0 TIMESTAMP NULL DEFAULT NULL, s4 TIMESTAMP(4) NULL DEFAULT NULL, s6 TIMESTAMP(6) NULL DEFAULT NULL);
SET GLOBAL mysql56_temporal_format = ON;
INSERT INTO ot VALUES (1, '-838:59:59', '-00:00:00.001', '838:59:59.999999', '0000-00-00 00:00:00', '1000-01-01 00:00:00.01',
  '9999-12-31 23:59:59.999999', '1970-01-01 00:00:01', '2038-01-19 03:14:07.9999', '2024-11-03 01:30:00.5');
INSERT INTO ot VALUES (2, '12:34:56', '-12:34:56.789', '-00:00:01.000001', '2024-02-29 12:00:00', '2024-00-00 00:00:00.5',
  '0000-00-00 00:00:00.000000', '0000-00-00 00:00:00', NULL, '2001-09-09 01:46:40.123456');
UPDATE ot SET t3 = '01:02:03.456' WHERE id = 1;
DELETE FROM ot WHERE id = 2;
"""


@feature("odd_query_bytes", python=True)
def f_odd_query_bytes(srv, rng, ctx):
    """Statements whose text holds CR/LF, tabs, a raw NUL byte, non-UTF8 bytes:
    sent byte for byte (no client-side rewriting)."""
    c = srv.connect(autocommit=True, database="d1", charset="latin1", binary_prefix=False)
    cur = c.cursor()
    for fmt in ("STATEMENT", "ROW"):
        cur.execute(f"SET SESSION binlog_format = '{fmt}'")
        cur.execute(b"INSERT INTO t (a, s) VALUES (1, 'crlf\r\nline')\r\n/* trailing\r\ncomment */".decode("latin1"))
        cur.execute("INSERT INTO t (a, s)\n\tVALUES\n\t(2, 'multi\nline')\n")
        cur.execute("INSERT INTO t (a, s) VALUES (3, 'nul\x00byte')")
        cur.execute("INSERT INTO t (a, s) VALUES (4, 'caf\xe9 latin1')")
        cur.execute("/* leading comment */ INSERT INTO t (a, s) VALUES (5, 'x') /* #Q> fake */")
        cur.execute("INSERT INTO t (a, s) VALUES (6, '" + "w" * 90 + "')" + " " * 500 + "-- trailing spaces")
    c.close()


@feature("incident", python=True)
def f_incident(srv, rng, ctx):
    """A non-transactional statement overflowing max_binlog_stmt_cache_size:
    the server logs an Incident event (LOST_EVENTS)."""
    srv.sql("SET GLOBAL max_binlog_stmt_cache_size = 4096;")
    try:
        srv.sql("USE d1; SET SESSION binlog_format = 'ROW';"
                "CREATE TABLE IF NOT EXISTS inc (id INT PRIMARY KEY, pad VARCHAR(2000)) ENGINE=MyISAM;"
                "INSERT INTO inc SELECT seq, REPEAT('i', 1500) FROM seq_1_to_20;")
    except RuntimeError as e:
        ctx["notes"].append(f"incident: {str(e).strip()[-120:]}")
    srv.sql("SET GLOBAL max_binlog_stmt_cache_size = DEFAULT;")


@feature("flags2_variants")
def f_flags2(rng, ctx):
    return """USE d1; SET SESSION binlog_format = 'STATEMENT';
SET SESSION check_constraint_checks = 0; INSERT INTO t (a, s) VALUES (1, 'ccc off'); SET SESSION check_constraint_checks = 1;
SET SESSION system_versioning_insert_history = 1; INSERT INTO t (a, s) VALUES (2, 'history'); SET SESSION system_versioning_insert_history = 0;
SET SESSION sql_if_exists = 1; DROP TABLE nosuch_ife; SET SESSION sql_if_exists = 0;
SET SESSION explicit_defaults_for_timestamp = 0; INSERT INTO t (a, s) VALUES (3, 'edft 0'); SET SESSION explicit_defaults_for_timestamp = 1;
SET STATEMENT sql_mode = 'NO_ENGINE_SUBSTITUTION', foreign_key_checks = 0 FOR INSERT INTO t (a, s) VALUES (4, 'set statement');
SET @x32 = _utf32 'ab', @x16 = _utf16le 'cd', @xl2 = _latin2 X'B1';
INSERT INTO t (a, s) VALUES (5, CONCAT(CONVERT(@x32 USING utf8mb4), CONVERT(@x16 USING utf8mb4), CONVERT(@xl2 USING utf8mb4)));
XA START 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', X'ff00ff', 4294967295;
INSERT INTO t (a, s) VALUES (6, 'long xid');
XA END 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', X'ff00ff', 4294967295;
XA PREPARE 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', X'ff00ff', 4294967295;
XA COMMIT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', X'ff00ff', 4294967295;
CREATE TABLE `éééééééééééééééééééééééééééééééé☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃` (a INT);
SET SESSION binlog_format = 'ROW';
INSERT INTO `éééééééééééééééééééééééééééééééé☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃☃` VALUES (1);
"""


@feature("flush_logs")
def f_flush(rng, ctx):
    return "USE d1;\nINSERT INTO t (a, s) VALUES (1, 'before flush');\nFLUSH BINARY LOGS;\n" \
        "INSERT INTO t (a, s) VALUES (2, 'after flush');\nFLUSH LOGS;\n"


@feature("many_small_trx")
def f_many(rng, ctx):
    out = ["USE d1;"]
    for i in range(150):
        fmt = rng.choice(["ROW", "STATEMENT", "MIXED"])
        out.append(f"SET SESSION binlog_format = '{fmt}'; INSERT INTO t (a, s) VALUES ({i}, '{fmt} {i}');")
        if i % 25 == 0:
            out.append("DELETE FROM t WHERE a < 5;")
    return "\n".join(out)


@feature("restart", python=True)
def f_restart(srv, rng, ctx):
    srv.stop()
    srv.start()


@feature("crash", python=True)
def f_crash(srv, rng, ctx):
    srv.sql("INSERT INTO d1.t (a, s) VALUES (1, 'before crash');")
    srv.kill()
    srv.start()
    srv.sql("INSERT INTO d1.t (a, s) VALUES (2, 'after crash');")


@feature("checksum_switch")
def f_checksum(rng, ctx):
    return """USE d1;
SET GLOBAL binlog_checksum = NONE;
INSERT INTO t (a, s) VALUES (1, 'no checksum');
SET GLOBAL binlog_checksum = CRC32;
INSERT INTO t (a, s) VALUES (2, 'crc32 again');
"""


ROW_FEATURES = ["setup", "random_types", "compressed_columns", "old_temporal", "odd_query_bytes",
                "flags2_variants", "generated_invisible", "system_versioned", "sequences", "partitioned",
                "triggers_procs", "multi_table", "upsert", "load_data", "user_vars", "xa", "big_trx",
                "long_query", "odd_names", "temp_tables", "ddl_misc", "savepoints_nontrans", "kill_nontrans",
                "session_vars", "charset_bytes", "rand_uuid_mixed", "gtid_changes"]
SMALL = ["setup", "random_types", "multi_table", "upsert", "user_vars", "xa", "odd_names", "temp_tables",
         "savepoints_nontrans", "session_vars", "gtid_changes"]

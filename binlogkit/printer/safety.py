"""Names printed inside `#` comment lines never end the comment.

mariadb-binlog and mysqlbinlog print table, database and column names raw in
comment lines (`#... Table_map: `db`.`t` mapped to number 22`, the -v
`### INSERT INTO `db`.`t`` lines, `# Primary Key(...)`, `Rotate to ...`).
A name containing a line feed (or carriage return) ends the comment there, and
the rest of the name runs as SQL when the output is replayed: whoever may
create a table can inject SQL into a recovery.  binlogkit escapes such a name
as the real tools escape column names in `# Columns(...)` — backslash as `\\`,
line feed as `\n`, carriage return as `\r` — and `run_print` says so on
stderr with one WARNING line.  Names without a line break (all real ones,
nearly) are printed byte for byte as the real tools print them.
"""

WARNING = ("binlogkit escaped a line break in a name printed in a '#' comment line "
           "(as \\n, \\r, \\\\; mariadb-binlog/mysqlbinlog print it raw, which would let "
           "the rest of the name run as SQL on replay)")

_escaped = [0]      # names escaped since the last reset (one run of `print`)


def comment_safe(text):
    """`text` (bytes) fit for a comment line: unchanged unless it holds LF or CR."""
    if b"\n" not in text and b"\r" not in text:
        return text
    _escaped[0] += 1
    return text.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def reset():
    _escaped[0] = 0


def escaped():
    """How many names were escaped since the last reset."""
    return _escaped[0]

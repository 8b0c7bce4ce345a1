"""mariadb-binlog's text for the events of binlog format v1/v3 (MySQL 3.23-4.1): Start_v3 and
the old LOAD DATA family (Load, New_load, Create_file + Append_block + Exec_load).

Load_log_event::print writes `LOAD DATA [LOCAL] INFILE '<file>' ... INTO TABLE ...`; a
Create_file event prints the statement commented out and its block goes to a local file
(`<--local-load or TMPDIR>/<base name>-<file_id>-<version>`, as Load_log_processor names
it), Append_block events add to that file, and Exec_load prints the Create_file event again,
uncommented, as LOAD DATA LOCAL INFILE on the local file.
"""
import os

from binlogkit.binlog import layout as L
from binlogkit.errors import BinlogError
from binlogkit.printer.mariadb import events as P
from binlogkit.printer.text import backtick, pretty_print_str

# sql_ex_info opt_flags
OPT_ENCLOSED_FLAG = 0x2
REPLACE_FLAG = 0x4
IGNORE_FLAG = 0x8


def handle_start_v3(p, reader, raw, body):
    """Start_log_event_v3::print: the same text as a format description event's."""
    P.print_format_description(p, raw, body)


def load_text(p, raw, body, commented, local_fname=None):
    """Load_log_event::print: header, 'use' when the database changes (remembered only when
    not commented), the thread id of a temporary-table load, the statement."""
    st, out = p.state, []
    hash_ = b"# " if commented else b""
    if not p.options.short_form:
        P.print_header(p, raw, out)
        out.append(b"\tQuery\tthread_id=%d\texec_time=%d\n" % (body.thread_id, body.exec_time))
    different_db = P.db_differs(st, P.db_key(body))
    if different_db and not commented:
        P.remember_db(st, body)
    if body.db and different_db:
        out.append(b"%suse %s%s\n" % (hash_, backtick(body.db), st.delimiter))
    if raw.flags & L.LOG_EVENT_THREAD_SPECIFIC_F:
        out.append(b"%sSET @@session.pseudo_thread_id=%d%s\n" % (hash_, body.thread_id, st.delimiter))
    out.append(b"%sLOAD DATA " % hash_)
    if local_fname is not None:
        out.append(b"LOCAL ")
    out.append(b"INFILE '%s' " % (body.fname if local_fname is None else local_fname))
    if body.opt_flags & REPLACE_FLAG:
        out.append(b"REPLACE ")
    elif body.opt_flags & IGNORE_FLAG:
        out.append(b"IGNORE ")
    out.append(b"INTO TABLE `%s` FIELDS TERMINATED BY %s" % (body.table, pretty_print_str(body.field_term)))
    if body.opt_flags & OPT_ENCLOSED_FLAG:
        out.append(b" OPTIONALLY ")
    out.append(b" ENCLOSED BY %s ESCAPED BY %s LINES TERMINATED BY %s STARTING BY %s" % (
        pretty_print_str(body.enclosed), pretty_print_str(body.escaped),
        pretty_print_str(body.line_term), pretty_print_str(body.line_start)))
    if body.skip_lines > 0:
        out.append(b" IGNORE %d LINES" % body.skip_lines)
    if body.fields:
        out.append(b" (" + b",".join(backtick(f) for f in body.fields) + b")")
    out.append(st.delimiter + b"\n")
    return b"".join(out)


def handle_load(p, reader, raw, body):
    """Load / New_load: printed as they are (process_event's default branch)."""
    p.print_skip_replication(raw)
    p.write(load_text(p, raw, body, False))


def create_file_text(p, raw, body, local_fname=None):
    """Create_file_log_event::print(enable_local): the LOAD DATA statement, commented out
    unless the file is the local copy, then '# file_id: N  block_len: N'."""
    if p.options.short_form:
        return b"" if local_fname is None else load_text(p, raw, body, False, local_fname)
    return (load_text(p, raw, body, local_fname is None, local_fname)
            + b"# file_id: %d  block_len: %d\n" % (body.file_id, len(body.block)))


def handle_create_file(p, reader, raw, body):
    if p.shall_skip_database(body.db):
        return
    p.print_skip_replication(raw)
    p.write(create_file_text(p, raw, body))
    if reader.fde.binlog_version >= 3:
        name = local_load_file(p, reader, raw, os.path.basename(body.fname), body.file_id, body.block)
        p.create_files[body.file_id] = (raw, body, name)
        p.load_files[body.file_id] = name


def local_load_file(p, reader, raw, base, file_id, block):
    """Load_log_processor::process_first_event: a new file '<dir>/<base>-<file_id>-<n>'."""
    prefix = os.path.join(p.load_dir, os.fsdecode(base) + f"-{file_id:x}")
    for version in range(1000):
        name = f"{prefix}-{version:x}"
        try:
            fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            raise BinlogError(f"Could not construct local filename {prefix}: {exc.strerror}",
                              path=reader.display_name, offset=raw.pos) from None
        with os.fdopen(fd, "wb") as f:
            f.write(block)
        return name
    raise BinlogError(f"Could not construct local filename {prefix}.", path=reader.display_name,
                      offset=raw.pos)


def handle_exec_load(p, reader, raw, body):
    """Execute_load_log_event: its own comment, then the Create_file event it executes,
    printed again as LOAD DATA LOCAL on the local file."""
    if not p.options.short_form:
        out = []
        P.print_header(p, raw, out)
        out.append(b"\n#Exec_load: file_id=%d\n" % body.file_id)
        p.write(b"".join(out))
    entry = p.create_files.pop(body.file_id, None)
    p.load_files.pop(body.file_id, None)
    if entry is None:
        p.warn(f"Ignoring Execute_load_log_event as there is no Create_file event for "
               f"file_id: {body.file_id}")
        return
    ce_raw, ce_body, name = entry
    p.write(create_file_text(p, ce_raw, ce_body, os.fsencode(name).replace(b"\\", b"/")))


HANDLERS = {
    L.START_EVENT_V3: handle_start_v3,
    L.LOAD_EVENT: handle_load,
    L.NEW_LOAD_EVENT: handle_load,
    L.CREATE_FILE_EVENT: handle_create_file,
    L.EXEC_LOAD_EVENT: handle_exec_load,
}

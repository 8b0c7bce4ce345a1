"""One print job: which flavor prints the files, and the checks of options only one
flavor has.  The command line (binlogkit.cli.print_run) builds a PrintJob from its
options; a program can build one directly:

    job = PrintJob(["mariadb-bin.000001"], PrintOptions(verbose=2), ZoneTable.from_tz("UTC"))
    print_job(job, sys.stdout.buffer)

The flavor comes from the first file's format description event (MariaDB server
versions contain "MariaDB"); `flavor="mysql"|"mariadb"` overrides it.
"""
from binlogkit._record import record

from binlogkit.errors import BinlogkitError
from binlogkit.printer.mariadb.driver import dump
from binlogkit.printer.flavor import detect_flavor
from binlogkit.printer.state import PrintOptions


@record(slots=False)
class PrintJob:
    files: list
    options: PrintOptions
    zone: object                    # tz.ZoneTable
    flavor: str = "auto"            # "auto", "mysql" or "mariadb"
    include_gtids: str = None       # MySQL: GTID sets as given on the command line
    exclude_gtids: str = None
    skip_gtids: bool = False
    mariadb_id_lists: tuple = ()    # which of --do/--ignore-server-ids/-domain-ids were given


def choose_flavor(job):
    requested = (job.flavor or "auto").lower()
    if requested == "auto" and job.options.flashback:
        return "mariadb"    # only mariadb-binlog has --flashback: it prints MySQL logs too
    if requested != "auto":
        return requested
    return detect_flavor(job.files[0])


def print_job(job, out, warn=None, error=None):
    """Print the job's files to `out` (binary); raises BinlogkitError after the
    partial text, as the real tool prints what it read before its error."""
    flavor = choose_flavor(job)
    if flavor != "mysql":
        if job.include_gtids is not None or job.exclude_gtids is not None or job.skip_gtids:
            raise BinlogkitError("--include-gtids, --exclude-gtids and --skip-gtids need the "
                                 "MySQL flavor (a MySQL binlog, or --flavor=mysql)")
        dump(job.files, out, job.options, job.zone, warn=warn, error=error)
        return
    check_mysql_options(job)
    from binlogkit.printer.mysql.driver import dump_mysql      # only MySQL logs load it
    from binlogkit.printer.mysql.gtidset import GtidFilter
    gtids = GtidFilter.from_options(job.include_gtids, job.exclude_gtids, job.skip_gtids)
    if job.files == ["-"] and job.options.stop_position != (1 << 64) - 1:
        raise BinlogkitError("stop_position not allowed when input is STDIN")
    dump_mysql(job.files, out, job.options, job.zone, gtids, warn=warn, error=error)


def print_remote_job(job, out, remote, warn=None, error=None):
    """print -R: the flavor is the server's; `remote` is a printer.mariadb.remote.RemoteSource
    (the MySQL printer uses its connection and dump settings)."""
    flavor = (job.flavor or "auto").lower()
    if flavor == "auto":
        flavor = "mariadb" if remote.server_is_mariadb() else "mysql"
    if flavor == "mariadb":
        if remote.gtid_set is not None:
            raise BinlogkitError("--read-from-remote-source=BINLOG-DUMP-GTIDS needs a MySQL "
                                 "server")
        dump(job.files, out, job.options, job.zone, warn=warn, error=error, remote=remote)
        return
    check_mysql_options(job)
    from binlogkit.printer.mysql.driver import dump_mysql
    from binlogkit.printer.mysql.gtidset import GtidFilter
    gtids = GtidFilter.from_options(job.include_gtids, job.exclude_gtids, job.skip_gtids)
    dump_mysql(job.files, out, job.options, job.zone, gtids, warn=warn, error=error,
               remote=remote)


def check_mysql_options(job):
    """Options only the MariaDB printer has."""
    options = job.options
    mariadb_only = [name for name, used in (
        ("--flashback", options.flashback),
        ("GTID positions", options.start_gtids is not None or options.stop_gtids is not None),
        ("--do/--ignore-server-ids, --do/--ignore-domain-ids", job.mariadb_id_lists)) if used]
    if mariadb_only:
        raise BinlogkitError(f"{', '.join(mariadb_only)}: MariaDB flavor only (a MariaDB "
                             "binlog, or --flavor=mariadb)")
    if options.server_id < 0:
        raise BinlogkitError("--server-id: mysqlbinlog takes one number")

"""`binlogkit print`: mariadb-binlog's (and mysqlbinlog's) options, as click sees them
after cli.mysqlargs has read the option files and parsed the command line as the
real tool does.  The run itself: cli.print_run."""
import sys

import click

from binlogkit.cli.mysqlargs import MysqlbinlogCommand
from binlogkit.cli.print_run import run_print

__all__ = ["print_cmd"]


def _bool(name, short=None, default=False, help="", hidden=False):
    decls = [f"--{name}/--skip-{name}"]
    if short:
        decls.insert(0, short)
    return click.option(*decls, default=default, help=help, hidden=hidden)


@click.command("print", cls=MysqlbinlogCommand)
@click.argument("files", nargs=-1, required=True)
@_bool("short-form", "-s", help="Just show regular queries: no extra info, no row events.")
@_bool("hexdump", "-H", help="Augment output with hexadecimal and ASCII event dump.")
@click.option("--base64-output", type=click.Choice(["auto", "never", "decode-rows", "unspec"],
              case_sensitive=False), default="auto", help="When to print BINLOG base64 statements.")
@click.option("-v", "--verbose", count=True, help="Reconstruct pseudo-SQL from row events (-vv: with types).")
@click.option("-j", "--start-position", default=None,
              help="Start at position N of the first file, or after a GTID list (D-S-N,...).")
@click.option("--stop-position", default=None,
              help="Stop at position N of the last file, or after a GTID list (D-S-N,...).")
@click.option("--start-datetime", default=None, help="Start at the first event at or after this local time.")
@click.option("--stop-datetime", default=None, help="Stop at the first event at or after this local time.")
@click.option("-d", "--database", default=None, help="List entries for just this database.")
@click.option("-T", "--table", default=None, help="List entries for just this table.")
@click.option("--server-id", default=None, help="Only events created by this server id.")
@click.option("--do-server-ids", default=None, help="MariaDB: only events of these server ids.")
@click.option("--ignore-server-ids", default=None, help="MariaDB: no events of these server ids.")
@click.option("--do-domain-ids", default=None, help="MariaDB: only GTID groups of these domains.")
@click.option("--ignore-domain-ids", default=None, help="MariaDB: no GTID groups of these domains.")
@_bool("gtid-strict-mode", default=True, help="MariaDB: GTID positions and order are checked.")
@click.option("--rewrite-db", multiple=True, help="MariaDB: rewrite-db='from->to' renames a database.")
@_bool("flashback", "-B", default=None,
       help="MariaDB: reversed row events (rollback of committed data).")
@click.option("-o", "--offset", type=int, default=0, help="Skip the first N entries.")
@click.option("-r", "--result-file", default=None, help="Write output to this file.")
@click.option("-l", "--local-load", default=None, help="Directory for LOAD DATA temporary files.")
@_bool("force-if-open", "-F", default=True, help="Force if binlog was not closed properly.")
@_bool("force-read", "-f", help="Force reading unknown binlog events.")
@_bool("verify-binlog-checksum", "-c", help="Verify checksum of binlog events.")
@_bool("print-row-count", default=None, help="Print row counts for each row event.")
@_bool("print-row-event-positions", default=None, help="Print row event positions.")
@_bool("skip-annotate-row-events", help="Don't print Annotate_rows events.")
@_bool("disable-log-bin", "-D", help="Disable binary log when piping into mysql.")
@_bool("print-table-metadata", help="Print metadata stored in Table_map events.")
@click.option("--set-charset", default=None, help="Add 'SET NAMES character_set' to the output.")
@click.option("--timezone", default=None, help="Zone for event times (default: $TZ, then /etc/localtime).")
@click.option("--flavor", type=click.Choice(["auto", "mysql", "mariadb"], case_sensitive=False),
              default="auto", help="Print like mysqlbinlog 8.0 or mariadb-binlog (default: from the log).")
@click.option("--include-gtids", default=None, help="MySQL: print only transactions of this GTID set.")
@click.option("--exclude-gtids", default=None, help="MySQL: leave out transactions of this GTID set.")
@_bool("skip-gtids", help="MySQL: print no GTID statements (and no Previous-GTIDs).")
@_bool("read-from-remote-server", "-R", help="Read binlogs from a server (COM_BINLOG_DUMP).")
@click.option("--read-from-remote-source", default=None,
              type=click.Choice(["BINLOG-DUMP-NON-GTIDS", "BINLOG-DUMP-GTIDS"], case_sensitive=False),
              help="MySQL: -R, or a GTID dump (COM_BINLOG_DUMP_GTID) with --exclude-gtids.")
@_bool("read-from-remote-master", hidden=True)
@click.option("-h", "--host", default=None, help="Get the binlog from server.")
@click.option("-P", "--port", type=int, default=0, help="Port number to use for connection.")
@click.option("-S", "--socket", default=None, help="The socket file to use for connection.")
@click.option("-u", "--user", default=None, help="Connect to the remote server as username.")
@click.option("--password", default=None, help="Password (-p alone: ask on the terminal).")
@click.option("--password-prompt", is_flag=True, hidden=True)
@click.option("--protocol", default=None, help="The protocol to use for connection (tcp, socket).")
@_bool("ssl", help="Enable TLS for the connection.")
@click.option("--ssl-ca", default=None, help="CA file in PEM format (implies --ssl).")
@click.option("--ssl-capath", default=None, help="CA directory (implies --ssl).")
@click.option("--ssl-cert", default=None, help="X509 cert in PEM format (implies --ssl).")
@click.option("--ssl-key", default=None, help="X509 key in PEM format (implies --ssl).")
@click.option("--ssl-cipher", default=None, help="TLS cipher to use (implies --ssl).")
@click.option("--ssl-crl", default=None, hidden=True)
@click.option("--ssl-crlpath", default=None, hidden=True)
@click.option("--tls-version", default=None, hidden=True)
@_bool("ssl-verify-server-cert", help="Verify the server's certificate and host name.")
@click.option("--default-auth", default=None, hidden=True)
@click.option("--plugin-dir", default=None, hidden=True)
@click.option("--connection-server-id", "--stop-never-slave-server-id", "connection_server_id",
              type=int, default=None, help="Server id to connect with (--stop-never: default 1).")
@_bool("to-last-log", "-t", help="With -R: go on to the end of the server's last binlog.")
@_bool("stop-never", help="With -R: wait for more events instead of stopping (implies -t).")
@_bool("raw", help="With -R: write the binlog files as they are (--result-file: name prefix).")
@click.option("--connect-retries", type=int, default=None,
              help="With --raw: reconnect attempts after a lost connection "
                   "(default: unlimited with --stop-never, else 0).")
@click.option("--traceback", is_flag=True, hidden=True)
def print_cmd(files, **kw):
    """Print binary logs exactly as mariadb-binlog (mysqlbinlog) does.

    FILES are binlog files in order; "-" reads standard input.  Exit status:
    0 on success, 1 on a read or format error (after printing what could be
    printed, like the real tool).
    """
    kw["id_filter_order"] = click.get_current_context().meta.get("binlogkit.id_filters", [])
    sys.exit(run_print(files, kw))



"""`binlogkit print` without click: the command line normalised as mariadb-binlog's
my_getopt reads it (cli.mysqlargs), parsed by cli.print_options' table, run by
cli.print_run.  --help, and values only click words the error for, go to the click
command (cli.print_cmd) with the already normalised arguments."""
from binlogkit.cli.mysqlargs import id_filter_order, normalize_args
from binlogkit.cli.print_options import UnparsedError, getopt_spec, parse

__all__ = ["run_print_args"]


def run_print_args(args):
    """Exit status of `binlogkit print ARGS`."""
    normalized = normalize_args(args, getopt_spec())
    try:
        if "--help" in normalized:
            raise UnparsedError("--help")
        files, kw = parse(normalized)
    except UnparsedError:
        from binlogkit.cli.print_cmd import run_normalized
        return run_normalized(normalized)       # exits with click's status
    kw["id_filter_order"] = id_filter_order(normalized)
    from binlogkit.cli.print_run import no_files, run_print
    if not files:
        from binlogkit.cli.print_cmd import usage_text
        return no_files(kw, usage_text)
    return run_print(files, kw)

"""`binlogkit print` as a click command, built from cli.print_options' table: for
--help, and for the errors click words.  A plain run does not come here: cli.run
parses the normalised command line with print_options.parse (no click import).
"""
import sys

import click

from binlogkit.cli.mysqlargs import id_filter_order, normalize_args
from binlogkit.cli.print_options import OPTIONS, getopt_spec
from binlogkit.cli.print_run import no_files, run_print

__all__ = ["print_cmd", "run_normalized", "usage_text"]


class MysqlbinlogCommand(click.Command):
    """Reads option files and parses as my_getopt does before click sees the arguments
    (unless they were normalised already: run_normalized)."""
    normalized = False

    def parse_args(self, ctx, args):
        if not self.normalized:
            args = normalize_args(args, getopt_spec())
        ctx.meta["binlogkit.id_filters"] = id_filter_order(args)
        return super().parse_args(ctx, args)


def click_option(option):
    """One row of the table as a click option."""
    decls = list(option.decls)
    common = {"default": option.default, "help": option.help or None, "hidden": option.hidden}
    if option.kind == "bool":
        decls = [d for d in decls if not d.startswith("--")] + [
            f"--{name}/--skip-{name}" for name in option.longs[:1]] + [
            f"--{name}" for name in option.longs[1:]]
        return click.option(*decls, **common)
    if option.kind == "flag":
        return click.option(*decls, is_flag=True, **common)
    if option.kind == "count":
        return click.option(*decls, count=True, help=option.help)
    if option.kind == "multi":
        return click.option(*decls, multiple=True, help=option.help)
    if option.kind == "choice":
        return click.option(*decls, type=click.Choice(option.choices, case_sensitive=False),
                            **common)
    kind = int if option.kind == "int" else None
    return click.option(*decls, option.dest, type=kind, **common)


def _with_options(command):
    for option in reversed(OPTIONS):
        command = click_option(option)(command)
    return command


@click.command("print", cls=MysqlbinlogCommand)
@click.argument("files", nargs=-1)      # none: the real tool's message (print_run)
@_with_options
def print_cmd(files, **kw):
    """Print binary logs exactly as mariadb-binlog (mysqlbinlog) does.

    FILES are binlog files in order; "-" reads standard input.  Exit status:
    0 on success, 1 on a read or format error (after printing what could be
    printed, like the real tool).
    """
    kw["id_filter_order"] = click.get_current_context().meta.get("binlogkit.id_filters", [])
    if not files:
        sys.exit(no_files(kw, usage_text))
    sys.exit(run_print(files, kw))


def usage_text():
    """`binlogkit print --help`'s text."""
    with click.Context(print_cmd, info_name="binlogkit print") as ctx:
        return print_cmd.get_help(ctx) + "\n"


def run_normalized(args):
    """Click's run of arguments cli.mysqlargs has normalised already (its messages and
    option-file warnings are not repeated)."""
    MysqlbinlogCommand.normalized = True
    print_cmd.main(args, prog_name="binlogkit print")



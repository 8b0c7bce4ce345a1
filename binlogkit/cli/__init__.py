"""binlogkit's command line: every click command lives in this package.

One module per command (print_cmd, slowlog, report, export), each turning its
options into the typed objects of the library below (printer.state.PrintOptions,
remote.connection.ConnectOptions, ...) and calling it; `exits` maps the error
tree to exit statuses in one place.  The libraries below know no click.

Subcommands are imported when used: `binlogkit print` loads no slow-log or
pandas code, and a plain `binlogkit print` run (the console script, `run`) does
not load click either: its options are parsed from cli.print_options' table.
"""
import os
import sys

__all__ = ["main", "run", "script"]


def __getattr__(name):
    """`binlogkit.cli.main`, the click group (cli.group), loaded when asked for."""
    if name == "main":
        from binlogkit.cli.group import main
        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(argv=None):
    """The console script: `binlogkit print ...` straight to the printer, all else to click."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["print"]:
        sys.exit(_print_code().run_print_args(args[1:]))
    from binlogkit.cli.group import main
    main(args)


def _print_code():
    """cli.print_fast with what a print loads, imported with the cyclic garbage collector
    paused (imports make no garbage: its passes over their objects were ~1 ms of a small
    print), those objects then left out of its later passes (gc.freeze)."""
    import gc
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from binlogkit.cli import print_fast, print_run  # noqa: F401  (print_fast runs it)
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
    return print_fast


def script():
    """The `binlogkit` command (scripts/binlogkit, python -m binlogkit): `run`; a print
    then ends the process at once (see exit_now), other commands exit as usual."""
    if sys.argv[1:2] != ["print"]:
        run()
        return
    try:
        run()
    except SystemExit as exc:
        exit_now(exc.code)
    exit_now(0)


def exit_now(code):
    """End the process with exit status `code` once its output is flushed, without
    tearing the interpreter down (freeing every module and object: ~2 ms, a tenth of
    a small `print`).  Nothing of binlogkit's waits for exit (no atexit hooks, files
    closed); with another thread alive, a status that is not a number, or output that
    cannot be flushed, it exits as Python does."""
    if code is None:
        code = 0
    threading = sys.modules.get("threading")
    if not isinstance(code, int) or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)          # Python's own exit reports it, as without this
    os._exit(code & 0xFF)

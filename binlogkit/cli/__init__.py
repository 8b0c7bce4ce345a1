"""binlogkit's command line: every click command lives in this package.

One module per command (print_cmd, slowlog, report, export), each turning its
options into the typed objects of the library below (printer.state.PrintOptions,
remote.connection.ConnectOptions, ...) and calling it; `exits` maps the error
tree to exit statuses in one place.  The libraries below know no click.

Subcommands are imported when used: `binlogkit print` loads no slow-log or
pandas code.
"""
import importlib

import click

__all__ = ["main"]


class LazyGroup(click.Group):
    """Subcommands imported when used."""

    LAZY = {"print": ("binlogkit.cli.print_cmd", "print_cmd"),
            "slowlog": ("binlogkit.cli.slowlog", "slowlog"),
            "report": ("binlogkit.cli.report", "report"),
            "export": ("binlogkit.cli.export", "export_cmd")}

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.LAZY))

    def get_command(self, ctx, name):
        if name in self.LAZY and name not in self.commands:
            module, attr = self.LAZY[name]
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-?", "--help"]})
@click.version_option(package_name="binlogkit")
def main():
    """Exact, fast tools for MySQL/MariaDB binary logs and slow query logs."""

"""The `binlogkit` click group; subcommands imported when used."""
import importlib

import click

__all__ = ["main"]


class LazyGroup(click.Group):
    """Subcommands imported when used."""

    LAZY = {"print": ("binlogkit.cli.print_cmd", "print_cmd"),
            "slowlog": ("binlogkit.cli.slowlog", "slowlog"),
            "report": ("binlogkit.cli.report", "report"),
            "export": ("binlogkit.cli.export", "export_cmd"),
            "watch": ("binlogkit.cli.watch", "watch")}

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

"""binlogkit's command line: a thin click layer over the library."""
import click


@click.group(context_settings={"help_option_names": ["-?", "--help"]})
@click.version_option(package_name="binlogkit")
def main():
    """Exact, fast tools for MySQL/MariaDB binary logs and slow query logs."""

from binlogkit.cli import run

run()

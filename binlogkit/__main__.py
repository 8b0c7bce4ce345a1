from binlogkit.cli import script

script()

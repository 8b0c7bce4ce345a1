from binlogkit.cli import main

main()

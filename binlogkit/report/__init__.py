"""``binlogkit report``: binlog rotations lined up with slow-query pile-ups.

    from binlogkit.report.build import build_report
    rep = build_report(["mariadb-bin.000001", "mariadb-bin.000002"], ["slow.log"])
    rep.doc["verdict"], rep.stalls, rep.exit_code

Modules: ``build`` (analysis and the JSON document), ``render`` (text,
Markdown, JSON), ``html`` (one self-contained file), ``state`` (``--state``
for incremental cron runs), ``cli`` (the click command).  pandas is imported
only when a report is built.
"""

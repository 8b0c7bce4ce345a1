"""The stall report's presentation: text, Markdown and JSON (``render``) and one
self-contained HTML file (``html``), from the JSON document that
`binlogkit.analysis.stallreport.build_report` assembles:

    from binlogkit.analysis.stallreport import build_report
    from binlogkit.report import render
    rep = build_report(["mariadb-bin.000001", "mariadb-bin.000002"], ["slow.log"])
    print(render.to_markdown(rep.doc)); rep.exit_code

No pandas here; the analysis (and the ``--state`` file of incremental cron runs,
`analysis.reportstate`) lives in binlogkit.analysis, the click command in
binlogkit.cli.report.
"""

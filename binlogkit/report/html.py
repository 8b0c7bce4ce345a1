"""One self-contained HTML file: the report's sections plus the timeline as an inline PNG."""
from __future__ import annotations

import base64
import html

from binlogkit.report.render import _title, sections

__all__ = ["to_html"]

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px auto;max-width:1200px;
color:#222;padding:0 16px}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:22px 0 6px;border-bottom:1px solid #ddd}
.verdict{font-size:16px;padding:10px 14px;border-radius:6px;background:#eef6ee}
.verdict.bad{background:#fdf0e0}
table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 10px;border-bottom:1px solid #eee;
text-align:left;white-space:nowrap}th{background:#f6f6f6}
img{max-width:100%;border:1px solid #ddd;margin-top:10px}
ul{margin:4px 0 0 0;padding-left:20px}li{margin:2px 0}
"""


def to_html(doc: dict, png: bytes | None = None, all_rotations: bool = False) -> str:
    """HTML for ``doc``; ``png`` (the timeline) is embedded as a data: URI."""
    esc = html.escape
    bad = any(s["over_threshold"] for s in doc["stalls"])
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{esc(_title(doc))}</title><style>{_CSS}</style></head><body>",
           f"<h1>{esc(_title(doc))}</h1>"]
    for title, paras, table in sections(doc, all_rotations):
        if not title:
            cls = "verdict bad" if bad else "verdict"
            out.append(f'<p class="{cls}">{esc(paras[0])}</p>')
            if png:
                data = base64.b64encode(png).decode("ascii")
                out.append(f'<img alt="statement latency over time with binlog rotations '
                           f'and stalls" src="data:image/png;base64,{data}">')
            continue
        out.append(f"<h2>{esc(title)}</h2>")
        if table:
            header, rows = table
            out.append("<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>")
            out += ["<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in r) + "</tr>" for r in rows]
            out.append("</table>")
        if paras:
            if table or len(paras) > 1:
                out.append("<ul>" + "".join(f"<li>{esc(p)}</li>" for p in paras) + "</ul>")
            else:
                out.append(f"<p>{esc(paras[0])}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"

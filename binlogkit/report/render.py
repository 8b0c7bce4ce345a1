"""Text, Markdown and JSON renderings of a report document (see build.py).

Text and Markdown share one outline: verdict, stalls, rotations, cadence,
what it means, notes, inputs.  Times are UTC; a table shows ``HH:MM:SS.f``
when the whole report is within one day, else the date too.
"""
from __future__ import annotations

import json
import math

__all__ = ["to_text", "to_markdown", "to_json", "sections", "strict"]

ROTATIONS_LISTED = 12        # text/Markdown list this many rotations unless asked for all


def strict(value):
    """``value`` with every non-finite float as None: strict JSON has no NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value


def to_json(doc: dict) -> str:
    return json.dumps(strict(doc), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _size(n) -> str:
    if n is None:
        return "?"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{n} B"


def _dur(s) -> str:
    if s is None:
        return "-"
    if s < 1:
        return f"{s * 1000:.0f} ms" if s >= 0.001 else f"{s * 1e6:.0f} \u00b5s"
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 120:
        return f"{s / 60:.0f} min"
    return f"{s:.1f} s"


class _Clock:
    """Formats ISO times as table cells: time only when the report is within one day."""

    def __init__(self, doc):
        w = doc["window"]
        self.one_day = bool(w["first"] and w["last"] and w["first"][:10] == w["last"][:10])

    def __call__(self, iso, frac=True):
        if not iso:
            return "-"
        t = iso[11:21] if frac else iso[11:19]
        return t if self.one_day else f"{iso[:10]} {t}"

    def stall(self, s, key):
        """A stall's time as precise as its data: whole seconds (MariaDB's
        ``# Time`` and binlog header times) or microseconds."""
        iso = s[key]
        if not iso:
            return "-"
        t = iso[11:19] if s.get("time_res_s", 0.0) >= 1.0 else iso[11:26]
        return t if self.one_day else f"{iso[:10]} {t}"


def _cause(s) -> str:
    if s["rotation"]:
        r = s["rotation"]
        return f"rotation {r['from_file']} -> {r['to_file']}"
    return s["cause"]


def sections(doc: dict, all_rotations: bool = False) -> list:
    """[(title, paragraphs, table)] shared by text, Markdown and HTML.

    ``table`` is (header, rows) or None; paragraphs are plain strings.  The stall
    table holds the stalls of the threshold or longer (as the verdict counts
    them); rotations are summarised, and listed whole with ``all_rotations``
    (or when there are few).
    """
    clock = _Clock(doc)
    out = [("", [doc["verdict"]], None)]
    stalls = [s for s in doc["stalls"] if s["over_threshold"]]
    short = [s for s in doc["stalls"] if not s["over_threshold"]]
    if stalls:
        rows = [[clock.stall(s, "start"), clock.stall(s, "end"), f"{s['duration_s']:.1f} s",
                 str(s["queries"]), str(s["writes"] + s["commits"]), str(s["reads"]),
                 _cause(s)] for s in stalls]
        paras = [_stall_line(s, clock) for s in stalls]
        if short:
            paras.append(_short_line(short, doc["threshold_s"]))
        out.append((f"Stalls of {doc['threshold_s']:g} s or more (UTC, {len(stalls)})", paras,
                    (["start", "end", "duration", "statements", "writes/COMMIT", "reads", "cause"],
                     rows)))
    elif short:
        out.append(("Shorter stalls", [_short_line(short, doc["threshold_s"])], None))
    restarts = [r for r in doc.get("restarts", []) if r["previous_end"]]   # not a first file
    if restarts:
        out.append(_restarts(restarts, clock))
    rots = doc["rotations"]
    if rots:
        out.append(_rotations(rots, clock, all_rotations or len(rots) <= ROTATIONS_LISTED))
    out.append(("Cadence", [_cadence(doc["cadence"])], None))
    if doc["advice"]:
        out.append(("What it means", doc["advice"], None))
    if doc["notes"]:
        out.append(("Notes", doc["notes"], None))
    out.append(("Inputs", [_inputs(doc)], None))
    return out


def _short_line(short, threshold) -> str:
    worst = max(s["duration_s"] for s in short)
    causes = {}
    for s in short:
        causes[s["cause"]] = causes.get(s["cause"], 0) + 1
    n = len(short)
    return (f"{n} shorter stall{'s' if n != 1 else ''} (under {threshold:g} s, at most "
            f"{worst:.1f} s: " + ", ".join(f"{k} {v}" for k, v in causes.items())
            + "); in the JSON output.")


def _restarts(restarts, clock):
    rows = [[clock(r["at"], False), r["file"], r["previous_end"] or "before the binlogs given",
             _dur(r["down_s"]) if r.get("down_s") is not None else "-"] for r in restarts]
    return (f"Restarts (UTC, {len(restarts)})",
            ["A restart is never a rotation: the binlog created at start-up is a new file, "
             "not the binlog lock held at rotation."],
            (["started", "new binlog", "previous run ended", "down"], rows))


def _rotations(rots, clock, listed):
    sizes = sorted(r["size_bytes"] for r in rots if r["size_bytes"] is not None)
    stalled = [r for r in rots if r["stall_s"]]
    summary = f"{len(rots)} rotation{'s' if len(rots) != 1 else ''}"
    if sizes:
        summary += (f"; files of {_size(sizes[0])} to {_size(sizes[-1])} (median "
                    f"{_size(sizes[len(sizes) // 2])})")
    if stalled:
        worst = max(stalled, key=lambda r: r["stall_s"])
        summary += (f"; {len(stalled)} caused a stall, the worst {worst['stall_s']:.1f} s when "
                    f"{worst['from_file']} ({_size(worst['size_bytes'])}) rotated at "
                    f"{clock(worst['at'], False)}")
    else:
        summary += "; none caused a stall"
    notes = [summary + "."]
    if not listed:
        notes.append(f"Each rotation is listed with --all-rotations (and in the JSON output).")
        return (f"Binlog rotations (UTC, {len(rots)})", notes, None)
    header = ["at", "file", "next", "size", "lived", "stall"]
    rows = [[clock(r["at"], False), r["from_file"], r["to_file"], _size(r["size_bytes"]),
             _dur(r["lifetime_s"]), f"{r['stall_s']:.1f} s" if r["stall_s"] else "none"]
            for r in rots]
    if any(r["commit_gap_s"] is not None for r in rots):     # MySQL 8 commit timestamps
        header.append("commit gap")
        for row, r in zip(rows, rots):
            row.append("-" if r["commit_gap_s"] is None else f"{r['commit_gap_s']:.3f} s")
    notes += [f"{r['from_file']}: files missing before it ({', '.join(r['missing_before'])}): "
              "purged, or not given" for r in rots if r["missing_before"]]
    notes += [f"{r['to_file']} was created at a server start" for r in rots
              if r["restart_after"]]
    notes += [f"{r['from_file']} was not given; its rotation is seen as the start of "
              f"{r['to_file']}" for r in rots if r["inferred"]]
    return (f"Binlog rotations (UTC, {len(rots)})", notes, (header, rows))


def _stall_line(s, clock) -> str:
    if s["shape"] == "restart":
        return f"{clock(s['start'], False)}: {s['hint']}."
    how = {"pile-up": "waited and were released together", "wait": "waited",
           "commit-gap": "no commit in the binlogs"}.get(s["shape"], "were slow at the same time")
    top = ", ".join(f"{c['fingerprint'][:70]} \u00d7{c['count']}" for c in s["top_classes"])
    if s["shape"] == "commit-gap":
        line = f"{clock(s['start'], False)}: {_gap_words(s)}"
        line += f"; {s['queries']} slow statements ran through it" if s["queries"] else ""
        line += f"; classes: {top}." if top else "."
    else:
        line = f"{clock(s['start'], False)}: {s['queries']} statements {how}; classes: {top}."
        if s.get("commit_gap_s"):
            line += f" The binlogs show {_gap_words(s)} in it."
    if s["hint"]:
        line += f" Hint: {s['hint']}."
    load = (s.get("rotation") or {}).get("load")
    if load:
        line += " " + _load_words(s["rotation"]["from_file"], load)
    return line


def _load_words(name, load) -> str:
    """What the rotated file held and what wrote it (rotation_load)."""
    text = f"{name} held {_size(load['bytes'])} in {load['transactions']} transactions"
    if load.get("unsynced_bytes") is not None:
        text += (f", {_size(load['unsynced_bytes'])} of it not yet synced "
                 f"(sync_binlog={load['sync_binlog']})")
    text += "."
    if load["top_tables"]:
        text += " Most bytes: " + ", ".join(
            f"{t['table']} {_size(t['bytes'])} ({t['transactions']} tx, {t['rows']} rows)"
            for t in load["top_tables"]) + "."
    if load["biggest"]:
        text += " Biggest transactions: " + ", ".join(
            f"{b['gtid'] or 'at ' + str(b['position'])} {_size(b['bytes'])}"
            f" ({b['rows'] if b['rows'] is not None else '?'} rows"
            f"{', ' + ', '.join(b['tables']) if b['tables'] else ''})"
            for b in load["biggest"]) + "."
    return text


def _gap_words(s) -> str:
    """A commit gap as the binlogs show it: exact with µs commit times, else an
    estimate from whole seconds (commits missing against the rate around)."""
    if s.get("time_res_s", 1.0) >= 1.0:
        return f"commits missing for about {s['commit_gap_s']:.1f} s (whole-second binlog times)"
    return f"no commit for {s['commit_gap_s']:.6f} s"


def _every(iv) -> str:
    return f"every {_dur(iv['median_s'])} (\u00b1 {_dur(iv['spread_s'])})"


def _cadence(c) -> str:
    parts = []
    rate = c.get("rotation_rate")
    if c["rotation_interval"] and rate and c["rotation_interval"]["median_s"] < 2.0:
        # ROTATE times are whole seconds: a spacing under a few seconds says nothing
        parts.append(f"binlogs rotated {rate['per_s']:.1f} times a second on average "
                     f"({rate['count']} rotations in {_dur(rate['span_s'])})")
    elif c["rotation_interval"]:
        parts.append(f"binlogs rotated {_every(c['rotation_interval'])}")
    elif c["rotations"]:
        parts.append(f"{c['rotations']} binlog rotation")
    else:
        parts.append("no binlog rotation")
    if c["stall_interval"]:
        parts.append(f"stalls came {_every(c['stall_interval'])}")
    text = "; ".join(parts) + "."
    causes = {k: n for k, n in (c.get("causes") or {}).items() if n and k != "binlog_rotation"}
    if causes:
        text += " Other stalls: " + ", ".join(f"{n} {k}" for k, n in causes.items()) + "."
    if c["rotations"]:
        text += (f" {c['rotations_with_stall']} of {c['rotations']} rotations caused a "
                 "stall")
        text += (f"; rotations explain {c['stalls_explained']} of {c['stalls']} stalls."
                 if c["stalls"] else ".")
    return text


def _inputs(doc) -> str:
    i = doc["inputs"]
    bl = i["binlogs"]
    files = f"{bl[0]} .. {bl[-1]}" if len(bl) > 1 else (bl[0] if bl else "none")
    text = (f"{len(bl)} binlog file{'s' if len(bl) != 1 else ''} ({files}); "
            f"{len(i['slowlogs'])} slow log{'s' if len(i['slowlogs']) != 1 else ''} "
            f"({', '.join(i['slowlogs'])}) with {i['statements']} statements, "
            f"{i['slow_statements']} of them 0.5 s or slower. "
            f"Stall threshold {doc['threshold_s']:g} s.")
    if i.get("server_zone"):
        text += f" Slow-log times read in {i['server_zone']}."
    elif i["server_tz"]:
        text += f" Slow-log zone {i['server_tz']}."
    st = doc.get("state")
    if st:
        text += (f" State {st['file']}: run {st['runs']}, reporting data after "
                 f"{st['previous_watermark'] or 'the beginning'}.")
    return text


def _title(doc) -> str:
    w = doc["window"]
    if not w["first"]:
        return "binlogkit report"
    return f"binlogkit report: {w['first'][:19].replace('T', ' ')}Z to {w['last'][:19].replace('T', ' ')}Z"


def _wrap(text, width=100, indent="", hang=""):
    import textwrap
    return textwrap.fill(text, width=width, initial_indent=indent,
                         subsequent_indent=indent + hang, break_long_words=False,
                         break_on_hyphens=False)


def _text_table(header, rows, indent="  "):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    lines = [indent + "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += [indent + "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
              for r in rows]
    return lines


def to_text(doc: dict, all_rotations: bool = False) -> str:
    lines = [_title(doc), ""]
    for title, paras, table in sections(doc, all_rotations):
        if title:
            lines.append(title)
        if table:
            lines.extend(_text_table(*table))
            if paras:
                lines.append("")
        for p in paras:
            lines.append(_wrap(p, indent="  " if title else "", hang="    " if table else ""))
        lines.append("")
    return "\n".join(lines)


def _md_cell(text) -> str:
    return str(text).replace("|", "\\|")


def to_markdown(doc: dict, all_rotations: bool = False) -> str:
    lines = [f"# {_title(doc)}", ""]
    for title, paras, table in sections(doc, all_rotations):
        if title:
            lines += [f"## {title}", ""]
        if table:
            header, rows = table
            lines.append("| " + " | ".join(header) + " |")
            lines.append("|" + "---|" * len(header))
            lines += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
            lines.append("")
        if not title:
            lines += ["**" + paras[0] + "**", ""]
        elif table and paras:
            lines += ["- " + _md_cell(p) for p in paras] + [""]
        else:
            for p in paras:
                lines += [p, ""]
    return "\n".join(lines)

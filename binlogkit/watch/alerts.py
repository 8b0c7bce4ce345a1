"""Where `binlogkit watch` says what happened: JSON lines, human lines, a hook.

Every event is one line: JSON (``{"event": "stall", ...}``: strict JSON, no NaN)
or, on a terminal (or with ``--format text``), one human line.  `--output FILE`
appends to a file that SIGHUP reopens (for logrotate).  `--exec CMD` runs CMD
through the shell for each stall with its JSON line on standard input (in a
thread of its own, so a slow hook never delays the watch; at most 30 s each).
"""
import json
import subprocess
import sys
import threading

__all__ = ["AlertWriter", "human_line", "size_text"]

EXEC_TIMEOUT_S = 30.0


def size_text(n):
    if n is None:
        return "?"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _hms(text):
    return (text or "?")[11:22] + "Z" if text else "?"


def human_line(kind, p):
    if kind == "stall" and p.get("state") == "cancelled":
        return f"{_hms(p['start'])} stall {p['id']} cancelled: {p['hint']}"
    if kind == "stall":
        rot = p.get("rotation")
        state = " (going on)" if p.get("state") == "ongoing" else ""
        head = f"{_hms(p['start'])} STALL {p['duration_s']:.2f} s{state} {p['cause']}"
        if rot:
            sync = f", sync {rot['sync_s']:.2f} s" if rot.get("sync_s") is not None else ""
            return (f"{head}: commits stalled while {rot['from_file']} "
                    f"({size_text(rot['size_bytes'])}) rotated{sync}")
        return f"{head}: {p.get('waiting_commits', 0)} commits waited; {p.get('hint') or ''}".rstrip()
    if kind == "rotation":
        sync = f" in {p['sync_s']:.3f} s" if p.get("sync_s") is not None else ""
        return (f"{_hms(p['at'])} rotation {p['from_file']} ({size_text(p['size_bytes'])}) "
                f"-> {p['to_file']}{sync}")
    if kind in ("restart", "shutdown"):
        return f"{_hms(p['at'])} restart: {p['what']} ({p.get('file')})"
    if kind in ("disconnect", "reconnect", "watching", "stopped"):
        return f"{_hms(p.get('at'))} {kind}: {p.get('message', '')}".rstrip()
    return f"{kind}: {json.dumps(p, allow_nan=False)}"


class AlertWriter:
    def __init__(self, path=None, fmt=None, exec_cmd=None, stream=None, on_error=None):
        self.path = path
        self.exec_cmd = exec_cmd
        self.on_error = on_error or (lambda message: None)
        self._stream = stream
        self.out = None
        self._open()
        if fmt is None:
            fmt = "text" if (path is None and _isatty(self.out)) else "json"
        self.fmt = fmt
        self.hooks = []
        self.lock = threading.Lock()

    def _open(self):
        if self.path is None:
            self.out = self._stream or sys.stdout
        else:
            self.out = open(self.path, "a", encoding="utf-8")

    def reopen(self):
        """SIGHUP: close and open --output again (a renamed file is let go)."""
        with self.lock:
            if self.path is not None:
                old = self.out
                self._open()
                old.close()

    def write(self, kind, payload):
        doc = {"event": kind, **payload}
        line = json.dumps(doc, allow_nan=False, separators=(",", ":"))
        text = human_line(kind, payload) if self.fmt == "text" else line
        with self.lock:
            self.out.write(text + "\n")
            self.out.flush()
        if kind == "stall" and self.exec_cmd:
            self._hook(line)

    def _hook(self, line):
        thread = threading.Thread(target=self._run_hook, args=(line,), daemon=True)
        self.hooks = [t for t in self.hooks if t.is_alive()] + [thread]
        thread.start()

    def _run_hook(self, line):
        try:
            result = subprocess.run(self.exec_cmd, shell=True, input=(line + "\n").encode(),
                                    stdout=subprocess.DEVNULL, timeout=EXEC_TIMEOUT_S)
            if result.returncode:
                self.on_error(f"--exec exited with {result.returncode}")
        except subprocess.TimeoutExpired:
            self.on_error(f"--exec still running after {EXEC_TIMEOUT_S:.0f} s: killed")
        except OSError as exc:
            self.on_error(f"--exec failed: {exc}")

    def close(self, wait_s=5.0):
        for thread in self.hooks:
            thread.join(wait_s)
        if self.path is not None and self.out is not None:
            self.out.close()
            self.out = None


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False

"""A password given on the command line, hidden from `ps` as the real tools hide it.

mysqlbinlog and mariadb-binlog overwrite the password in their own argv once
they have read it: `-pSECRET` reads `-px xxxx` in /proc/PID/cmdline from then
on (an 'x', a NUL, then one 'x' for each other character).  A Python program
has no argv of its own to write to; `hide()` writes the same bytes into the
process's argument area (between arg_start and arg_end of /proc/self/stat)
through /proc/self/mem, after checking that the argument found there is the
one given.  Where /proc is not there it does nothing and says so (False).

mysqlbinlog then warns on stderr (MYSQL_WARNING); mariadb-binlog 10.11 says
nothing.  Passwords from MYSQL_PWD, option files or the prompt (-p alone) are
not on the command line: no warning, nothing to hide.
"""
import os

MYSQL_WARNING = ("mysqlbinlog: [Warning] Using a password on the command line interface "
                 "can be insecure.")

__all__ = ["hide", "hide_value", "masked", "argument_area", "MYSQL_WARNING"]


def masked(secret):
    """The bytes the real tools leave in place of a password of this length."""
    if not secret:
        return b""
    if len(secret) == 1:
        return b"x"
    return b"x\0" + b"x" * (len(secret) - 2)


def argument_area():
    """(start, end) addresses of this process's arguments, or None."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        fields = stat[stat.rindex(b")") + 2:].split()
        return int(fields[45]), int(fields[46])       # arg_start, arg_end (fields 48, 49)
    except (OSError, ValueError, IndexError):
        return None


def hide(secrets):
    """Overwrite each (argument, password) of `secrets` where the process's command
    line has exactly that argument ending in that password.  True when every one
    was found and overwritten."""
    secrets = [(os.fsencode(arg), os.fsencode(value)) for arg, value in secrets if value]
    if not secrets:
        return True
    area = argument_area()
    if area is None:
        return False
    start, end = area
    found = set()
    try:
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            mem.seek(start)
            text = mem.read(end - start)
            at = 0
            for arg in text.split(b"\0"):
                for i, (wanted, secret) in enumerate(secrets):
                    if arg == wanted and wanted.endswith(secret):
                        mem.seek(start + at + len(arg) - len(secret))
                        mem.write(masked(secret))
                        found.add(i)
                at += len(arg) + 1
    except (OSError, ValueError, OverflowError):
        return False
    return len(found) == len(secrets)


def hide_value(value, args):
    """A click command's password `value`: hidden in each of its command-line forms
    (-pVALUE, -p VALUE, --password=VALUE, --password VALUE) among `args`."""
    if not value:
        return True
    forms = []
    for i, arg in enumerate(args):
        if arg == value and i and args[i - 1] in ("-p", "--password"):
            forms.append((arg, value))
        elif arg.endswith(value) and arg[:len(arg) - len(value)] in ("-p", "--password="):
            forms.append((arg, value))
    return hide(forms)

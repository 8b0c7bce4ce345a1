"""The -v / -vv row text, compiled once per row-image layout.

`TextEmitter` plugs into `binlog.rowcompile.compile_image`: each image
layout (table map, columns bitmap, null bitmap, verbosity) becomes one
function that slices the values and formats the whole `### SET` block with
a single bytes ``%`` operation, the `/* TYPE meta=... */` comments and
NULL lines being part of the format constant.  The text is the one
`values.format_value` (the reference) produces; anything the compiled
code does not handle raises `Bail`, and `print_verbose` prints that event
with the reference instead.

`c_text_plan` gives the same layouts to the C accelerator
(`speedups.rows_text`, and the whole-statement printer behind
driver.fast_rows_eligible): each image's column program plus, per column, the
constant text around its value.
"""
from binlogkit.binlog import rows as R
from binlogkit.binlog.rowcompile import Bail, ImageLayout, decimal_text_code, temporal2_code
from binlogkit.binlog.rowimage import _time2
from binlogkit.printer.mariadb.values import format_value, type_string
from binlogkit.printer.rowtext import COMMANDS, FRAC_DIV
from binlogkit.printer.safety import comment_safe
from binlogkit.printer.text import backtick

__all__ = ["TextEmitter", "quote_controls", "c_text_plan"]

_NOT_CONTROL = bytes(range(0x20, 0x100))
_ESCAPES = {i: b"\\x%02x" % i for i in range(0x20)}


def quote_controls(data, controls):
    """my_b_write_quoted's escaping: each byte < 0x20 becomes \\xNN (`controls` lists them)."""
    for byte in set(controls):
        data = data.replace(bytes((byte,)), _ESCAPES[byte])
    return data


def _time2_text(fsp):

    def text(raw):
        return format_value(R.MYSQL_TYPE_TIME2, fsp, _time2(raw, 0, fsp)[0])
    return text


def _frac_piece(fsp, usec):
    """(format, args) of the '.ffffff' part for `fsp` digits, or nothing for fsp 0."""
    if not fsp:
        return b"", []
    div = FRAC_DIV[fsp]
    return b".%%0%dd" % fsp, ["%s // %d" % (usec, div) if div != 1 else usec]


class TextEmitter:
    """print_verbose_one_row text for one image layout."""

    namespace = {"Bail": Bail, "_fb": int.from_bytes, "_NC": _NOT_CONTROL,
                 "_quote": quote_controls}

    def __init__(self, table_map, clause, verbose, type_string):
        self.table_map = table_map
        self.clause = clause
        self.verbose = verbose
        self.type_string = type_string

    def _comment(self, spec, is_null):
        if self.verbose < 2:
            return b""
        return b" /* %s meta=%d nullable=%d is_null=%d */" % (
            self.type_string(spec.col_type, spec.meta), spec.meta,
            self.table_map.nullable(spec.index), is_null)

    def _line(self, spec, fmt, args, is_null=0):
        head = (b"###   @%d=" % (spec.index + 1)).replace(b"%", b"%%")
        tail = (self._comment(spec, is_null) + b"\n").replace(b"%", b"%%")
        return head + fmt + tail, args

    def null(self, src, spec):
        return self._line(spec, b"NULL", [], 1)

    def value(self, src, spec, raw):
        fmt, args = self._value(src, spec, raw)
        return self._line(spec, fmt, args)

    def _value(self, src, spec, raw):    # noqa: C901 - one case per column type
        real = spec.real
        if real in (R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24,
                    R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_LONGLONG):
            bits = {R.MYSQL_TYPE_TINY: 8, R.MYSQL_TYPE_SHORT: 16, R.MYSQL_TYPE_INT24: 24,
                    R.MYSQL_TYPE_LONG: 32, R.MYSQL_TYPE_LONGLONG: 64}[real]
            v = raw
            if spec.char == "3s":
                v = src.var()
                src.add("%s = _fb(%s, 'little', signed=True)" % (v, raw))
            return b"%d%s", [v, "b'' if %s >= 0 else b' (%%d)' %% (%s + %d)" % (v, v, 1 << bits)]
        if real == R.MYSQL_TYPE_FLOAT or real == R.MYSQL_TYPE_DOUBLE:
            src.add("if %s != %s: raise Bail" % (raw, raw))     # NaN: glibc prints the sign
            return (b"%-20g" if real == R.MYSQL_TYPE_FLOAT else b"%-.20g"), [raw]
        if real == R.MYSQL_TYPE_NEWDECIMAL:
            return decimal_text_code(src, spec, raw)
        if real in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_STRING,
                    R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_GEOMETRY):
            c = src.var("c")
            src.add("%s = %s.translate(None, _NC)" % (c, raw))
            src.add("if %s: %s = _quote(%s, %s)" % (c, raw, raw, c))
            return b"'%s'", [raw]
        if real == R.MYSQL_TYPE_BIT:
            nbits = (spec.meta >> 8) * 8 + (spec.meta & 0xFF)
            return b"b'%s'", ["format(_fb(%s, 'big') & %d, '0%db').encode()" % (raw, (1 << nbits) - 1, nbits)]
        if real == R.MYSQL_TYPE_SET:
            return b"b'%s'", ["format(_fb(%s, 'big'), '0%db').encode()" % (raw, 8 * spec.size)]
        if real == R.MYSQL_TYPE_ENUM:
            return b"%d", [raw]
        if real == R.MYSQL_TYPE_YEAR:
            return b"%04d", ["1900 + %s" % raw]
        if real == R.MYSQL_TYPE_NEWDATE:
            v = src.var()
            src.add("%s = _fb(%s, 'little')" % (v, raw))
            if spec.col_type == R.MYSQL_TYPE_NEWDATE:
                src.add("if %s >> 9 > 9999: raise Bail" % v)
            return b"'%04d:%02d:%02d'", ["%s >> 9" % v, "(%s >> 5) & 15" % v, "%s & 31" % v]
        if real == R.MYSQL_TYPE_TIME:
            v, a = src.var(), src.var("a")
            src.add("%s = _fb(%s, 'little', signed=True); %s = -%s if %s < 0 else %s" % (v, raw, a, v, v, v))
            return b"'%s%02d:%02d:%02d'", ["b'-' if %s < 0 else b''" % v, "%s // 10000" % a,
                                           "%s %% 10000 // 100" % a, "%s %% 100" % a]
        if real == R.MYSQL_TYPE_DATETIME:
            dd, t = src.var("dd"), src.var("t")
            src.add("%s, %s = divmod(%s, 1000000)" % (dd, t, raw))
            return b"'%04d-%02d-%02d %02d:%02d:%02d'", [
                "%s // 10000" % dd, "%s %% 10000 // 100" % dd, "%s %% 100" % dd,
                "%s // 10000" % t, "%s %% 10000 // 100" % t, "%s %% 100" % t]
        if real == R.MYSQL_TYPE_TIMESTAMP:
            return b"%d", ["%s - 4294967296 if %s >= 2147483648 else %s" % (raw, raw, raw)]
        if real == R.MYSQL_TYPE_DATETIME2:
            *parts, usec = temporal2_code(src, spec, raw)
            frac, fargs = _frac_piece(spec.meta, usec)
            return b"'%04d-%02d-%02d %02d:%02d:%02d" + frac + b"'", parts + fargs
        if real == R.MYSQL_TYPE_TIMESTAMP2:
            sec, usec = temporal2_code(src, spec, raw)
            frac, fargs = _frac_piece(spec.meta, usec)
            return b"%d" + frac, [sec] + fargs
        if real == R.MYSQL_TYPE_TIME2:
            return b"%s", ["%s(%s)" % (src.const(_time2_text(spec.meta), "_t2_"), raw)]
        raise AssertionError("no text code for type %d" % real)   # column_spec() filters

    def result(self, src, pieces):
        fmt = self.clause.replace(b"%", b"%%") + b"".join(p[0] for p in pieces)
        args = [a for p in pieces for a in p[1]]
        if not args:
            return src.const(fmt % ())
        return "%s %% (%s,)" % (src.const(fmt), ", ".join(args))


# -- plans for the C accelerator ---------------------------------------------------------

_KINDS = ("write", "update", "delete")     # by the C printer's kind code


def _comment(table_map, spec, verbose, is_null):
    if verbose < 2:
        return b""
    return b" /* %s meta=%d nullable=%d is_null=%d */" % (
        type_string(spec.col_type, spec.meta), spec.meta, table_map.nullable(spec.index), is_null)


def _build_text_plan(table_map, kind, cols, width, verbose):
    command, clause1, clause2 = COMMANDS[_KINDS[kind]]
    head = (b"### " + command + b" "
            + comment_safe(backtick(table_map.db) + b"." + backtick(table_map.table))
            + b"\n" + clause1)
    images = []
    for bitmap in cols:
        layout = ImageLayout(table_map, bitmap, width, None)
        if layout.program is None:
            return None
        texts = []
        for spec in layout.specs:
            if type_string(spec.col_type, spec.meta) is None:
                return None
            prefix = b"###   @%d=" % (spec.index + 1)
            texts += [prefix, _comment(table_map, spec, verbose, 0) + b"\n",
                      prefix + b"NULL" + _comment(table_map, spec, verbose, 1) + b"\n"]
        images.append(layout.program + (tuple(texts),))
    return head, clause2, images[0], images[1] if clause2 is not None else None


def c_text_plan(table_map, kind, cols, cols_ai, width, verbose):
    """The -v/-vv plan of one kind of rows event for the C accelerator, or None.

    `kind` is 0 write, 1 update, 2 delete.  The plan is ``(head, clause2,
    image, image_ai)``: the `### INSERT INTO ...` line with the first
    clause, the UPDATE's `### SET` (else None), and per image its
    rowcompile.c_program with the texts of each column (the `###   @N=`
    prefix, what follows a value, the whole NULL line).  None when the
    compiled layouts do not cover the event (the Python printer then prints
    it).  Cached in ``table_map.plans[(kind, cols, cols_ai, width, verbose)]``,
    where the C printer looks first.
    """
    key = (kind, cols, cols_ai, width, verbose)
    plans = table_map.plans
    if key not in plans:
        bitmaps = (cols, cols_ai) if kind == 1 else (cols,)
        plans[key] = _build_text_plan(table_map, kind, bitmaps, width, verbose)
    return plans[key]

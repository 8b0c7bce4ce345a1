"""Row images compiled once per layout: the fast path behind rowvalues and -v.

The bytes of a row image are laid out by three things only: the table map's
column types and metadata, the columns-present bitmap of the event, and the
image's own null bitmap.  For each such layout this module writes the
Python source of one straight-line function (fixed-width runs of columns
read with one precompiled `struct.Struct`, variable-length values sliced,
no per-column type dispatch) and compiles it with `exec`, once.

The same skeleton serves two emitters: `ValueEmitter` (Python values, the
`rowvalues` API) and the -v text emitter of `printer.mariadb.rows_fast`.  A compiled
function handles well-formed images only: on anything unusual (a value
running past the end, a negative DATETIME, a NaN FLOAT...) it raises `Bail`
and the caller falls back to the simple reference decoder, which has the
exact semantics for every corner.  Only constants derived from integers are
written into the generated source; everything else is passed in its
namespace.
"""
import struct

from binlogkit.binlog import rows as R
from binlogkit.binlog.coltypes import (
    FIXED_SIZES, OP_BIT, OP_DATE, OP_DATETIME2, OP_DECIMAL, OP_JSON, OP_STRING, OP_TIME2, OP_TIMESTAMP2,
    OPS,
)
from binlogkit.binlog.decimal import DIG2BYTES, DIG_PER_DEC1, decimal_bin_size
from binlogkit.binlog.rowimage import (
    ABSENT, Bits, Date, DateTime, Time, Timestamp, resolve_type, _time2,
)

__all__ = ["Bail", "ColumnSpec", "column_spec", "compile_image", "ValueEmitter",
           "present_columns", "null_byte_count", "ImageLayout", "LayoutCache",
           "value_layout", "event_layouts", "read_image_fast", "column_op", "c_program"]


class Bail(Exception):
    """The compiled path met an image it does not handle; use the reference decoder."""


# -- column specs ---------------------------------------------------------------

class ColumnSpec:
    """How one column's non-NULL value sits in an image.

    `char`/`size` for a fixed-width value (a struct format item), or
    `prefix` (the length-prefix width, 1-4) for a variable-length one.
    """
    __slots__ = ("index", "col_type", "meta", "real", "length", "char", "size", "prefix")

    def __init__(self, index, col_type, meta, real, length, char=None, size=0, prefix=0):
        self.index = index
        self.col_type = col_type
        self.meta = meta
        self.real = real
        self.length = length
        self.char = char
        self.size = size
        self.prefix = prefix


# struct format of each fixed-size value; the sizes are coltypes' table's
_INT_CHARS = {code: (char, FIXED_SIZES[code]) for code, char in (
    (R.MYSQL_TYPE_TINY, "b"), (R.MYSQL_TYPE_SHORT, "h"), (R.MYSQL_TYPE_INT24, "3s"),
    (R.MYSQL_TYPE_LONG, "i"), (R.MYSQL_TYPE_LONGLONG, "q"))}
_PLAIN_FIXED = {code: (char, FIXED_SIZES[code]) for code, char in (
    (R.MYSQL_TYPE_FLOAT, "f"), (R.MYSQL_TYPE_DOUBLE, "d"), (R.MYSQL_TYPE_YEAR, "B"),
    (R.MYSQL_TYPE_NEWDATE, "3s"), (R.MYSQL_TYPE_TIME, "3s"), (R.MYSQL_TYPE_DATETIME, "Q"),
    (R.MYSQL_TYPE_TIMESTAMP, "I"))}
_TEMPORAL2_BASE = {R.MYSQL_TYPE_TIME2: 3, R.MYSQL_TYPE_DATETIME2: 5, R.MYSQL_TYPE_TIMESTAMP2: 4}


def _fixed(index, col_type, meta, real, length, char, size):
    return ColumnSpec(index, col_type, meta, real, length, char, size)


def column_spec(index, col_type, meta):
    """The ColumnSpec of a column, or None when only the reference decoder handles it.

    Covered: every type the server writes with well-formed metadata.  Left
    to the reference: old DECIMAL, NULL, MySQL JSON, compressed columns,
    BLOB/GEOMETRY packlen outside 1..4, ENUM of other than 1-2 bytes, SET
    of 0 or more than 8 bytes, odd BIT metadata, fractional precision > 6,
    CHAR metadata without its real type byte.
    """
    real, length = resolve_type(col_type, meta)
    if col_type == R.MYSQL_TYPE_STRING and meta < 256:
        return None
    if real in _INT_CHARS:
        return _fixed(index, col_type, meta, real, length, *_INT_CHARS[real])
    if real in _PLAIN_FIXED:
        return _fixed(index, col_type, meta, real, length, *_PLAIN_FIXED[real])
    if real == R.MYSQL_TYPE_NEWDECIMAL:
        precision, scale = meta >> 8, meta & 0xFF
        if not (1 <= precision <= 65 and scale <= 30 and scale <= precision):
            return None
        size = decimal_bin_size(precision, scale)
        return _fixed(index, col_type, meta, real, length, "%ds" % size, size)
    if real in _TEMPORAL2_BASE:
        if meta > 6:
            return None
        size = _TEMPORAL2_BASE[real] + (meta + 1) // 2
        return _fixed(index, col_type, meta, real, length, "%ds" % size, size)
    if real == R.MYSQL_TYPE_BIT:
        nbits = (meta >> 8) * 8 + (meta & 0xFF)
        if (meta & 0xFF) > 7 or not 1 <= nbits <= 64:
            return None
        size = (nbits + 7) // 8
        return _fixed(index, col_type, meta, real, length, "%ds" % size, size)
    if real == R.MYSQL_TYPE_ENUM:
        size = meta & 0xFF
        if size not in (1, 2):
            return None
        return _fixed(index, col_type, meta, real, length, "B" if size == 1 else "H", size)
    if real == R.MYSQL_TYPE_SET:
        size = meta & 0xFF
        if not 1 <= size <= 8:
            return None
        return _fixed(index, col_type, meta, real, length, "%ds" % size, size)
    if real in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_STRING):
        return ColumnSpec(index, col_type, meta, real, length, prefix=1 if length < 256 else 2)
    if real in (R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_GEOMETRY) and 1 <= meta <= 4:
        return ColumnSpec(index, col_type, meta, real, length, prefix=meta)
    return None


def json_spec(index, meta, bit):
    """A MySQL JSON column, for the C -v text printer only (printer/mysql/fast.py; csrc/json.c
    prints it): a `meta`-byte length then the binary document.  `length` holds `bit`, the
    column's number among the table's JSON columns (its bit in a PARTIAL_UPDATE_ROWS after
    image's partial-update bitmap).  The compiled Python walkers have no JSON spec."""
    return ColumnSpec(index, R.MYSQL_TYPE_JSON, meta, R.MYSQL_TYPE_JSON, bit, prefix=meta)


def present_columns(table_map, cols, width):
    """Indexes of the columns in an image (bit set in `cols`, below width and column count)."""
    limit = min(table_map.column_count, width, len(cols) * 8)
    return [i for i in range(limit) if (cols[i >> 3] >> (i & 7)) & 1]


def null_byte_count(cols, width):
    """Bytes of an image's null bitmap: one bit per bit set in the first `width` of `cols`."""
    nset = bin(int.from_bytes(cols[:(width + 7) // 8], "little") & ((1 << width) - 1)).count("1")
    return (nset + 7) // 8


# -- the skeleton -------------------------------------------------------------------

class _Source:
    """Generated lines plus the namespace their names refer to."""

    def __init__(self, namespace):
        self.lines = []
        self.ns = dict(namespace)
        self._n = 0

    def const(self, value, prefix="_k"):
        name = "%s%d" % (prefix, self._n)
        self._n += 1
        self.ns[name] = value
        return name

    def var(self, prefix="v"):
        self._n += 1
        return "%s%d" % (prefix, self._n)

    def add(self, line):
        self.lines.append("    " + line)


def compile_image(specs, nulls, emitter, name="image"):
    """Compile ``name(d, p, end) -> (new_p, result)`` for one image layout.

    `specs` are the ColumnSpecs of the present columns in order, `nulls`
    their NULL flags (the image's null bitmap); `p` points just after the
    null bitmap.  The emitter turns each value (or NULL) into a piece of the
    result and builds the result from the pieces.
    """
    src = _Source(emitter.namespace)
    pieces = []
    run = []

    def flush_run():
        if not run:
            return
        total = sum(spec.size for spec, _ in run)
        unpack = src.const(struct.Struct("<" + "".join(spec.char for spec, _ in run)).unpack_from, "_S")
        names = [raw for _, raw in run]
        src.add("if p + %d > end: raise Bail" % total)
        src.add("%s, = %s(d, p)" % (", ".join(names), unpack))
        src.add("p += %d" % total)
        for spec, raw in run:
            pieces.append(emitter.value(src, spec, raw))
        run.clear()

    for spec, is_null in zip(specs, nulls):
        if is_null:
            flush_run()
            pieces.append(emitter.null(src, spec))
            continue
        if spec.char is not None:
            run.append((spec, src.var("x")))
            continue
        flush_run()
        raw, q = src.var("s"), src.var("q")
        k = spec.prefix
        if k == 1:
            src.add("%s = p + 1 + d[p]" % q)
        elif k == 2:
            src.add("%s = p + 2 + (d[p] | d[p + 1] << 8)" % q)
        else:
            src.add("%s = p + %d + _fb(d[p:p + %d], 'little')" % (q, k, k))
        src.add("if %s > end: raise Bail" % q)
        src.add("%s = d[p + %d:%s]" % (raw, k, q))
        src.add("p = %s" % q)
        pieces.append(emitter.value(src, spec, raw))
    flush_run()
    src.add("return p, " + emitter.result(src, pieces))
    text = "def %s(d, p, end):\n%s\n" % (name, "\n".join(src.lines))
    code = compile(text, "<row image %s>" % name, "exec")
    exec(code, src.ns)
    fn = src.ns[name]
    fn.source = text
    return fn


# -- Python values ---------------------------------------------------------------

def _decimal_groups(precision, scale):
    """[(bytes, digits, is_int)] of a packed DECIMAL, most significant first."""
    intg = precision - scale
    groups = []
    if DIG2BYTES[intg % DIG_PER_DEC1]:
        groups.append((DIG2BYTES[intg % DIG_PER_DEC1], intg % DIG_PER_DEC1, True))
    groups += [(4, 9, True)] * (intg // DIG_PER_DEC1)
    groups += [(4, 9, False)] * (scale // DIG_PER_DEC1)
    if DIG2BYTES[scale % DIG_PER_DEC1]:
        groups.append((DIG2BYTES[scale % DIG_PER_DEC1], scale % DIG_PER_DEC1, False))
    return groups


def decimal_text_code(src, spec, raw, text=bytes):
    """Lines computing decimal2string() of a packed DECIMAL; returns (fmt, args).

    `fmt` is a format of the digits (no leading zeros, exactly `scale`
    fraction digits, a leading sign), bytes or str as `text` says, and
    `args` its argument expressions.  A negative value that is all zeros
    prints without its sign, as decimal2string does.
    """
    q = "b" if text is bytes else ""
    precision, scale = spec.meta >> 8, spec.meta & 0xFF
    size = spec.size
    sign_bit = 1 << (8 * size - 1)
    v, sg = src.var("dv"), src.var("dg")
    src.add("%s = _fb(%s, 'big')" % (v, raw))
    src.add("if %s & %d: %s ^= %d; %s = %s''" % (v, sign_bit, v, sign_bit, sg, q))
    src.add("else: %s ^= %d; %s = %s'-' if %s else %s''" % (
        v, ((1 << 8 * size) - 1) ^ sign_bit, sg, q, v, q))
    groups = _decimal_groups(precision, scale)
    shift = 8 * size
    exprs = []
    for nbytes, digits, is_int in groups:
        shift -= 8 * nbytes
        exprs.append(("(%s >> %d) & %d" % (v, shift, (1 << 8 * nbytes) - 1), digits, is_int))
    ints = [e for e in exprs if e[2]]
    fracs = [e for e in exprs if not e[2]]
    args = [sg]
    if not ints:
        fmt = "%s0"
    elif len(ints) == 1:
        fmt = "%s%d"
        args.append(ints[0][0])
    else:
        ip = src.var("di")
        ifmt = "%d" + "%09d" * (len(ints) - 1)
        src.add("%s = (%s %% (%s)).lstrip(%s'0') or %s'0'" % (
            ip, src.const(ifmt.encode() if text is bytes else ifmt), ", ".join(e[0] for e in ints),
            q, q))
        fmt = "%s%s"
        args.append(ip)
    if fracs:
        fmt += "." + "".join("%%0%dd" % digits for _, digits, _ in fracs)
        args += [e[0] for e in fracs]
    return (fmt.encode() if text is bytes else fmt), args


def decimal_value_code(src, spec, raw):
    """Lines computing a packed DECIMAL as a decimal.Decimal; returns its expression.

    Up to 28 digits (the default context's precision, so no rounding) the
    digit groups are combined as one integer and scaled, which is faster
    than parsing text; a group above its digit count (never written by a
    server) bails out to the reference decoder.  Wider decimals go through
    the text.
    """
    precision, scale = spec.meta >> 8, spec.meta & 0xFF
    if precision > 28:
        fmt, args = decimal_text_code(src, spec, raw, str)
        return "_Decimal(%s %% (%s))" % (src.const(fmt), ", ".join(args))
    size = spec.size
    sign_bit = 1 << (8 * size - 1)
    v, neg, n = src.var("dv"), src.var("dn"), src.var("di")
    src.add("%s = _fb(%s, 'big')" % (v, raw))
    src.add("%s = not %s & %d" % (neg, v, sign_bit))
    src.add("%s ^= %d if %s else %d" % (v, ((1 << 8 * size) - 1) ^ sign_bit, neg, sign_bit))
    shift = 8 * size
    terms = []
    for nbytes, digits, _ in _decimal_groups(precision, scale):
        shift -= 8 * nbytes
        g = src.var("dg")
        src.add("%s = (%s >> %d) & %d" % (g, v, shift, (1 << 8 * nbytes) - 1))
        src.add("if %s >= %d: raise Bail" % (g, 10 ** digits))
        terms.append((g, digits))
    expr = terms[0][0] if terms else "0"
    for g, digits in terms[1:]:
        expr = "(%s) * %d + %s" % (expr, 10 ** digits, g)
    src.add("%s = %s" % (n, expr))
    value = "_Decimal(-%s if %s else %s)" % (n, neg, n)
    return "%s.scaleb(-%d)" % (value, scale) if scale else value


def temporal2_code(src, spec, raw):
    """Lines decoding DATETIME2 / TIMESTAMP2 fields; returns the part names.

    DATETIME2 -> (year, month, day, hour, minute, second, usec); TIMESTAMP2
    -> (seconds, usec).  Negative packed values and negative fractions (never
    written by a server) bail out to the reference decoder.
    """
    fsp = spec.meta
    nfrac = (fsp + 1) // 2
    w = src.var("tw")
    src.add("%s = _fb(%s, 'big')" % (w, raw))
    usec = src.var("tu")
    if spec.real == R.MYSQL_TYPE_DATETIME2:
        ip = src.var("ti")
        src.add("%s = (%s >> %d) - 549755813888" % (ip, w, 8 * nfrac))
        src.add("if %s < 0: raise Bail" % ip)
    else:
        ip = src.var("ts")
        src.add("%s = %s >> %d" % (ip, w, 8 * nfrac))
    if nfrac:
        fr = src.var("tf")
        src.add("%s = %s & %d" % (fr, w, (1 << 8 * nfrac) - 1))
        if not (spec.real == R.MYSQL_TYPE_TIMESTAMP2 and nfrac == 1):
            src.add("if %s & %d: raise Bail" % (fr, 1 << (8 * nfrac - 1)))
        scale = (1, 10000, 100, 1)[nfrac]
        src.add("%s = %s * %d" % (usec, fr, scale) if scale != 1 else "%s = %s" % (usec, fr))
    else:
        src.add("%s = 0" % usec)
    if spec.real == R.MYSQL_TYPE_TIMESTAMP2:
        return ip, usec
    ymd, hms = src.var("tymd"), src.var("thms")
    src.add("%s = %s >> 17; %s = %s & 131071" % (ymd, ip, hms, ip))
    return ("(%s >> 5) // 13" % ymd, "(%s >> 5) %% 13" % ymd, "%s & 31" % ymd,
            "%s >> 12" % hms, "(%s >> 6) & 63" % hms, "%s & 63" % hms, usec)


class ValueEmitter:
    """Python values, exactly as rowvalues.decode_value returns them."""

    @property
    def namespace(self):
        from decimal import Decimal     # here: a printer that decodes no values never loads it
        return {"Bail": Bail, "_fb": int.from_bytes, "_Decimal": Decimal, "_Bits": Bits,
                "_Date": Date, "_DateTime": DateTime, "_Time": Time,
                "_Timestamp": Timestamp, "_time2": _time2, "_new": tuple.__new__}

    def __init__(self, ncols):
        self.ncols = ncols

    def null(self, src, spec):
        return spec.index, "None"

    def value(self, src, spec, raw):
        real = spec.real
        if real in _INT_CHARS:
            if spec.char == "3s":
                return spec.index, "_fb(%s, 'little', signed=True)" % raw
            return spec.index, raw
        if real in (R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE, R.MYSQL_TYPE_ENUM):
            return spec.index, raw
        if real == R.MYSQL_TYPE_NEWDECIMAL:
            return spec.index, decimal_value_code(src, spec, raw)
        if real in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_STRING,
                    R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_GEOMETRY):
            return spec.index, raw
        if real == R.MYSQL_TYPE_BIT:
            return spec.index, "_Bits(_fb(%s, 'big'), %d)" % (raw, (spec.meta >> 8) * 8 + (spec.meta & 0xFF))
        if real == R.MYSQL_TYPE_SET:
            return spec.index, "_fb(%s, 'little')" % raw
        if real == R.MYSQL_TYPE_YEAR:
            return spec.index, "(1900 + %s if %s else 0)" % (raw, raw)
        if real == R.MYSQL_TYPE_NEWDATE:
            v = src.var()
            src.add("%s = _fb(%s, 'little')" % (v, raw))
            return spec.index, "_Date(%s >> 9, (%s >> 5) & 15, %s & 31)" % (v, v, v)
        if real == R.MYSQL_TYPE_TIME:
            v, a = src.var(), src.var("a")
            src.add("%s = _fb(%s, 'little', signed=True); %s = -%s if %s < 0 else %s" % (v, raw, a, v, v, v))
            return spec.index, "_Time(%s < 0, %s // 10000, %s %% 10000 // 100, %s %% 100, 0, 0)" % (v, a, a, a)
        if real == R.MYSQL_TYPE_DATETIME:
            dd, t = src.var("dd"), src.var("t")
            src.add("%s, %s = divmod(%s, 1000000)" % (dd, t, raw))
            return spec.index, ("_DateTime(%s // 10000, %s %% 10000 // 100, %s %% 100, %s // 10000, "
                                "%s %% 10000 // 100, %s %% 100, 0, 0)" % (dd, dd, dd, t, t, t))
        if real == R.MYSQL_TYPE_TIMESTAMP:
            return spec.index, "_Timestamp(%s, 0, 0)" % raw
        if real == R.MYSQL_TYPE_TIME2:
            return spec.index, "_time2(%s, 0, %d)[0]" % (raw, spec.meta)
        if real == R.MYSQL_TYPE_DATETIME2:
            parts = temporal2_code(src, spec, raw)     # tuple.__new__: no namedtuple frame
            return spec.index, "_new(_DateTime, (%s, %d))" % (", ".join(parts), spec.meta)
        if real == R.MYSQL_TYPE_TIMESTAMP2:
            sec, usec = temporal2_code(src, spec, raw)
            return spec.index, "_new(_Timestamp, (%s, %s, %d))" % (sec, usec, spec.meta)
        raise AssertionError("no value code for type %d" % real)   # column_spec() filters

    def result(self, src, pieces):
        items = ["_ABSENT"] * self.ncols
        src.ns["_ABSENT"] = ABSENT
        for index, expr in pieces:
            items[index] = expr
        return "[%s]" % ", ".join(items)


# -- layouts and caches ---------------------------------------------------------------

class ImageLayout:
    """The compiled functions of one image kind: a table map, a columns bitmap, an emitter.

    One function per null bitmap seen (`function(null_bits)`), at most
    MAX_PATTERNS of them; None means "use the reference decoder" (a column
    type the fast path does not cover, or too many null patterns).
    `program` is the same layout for the C accelerator (`c_program`), or
    None when the fast path does not cover it.
    """
    MAX_PATTERNS = 64
    __slots__ = ("present", "null_bytes", "specs", "functions", "emitter", "program")

    def __init__(self, table_map, cols, width, emitter):
        self.present = present_columns(table_map, cols, width)
        self.null_bytes = null_byte_count(cols, width)
        types, metas = table_map.column_types, table_map.column_meta
        specs = [column_spec(i, types[i], metas[i]) for i in self.present]
        self.specs = None if None in specs else specs
        self.functions = {}
        self.emitter = emitter
        self.program = (None if self.specs is None
                        else c_program(self.specs, self.null_bytes, table_map.column_count))

    def function(self, null_bits):
        fn = self.functions.get(null_bits)
        if fn is None:
            if self.specs is None or len(self.functions) >= self.MAX_PATTERNS:
                return None
            if len(null_bits) != self.null_bytes:
                return None
            nulls = [(null_bits[n >> 3] >> (n & 7)) & 1 for n in range(len(self.specs))]
            fn = self.functions[null_bits] = compile_image(self.specs, nulls, self.emitter)
        return fn


class LayoutCache:
    """Compiled layouts by table map, bounded.

    Looked up by the table map object first (a binlog maps the same tables
    again before every statement; the reader may hand out one object for
    equal maps), then by the map's content (names included: -v text layouts
    carry them), so equal maps share code.
    """

    def __init__(self, build, limit=512):
        self.build = build
        self.limit = limit
        self._by_object = {}
        self._by_content = {}

    def get(self, table_map, *key):
        hit = self._by_object.get((id(table_map),) + key)
        if hit is not None and hit[0] is table_map:
            return hit[1]
        content = (table_map.db, table_map.table, table_map.column_types,
                   tuple(table_map.column_meta), table_map.null_bits) + key
        layout = self._by_content.get(content)
        if layout is None:
            if len(self._by_content) >= self.limit:
                self._by_content.clear()
            layout = self._by_content[content] = self.build(table_map, *key)
        if len(self._by_object) >= self.limit:
            self._by_object.clear()
        self._by_object[(id(table_map),) + key] = (table_map, layout)
        return layout


_VALUE_LAYOUTS = LayoutCache(
    lambda table_map, cols, width: ImageLayout(table_map, cols, width,
                                               ValueEmitter(table_map.column_count)))


def value_layout(table_map, cols, width):
    """The (cached) compiled value layout of one image kind."""
    return _VALUE_LAYOUTS.get(table_map, cols, width)


def _event_layouts(table_map, kind, cols, cols_ai, width):
    first = value_layout(table_map, cols, width)
    return first, (value_layout(table_map, cols_ai, width) if kind == "update" else None)


_EVENT_LAYOUTS = LayoutCache(_event_layouts)


def event_layouts(table_map, kind, cols, cols_ai, width):
    """(before-or-only image layout, UPDATE after-image layout or None) of a rows event."""
    return _EVENT_LAYOUTS.get(table_map, kind, cols, cols_ai, width)


def read_image_fast(layout, data, pos, end):
    """Decode one image with a compiled layout; ``(values, new_pos)``, or None to use the reference.

    `data` must be bytes.
    """
    nb = layout.null_bytes
    fn = layout.function(data[pos:pos + nb])
    if fn is None:
        return None
    try:
        new_pos, values = fn(data, pos + nb, end)
    except (Bail, IndexError):
        return None
    return values, new_pos


# -- column programs for the C accelerator -----------------------------------------------
#
# The same layouts as data for binlogkit/csrc/image.c: one record per
# present column -- op, flag, column index, size, a, b -- derived from the
# ColumnSpecs above, so the C walker covers exactly the columns the compiled
# Python covers (and, like it, gives up on anything unusual in an image).

_OP_RECORD = struct.Struct("<BBHHHH")
_FSP_OP_SET = frozenset({OP_TIME2, OP_DATETIME2, OP_TIMESTAMP2})


def column_op(spec):
    """(op, flag, size, a, b) of a ColumnSpec: how the C walker reads and prints it.

    size is the fixed width (0 for a length-prefixed value, whose prefix
    width is `a`); a/b are the precision and scale of a DECIMAL, the
    fractional digits of TIME2/DATETIME2/TIMESTAMP2, the bit width of a BIT;
    flag marks a NEWDATE column (its text differs past the year 9999).
    """
    real = spec.real
    if real == R.MYSQL_TYPE_JSON:       # json_spec: a: the length bytes, b: the partial-update bit
        return OP_JSON, 0, 0, spec.prefix, spec.length
    if spec.prefix:
        return OP_STRING, 0, 0, spec.prefix, 0
    op = OPS.get(real)          # coltypes' table
    if op == OP_DECIMAL:
        return op, 0, spec.size, spec.meta >> 8, spec.meta & 0xFF
    if op == OP_DATE:
        return op, int(spec.col_type == R.MYSQL_TYPE_NEWDATE), spec.size, 0, 0
    if op in _FSP_OP_SET:
        return op, 0, spec.size, spec.meta, 0
    if op == OP_BIT:
        return op, 0, spec.size, (spec.meta >> 8) * 8 + (spec.meta & 0xFF), 0
    if op is not None and op != OP_STRING:
        return op, 0, spec.size, 0, 0
    raise AssertionError("no op for type %d" % real)     # column_spec() filters


def c_program(specs, null_bytes, ncols):
    """``(null_bytes, ncols, ops)``: an image layout for the C walker (speedups.rows_values)."""
    ops = b"".join(_OP_RECORD.pack(op, flag, spec.index, size, a, b)
                   for spec in specs for op, flag, size, a, b in (column_op(spec),))
    return null_bytes, ncols, ops

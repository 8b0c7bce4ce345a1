/*
 * binlogkit._speedups, part 7: MySQL JSON columns in mysqlbinlog 8.0's -v text.
 *
 *   bk_json_column   printer/mysql/jsontext.column: a binary JSON document
 *                    (sql-common/json_binary.cc) as Json_wrapper::to_string
 *                    prints it, in my_b_write_quoted quotes, or "Invalid JSON\n"
 *   bk_json_diff     jsontext.diff: print_json_diff, the JSON_REPLACE / JSON_INSERT /
 *                    JSON_ARRAY_INSERT / JSON_REMOVE calls of a partially updated
 *                    column of a PARTIAL_UPDATE_ROWS after image
 *   json_column_text(data), json_diff_text(data, column) -> bytes, or None when
 *                    not handled: the same two, for tests/test_json_fast.py
 *
 * csrc/text.c calls them for OP_JSON columns (plans of printer/mysql/fast.py).
 * The reference is jsontext.py over binlog/json_binary.py: it parses the whole
 * document first (keys of an object before its values, in stored order) and
 * prints afterwards; any error it catches makes the text "Invalid JSON".  Here
 * the document is printed while it is walked in the same order, into a scratch
 * buffer that is dropped on an error.  What the reference does not print the
 * usual way is left to it (J_DECLINE, the rows event goes to Python): a
 * document nested deeper than MAX_NEST (the reference recurses), an object with
 * a key twice (a dict keeps the first place and the last value), a NaN or
 * infinite double, a DECIMAL of more than 65 digits or with a digit group out of
 * range, a diff length that Python's net_field_length cannot read.  Doubles are
 * jsontext.format_double (my_gcvt) over the shortest round-trip digits, which
 * are CPython's repr (PyOS_double_to_string 'r'), as the reference takes them.
 */
#include <math.h>

#include "speedups.h"

enum { J_INVALID = 0, J_OK = 1, J_DECLINE = 2 };      /* and -1: a Python error */

#define MAX_NEST 100            /* MySQL's JSON depth limit; deeper is left to Python */
#define MAX_KEYS_UNSORTED 4096  /* objects whose keys are checked pair by pair for twins */
#define GCVT_WIDTH 34           /* MY_GCVT_MAX_FIELD_WIDTH: DBL_DIG + 4 + 15 */
#define MAX_DECPT_F 15          /* MAX_DECPT_FOR_F_FORMAT */
#define PARTIAL_JSON_UPDATES 1

/* json_binary.cc type bytes */
enum { JSONB_SMALL_OBJECT, JSONB_LARGE_OBJECT, JSONB_SMALL_ARRAY, JSONB_LARGE_ARRAY, JSONB_LITERAL,
       JSONB_INT16, JSONB_UINT16, JSONB_INT32, JSONB_UINT32, JSONB_INT64, JSONB_UINT64,
       JSONB_DOUBLE, JSONB_STRING, JSONB_OPAQUE = 15 };
enum { FT_TIMESTAMP = 7, FT_DATE = 10, FT_TIME = 11, FT_DATETIME = 12, FT_NEWDECIMAL = 246,
       FT_VAR_STRING = 253 };

static Buf scratch;             /* the text of one document (the GIL guards it) */

/* ---- writing ------------------------------------------------------------------ */

/* my_b_write_quoted (verbose.write_quoted): \b \f \n \r \t \\ \' by name, other
 * bytes below 0x20 as \xNN */
static int
put_mysql_quoted(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (bk_buf_reserve(b, 4 * n + 2) < 0)
        return -1;
    char *o = b->p + b->len;
    *o++ = '\'';
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        char named = 0;
        switch (c) {
        case '\b': named = 'b'; break;
        case '\f': named = 'f'; break;
        case '\n': named = 'n'; break;
        case '\r': named = 'r'; break;
        case '\t': named = 't'; break;
        case '\\': named = '\\'; break;
        case '\'': named = '\''; break;
        }
        if (named) {
            *o++ = '\\';
            *o++ = named;
        } else if (c >= 0x20) {
            *o++ = (char)c;
        } else {
            *o++ = '\\';
            *o++ = 'x';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o++ = '\'';
    b->len = o - b->p;
    return 0;
}

/* json_dom.cc double_quote (jsontext.double_quote): '"', '\\' and bytes <= 0x1f escaped */
static int
put_double_quoted(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (bk_buf_reserve(b, 6 * n + 2) < 0)
        return -1;
    char *o = b->p + b->len;
    *o++ = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        char named = 0;
        if (c > 0x1F && c != '"' && c != '\\') {
            *o++ = (char)c;
            continue;
        }
        switch (c) {
        case '\b': named = 'b'; break;
        case '\t': named = 't'; break;
        case '\n': named = 'n'; break;
        case '\f': named = 'f'; break;
        case '\r': named = 'r'; break;
        case '"': named = '"'; break;
        case '\\': named = '\\'; break;
        }
        *o++ = '\\';
        if (named) {
            *o++ = named;
        } else {
            o = PUT_LIT(o, "u00");
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o++ = '"';
    b->len = o - b->p;
    return 0;
}

static int
put_text(Buf *b, const unsigned char *s, Py_ssize_t n, int quoted)
{
    return quoted ? put_double_quoted(b, s, n) : buf_put(b, (const char *)s, n);
}

/* ---- doubles: jsontext.format_double (my_gcvt, MY_GCVT_ARG_DOUBLE) ---------------- */

/* The shortest round-trip digits of |x| (no leading or trailing zeros; "0" for
 * zero) and decpt, from CPython's repr as jsontext._shortest_digits takes them. */
static int
shortest_digits(double x, char *digits, int *length, int *decpt)
{
    char *repr = PyOS_double_to_string(fabs(x), 'r', 0, 0, NULL);
    if (repr == NULL)
        return -1;
    int n = 0, point = -1, exp10 = 0;
    const char *s = repr;
    for (; *s && *s != 'e'; s++) {
        if (*s == '.')
            point = n;
        else if (n < 40)
            digits[n++] = *s;
    }
    if (*s == 'e')
        exp10 = atoi(s + 1);
    PyMem_Free(repr);
    int dp = (point < 0 ? n : point) + exp10, lead = 0;
    while (lead < n && digits[lead] == '0')
        lead++;
    while (n > lead && digits[n - 1] == '0')
        n--;
    if (n == lead) {
        digits[0] = '0';
        *length = *decpt = 1;
        return 0;
    }
    memmove(digits, digits + lead, n - lead);
    *length = n - lead;
    *decpt = dp - lead;
    return 0;
}

static int
put_double(Buf *b, double x)
{
    if (!isfinite(x))
        return J_DECLINE;
    char digits[48];
    int length, decpt, width = GCVT_WIDTH;
    if (shortest_digits(x, digits, &length, &decpt) < 0)
        return -1;
    if (x < 0)
        width--;
    int exp_len = 1 + (decpt >= 101 || decpt <= -99) + (decpt >= 11 || decpt <= -9);
    int f_len = decpt <= 0 ? length - decpt + 2 : (decpt < length ? length + 1 : decpt);
    int have_space = f_len <= width;
    int force_e = decpt <= 0 && width <= 2 - decpt && width >= 3 + exp_len;
    int use_f = (have_space || (decpt <= width
                                && (decpt >= -1 || (decpt == -2 && (length > 1 || !force_e)))
                                && !force_e))
                && (!have_space || (decpt >= -MAX_DECPT_F + 1
                                    && (decpt <= MAX_DECPT_F || length > decpt)));
    if (bk_buf_reserve(b, 64 + (decpt > 0 ? decpt : -decpt)) < 0)
        return -1;
    char *o = b->p + b->len, *start = o;
    if (signbit(x))
        *o++ = '-';
    if (use_f) {
        if (decpt <= 0) {
            o = PUT_LIT(o, "0.");
            for (int i = 0; i < -decpt; i++)
                *o++ = '0';
            o = put_str(o, digits, length);
        } else if (decpt < length) {
            o = put_str(o, digits, decpt);
            *o++ = '.';
            o = put_str(o, digits + decpt, length - decpt);
        } else {
            o = put_str(o, digits, length);
            for (int i = length; i < decpt; i++)
                *o++ = '0';
        }
    } else {
        int e = decpt - 1;
        *o++ = digits[0];
        if (length > 1) {
            *o++ = '.';
            o = put_str(o, digits + 1, length - 1);
        }
        *o++ = 'e';
        if (e < 0)
            *o++ = '-';
        o = put_u64(o, (unsigned long long)(e < 0 ? -e : e));
    }
    if (!memchr(start, '.', o - start) && !memchr(start, 'e', o - start))
        o = PUT_LIT(o, ".0");           /* the ".0" rule of Json_wrapper::to_string */
    b->len = o - b->p;
    return J_OK;
}

/* ---- scalars and opaque values ---------------------------------------------------- */

/* read_variable_length(): 7 bits a byte, at most 5 bytes, below 2^32 */
static int
var_length(const unsigned char *d, Py_ssize_t *pos, Py_ssize_t end, unsigned long long *value)
{
    unsigned long long v = 0;
    for (int i = 0; i < 5 && *pos + i < end; i++) {
        unsigned char c = d[*pos + i];
        v |= (unsigned long long)(c & 0x7F) << (7 * i);
        if (!(c & 0x80)) {
            if (v > 0xFFFFFFFFULL)
                return 0;
            *value = v;
            *pos += i + 1;
            return 1;
        }
    }
    return 0;
}

/* temporal_from_packed + temporal_text (my_TIME_to_str(t, 6)) */
static int
put_temporal(Buf *b, int field_type, const unsigned char *x, int quoted)
{
    long long packed = (long long)get_le(x, 8);
    int neg = packed < 0;
    unsigned long long u = neg ? 0 - (unsigned long long)packed : (unsigned long long)packed;
    unsigned long long frac = u % (1ULL << 24), ip = u >> 24;
    if (bk_buf_reserve(b, 120) < 0)
        return -1;
    char *o = b->p + b->len;
    if (quoted)
        *o++ = '"';
    if (field_type == FT_TIME) {
        if (neg)
            *o++ = '-';
        o = put_pad(o, (ip >> 12) % 1024, 2);
        *o++ = ':';
        o = put_pad(o, (ip >> 6) % 64, 2);
        *o++ = ':';
        o = put_pad(o, ip % 64, 2);
        *o++ = '.';
        o = put_pad(o, frac, 6);
    } else {
        unsigned long long ymd = ip >> 17, hms = ip % (1ULL << 17), ym = ymd >> 5;
        o = put_pad(o, ym / 13, 4);
        *o++ = '-';
        o = put_pad(o, ym % 13, 2);
        *o++ = '-';
        o = put_pad(o, ymd % 32, 2);
        if (field_type != FT_DATE) {
            *o++ = ' ';
            o = put_pad(o, hms >> 12, 2);
            *o++ = ':';
            o = put_pad(o, (hms >> 6) % 64, 2);
            *o++ = ':';
            o = put_pad(o, hms % 64, 2);
            *o++ = '.';
            o = put_pad(o, frac, 6);
        }
    }
    if (quoted)
        *o++ = '"';
    b->len = o - b->p;
    return J_OK;
}

/* Json_decimal::convert_from_binary: precision, scale, the binary DECIMAL; printed
 * as decimal2string() gives it (format(Decimal(text), "f") is the same text) */
static int
put_decimal(Buf *b, const unsigned char *x, Py_ssize_t n)
{
    static const int dig2bytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
    if (n < 2)
        return J_INVALID;
    int precision = x[0], scale = x[1], intg = precision - scale;
    if (scale > precision)
        return J_INVALID;
    Py_ssize_t size = intg / 9 * 4 + dig2bytes[intg % 9] + scale / 9 * 4 + dig2bytes[scale % 9];
    if (n - 2 != size || size == 0)
        return J_INVALID;
    if (precision > 65)
        return J_DECLINE;
    Value v;
    if (!bk_decimal_text(x + 2, (int)size, precision, scale, &v))
        return J_DECLINE;
    return buf_put(b, v.text, v.tlen) < 0 ? -1 : J_OK;
}

/* mysys base64_encode: a newline after every 76 characters */
static int
put_base64(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (bk_buf_reserve(b, (n + 2) / 3 * 4 * 77 / 76 + 4) < 0)
        return -1;
    char *o = b->p + b->len;
    int column = 0;
    for (Py_ssize_t i = 0; i < n; i += 3) {
        unsigned long w = (unsigned long)s[i] << 16;
        if (i + 1 < n)
            w |= (unsigned long)s[i + 1] << 8;
        if (i + 2 < n)
            w |= s[i + 2];
        if (column == 76) {
            *o++ = '\n';
            column = 0;
        }
        *o++ = abc[(w >> 18) & 63];
        *o++ = abc[(w >> 12) & 63];
        *o++ = i + 1 < n ? abc[(w >> 6) & 63] : '=';
        *o++ = i + 2 < n ? abc[w & 63] : '=';
        column += 4;
    }
    b->len = o - b->p;
    return 0;
}

static int
put_opaque(Buf *b, int field_type, const unsigned char *x, Py_ssize_t n, int quoted)
{
    if (field_type == FT_NEWDECIMAL)
        return put_decimal(b, x, n);
    if (field_type == FT_TIMESTAMP || field_type == FT_DATE || field_type == FT_TIME
        || field_type == FT_DATETIME)
        return n < 8 ? J_INVALID : put_temporal(b, field_type, x, quoted);
    if (field_type == FT_VAR_STRING)         /* treated as a plain string */
        return put_text(b, x, n, quoted) < 0 ? -1 : J_OK;
    Buf text = {0};
    char head[32], *o = PUT_LIT(head, "base64:type");
    o = put_u64(o, (unsigned long long)field_type);
    *o++ = ':';
    int rc = buf_put(&text, head, o - head) < 0 || put_base64(&text, x, n) < 0
             || put_text(b, (const unsigned char *)text.p, text.len, quoted) < 0 ? -1 : J_OK;
    bk_buf_free(&text);
    return rc;
}

static int
put_scalar(Buf *b, int type, const unsigned char *d, Py_ssize_t pos, Py_ssize_t end, int quoted)
{
    static const int sizes[] = {[JSONB_INT16] = 2, [JSONB_UINT16] = 2, [JSONB_INT32] = 4,
                                [JSONB_UINT32] = 4, [JSONB_INT64] = 8, [JSONB_UINT64] = 8};
    unsigned long long u;
    switch (type) {
    case JSONB_LITERAL:
        if (pos >= end || d[pos] > 2)
            return J_INVALID;
        return (d[pos] == 0 ? BUF_LIT(b, "null") : d[pos] == 1 ? BUF_LIT(b, "true")
                : BUF_LIT(b, "false")) < 0 ? -1 : J_OK;
    case JSONB_INT16: case JSONB_UINT16: case JSONB_INT32: case JSONB_UINT32: case JSONB_INT64:
    case JSONB_UINT64: {
        int size = sizes[type];
        if (end - pos < size)
            return J_INVALID;
        u = get_le(d + pos, size);
        if (bk_buf_reserve(b, 24) < 0)
            return -1;
        char *o = b->p + b->len;
        int is_signed = type == JSONB_INT16 || type == JSONB_INT32 || type == JSONB_INT64;
        if (is_signed && (u >> (8 * size - 1)) & 1) {
            *o++ = '-';             /* the two's complement magnitude */
            u = size < 8 ? (1ULL << (8 * size)) - u : 0 - u;
        }
        b->len = put_u64(o, u) - b->p;
        return J_OK;
    }
    case JSONB_DOUBLE: {
        if (end - pos < 8)
            return J_INVALID;
        double x;
        u = get_le(d + pos, 8);
        memcpy(&x, &u, 8);
        return put_double(b, x);
    }
    case JSONB_STRING:
        if (!var_length(d, &pos, end, &u) || u > (unsigned long long)(end - pos))
            return J_INVALID;
        return put_text(b, d + pos, (Py_ssize_t)u, quoted) < 0 ? -1 : J_OK;
    case JSONB_OPAQUE: {
        if (pos >= end)
            return J_INVALID;
        int field_type = d[pos++];
        if (!var_length(d, &pos, end, &u) || u > (unsigned long long)(end - pos))
            return J_INVALID;
        return put_opaque(b, field_type, d + pos, (Py_ssize_t)u, quoted);
    }
    }
    return J_INVALID;
}

/* ---- containers (parse_array_or_object, Value::element / key) ----------------------- */

static int put_value(Buf *b, int type, const unsigned char *d, Py_ssize_t pos, Py_ssize_t end,
                     int depth, int quoted);

static inline unsigned long long
offset_at(const unsigned char *d, Py_ssize_t pos, int large)
{
    return get_le(d + pos, large ? 4 : 2);
}

/* Whether some key of the object is there twice (keys already checked in bounds) */
static int
twin_keys(const unsigned char *d, Py_ssize_t pos, unsigned long long count, int large)
{
    int osize = large ? 4 : 2, key_entry = osize + 2;
    Py_ssize_t prev_off = 0, prev_len = -1;
    int sorted = 1;
    for (unsigned long long i = 0; i < count && sorted; i++) {
        Py_ssize_t e = pos + 2 * osize + (Py_ssize_t)i * key_entry;
        Py_ssize_t off = (Py_ssize_t)offset_at(d, e, large), len = d[e + osize] | (d[e + osize + 1] << 8);
        if (prev_len >= 0 && (len < prev_len || (len == prev_len
                              && memcmp(d + pos + prev_off, d + pos + off, len) >= 0)))
            sorted = 0;
        prev_off = off;
        prev_len = len;
    }
    if (sorted)             /* the server's order (by length, then bytes): no twins */
        return 0;
    if (count > MAX_KEYS_UNSORTED)
        return 1;
    for (unsigned long long i = 1; i < count; i++) {
        Py_ssize_t e = pos + 2 * osize + (Py_ssize_t)i * key_entry;
        Py_ssize_t off = (Py_ssize_t)offset_at(d, e, large), len = d[e + osize] | (d[e + osize + 1] << 8);
        for (unsigned long long k = 0; k < i; k++) {
            Py_ssize_t f = pos + 2 * osize + (Py_ssize_t)k * key_entry;
            Py_ssize_t off2 = (Py_ssize_t)offset_at(d, f, large);
            if ((d[f + osize] | (d[f + osize + 1] << 8)) == len
                && memcmp(d + pos + off, d + pos + off2, len) == 0)
                return 1;
        }
    }
    return 0;
}

static int
put_container(Buf *b, int type, const unsigned char *d, Py_ssize_t pos, Py_ssize_t end, int depth)
{
    int large = type == JSONB_LARGE_OBJECT || type == JSONB_LARGE_ARRAY;
    int object = type == JSONB_SMALL_OBJECT || type == JSONB_LARGE_OBJECT;
    int osize = large ? 4 : 2, key_entry = osize + 2, value_entry = 1 + osize;
    if (end - pos < 2 * osize)
        return J_INVALID;
    unsigned long long count = offset_at(d, pos, large), size = offset_at(d, pos + osize, large);
    if (size > (unsigned long long)(end - pos))
        return J_INVALID;
    unsigned long long values_at = 2 * osize + (object ? count * key_entry : 0);
    unsigned long long header = values_at + count * value_entry;
    if (header > size)
        return J_INVALID;
    for (unsigned long long i = 0; object && i < count; i++) {
        Py_ssize_t e = pos + 2 * osize + (Py_ssize_t)i * key_entry;
        unsigned long long off = offset_at(d, e, large), len = d[e + osize] | (d[e + osize + 1] << 8);
        if (off < header || off + len > size)
            return J_INVALID;
    }
    if (object && count > 1 && twin_keys(d, pos, count, large))
        return J_DECLINE;
    if (buf_put(b, object ? "{" : "[", 1) < 0)
        return -1;
    for (unsigned long long i = 0; i < count; i++) {
        if (i && BUF_LIT(b, ", ") < 0)
            return -1;
        if (object) {
            Py_ssize_t e = pos + 2 * osize + (Py_ssize_t)i * key_entry;
            Py_ssize_t off = (Py_ssize_t)offset_at(d, e, large), len = d[e + osize] | (d[e + osize + 1] << 8);
            if (put_double_quoted(b, d + pos + off, len) < 0 || BUF_LIT(b, ": ") < 0)
                return -1;
        }
        Py_ssize_t entry_rel = (Py_ssize_t)(values_at + i * value_entry), entry = pos + entry_rel;
        int et = d[entry], rc;
        if (et == JSONB_LITERAL || et == JSONB_INT16 || et == JSONB_UINT16
            || (large && (et == JSONB_INT32 || et == JSONB_UINT32))) {      /* inlined */
            rc = put_scalar(b, et, d, entry + 1, entry + value_entry, 1);
        } else {
            unsigned long long off = offset_at(d, entry + 1, large);
            if (size < off || off < (unsigned long long)(entry_rel + value_entry))
                return J_INVALID;
            rc = put_value(b, et, d, pos + (Py_ssize_t)off, pos + (Py_ssize_t)size, depth + 1, 1);
        }
        if (rc != J_OK)
            return rc;
    }
    return buf_put(b, object ? "}" : "]", 1) < 0 ? -1 : J_OK;
}

static int
put_value(Buf *b, int type, const unsigned char *d, Py_ssize_t pos, Py_ssize_t end, int depth,
          int quoted)
{
    if (depth > MAX_NEST)
        return J_DECLINE;
    if (type <= JSONB_LARGE_ARRAY)
        return put_container(b, type, d, pos, end, depth);
    return put_scalar(b, type, d, pos, end, quoted);
}

/* json_to_text(parse_json(doc), json_quoted=False) into scratch (emptied first) */
static int
document_text(const unsigned char *doc, Py_ssize_t n)
{
    scratch.len = 0;
    if (n == 0)
        return BUF_LIT(&scratch, "null") < 0 ? -1 : J_OK;
    return put_value(&scratch, doc[0], doc, 1, n, 0, 0);
}

static void
scratch_trim(void)
{
    if (scratch.cap > (1 << 20)) {
        bk_buf_free(&scratch);
        scratch.len = scratch.cap = 0;
    }
}

/* jsontext.column: 1 printed, 0 not handled (out unchanged), -1 error */
int
bk_json_column(Buf *out, const unsigned char *doc, Py_ssize_t n)
{
    int rc = document_text(doc, n);
    if (rc == J_OK)
        rc = put_mysql_quoted(out, (const unsigned char *)scratch.p, scratch.len) < 0 ? -1 : 1;
    else if (rc == J_INVALID)
        rc = BUF_LIT(out, "Invalid JSON\n") < 0 ? -1 : 1;
    else if (rc == J_DECLINE)
        rc = 0;
    scratch_trim();
    return rc;
}

/* ---- print_json_diff (jsontext.diff) ---------------------------------------------- */

enum { D_REPLACE, D_INSERT, D_REMOVE, D_ARRAY_INSERT };
static const char *const DIFF_NAMES[] = {"JSON_REPLACE(", "JSON_INSERT(", "JSON_REMOVE(",
                                         "JSON_ARRAY_INSERT("};
#define SEPARATOR "\n###      "

/* jsontext._length: 1 read, J_INVALID past the end or NULL, J_DECLINE where
 * net_field_length itself fails in Python (a cut 2- or 8-byte length) */
static int
diff_length(const unsigned char *d, Py_ssize_t *pos, Py_ssize_t end, unsigned long long *value)
{
    Py_ssize_t p = *pos;
    if (p >= end || d[p] == 251)
        return J_INVALID;
    int n = d[p] < 251 ? 0 : d[p] == 252 ? 2 : d[p] == 253 ? 3 : 8;
    if (p + 1 + n > end)
        return n == 3 ? J_INVALID : J_DECLINE;
    *value = n ? get_le(d + p + 1, n) : d[p];
    *pos = p + 1 + n;
    return 1;
}

/* The first pass: every diff's function into names; 1, or the error's text */
static int
diff_names(const unsigned char *d, Py_ssize_t end, unsigned char *names, Py_ssize_t *count,
           const char **error)
{
    Py_ssize_t pos = 0, n = 0;
    unsigned long long len;
    while (pos < end) {
        int op = d[pos], rc;
        if (op > D_REMOVE) {
            *error = "reading operation type (invalid operation code)";
            return J_INVALID;
        }
        pos++;
        if ((rc = diff_length(d, &pos, end, &len)) != 1) {
            *error = "reading path length to skip";
            return rc;
        }
        if (len > (unsigned long long)(end - pos)) {
            *error = "skipping path";
            return J_INVALID;
        }
        pos += (Py_ssize_t)len;
        names[n++] = op == D_INSERT && d[pos - 1] == ']' ? D_ARRAY_INSERT : op;
        if (op == D_REMOVE)
            continue;
        if ((rc = diff_length(d, &pos, end, &len)) != 1) {
            *error = "reading value length to skip";
            return rc;
        }
        if (len > (unsigned long long)(end - pos)) {
            *error = "skipping value";
            return J_INVALID;
        }
        pos += (Py_ssize_t)len;
    }
    *count = n;
    return 1;
}

/* One function argument: jsontext.diff_value, or the parse error text (*stop set) */
static int
diff_value(Buf *out, const unsigned char *v, Py_ssize_t n, int *stop)
{
    int rc = document_text(v, n);
    if (rc == J_INVALID) {
        *stop = 1;
        return BUF_LIT(out, "Error parsing json value while printing JSON diff\n") < 0 ? -1 : 1;
    }
    if (rc != J_OK)
        return rc == J_DECLINE ? 0 : rc;
    int type = n ? v[0] : JSONB_LITERAL;
    int decimal = type == JSONB_OPAQUE && n > 1 && v[1] == FT_NEWDECIMAL;
    if (type <= JSONB_LARGE_ARRAY)
        return (BUF_LIT(out, "CAST(") < 0
                || put_mysql_quoted(out, (const unsigned char *)scratch.p, scratch.len) < 0
                || BUF_LIT(out, " AS JSON)") < 0) ? -1 : 1;
    if ((type >= JSONB_LITERAL && type <= JSONB_DOUBLE) || decimal)
        return buf_put(out, scratch.p, scratch.len) < 0 ? -1 : 1;
    return put_mysql_quoted(out, (const unsigned char *)scratch.p, scratch.len) < 0 ? -1 : 1;
}

static int
diff_calls(Buf *out, const unsigned char *d, Py_ssize_t end, const unsigned char *names,
           Py_ssize_t count, long column)
{
    int printed = 0;
    for (Py_ssize_t i = count - 1; i >= 0; i--)
        if (i == 0 || names[i - 1] != names[i]) {
            if ((printed && BUF_LIT(out, SEPARATOR) < 0)
                || buf_put(out, DIFF_NAMES[names[i]], strlen(DIFF_NAMES[names[i]])) < 0)
                return -1;
            printed = 1;
        }
    char col[24], *o = col;
    *o++ = '@';
    o = put_u64(o, (unsigned long long)column);
    if (buf_put(out, col, o - col) < 0)
        return -1;
    if (count == 0)
        return 1;
    if (BUF_LIT(out, ", ") < 0)
        return -1;
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        int op = d[pos++], stop = 0, rc;
        unsigned long long len = 0;
        diff_length(d, &pos, end, &len);            /* read in the first pass */
        if (put_mysql_quoted(out, d + pos, (Py_ssize_t)len) < 0)
            return -1;
        pos += (Py_ssize_t)len;
        if (op != D_REMOVE) {
            if (BUF_LIT(out, ", ") < 0)
                return -1;
            diff_length(d, &pos, end, &len);
            if ((rc = diff_value(out, d + pos, (Py_ssize_t)len, &stop)) <= 0 || stop)
                return rc;
            pos += (Py_ssize_t)len;
        }
        if ((pos >= end || names[i + 1] != names[i]) && BUF_LIT(out, ")") < 0)
            return -1;
        if (pos < end && BUF_LIT(out, "," SEPARATOR) < 0)
            return -1;
    }
    return 1;
}

/* jsontext.diff(diff, b"@<column>"): 1 printed, 0 not handled (out unchanged), -1 error */
int
bk_json_diff(Buf *out, const unsigned char *d, Py_ssize_t end, long column)
{
    Py_ssize_t start = out->len, count = 0;
    const char *error = NULL;
    unsigned char *names = PyMem_Malloc(end / 2 + 1);      /* a diff takes 2 bytes or more */
    if (names == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = diff_names(d, end, names, &count, &error);
    if (rc == J_INVALID) {
        rc = (BUF_LIT(out, "Error ") < 0 || buf_put(out, error, strlen(error)) < 0
              || BUF_LIT(out, " while printing JSON diff\n") < 0) ? -1 : 1;
    } else if (rc == 1) {
        rc = diff_calls(out, d, end, names, count, column);
    } else {
        rc = 0;
    }
    PyMem_Free(names);
    if (rc == 0)
        out->len = start;
    scratch_trim();
    return rc;
}

/* ---- for tests: json_column_text(data), json_diff_text(data, column) ---------------- */

PyObject *
bk_json_text_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long column = 0;
    if (nargs < 1 || nargs > 2 || (nargs == 2 && (column = PyLong_AsLong(args[1])) < 0)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "json_text(data[, column])");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Buf out = {0};
    out.as_bytes = 1;
    int rc = nargs == 1 ? bk_json_column(&out, view.buf, view.len)
                        : bk_json_diff(&out, view.buf, view.len, column);
    PyBuffer_Release(&view);
    PyObject *result = NULL;
    if (rc > 0) {
        result = bk_buf_take_bytes(&out, out.len);
    } else if (rc == 0) {
        result = Py_None;
        Py_INCREF(result);
    }
    bk_buf_free(&out);
    return result;
}

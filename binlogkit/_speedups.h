/* Shared by the parts of binlogkit._speedups (_speedups.c, _speedups_rows.c,
 * _speedups_image.c). */
#ifndef BINLOGKIT_SPEEDUPS_H
#define BINLOGKIT_SPEEDUPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define LOG_EVENT_HEADER_LEN 19
#define BINLOG_CHECKSUM_LEN 4
#define FORMAT_DESCRIPTION_EVENT 15

static inline uint32_t
get_u32(const unsigned char *p)
{
    return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline char *
put_u64(char *out, unsigned long long v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *out++ = digits[--n];
    return out;
}

/* v in decimal, zero-padded to at least `width` (<= 20) digits */
static inline char *
put_pad(char *out, unsigned long long v, int width)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < width)
        digits[n++] = '0';
    while (n)
        *out++ = digits[--n];
    return out;
}

static inline char *
put_str(char *out, const char *s, Py_ssize_t n)
{
    memcpy(out, s, n);
    return out + n;
}

#define PUT_LIT(out, lit) put_str(out, lit, sizeof(lit) - 1)

/* A growing output buffer: PyMem memory, or (as_bytes) a bytes object that is
 * handed out at the end without another copy (_speedups_rows.c). */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
    int as_bytes;
    PyObject *bytes;
} Buf;

int bk_buf_reserve(Buf *b, Py_ssize_t extra);
PyObject *bk_buf_take_bytes(Buf *b, Py_ssize_t n);
void bk_buf_free(Buf *b);

static inline int
buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    if (bk_buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

#define BUF_LIT(b, lit) buf_put(b, lit, sizeof(lit) - 1)

/* _speedups.c */
Py_ssize_t bk_b64_lines_size(Py_ssize_t n);
void bk_b64_lines_into(const unsigned char *in, Py_ssize_t n, char *out);
char *bk_put_header(char *o, const char *time_text, Py_ssize_t tlen, unsigned long long server_id,
                    unsigned long long log_pos, int has_crc, uint32_t crc);
Py_ssize_t bk_count_image_rows(const unsigned char *steps, Py_ssize_t nsteps,
                               const unsigned char *steps_ai, Py_ssize_t nsteps_ai,
                               const unsigned char *data, Py_ssize_t end);

/* _speedups_rows.c */
PyObject *bk_print_row_statements(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* _speedups_image.c */
int bk_rows_text(Buf *out, PyObject *plan, const unsigned char *data, Py_ssize_t end,
                 Py_ssize_t *rows);
PyObject *bk_rows_text_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *bk_rows_values(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif

/*
 * binlogkit._speedups, part 5: what only the MySQL flavor needs.
 *
 *   payload_frames(payload, has_crc) -> bytes, or None
 *       the events of an uncompressed Transaction_payload as mysqlbinlog
 *       re-frames them before printing (printer/mysql/gtid.py inner_event,
 *       the reference): with CRC32, the length field grown by 4 and a fresh
 *       CRC32 appended; else the payload as it is.  None when the events do
 *       not tile the payload (mysql_events.split_payload_events refuses it).
 *       print_row_statements prints these (its fixed-position mode).
 */
#include "_speedups.h"

/* CRC-32 (ISO-HDLC, zlib's crc32), slicing by 4 */
static uint32_t crc_table[4][256];

void
bk_crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 4; t++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
}

uint32_t
bk_crc32(uint32_t crc, const unsigned char *p, Py_ssize_t n)
{
    crc = ~crc;
    while (n >= 4) {
        crc ^= get_u32(p);
        crc = crc_table[3][crc & 0xFF] ^ crc_table[2][(crc >> 8) & 0xFF]
              ^ crc_table[1][(crc >> 16) & 0xFF] ^ crc_table[0][crc >> 24];
        p += 4;
        n -= 4;
    }
    while (n--)
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static inline void
put_u32(unsigned char *p, uint32_t v)
{
    p[0] = v & 0xFF;
    p[1] = (v >> 8) & 0xFF;
    p[2] = (v >> 16) & 0xFF;
    p[3] = v >> 24;
}

PyObject *
bk_payload_frames(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "payload_frames(payload, has_crc)");
        return NULL;
    }
    int has_crc = PyObject_IsTrue(args[1]);
    if (has_crc < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t n = view.len, count = 0, at = 0;
    while (at < n) {                    /* split_payload_events' checks */
        if (n - at < LOG_EVENT_HEADER_LEN)
            break;
        uint32_t size = get_u32(in + at + 9);
        if (size < LOG_EVENT_HEADER_LEN || size > n - at)
            break;
        at += size;
        count++;
    }
    PyObject *result = NULL;
    if (at != n) {
        result = Py_None;
        Py_INCREF(result);
    } else if (!has_crc) {
        result = PyBytes_FromStringAndSize((const char *)in, n);
    } else if ((result = PyBytes_FromStringAndSize(NULL, n + BINLOG_CHECKSUM_LEN * count))) {
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(result);
        for (at = 0; at < n;) {
            uint32_t size = get_u32(in + at + 9);
            memcpy(o, in + at, size);
            put_u32(o + 9, size + BINLOG_CHECKSUM_LEN);
            put_u32(o + size, bk_crc32(0, o, size));
            o += size + BINLOG_CHECKSUM_LEN;
            at += size;
        }
    }
    PyBuffer_Release(&view);
    return result;
}

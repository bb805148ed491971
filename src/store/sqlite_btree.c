/* Writing SQLite b-trees directly, for the bulk import.
 *
 * SQLite's INSERT finds, row by row, where a row goes, encodes it through the VDBE,
 * and balances pages as they fill: two thirds of an import's time. The importer
 * already knows the answers: rows come in rowid order, and the (type, producer)
 * index entries come out of its id lists sorted. So the event table's leaf pages are
 * filled here and spooled to a side file while the import runs; at commit, with the
 * SQLite connection closed, they are appended to the database file, the interior
 * pages are built bottom-up, the top page is written over the empty root page that
 * CREATE TABLE / CREATE INDEX allocated, and the header's page count is updated.
 * The result is an ordinary SQLite file: tests run PRAGMA integrity_check on it.
 *
 * Layouts (sqlite.org/fileformat.html): a b-tree page is a header (8 bytes on
 * leaves, 12 on interior pages: type, first freeblock, cell count, start of the
 * cell content, fragmented bytes, right-most child), then 2-byte cell offsets in key
 * order; cells fill the page from its end. Table leaf cell: varint payload length,
 * varint rowid, record. Table interior cell: 4-byte child page, varint rowid (the
 * largest in that child). Index leaf cell: varint length, record; index interior
 * cell: 4-byte child, varint length, record, and that entry lives only there (index
 * b-trees are B-trees, not B+trees). Records here are under 128 bytes, far below
 * the local payload limits, so no cell ever needs overflow pages. */
#include "store/sqlite_btree.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/le.h"
#include "util/util.h"

enum { PG_IDX_INTERIOR = 2, PG_TAB_INTERIOR = 5, PG_IDX_LEAF = 10, PG_TAB_LEAF = 13 };

/* SQLite never uses the page that holds the lock bytes at offset 2^30. */
#define TZ_PENDING_BYTE 0x40000000u
/* Pages written to the spool or the database per write call. */
#define TZ_BT_BATCH 64

/* ---- varints and records --------------------------------------------------------- */

static size_t varint_put(unsigned char *p, uint64_t v)
{
    if (v <= 0x7f) {
        p[0] = (unsigned char)v;
        return 1;
    }
    if (v >> 56) { /* nine bytes: the last one holds 8 bits */
        p[8] = (unsigned char)v;
        v >>= 8;
        for (int i = 7; i >= 0; i--) {
            p[i] = (unsigned char)((v & 0x7f) | 0x80);
            v >>= 7;
        }
        return 9;
    }
    unsigned char tmp[9];
    size_t n = 0;
    do {
        tmp[n++] = (unsigned char)((v & 0x7f) | 0x80);
        v >>= 7;
    } while (v);
    tmp[0] &= 0x7f;
    for (size_t i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

/* Returns the varint's length, 0 when it runs past `avail`. */
static size_t varint_get(const unsigned char *p, size_t avail, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < 8; i++) {
        if (i >= avail)
            return 0;
        x = x << 7 | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    if (avail < 9)
        return 0;
    *v = x << 8 | p[8];
    return 9;
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (n < 9 && (v >> (7 * n)))
        n++;
    return v >> 56 ? 9 : n;
}

/* A record written in place: the header's serial types at hdr, the bodies at body.
 * Every serial type here takes one byte (NULL, integers, floats), so the body starts
 * right after the header of the known number of columns. */
typedef struct rec {
    unsigned char *hdr, *body;
    size_t nh, nb;
    int schema4;
} rec;

/* A record of ncols columns at out (header length, then the header). */
static void rec_start(rec *r, unsigned char *out, size_t ncols, int schema4)
{
    r->hdr = out + 1;
    r->body = out + 1 + ncols;
    r->nh = r->nb = 0;
    r->schema4 = schema4;
}

/* The n low bytes of v, big-endian, at p; writes 8 bytes (the last 8 - n are
 * overwritten by the next column or lie past the record): a record's buffer has 8
 * bytes to spare past its end. One shift and an 8-byte store instead of a loop of n. */
static inline void put_be(unsigned char *p, uint64_t v, size_t n)
{
    uint64_t x = v << (8 * (8 - n)); /* n >= 1 */
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(x >> (56 - 8 * i));
}

static void rec_null(rec *r) { r->hdr[r->nh++] = 0; }

static void rec_int(rec *r, int64_t v)
{
    static const unsigned char width[7] = {0, 1, 2, 3, 4, 6, 8};
    int t;
    if (r->schema4 && (v == 0 || v == 1)) {
        r->hdr[r->nh++] = (unsigned char)(8 + v);
        return;
    }
    if (v >= -128 && v <= 127)
        t = 1;
    else if (v >= -32768 && v <= 32767)
        t = 2;
    else if (v >= -8388608 && v <= 8388607)
        t = 3;
    else if (v >= INT32_MIN && v <= INT32_MAX)
        t = 4;
    else if (v >= -((int64_t)1 << 47) && v < ((int64_t)1 << 47))
        t = 5;
    else
        t = 6;
    r->hdr[r->nh++] = (unsigned char)t;
    put_be(r->body + r->nb, (uint64_t)v, width[t]);
    r->nb += width[t];
}

static void rec_double(rec *r, double d)
{
    if (d != d) { /* NaN: SQLite stores (and reads) it as NULL */
        rec_null(r);
        return;
    }
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    r->hdr[r->nh++] = 7;
    put_be(r->body + r->nb, bits, 8);
    r->nb += 8;
}

/* The header length (under 127 bytes: one byte) before the header; the record's length. */
static size_t rec_finish(const rec *r)
{
    r->hdr[-1] = (unsigned char)(r->nh + 1);
    return 1 + r->nh + r->nb;
}

size_t tz_bt_event_record(const traza_event *ev, int schema4, unsigned char *out)
{
    /* id, ts, type, producer, end_ts, end_producer, level, value, cpu */
    unsigned last = 0; /* optional columns present: up to which one */
    static const uint32_t bit[5] = {TRAZA_HAS_END, TRAZA_HAS_END_PRODUCER, TRAZA_HAS_LEVEL, TRAZA_HAS_VALUE, TRAZA_HAS_CPU};
    for (unsigned i = 0; i < 5; i++)
        if (ev->has & bit[i])
            last = i + 1;
    rec r;
    rec_start(&r, out, 4 + last, schema4);
    rec_null(&r);
    rec_int(&r, ev->ts);
    rec_int(&r, ev->type);
    rec_int(&r, ev->producer);
    for (unsigned i = 0; i < last; i++) {
        if (!(ev->has & bit[i])) {
            rec_null(&r);
            continue;
        }
        switch (i) {
        case 0: rec_int(&r, ev->end_ts); break;
        case 1: rec_int(&r, ev->end_producer); break;
        case 2: rec_int(&r, ev->level); break;
        case 3: rec_double(&r, ev->value); break;
        default: rec_int(&r, ev->cpu); break;
        }
    }
    return rec_finish(&r);
}

size_t tz_bt_tp_record(int32_t type, int32_t producer, int64_t rowid, int schema4, unsigned char *out)
{
    rec r;
    rec_start(&r, out, 3, schema4);
    rec_int(&r, type);
    rec_int(&r, producer);
    rec_int(&r, rowid);
    return rec_finish(&r);
}

/* One value of a record: *null set for NULL; integers in *i, floats in *d. */
static int rec_value(uint64_t t, const unsigned char **body, const unsigned char *end, int *null, int64_t *i, double *d,
                     int *is_float)
{
    static const unsigned char width[8] = {0, 1, 2, 3, 4, 6, 8, 8};
    *null = 0;
    *is_float = 0;
    if (t == 0) {
        *null = 1;
        return 0;
    }
    if (t == 8 || t == 9) {
        *i = (int64_t)t - 8;
        return 0;
    }
    if (t > 7)
        return -1; /* text, blob or reserved: not in these records */
    size_t w = width[t];
    if ((size_t)(end - *body) < w)
        return -1;
    uint64_t v = 0;
    for (size_t k = 0; k < w; k++)
        v = v << 8 | (*body)[k];
    *body += w;
    if (t == 7) {
        memcpy(d, &v, sizeof *d);
        *is_float = 1;
        return 0;
    }
    /* sign-extend from w bytes */
    if (w < 8 && (v >> (8 * w - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * w);
    *i = (int64_t)v;
    return 0;
}

int tz_bt_event_decode(const unsigned char *recb, size_t n, traza_event *ev)
{
    uint64_t hsz;
    size_t k = varint_get(recb, n, &hsz);
    if (!k || hsz > n || hsz < k)
        return -1;
    const unsigned char *body = recb + hsz, *end = recb + n;
    size_t pos = k;
    memset(ev, 0, sizeof *ev);
    for (int col = 0; pos < hsz; col++) {
        uint64_t t;
        size_t m = varint_get(recb + pos, hsz - pos, &t);
        if (!m || col > 8)
            return -1;
        pos += m;
        int null, fl;
        int64_t iv = 0;
        double dv = 0;
        if (rec_value(t, &body, end, &null, &iv, &dv, &fl) < 0)
            return -1;
        if (col == 0) /* the rowid alias */
            continue;
        if (null) {
            if (col <= 3)
                return -1; /* NOT NULL columns */
            continue;
        }
        if (fl && col != 7)
            return -1;
        switch (col) {
        case 1: ev->ts = iv; break;
        case 2: ev->type = (int32_t)iv; break;
        case 3: ev->producer = (int32_t)iv; break;
        case 4: ev->end_ts = iv; ev->has |= TRAZA_HAS_END; break;
        case 5: ev->end_producer = (int32_t)iv; ev->has |= TRAZA_HAS_END_PRODUCER; break;
        case 6: ev->level = (int32_t)iv; ev->has |= TRAZA_HAS_LEVEL; break;
        case 7: ev->value = fl ? dv : (double)iv; ev->has |= TRAZA_HAS_VALUE; break;
        default: ev->cpu = (int32_t)iv; ev->has |= TRAZA_HAS_CPU; break;
        }
    }
    return body == end ? 0 : -1;
}

void tz_bt_record(const tz_bt_col *cols, size_t n, int schema4, tz_buf *out)
{
    /* the header first (serial types), then each column's body in column order */
    unsigned char hdr[1 + 8 * 9], scratch[1 + 1 + 8];
    size_t nh = 1;
    rec one;
    for (size_t c = 0; c < n && c < 8; c++) {
        const tz_bt_col *x = &cols[c];
        rec_start(&one, scratch, 1, schema4);
        switch (x->kind) {
        case TZ_BT_NULL: rec_null(&one); break;
        case TZ_BT_INT: rec_int(&one, x->i); break;
        case TZ_BT_REAL: rec_double(&one, x->d); break;
        case TZ_BT_BLOB: one.nh = varint_put(one.hdr, 12 + 2 * (uint64_t)x->slen); break;
        default: one.nh = varint_put(one.hdr, 13 + 2 * (uint64_t)x->slen); break; /* text */
        }
        memcpy(hdr + nh, one.hdr, one.nh);
        nh += one.nh;
    }
    hdr[0] = (unsigned char)nh; /* under 128: one byte */
    tz_buf_put(out, hdr, nh);
    for (size_t c = 0; c < n && c < 8; c++) {
        const tz_bt_col *x = &cols[c];
        if (x->kind == TZ_BT_TEXT || x->kind == TZ_BT_BLOB) {
            tz_buf_put(out, x->s, x->slen);
            continue;
        }
        rec_start(&one, scratch, 1, schema4);
        if (x->kind == TZ_BT_INT)
            rec_int(&one, x->i);
        else if (x->kind == TZ_BT_REAL)
            rec_double(&one, x->d);
        tz_buf_put(out, one.body, one.nb);
    }
}

int tz_bt_last_blob(const unsigned char *recb, size_t n, const unsigned char **blob, size_t *len)
{
    uint64_t hsz, t = 0;
    size_t pos = varint_get(recb, n, &hsz);
    if (!pos || hsz > n || hsz < pos)
        return -1;
    while (pos < hsz) {
        size_t m = varint_get(recb + pos, hsz - pos, &t);
        if (!m)
            return -1;
        pos += m;
        if (pos < hsz && t != 0)
            return -1; /* a column before the last that is not NULL */
    }
    if (t < 12 || t % 2 || (t - 12) / 2 != n - hsz)
        return -1;
    *blob = recb + hsz;
    *len = n - hsz;
    return 0;
}

void tz_bt_param_record(int64_t event, int32_t def, const traza_value *v, int schema4, tz_buf *out)
{
    tz_bt_col c[3];
    memset(c, 0, sizeof c);
    c[0].kind = c[1].kind = TZ_BT_INT;
    c[0].i = event;
    c[1].i = def;
    switch (v->kind) {
    case TRAZA_PT_INT:
    case TRAZA_PT_HEX: c[2].kind = TZ_BT_INT; c[2].i = v->i; break;
    case TRAZA_PT_DOUBLE: c[2].kind = TZ_BT_REAL; c[2].d = v->d; break;
    default:
        c[2].kind = TZ_BT_TEXT;
        c[2].s = v->s ? v->s : "";
        c[2].slen = strlen(c[2].s);
        break;
    }
    tz_bt_record(c, 3, schema4, out);
}

int tz_bt_param_decode(const unsigned char *recb, size_t n, int64_t *event, int32_t *def, traza_value *v, size_t *slen)
{
    uint64_t hsz, t[3];
    size_t k = varint_get(recb, n, &hsz);
    if (!k || hsz > n)
        return -1;
    for (int c = 0; c < 3; c++) {
        size_t m = k < hsz ? varint_get(recb + k, hsz - k, &t[c]) : 0;
        if (!m)
            return -1;
        k += m;
    }
    if (k != hsz)
        return -1;
    const unsigned char *body = recb + hsz, *end = recb + n;
    int null, fl;
    int64_t iv = 0;
    double dv = 0;
    if (rec_value(t[0], &body, end, &null, &iv, &dv, &fl) < 0 || null || fl)
        return -1;
    *event = iv;
    if (rec_value(t[1], &body, end, &null, &iv, &dv, &fl) < 0 || null || fl)
        return -1;
    *def = (int32_t)iv;
    memset(v, 0, sizeof *v);
    *slen = 0;
    if (t[2] >= 13 && (t[2] & 1)) {
        size_t len = (size_t)((t[2] - 13) / 2);
        if ((size_t)(end - body) != len)
            return -1;
        v->kind = TRAZA_PT_STRING;
        v->s = (const char *)body;
        *slen = len;
        return 0;
    }
    if (rec_value(t[2], &body, end, &null, &iv, &dv, &fl) < 0 || body != end)
        return -1;
    if (null) { /* a NaN was stored as NULL */
        v->kind = TRAZA_PT_DOUBLE;
        v->d = NAN;
    } else if (fl) {
        v->kind = TRAZA_PT_DOUBLE;
        v->d = dv;
    } else {
        v->kind = TRAZA_PT_INT;
        v->i = iv;
    }
    return 0;
}

/* ---- pages ---------------------------------------------------------------------- */

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}
static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}
static uint32_t get16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t get32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* A page being filled: cells from the end backwards, offsets after the header. */
typedef struct page {
    unsigned char *b;
    uint32_t size, hdr; /* page size; header length (8 or 12) */
    uint32_t ncell, content;
    uint32_t last_len;  /* length of the cell added last */
} page;

static void page_reset(page *p, int type)
{
    memset(p->b, 0, p->size);
    p->b[0] = (unsigned char)type;
    p->hdr = (type == PG_IDX_LEAF || type == PG_TAB_LEAF) ? 8 : 12;
    p->ncell = 0;
    p->content = p->size;
    p->last_len = 0;
}

static int page_fits(const page *p, size_t len) { return p->hdr + 2 * (p->ncell + 1) + (p->size - p->content) + len <= p->size; }

/* Room for a cell of len bytes (it must fit): where to write it. */
static unsigned char *page_reserve(page *p, size_t len)
{
    p->content -= (uint32_t)len;
    put16(p->b + p->hdr + 2 * p->ncell, p->content);
    p->ncell++;
    p->last_len = (uint32_t)len;
    return p->b + p->content;
}

static void page_add(page *p, const unsigned char *cell, size_t len)
{
    memcpy(page_reserve(p, len), cell, len);
}

/* Removes the cell added last (it sits at the start of the content area). */
static void page_pop(page *p, unsigned char *cell, size_t *len)
{
    *len = p->last_len;
    memcpy(cell, p->b + p->content, *len);
    memset(p->b + p->content, 0, *len);
    p->content += p->last_len;
    p->ncell--;
    memset(p->b + p->hdr + 2 * p->ncell, 0, 2);
    p->last_len = 0;
}

static void page_seal(page *p, uint32_t right)
{
    put16(p->b + 3, p->ncell);
    put16(p->b + 5, p->content == 65536 ? 0 : p->content);
    if (p->hdr == 12)
        put32(p->b + 8, right);
}

/* ---- the table spool ---------------------------------------------------------------- */

struct tz_table_writer {
    char *path;
    int fd;
    uint32_t psize;
    page cur;
    int64_t cur_last, cur_last_ts;
    int64_t *last_rowid, *last_ts; /* per spooled page */
    size_t npages, cap_rowid, cap_ts;
    unsigned char *wbuf;           /* sealed pages not yet written */
    size_t nw;
    int64_t rows, prev_rowid;
};

static int io_fail(const char *path, const char *what, traza_err *err)
{
    if (errno == ENOSPC || errno == EFBIG || errno == EDQUOT)
        return traza_err_set(err, TRAZA_E_IO, "%s: %s: the disk is full or a file-size limit was reached (%s)", path, what,
                             strerror(errno));
    return traza_err_set(err, TRAZA_E_IO, "%s: %s: %s", path, what, errno ? strerror(errno) : "short transfer");
}

int tz_table_writer_open(tz_table_writer **out, const char *spool_path, uint32_t page_size, traza_err *err)
{
    tz_table_writer *t = calloc(1, sizeof *t);
    if (!t)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    t->fd = -1;
    t->psize = page_size;
    t->path = tz_strdup(spool_path);
    t->cur.size = page_size;
    t->cur.b = malloc(page_size);
    t->wbuf = malloc((size_t)page_size * TZ_BT_BATCH);
    t->prev_rowid = INT64_MIN;
    if (!t->path || !t->cur.b || !t->wbuf) {
        tz_table_writer_free(t);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    t->fd = open(spool_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (t->fd < 0) {
        int e = io_fail(spool_path, "cannot create", err);
        tz_table_writer_free(t);
        return e;
    }
    page_reset(&t->cur, PG_TAB_LEAF);
    *out = t;
    return 0;
}

static int btw_flush(tz_table_writer *t, traza_err *err)
{
    if (!t->nw)
        return 0;
    off_t off = (off_t)(t->npages - t->nw) * t->psize;
    if (tz_pwrite_all(t->fd, t->wbuf, t->nw * t->psize, off) < 0)
        return io_fail(t->path, "cannot write", err);
    t->nw = 0;
    return 0;
}

/* Seals the current leaf into the write batch. */
static int btw_push(tz_table_writer *t, traza_err *err)
{
    if (TZ_GROW(t->last_rowid, t->cap_rowid, t->npages + 1) < 0 || TZ_GROW(t->last_ts, t->cap_ts, t->npages + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    page_seal(&t->cur, 0);
    memcpy(t->wbuf + t->nw * t->psize, t->cur.b, t->psize);
    t->last_rowid[t->npages] = t->cur_last;
    t->last_ts[t->npages] = t->cur_last_ts;
    t->npages++;
    t->nw++;
    page_reset(&t->cur, PG_TAB_LEAF);
    return t->nw == TZ_BT_BATCH ? btw_flush(t, err) : 0;
}

int tz_table_writer_add(tz_table_writer *t, int64_t rowid, int64_t ts, const unsigned char *recb, size_t n, traza_err *err)
{
    if (rowid <= t->prev_rowid)
        return traza_err_set(err, TRAZA_E_USAGE, "page writer: rowid %lld after %lld", (long long)rowid, (long long)t->prev_rowid);
    size_t head = varint_len(n) + varint_len((uint64_t)rowid), len = head + n;
    if (!page_fits(&t->cur, len) && btw_push(t, err) < 0)
        return -1;
    unsigned char *cell = page_reserve(&t->cur, len);
    size_t k = varint_put(cell, n);
    varint_put(cell + k, (uint64_t)rowid);
    memcpy(cell + head, recb, n);
    t->cur_last = rowid;
    t->cur_last_ts = ts;
    t->prev_rowid = rowid;
    t->rows++;
    return 0;
}

int64_t tz_table_writer_rows(const tz_table_writer *t) { return t->rows; }

/* Cell k of a table leaf: rowid and record. */
static int leaf_cell(const unsigned char *b, uint32_t psize, uint32_t k, int64_t *rowid, const unsigned char **recb,
                     size_t *n)
{
    uint32_t off = get16(b + 8 + 2 * k);
    if (off >= psize)
        return -1;
    uint64_t len, rid;
    size_t a = varint_get(b + off, psize - off, &len);
    if (!a)
        return -1;
    size_t c = varint_get(b + off + a, psize - off - a, &rid);
    if (!c || len > psize - off - a - c)
        return -1;
    *rowid = (int64_t)rid;
    *recb = b + off + a + c;
    *n = (size_t)len;
    return 0;
}

/* Reads spooled page i into buf (flushing the batch first). */
static int btw_read(tz_table_writer *t, size_t i, unsigned char *buf, traza_err *err)
{
    if (btw_flush(t, err) < 0)
        return -1;
    if (tz_pread_all(t->fd, buf, t->psize, (off_t)i * t->psize) < 0)
        return io_fail(t->path, "cannot read", err);
    return 0;
}

/* The first page (spooled index, or npages for the current one) whose last value
 * in `key` is >= x (keys increase). */
static size_t first_page_ge(const int64_t *key, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key[mid] >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int tz_table_writer_first_after(tz_table_writer *t, int64_t m, int64_t *rowid, traza_err *err)
{
    *rowid = t->rows ? t->prev_rowid + 1 : 1;
    if (!t->rows)
        return 0;
    /* the first page whose last ts is > m, i.e. >= m + 1 */
    size_t i = m == INT64_MAX ? t->npages + 1 : first_page_ge(t->last_ts, t->npages, m + 1);
    if (i > t->npages || (i == t->npages && t->cur_last_ts <= m))
        return 0;
    unsigned char *buf = t->cur.b;
    unsigned char *tmp = NULL;
    uint32_t ncell = t->cur.ncell;
    if (i < t->npages) {
        tmp = malloc(t->psize);
        if (!tmp)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        if (btw_read(t, i, tmp, err) < 0) {
            free(tmp);
            return -1;
        }
        buf = tmp;
        ncell = get16(buf + 3);
    }
    int rc = 0;
    for (uint32_t k = 0; k < ncell; k++) {
        int64_t rid;
        const unsigned char *r;
        size_t n;
        traza_event ev;
        if (leaf_cell(buf, t->psize, k, &rid, &r, &n) < 0 || tz_bt_event_decode(r, n, &ev) < 0) {
            rc = traza_err_set(err, TRAZA_E_FORMAT, "%s: page %zu: unreadable row", t->path, i);
            break;
        }
        if (ev.ts > m) {
            *rowid = rid;
            break;
        }
    }
    free(tmp);
    return rc;
}

int tz_table_writer_take_from(tz_table_writer *t, int64_t from, tz_table_writer_row_cb cb, void *ctx, traza_err *err)
{
    if (!t->rows || from > t->prev_rowid)
        return 0;
    if (btw_flush(t, err) < 0) /* every page before `first` must be in the spool */
        return -1;
    size_t first = first_page_ge(t->last_rowid, t->npages, from);
    size_t total = t->npages + 1; /* the current page last */
    unsigned char *buf = malloc(t->psize), *keep = malloc(t->psize);
    if (!buf || !keep) {
        free(buf);
        free(keep);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    /* The rows of the first page below `from` stay: they are re-added below. */
    uint32_t nkeep = 0;
    int64_t removed = 0;
    int rc = 0;
    for (size_t i = first; i < total && rc == 0; i++) {
        const unsigned char *b = t->cur.b;
        uint32_t ncell = t->cur.ncell;
        if (i < t->npages) {
            if (btw_read(t, i, buf, err) < 0) {
                rc = -1;
                break;
            }
            b = buf;
            ncell = get16(b + 3);
        }
        if (i == first) {
            memcpy(keep, b, t->psize);
            nkeep = ncell;
        }
        for (uint32_t k = 0; k < ncell; k++) {
            int64_t rid;
            const unsigned char *r;
            size_t n;
            if (leaf_cell(b, t->psize, k, &rid, &r, &n) < 0) {
                rc = traza_err_set(err, TRAZA_E_FORMAT, "%s: page %zu: unreadable row", t->path, i);
                break;
            }
            if (rid < from)
                continue;
            removed++;
            if (cb(ctx, rid, r, n, err) < 0) {
                rc = -1;
                break;
            }
        }
    }
    if (rc == 0) {
        /* Drop the pages from `first` on, then re-add the kept rows of `first`. */
        int64_t rows = t->rows - removed;
        t->npages = first;
        t->nw = 0;
        if (ftruncate(t->fd, (off_t)first * t->psize) < 0)
            rc = io_fail(t->path, "cannot truncate", err);
        page_reset(&t->cur, PG_TAB_LEAF);
        t->prev_rowid = first ? t->last_rowid[first - 1] : INT64_MIN;
        for (uint32_t k = 0; k < nkeep && rc == 0; k++) {
            int64_t rid;
            const unsigned char *r;
            size_t n;
            traza_event ev;
            if (leaf_cell(keep, t->psize, k, &rid, &r, &n) < 0) {
                rc = traza_err_set(err, TRAZA_E_FORMAT, "%s: unreadable row", t->path);
                break;
            }
            if (rid >= from)
                break;
            if (tz_bt_event_decode(r, n, &ev) < 0) { /* rows kept are event rows (their time) */
                rc = traza_err_set(err, TRAZA_E_FORMAT, "%s: unreadable row", t->path);
                break;
            }
            rc = tz_table_writer_add(t, rid, ev.ts, r, n, err);
        }
        t->rows = rows; /* the kept rows were counted in rows already */
    }
    free(buf);
    free(keep);
    return rc;
}

void tz_table_writer_free(tz_table_writer *t)
{
    if (!t)
        return;
    if (t->fd >= 0) {
        close(t->fd);
        unlink(t->path);
    }
    free(t->path);
    free(t->cur.b);
    free(t->wbuf);
    free(t->last_rowid);
    free(t->last_ts);
    free(t);
}

/* ---- the record spool ------------------------------------------------------------ */

/* In the file each record is: u32 length, i64 key (little-endian), the bytes. */
#define RSP_HEAD 12
#define RSP_BUF ((size_t)1 << 20)
#define RSP_EVERY 1024 /* a checkpoint (key, offset) every so many records */

struct tz_rec_spool {
    char *path;
    int fd;
    unsigned char *buf; /* writing: pending bytes; reading: the window */
    size_t len, cap;
    off_t end;          /* bytes in the file */
    uint64_t count;
    int64_t *ck_key;
    off_t *ck_off;
    size_t nck, cap_key, cap_off;
    /* reading */
    off_t rd;           /* file offset of buf[0] */
    size_t pos;
    int reading;
};

int tz_rec_spool_open(tz_rec_spool **out, const char *path, traza_err *err)
{
    tz_rec_spool *r = calloc(1, sizeof *r);
    if (!r)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    r->fd = -1;
    r->path = tz_strdup(path);
    r->cap = RSP_BUF;
    r->buf = malloc(r->cap);
    if (!r->path || !r->buf) {
        tz_rec_spool_free(r);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    r->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (r->fd < 0) {
        int e = io_fail(path, "cannot create", err);
        tz_rec_spool_free(r);
        return e;
    }
    *out = r;
    return 0;
}

static int rsp_flush(tz_rec_spool *r, traza_err *err)
{
    if (r->reading || !r->len)
        return 0;
    if (tz_pwrite_all(r->fd, r->buf, r->len, r->end) < 0)
        return io_fail(r->path, "cannot write", err);
    r->end += (off_t)r->len;
    r->len = 0;
    return 0;
}

int tz_rec_spool_add(tz_rec_spool *r, int64_t key, const unsigned char *recb, size_t n, traza_err *err)
{
    if (r->reading || n > UINT32_MAX)
        return traza_err_set(err, TRAZA_E_USAGE, "record spool: cannot add here");
    if (r->count % RSP_EVERY == 0) {
        if (TZ_GROW(r->ck_key, r->cap_key, r->nck + 1) < 0 || TZ_GROW(r->ck_off, r->cap_off, r->nck + 1) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        r->ck_key[r->nck] = key;
        r->ck_off[r->nck++] = r->end + (off_t)r->len;
    }
    if (r->len + RSP_HEAD + n > r->cap && rsp_flush(r, err) < 0)
        return -1;
    if (RSP_HEAD + n > r->cap) { /* a record larger than the buffer: straight to the file */
        unsigned char h[RSP_HEAD];
        tz_put_le32(h, (uint32_t)n);
        tz_put_le64(h + 4, (uint64_t)key);
        if (tz_pwrite_all(r->fd, h, RSP_HEAD, r->end) < 0 || tz_pwrite_all(r->fd, recb, n, r->end + RSP_HEAD) < 0)
            return io_fail(r->path, "cannot write", err);
        r->end += (off_t)(RSP_HEAD + n);
    } else {
        tz_put_le32(r->buf + r->len, (uint32_t)n);
        tz_put_le64(r->buf + r->len + 4, (uint64_t)key);
        memcpy(r->buf + r->len + RSP_HEAD, recb, n);
        r->len += RSP_HEAD + n;
    }
    r->count++;
    return 0;
}

uint64_t tz_rec_spool_count(const tz_rec_spool *r) { return r->count; }

/* Makes buf[pos ..] hold at least `need` bytes of the file from offset rd + pos. */
static int rsp_fill(tz_rec_spool *r, size_t need, traza_err *err)
{
    if (r->len - r->pos >= need)
        return 1;
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->rd += (off_t)r->pos;
    r->len -= r->pos;
    r->pos = 0;
    if (need > r->cap) {
        unsigned char *nb = realloc(r->buf, need);
        if (!nb)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        r->buf = nb;
        r->cap = need;
    }
    while (r->len < need) {
        off_t at = r->rd + (off_t)r->len;
        if (at >= r->end)
            return 0;
        size_t want = r->cap - r->len;
        if ((off_t)want > r->end - at)
            want = (size_t)(r->end - at);
        if (tz_pread_all(r->fd, r->buf + r->len, want, at) < 0)
            return io_fail(r->path, "cannot read", err);
        r->len += want;
    }
    return 1;
}

static int rsp_start_read(tz_rec_spool *r, off_t from, traza_err *err)
{
    if (rsp_flush(r, err) < 0)
        return -1;
    r->reading = 1;
    r->rd = from;
    r->len = r->pos = 0;
    return 0;
}

/* The next record: 1, 0 at the end, -1 on error. */
static int rsp_read(tz_rec_spool *r, int64_t *key, const unsigned char **recb, size_t *n, traza_err *err)
{
    int got = rsp_fill(r, RSP_HEAD, err);
    if (got <= 0)
        return got;
    size_t len = tz_get_le32(r->buf + r->pos);
    got = rsp_fill(r, RSP_HEAD + len, err);
    if (got <= 0)
        return got < 0 ? -1 : traza_err_set(err, TRAZA_E_FORMAT, "%s: truncated record", r->path);
    *key = (int64_t)tz_get_le64(r->buf + r->pos + 4);
    *recb = r->buf + r->pos + RSP_HEAD;
    *n = len;
    r->pos += RSP_HEAD + len;
    return 1;
}

int tz_rec_spool_take_from(tz_rec_spool *r, int64_t from, tz_rec_spool_cb cb, void *ctx, traza_err *err)
{
    if (!r->count)
        return 0;
    /* the last checkpoint whose key is below `from`: records before it stay */
    size_t lo = 0, hi = r->nck;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->ck_key[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t ck = lo ? lo - 1 : 0;
    if (rsp_start_read(r, r->ck_off[ck], err) < 0)
        return -1;
    uint64_t before = (uint64_t)ck * RSP_EVERY;
    off_t cut = -1;
    int rc = 0;
    for (;;) {
        int64_t key;
        const unsigned char *recb;
        size_t n;
        off_t at = r->rd + (off_t)r->pos;
        int got = rsp_read(r, &key, &recb, &n, err);
        if (got <= 0) {
            rc = got;
            break;
        }
        if (key < from) {
            before++;
            continue;
        }
        if (cut < 0)
            cut = at;
        if (cb(ctx, key, recb, n, err) < 0) {
            rc = -1;
            break;
        }
    }
    r->reading = 0;
    r->len = r->pos = 0;
    if (rc < 0 || cut < 0)
        return rc;
    if (ftruncate(r->fd, cut) < 0)
        return io_fail(r->path, "cannot truncate", err);
    r->end = cut;
    r->count = before;
    while (r->nck && r->ck_off[r->nck - 1] >= cut)
        r->nck--;
    return 0;
}

int tz_rec_spool_rewind(tz_rec_spool *r, traza_err *err) { return rsp_start_read(r, 0, err); }

int tz_rec_spool_next(void *ctx, const unsigned char **recb, size_t *n, traza_err *err)
{
    int64_t key;
    return rsp_read((tz_rec_spool *)ctx, &key, recb, n, err);
}

void tz_rec_spool_free(tz_rec_spool *r)
{
    if (!r)
        return;
    if (r->fd >= 0) {
        close(r->fd);
        unlink(r->path);
    }
    free(r->path);
    free(r->buf);
    free(r->ck_key);
    free(r->ck_off);
    free(r);
}

/* ---- the database file ---------------------------------------------------------- */

int tz_dbfile_open(tz_dbfile *f, const char *path, traza_err *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->fd = open(path, O_RDWR | O_CLOEXEC);
    if (f->fd < 0)
        return io_fail(path, "cannot open", err);
    unsigned char h[100];
    struct stat st;
    if (tz_pread_all(f->fd, h, sizeof h, 0) < 0 || fstat(f->fd, &st) < 0) {
        int e = io_fail(path, "cannot read the header", err);
        tz_dbfile_abort(f);
        return e;
    }
    uint32_t psize = get16(h + 16) == 1 ? 65536 : get16(h + 16);
    const char *bad = NULL;
    if (memcmp(h, "SQLite format 3", 16) != 0)
        bad = "not an SQLite 3 file";
    else if (psize < 512 || (psize & (psize - 1)))
        bad = "invalid page size";
    else if (h[20] != 0)
        bad = "reserved bytes per page (not written by traza)";
    else if (get32(h + 52) != 0)
        bad = "auto-vacuum is on";
    else if (get32(h + 24) != get32(h + 92) || (uint64_t)get32(h + 28) * psize != (uint64_t)st.st_size)
        bad = "header page count does not match the file size";
    if (bad) {
        tz_dbfile_abort(f);
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: cannot append pages: %s", path, bad);
    }
    f->page_size = psize;
    f->npages = get32(h + 28);
    f->lock_page = TZ_PENDING_BYTE / psize + 1;
    f->schema4 = get32(h + 44) >= 4;
    f->buf_cap = TZ_BT_BATCH;
    f->buf = malloc((size_t)psize * f->buf_cap);
    if (!f->buf) {
        tz_dbfile_abort(f);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return 0;
}

void tz_dbfile_abort(tz_dbfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->buf);
    f->buf = NULL;
}

static uint32_t dbf_alloc(tz_dbfile *f)
{
    uint32_t p = ++f->npages;
    if (p == f->lock_page)
        p = ++f->npages;
    return p;
}

static int dbf_flush(tz_dbfile *f, traza_err *err)
{
    if (!f->buf_n)
        return 0;
    if (tz_pwrite_all(f->fd, f->buf, (size_t)f->buf_n * f->page_size, (off_t)(f->buf_first - 1) * f->page_size) < 0)
        return io_fail(f->path, "cannot write", err);
    f->buf_n = 0;
    return 0;
}

/* Writes one page; consecutive pages are gathered into one write. */
static int dbf_put(tz_dbfile *f, uint32_t pgno, const unsigned char *b, traza_err *err)
{
    if (f->buf_n && (pgno != f->buf_first + f->buf_n || f->buf_n == f->buf_cap) && dbf_flush(f, err) < 0)
        return -1;
    if (!f->buf_n)
        f->buf_first = pgno;
    memcpy(f->buf + (size_t)f->buf_n * f->page_size, b, f->page_size);
    f->buf_n++;
    return 0;
}

/* Copies n spooled pages starting at spool page s to database pages from pgno on. */
static int dbf_copy(tz_dbfile *f, tz_table_writer *t, size_t s, uint32_t pgno, size_t n, traza_err *err)
{
    if (dbf_flush(f, err) < 0)
        return -1;
    loff_t in = (loff_t)s * f->page_size, out = (loff_t)(pgno - 1) * f->page_size;
    size_t left = n * f->page_size;
    while (left) {
        ssize_t c = copy_file_range(t->fd, &in, f->fd, &out, left, 0);
        if (c > 0) {
            left -= (size_t)c;
            continue;
        }
        if (c < 0 && errno == EINTR)
            continue;
        break; /* not supported here (or a short file): copy by hand */
    }
    while (left) {
        size_t chunk = left < (size_t)f->page_size * f->buf_cap ? left : (size_t)f->page_size * f->buf_cap;
        if (tz_pread_all(t->fd, f->buf, chunk, in) < 0)
            return io_fail(t->path, "cannot read", err);
        if (tz_pwrite_all(f->fd, f->buf, chunk, out) < 0)
            return io_fail(f->path, "cannot write", err);
        in += (loff_t)chunk;
        out += (loff_t)chunk;
        left -= chunk;
    }
    return 0;
}

/* Table interior levels above m children (pages child[], largest rowids key[]):
 * groups fill pages greedily; the last group takes a child from the one before
 * if it would have no cell. The top page goes to `root`. */
static int table_levels(tz_dbfile *f, uint32_t root, uint32_t *child, int64_t *key, size_t m, traza_err *err)
{
    page p;
    p.size = f->page_size;
    p.b = malloc(p.size);
    size_t *gend = malloc((m + 1) * sizeof *gend);
    if (!p.b || !gend) {
        free(p.b);
        free(gend);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    int rc = 0;
    while (m > 1 && rc == 0) {
        size_t ng = 0;
        for (size_t s = 0; s < m;) {
            size_t e = s + 1, bytes = 0, nc = 0;
            while (e < m) {
                size_t cs = 4 + varint_len((uint64_t)key[e - 1]);
                if (12 + 2 * (nc + 1) + bytes + cs > p.size)
                    break;
                bytes += cs;
                nc++;
                e++;
            }
            gend[ng++] = e;
            s = e;
        }
        if (ng > 1 && gend[ng - 1] - gend[ng - 2] == 1)
            gend[ng - 2]--;
        for (size_t g = 0, s = 0; g < ng; s = gend[g++]) {
            size_t e = gend[g];
            page_reset(&p, PG_TAB_INTERIOR);
            for (size_t j = s; j + 1 < e; j++) {
                unsigned char cell[13];
                put32(cell, child[j]);
                size_t len = 4 + varint_put(cell + 4, (uint64_t)key[j]);
                page_add(&p, cell, len);
            }
            page_seal(&p, child[e - 1]);
            uint32_t pg = ng == 1 ? root : dbf_alloc(f);
            if (dbf_put(f, pg, p.b, err) < 0) {
                rc = -1;
                break;
            }
            child[g] = pg;
            key[g] = key[e - 1];
        }
        m = ng;
    }
    free(p.b);
    free(gend);
    if (rc == 0)
        rc = dbf_flush(f, err);
    return rc;
}

int tz_dbfile_put_table(tz_dbfile *f, uint32_t root, tz_table_writer *t, traza_err *err)
{
    if (t->cur.ncell && btw_push(t, err) < 0)
        return -1;
    if (btw_flush(t, err) < 0)
        return -1;
    size_t m = t->npages;
    if (m == 0)
        return 0; /* the root stays the empty leaf */
    if (m == 1) {
        unsigned char *b = malloc(f->page_size);
        if (!b)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        int rc = btw_read(t, 0, b, err) < 0 || dbf_put(f, root, b, err) < 0 || dbf_flush(f, err) < 0 ? -1 : 0;
        free(b);
        return rc;
    }
    uint32_t *child = malloc(m * sizeof *child);
    int64_t *key = malloc(m * sizeof *key);
    if (!child || !key) {
        free(child);
        free(key);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    int rc = 0;
    /* Leaves in runs of consecutive pages (the lock page breaks a run). */
    for (size_t i = 0; i < m && rc == 0;) {
        size_t j = i;
        uint32_t first = dbf_alloc(f);
        child[j] = first;
        key[j] = t->last_rowid[j];
        for (j++; j < m; j++) {
            if (f->npages + 1 == f->lock_page)
                break;
            child[j] = dbf_alloc(f);
            key[j] = t->last_rowid[j];
        }
        rc = dbf_copy(f, t, i, first, j - i, err);
        i = j;
    }
    if (rc == 0)
        rc = table_levels(f, root, child, key, m, err);
    free(child);
    free(key);
    return rc;
}

/* Records moved up between index pages, kept in an arena. */
typedef struct divs {
    unsigned char *b;
    size_t len, cap;
    size_t *off;
    size_t n, ncap;
} divs;

static int divs_add(divs *d, const unsigned char *r, size_t n)
{
    if (TZ_GROW(d->b, d->cap, d->len + n) < 0 || TZ_GROW(d->off, d->ncap, d->n + 2) < 0)
        return -1;
    if (d->n == 0)
        d->off[0] = 0;
    memcpy(d->b + d->len, r, n);
    d->len += n;
    d->off[++d->n] = d->len;
    return 0;
}

static void divs_free(divs *d)
{
    free(d->b);
    free(d->off);
    memset(d, 0, sizeof *d);
}

/* Index interior levels: m children, m - 1 dividers between them. A page takes
 * (child, divider) cells while they fit; the child at which it is full becomes its
 * right-most child and that divider moves up. A page is never left without a cell. */
static int index_levels(tz_dbfile *f, uint32_t root, uint32_t *child, size_t m, divs *d, traza_err *err)
{
    page p;
    p.size = f->page_size;
    p.b = malloc(p.size);
    unsigned char *cell = malloc(p.size);
    if (!p.b || !cell) {
        free(p.b);
        free(cell);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    int rc = 0;
    while (m > 1 && rc == 0) {
        /* nodes: first pair a, cells nc, right child r; ups between nodes */
        size_t nn = 0, cap_a = 0, cap_c = 0, cap_r = 0, *na = NULL, *nc = NULL, *nr = NULL;
        divs up;
        memset(&up, 0, sizeof up);
        for (size_t i = 0; i < m && rc == 0;) {
            size_t a = i, cells = 0, bytes = 0, right;
            for (;;) {
                if (i == m - 1) {
                    right = i++;
                    break;
                }
                size_t cs = 4 + (d->off[i + 1] - d->off[i]);
                if (12 + 2 * (cells + 1) + bytes + cs <= p.size) {
                    bytes += cs;
                    cells++;
                    i++;
                    continue;
                }
                if (i + 1 == m - 1) { /* the next page would hold no cell: give it ours */
                    cells--;
                    i--;
                }
                right = i;
                if (divs_add(&up, d->b + d->off[i], d->off[i + 1] - d->off[i]) < 0)
                    rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                i++;
                break;
            }
            if (rc == 0 && (TZ_GROW(na, cap_a, nn + 1) < 0 || TZ_GROW(nc, cap_c, nn + 1) < 0 ||
                            TZ_GROW(nr, cap_r, nn + 1) < 0))
                rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            if (rc == 0) {
                na[nn] = a;
                nc[nn] = cells;
                nr[nn] = right;
                nn++;
            }
        }
        for (size_t k = 0; k < nn && rc == 0; k++) {
            page_reset(&p, PG_IDX_INTERIOR);
            for (size_t j = na[k]; j < na[k] + nc[k]; j++) {
                size_t dl = d->off[j + 1] - d->off[j];
                put32(cell, child[j]);
                memcpy(cell + 4, d->b + d->off[j], dl);
                page_add(&p, cell, 4 + dl);
            }
            page_seal(&p, child[nr[k]]);
            uint32_t pg = nn == 1 ? root : dbf_alloc(f);
            if (dbf_put(f, pg, p.b, err) < 0)
                rc = -1;
            child[k] = pg;
        }
        free(na);
        free(nc);
        free(nr);
        divs_free(d);
        *d = up;
        m = nn;
    }
    free(p.b);
    free(cell);
    if (rc == 0)
        rc = dbf_flush(f, err);
    return rc;
}

/* The payload part of an index cell (the whole leaf cell; an interior cell adds the
 * child page in front): payload length, the local bytes, and when the record is
 * longer than the page allows, the first overflow page, whose pages are written
 * here (each: next page number, then usable size - 4 bytes of the record). */
static int payload_cell(tz_dbfile *f, const unsigned char *recb, size_t n, unsigned char *cell, size_t *len, traza_err *err)
{
    uint32_t u = f->page_size;
    size_t max_local = (size_t)(u - 12) * 64 / 255 - 23, min_local = (size_t)(u - 12) * 32 / 255 - 23;
    size_t k = varint_put(cell, n);
    if (n <= max_local) {
        memcpy(cell + k, recb, n);
        *len = k + n;
        return 0;
    }
    size_t local = min_local + (n - min_local) % (u - 4);
    if (local > max_local)
        local = min_local;
    memcpy(cell + k, recb, local);
    /* overflow pages: numbers first, so each page can name the next */
    size_t left = n - local, per = u - 4, npg = (left + per - 1) / per;
    unsigned char *pg = malloc(u);
    if (!pg)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    uint32_t first = dbf_alloc(f), cur = first;
    int rc = 0;
    for (size_t i = 0; i < npg && rc == 0; i++) {
        size_t take = left < per ? left : per;
        uint32_t next = i + 1 < npg ? dbf_alloc(f) : 0;
        memset(pg, 0, u);
        put32(pg, next);
        memcpy(pg + 4, recb + n - left, take);
        rc = dbf_put(f, cur, pg, err);
        left -= take;
        cur = next;
    }
    free(pg);
    put32(cell + k + local, first);
    *len = k + local + 4;
    return rc;
}

int tz_dbfile_put_index(tz_dbfile *f, uint32_t root, uint64_t count, tz_bt_next_fn next, void *ctx, traza_err *err)
{
    if (count == 0)
        return 0;
    page p;
    p.size = f->page_size;
    p.b = malloc(p.size);
    unsigned char *cell = malloc(p.size), *up = malloc(p.size);
    uint32_t *child = NULL;
    size_t m = 0, cap = 0;
    divs d;
    memset(&d, 0, sizeof d);
    if (!p.b || !cell || !up) {
        free(p.b);
        free(cell);
        free(up);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    page_reset(&p, PG_IDX_LEAF);
    int rc = 0;
    for (uint64_t j = 0; j < count && rc == 0; j++) {
        const unsigned char *r = NULL;
        size_t n = 0, len = 0;
        int got = next(ctx, &r, &n, err);
        if (got <= 0) {
            rc = got < 0 ? -1 : traza_err_set(err, TRAZA_E_USAGE, "page writer: index ended after %llu of %llu entries",
                                               (unsigned long long)j, (unsigned long long)count);
            break;
        }
        if (payload_cell(f, r, n, cell, &len, err) < 0) {
            rc = -1;
            break;
        }
        if (page_fits(&p, len)) {
            page_add(&p, cell, len);
            continue;
        }
        /* The leaf is full: an entry moves up, and the next leaf must not be empty. */
        size_t ulen;
        int last = j == count - 1;
        if (last)
            page_pop(&p, up, &ulen);
        else
            memcpy(up, cell, ulen = len);
        page_seal(&p, 0);
        uint32_t pg = dbf_alloc(f);
        if (TZ_GROW(child, cap, m + 1) < 0 || divs_add(&d, up, ulen) < 0) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        child[m++] = pg;
        if (dbf_put(f, pg, p.b, err) < 0) {
            rc = -1;
            break;
        }
        page_reset(&p, PG_IDX_LEAF);
        if (last)
            page_add(&p, cell, len);
    }
    if (rc == 0) {
        page_seal(&p, 0);
        uint32_t pg = m ? dbf_alloc(f) : root;
        if (m && TZ_GROW(child, cap, m + 1) < 0)
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        else if (dbf_put(f, pg, p.b, err) < 0)
            rc = -1;
        else if (m)
            child[m++] = pg;
    }
    free(p.b);
    free(cell);
    free(up);
    if (rc == 0)
        rc = m ? index_levels(f, root, child, m, &d, err) : dbf_flush(f, err);
    free(child);
    divs_free(&d);
    return rc;
}

int tz_dbfile_close(tz_dbfile *f, traza_err *err)
{
    unsigned char h[100];
    int rc = dbf_flush(f, err);
    if (rc == 0 && tz_pread_all(f->fd, h, sizeof h, 0) < 0)
        rc = io_fail(f->path, "cannot read the header", err);
    if (rc == 0) {
        uint32_t counter = get32(h + 24) + 1;
        put32(h + 24, counter);
        put32(h + 28, f->npages);
        put32(h + 92, counter);
        put32(h + 96, (uint32_t)sqlite3_libversion_number());
        if (tz_pwrite_all(f->fd, h, sizeof h, 0) < 0 || ftruncate(f->fd, (off_t)f->npages * f->page_size) < 0)
            rc = io_fail(f->path, "cannot write", err);
    }
    if (close(f->fd) < 0 && rc == 0)
        rc = io_fail(f->path, "cannot close", err);
    f->fd = -1;
    free(f->buf);
    f->buf = NULL;
    return rc;
}

/* The page writer (src/store/sqlite_btree.c): records, table and index b-trees
 * written straight into an SQLite file, checked by SQLite itself (integrity_check,
 * every row and every index entry read back). */
#include "testutil.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "store/sqlite_btree.h"

#define PSIZE 8192

/* A deterministic event for rowid i: values of every integer width, some optional
 * fields, so records vary in size and cover the serial types. */
static traza_event ev_of(int64_t i)
{
    traza_event e;
    memset(&e, 0, sizeof e);
    static const int64_t big[] = {0, 1, -1, 127, -128, 128, 32767, -32769, 8388607, -8388609, INT32_MAX,
                                  (int64_t)INT32_MIN - 1, ((int64_t)1 << 47) - 1, -((int64_t)1 << 47) - 1, INT64_MAX, INT64_MIN};
    e.ts = i * 10 + (i % 7 == 0 ? big[(i / 7) % 16] % 5 : 0);
    e.type = (int32_t)(i % 5);
    e.producer = (int32_t)((i * 7) % 11) - (i % 13 == 0 ? 3 : 0);
    if (i % 3 == 0) {
        e.has |= TRAZA_HAS_END;
        e.end_ts = big[i % 16];
    }
    if (i % 4 == 1) {
        e.has |= TRAZA_HAS_END_PRODUCER;
        e.end_producer = (int32_t)(i % 100000);
    }
    if (i % 6 == 2) {
        e.has |= TRAZA_HAS_LEVEL;
        e.level = (int32_t)(i % 3);
    }
    if (i % 5 == 3) {
        e.has |= TRAZA_HAS_VALUE;
        e.value = (double)i / 3.0;
    }
    if (i % 2 == 0) {
        e.has |= TRAZA_HAS_CPU;
        e.cpu = (int32_t)(i % 4);
    }
    return e;
}

static void assert_same_event(const traza_event *a, const traza_event *b)
{
    assert_int_equal(a->ts, b->ts);
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->producer, b->producer);
    assert_int_equal(a->has, b->has);
    if (a->has & TRAZA_HAS_END)
        assert_int_equal(a->end_ts, b->end_ts);
    if (a->has & TRAZA_HAS_END_PRODUCER)
        assert_int_equal(a->end_producer, b->end_producer);
    if (a->has & TRAZA_HAS_LEVEL)
        assert_int_equal(a->level, b->level);
    if (a->has & TRAZA_HAS_VALUE)
        assert_true(a->value == b->value);
    if (a->has & TRAZA_HAS_CPU)
        assert_int_equal(a->cpu, b->cpu);
}

static void test_records(void **state)
{
    (void)state;
    unsigned char r[TZ_BT_MAXREC];
    for (int64_t i = 0; i < 5000; i++) {
        traza_event e = ev_of(i), d;
        size_t n = tz_bt_event_record(&e, i % 2, r);
        assert_true(n > 4 && n <= TZ_BT_MAXREC);
        assert_int_equal(tz_bt_event_decode(r, n, &d), 0);
        assert_same_event(&e, &d);
        /* a truncated record is refused */
        assert_int_equal(tz_bt_event_decode(r, n - 1, &d), -1);
    }
    /* the exact bytes of one record: header size 5, NULL id, ts 300 (int16), type 0,
     * producer 1 (schema format 4: no body), no optional column */
    traza_event e;
    memset(&e, 0, sizeof e);
    e.ts = 300;
    e.producer = 1;
    size_t n = tz_bt_event_record(&e, 1, r);
    const unsigned char want[] = {5, 0, 2, 8, 9, 0x01, 0x2c};
    assert_int_equal(n, sizeof want);
    assert_memory_equal(r, want, sizeof want);
    /* trailing NULL columns are left out, inner ones kept: cpu only */
    e.has = TRAZA_HAS_CPU;
    e.cpu = 3;
    n = tz_bt_event_record(&e, 1, r);
    const unsigned char want2[] = {10, 0, 2, 8, 9, 0, 0, 0, 0, 1, 0x01, 0x2c, 3};
    assert_int_equal(n, sizeof want2);
    assert_memory_equal(r, want2, sizeof want2);
    /* the index record (type, producer, rowid) */
    n = tz_bt_tp_record(2, -1, 70000, 1, r);
    const unsigned char want3[] = {4, 1, 1, 3, 0x02, 0xff, 0x01, 0x11, 0x70};
    assert_int_equal(n, sizeof want3);
    assert_memory_equal(r, want3, sizeof want3);
}

/* A database with the event table and its index, created by SQLite, then closed. */
static char *make_db_ps(const char *dir, int psize, uint32_t *root_ev, uint32_t *root_ix)
{
    char *path = malloc(strlen(dir) + 16);
    assert_non_null(path);
    sprintf(path, "%s/t.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA page_size=%d", psize);
    assert_int_equal(sqlite3_exec(db, pragma, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "PRAGMA journal_mode=OFF;"
                                  "CREATE TABLE event(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, type INTEGER NOT NULL,"
                                  " producer INTEGER NOT NULL, end_ts INTEGER, end_producer INTEGER, level INTEGER, value REAL,"
                                  " cpu INTEGER);"
                                  "CREATE INDEX event_type_producer ON event(type, producer);",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name=?", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, "event", -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    *root_ev = (uint32_t)sqlite3_column_int(st, 0);
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, "event_type_producer", -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    *root_ix = (uint32_t)sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
    return path;
}

static char *make_db(const char *dir, uint32_t *root_ev, uint32_t *root_ix) { return make_db_ps(dir, PSIZE, root_ev, root_ix); }

typedef struct ix_entry {
    int32_t type, producer;
    int64_t rowid;
} ix_entry;

static int cmp_ix(const void *a, const void *b)
{
    const ix_entry *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

typedef struct ix_iter {
    const ix_entry *e;
    size_t n, i;
    unsigned char rec[TZ_BT_MAXREC];
} ix_iter;

static int ix_next(void *ctx, const unsigned char **rec, size_t *n, traza_err *err)
{
    (void)err;
    ix_iter *it = ctx;
    if (it->i == it->n)
        return 0;
    const ix_entry *x = &it->e[it->i++];
    *n = tz_bt_tp_record(x->type, x->producer, x->rowid, 1, it->rec);
    *rec = it->rec;
    return 1;
}

/* PRAGMA integrity_check says "ok" (its first complaint is printed otherwise). */
static void assert_integrity(sqlite3 *db)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const char *res = (const char *)sqlite3_column_text(st, 0);
    if (strcmp(res, "ok") != 0)
        print_error("integrity_check: %s\n", res);
    assert_string_equal(res, "ok");
    sqlite3_finalize(st);
}

/* Reads every row and index entry back through SQLite and compares. */
static void check_db(const char *path, const int64_t *rowids, size_t n, int integrity)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    if (integrity) {
        assert_integrity(db);
    }
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, ts, type, producer, end_ts, end_producer, level, value, cpu FROM event ORDER BY id",
                                        -1, &st, NULL),
                     SQLITE_OK);
    size_t k = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(k < n);
        int64_t id = sqlite3_column_int64(st, 0);
        assert_int_equal(id, rowids[k]);
        traza_event e = ev_of(id), g;
        memset(&g, 0, sizeof g);
        g.ts = sqlite3_column_int64(st, 1);
        g.type = sqlite3_column_int(st, 2);
        g.producer = sqlite3_column_int(st, 3);
        if (sqlite3_column_type(st, 4) != SQLITE_NULL) { g.has |= TRAZA_HAS_END; g.end_ts = sqlite3_column_int64(st, 4); }
        if (sqlite3_column_type(st, 5) != SQLITE_NULL) { g.has |= TRAZA_HAS_END_PRODUCER; g.end_producer = sqlite3_column_int(st, 5); }
        if (sqlite3_column_type(st, 6) != SQLITE_NULL) { g.has |= TRAZA_HAS_LEVEL; g.level = sqlite3_column_int(st, 6); }
        if (sqlite3_column_type(st, 7) != SQLITE_NULL) { g.has |= TRAZA_HAS_VALUE; g.value = sqlite3_column_double(st, 7); }
        if (sqlite3_column_type(st, 8) != SQLITE_NULL) { g.has |= TRAZA_HAS_CPU; g.cpu = sqlite3_column_int(st, 8); }
        assert_same_event(&e, &g);
        k++;
    }
    assert_int_equal(k, n);
    sqlite3_finalize(st);
    /* rowid look-ups (descending the interior pages) */
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT ts FROM event WHERE id=?", -1, &st, NULL), SQLITE_OK);
    for (size_t j = 0; j < n; j += 1 + n / 97) {
        sqlite3_bind_int64(st, 1, rowids[j]);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_int_equal(sqlite3_column_int64(st, 0), ev_of(rowids[j]).ts);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    /* the index, in index order and by key */
    ix_entry *ix = malloc((n + 1) * sizeof *ix);
    assert_non_null(ix);
    for (size_t j = 0; j < n; j++) {
        traza_event e = ev_of(rowids[j]);
        ix[j].type = e.type;
        ix[j].producer = e.producer;
        ix[j].rowid = rowids[j];
    }
    qsort(ix, n, sizeof *ix, cmp_ix);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT type, producer, id FROM event INDEXED BY event_type_producer WHERE type >= -1000"
                                        " ORDER BY type, producer, id", -1, &st, NULL),
                     SQLITE_OK);
    k = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(k < n);
        assert_int_equal(sqlite3_column_int(st, 0), ix[k].type);
        assert_int_equal(sqlite3_column_int(st, 1), ix[k].producer);
        assert_int_equal(sqlite3_column_int64(st, 2), ix[k].rowid);
        k++;
    }
    assert_int_equal(k, n);
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM event INDEXED BY event_type_producer WHERE type=2 AND producer=5",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t want = 0;
    for (size_t j = 0; j < n; j++)
        want += ix[j].type == 2 && ix[j].producer == 5;
    assert_int_equal(sqlite3_column_int64(st, 0), want);
    sqlite3_finalize(st);
    free(ix);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Writes rows `rowids` (increasing) through the page writer, then both b-trees. */
static void write_db_ps(const char *dir, const char *path, uint32_t psize, uint32_t rev, uint32_t rix, const int64_t *rowids,
                        size_t n)
{
    traza_err err = {0};
    char spool[4096];
    snprintf(spool, sizeof spool, "%s/t.pages", dir);
    tz_table_writer *t;
    assert_int_equal(tz_table_writer_open(&t, spool, psize, &err), 0);
    unsigned char r[TZ_BT_MAXREC];
    for (size_t j = 0; j < n; j++) {
        traza_event e = ev_of(rowids[j]);
        size_t len = tz_bt_event_record(&e, 1, r);
        assert_int_equal(tz_table_writer_add(t, rowids[j], e.ts, r, len, &err), 0);
    }
    assert_int_equal(tz_table_writer_rows(t), (int64_t)n);
    ix_entry *ix = malloc((n + 1) * sizeof *ix);
    assert_non_null(ix);
    for (size_t j = 0; j < n; j++) {
        traza_event e = ev_of(rowids[j]);
        ix[j].type = e.type;
        ix[j].producer = e.producer;
        ix[j].rowid = rowids[j];
    }
    qsort(ix, n, sizeof *ix, cmp_ix);
    tz_dbfile f;
    assert_int_equal(tz_dbfile_open(&f, path, &err), 0);
    assert_int_equal(f.page_size, psize);
    assert_int_equal(tz_dbfile_put_table(&f, rev, t, &err), 0);
    ix_iter it = {ix, n, 0, {0}};
    assert_int_equal(tz_dbfile_put_index(&f, rix, n, ix_next, &it, &err), 0);
    assert_int_equal(tz_dbfile_close(&f, &err), 0);
    tz_table_writer_free(t);
    assert_int_equal(access(spool, F_OK), -1); /* the spool is gone */
    free(ix);
}

static void write_db(const char *dir, const char *path, uint32_t rev, uint32_t rix, const int64_t *rowids, size_t n)
{
    write_db_ps(dir, path, PSIZE, rev, rix, rowids, n);
}

/* rowids 1, 1 + stride, 1 + 2 stride, ... */
static int64_t *rowids_of(size_t n, int64_t stride)
{
    int64_t *r = malloc((n + 1) * sizeof *r);
    assert_non_null(r);
    for (size_t j = 0; j < n; j++)
        r[j] = 1 + (int64_t)j * stride;
    return r;
}

static void round_trip(size_t n, int64_t stride)
{
    char *dir = tu_tmpdir();
    uint32_t rev, rix;
    char *path = make_db(dir, &rev, &rix);
    int64_t *rowids = rowids_of(n, stride);
    write_db(dir, path, rev, rix, rowids, n);
    check_db(path, rowids, n, 1);
    free(rowids);
    free(path);
    tu_rmdir(dir);
}

/* 0 rows (the roots stay empty), one page, a few pages, two and three levels. */
static void test_sizes(void **state)
{
    (void)state;
    static const size_t ns[] = {0, 1, 2, 200, 300, 700, 5000, 60000, 400000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        round_trip(ns[i], 1);
    round_trip(20000, 1000003); /* rowids of 5-byte varints and wide integers */
}

/* Page fills at every offset: for each n around one and two pages' worth, the last
 * leaf and the dividers land differently (the "no empty page" rules). */
static void test_boundaries(void **state)
{
    (void)state;
    for (size_t n = 240; n <= 1400; n += 37)
        round_trip(n, 1);
}

/* ---- a walk over the written pages, independent of SQLite ---- */

typedef struct walk {
    int fd;
    uint32_t psize;
    int index;
    int leaf_depth;
    uint64_t count;
    int64_t prev_rowid;
    ix_entry prev;
    /* pages with a single cell / interior pages with 2 children: the shapes the
     * "never an empty page" rules produce */
    unsigned single_leaf, single_interior;
} walk;

static uint64_t vget(const unsigned char *p, size_t *k)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v = v << 7 | (p[*k] & 0x7f);
        if (!(p[(*k)++] & 0x80))
            return v;
    }
    return v << 8 | p[(*k)++];
}

static int64_t be_int(const unsigned char *p, int t)
{
    static const int w[7] = {0, 1, 2, 3, 4, 6, 8};
    if (t == 8 || t == 9)
        return t - 8;
    uint64_t v = 0;
    for (int i = 0; i < w[t]; i++)
        v = v << 8 | p[i];
    if (w[t] < 8 && (v >> (8 * w[t] - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * w[t]);
    return (int64_t)v;
}

static void ix_visit(walk *wk, const unsigned char *rec)
{
    size_t k = 0;
    uint64_t hs = vget(rec, &k);
    int t[3];
    for (int i = 0; i < 3; i++)
        t[i] = (int)vget(rec, &k);
    assert_int_equal(k, hs);
    static const int w[10] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
    const unsigned char *b = rec + hs;
    ix_entry e;
    e.type = (int32_t)be_int(b, t[0]);
    b += w[t[0]];
    e.producer = (int32_t)be_int(b, t[1]);
    b += w[t[1]];
    e.rowid = be_int(b, t[2]);
    if (wk->count)
        assert_true(cmp_ix(&wk->prev, &e) < 0);
    wk->prev = e;
    wk->count++;
}

static void walk_page(walk *wk, uint32_t pg, int depth)
{
    unsigned char *b = malloc(wk->psize);
    assert_non_null(b);
    assert_int_equal(pread(wk->fd, b, wk->psize, (off_t)(pg - 1) * wk->psize), (ssize_t)wk->psize);
    int type = b[0];
    uint32_t ncell = (uint32_t)b[3] << 8 | b[4];
    int leaf = type == 10 || type == 13;
    assert_int_equal(type, wk->index ? (leaf ? 10 : 2) : (leaf ? 13 : 5));
    assert_true(ncell >= 1); /* no empty page */
    uint32_t hdr = leaf ? 8 : 12;
    if (leaf) {
        if (wk->leaf_depth < 0)
            wk->leaf_depth = depth;
        assert_int_equal(depth, wk->leaf_depth); /* balanced */
        wk->single_leaf += ncell == 1;
    } else {
        wk->single_interior += ncell == 1;
    }
    for (uint32_t c = 0; c < ncell; c++) {
        size_t k = (size_t)b[hdr + 2 * c] << 8 | b[hdr + 2 * c + 1];
        if (!leaf) {
            uint32_t child = (uint32_t)b[k] << 24 | (uint32_t)b[k + 1] << 16 | (uint32_t)b[k + 2] << 8 | b[k + 3];
            k += 4;
            walk_page(wk, child, depth + 1);
            if (!wk->index) {
                int64_t key = (int64_t)vget(b, &k);
                assert_int_equal(key, wk->prev_rowid); /* the largest rowid of the child */
            } else {
                vget(b, &k);
                ix_visit(wk, b + k);
            }
            continue;
        }
        uint64_t len = vget(b, &k);
        if (!wk->index) {
            int64_t rowid = (int64_t)vget(b, &k);
            if (wk->count)
                assert_true(rowid > wk->prev_rowid);
            wk->prev_rowid = rowid;
            wk->count++;
        } else {
            ix_visit(wk, b + k);
        }
        (void)len;
    }
    if (!leaf)
        walk_page(wk, (uint32_t)b[8] << 24 | (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11], depth + 1);
    free(b);
}

/* Every row count from 1 to 2600 with 512-byte pages (16 rows a leaf, ~50 index
 * entries a leaf, tens of children an interior page): the last pages fall at every
 * offset, so the rules that keep pages from being empty all fire (counted), and
 * every tree is walked page by page; every 97th also goes through SQLite. */
static void test_small_pages(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    uint32_t rev, rix;
    char *tmpl = make_db_ps(dir, 512, &rev, &rix);
    unsigned char img[64 * 512];
    FILE *fp = fopen(tmpl, "rb");
    assert_non_null(fp);
    size_t isz = fread(img, 1, sizeof img, fp);
    fclose(fp);
    assert_true(isz > 0 && isz < sizeof img);
    char path[4096];
    snprintf(path, sizeof path, "%s/s.db", dir);
    const size_t nmax = 2600;
    int64_t *rowids = rowids_of(nmax, 1);
    unsigned tab_single_leaf = 0, tab_single_int = 0, ix_single_leaf = 0, ix_single_int = 0;
    for (size_t n = 1; n <= nmax; n++) {
        fp = fopen(path, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(img, 1, isz, fp), isz);
        fclose(fp);
        write_db_ps(dir, path, 512, rev, rix, rowids, n);
        for (int index = 0; index < 2; index++) {
            walk wk;
            memset(&wk, 0, sizeof wk);
            wk.fd = open(path, O_RDONLY);
            assert_true(wk.fd >= 0);
            wk.psize = 512;
            wk.index = index;
            wk.leaf_depth = -1;
            walk_page(&wk, index ? rix : rev, 0);
            close(wk.fd);
            assert_int_equal(wk.count, n);
            if (wk.leaf_depth > 0) { /* not a lone root leaf */
                if (index) {
                    ix_single_leaf += wk.single_leaf;
                    ix_single_int += wk.single_interior;
                } else {
                    tab_single_leaf += wk.single_leaf;
                    tab_single_int += wk.single_interior;
                }
            }
        }
        if (n % 97 == 0 || n == nmax)
            check_db(path, rowids, n, 1);
    }
    /* the edge shapes were produced: a last index leaf of one entry (it would have
     * been empty), index interior pages of one cell, table interior pages of one
     * cell (two children: the last group took one from the group before) */
    assert_true(ix_single_leaf > 0);
    assert_true(ix_single_int > 0);
    assert_true(tab_single_int > 0);
    (void)tab_single_leaf;
    free(rowids);
    free(tmpl);
    tu_rmdir(dir);
}

typedef struct take_ctx {
    int64_t next;
    size_t got;
} take_ctx;

static int take_cb(void *ctx, int64_t rowid, const unsigned char *rec, size_t n, traza_err *err)
{
    (void)err;
    take_ctx *c = ctx;
    traza_event d, e = ev_of(rowid);
    assert_int_equal(rowid, c->next);
    assert_int_equal(tz_bt_event_decode(rec, n, &d), 0);
    assert_same_event(&e, &d);
    c->next++;
    c->got++;
    return 0;
}

/* Rows taken back from the spool (an out-of-order import re-sorts its tail), rows
 * added again, and the search by time stamp. */
static void test_take_back(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    uint32_t rev, rix;
    char *path = make_db(dir, &rev, &rix);
    traza_err err = {0};
    char spool[4096];
    snprintf(spool, sizeof spool, "%s/t.pages", dir);
    tz_table_writer *t;
    assert_int_equal(tz_table_writer_open(&t, spool, PSIZE, &err), 0);
    unsigned char r[TZ_BT_MAXREC];
    const int64_t n = 40000; /* > 64 pages: some written, some batched */
    for (int64_t id = 1; id <= n; id++) {
        traza_event f = ev_of(id);
        size_t len = tz_bt_event_record(&f, 1, r);
        assert_int_equal(tz_table_writer_add(t, id, id * 10, r, len, &err), 0);
    }
    /* first rowid with ts > m: the ts passed to add are id * 10 */
    int64_t rid;
    assert_int_equal(tz_table_writer_first_after(t, 0, &rid, &err), 0);
    assert_int_equal(rid, 1);
    assert_int_equal(tz_table_writer_first_after(t, 10 * n, &rid, &err), 0);
    assert_int_equal(rid, n + 1);
    assert_int_equal(tz_table_writer_first_after(t, 123450, &rid, &err), 0); /* row 12345's ts is 123450 */
    assert_int_equal(rid, 12346);
    /* tz_table_writer_first_after decodes the ts of the records (ev_of's), which grow too */
    static const int64_t cuts[] = {39990, 30001, 12345, 1};
    int64_t have = n;
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
        take_ctx tc = {cuts[c], 0};
        assert_int_equal(tz_table_writer_take_from(t, cuts[c], take_cb, &tc, &err), 0);
        assert_int_equal(tc.got, (size_t)(have - cuts[c] + 1));
        assert_int_equal(tz_table_writer_rows(t), cuts[c] - 1);
        /* the rows taken are re-added (as a re-sorting import would) up to `have` */
        for (int64_t id = cuts[c]; id <= have; id++) {
            traza_event f = ev_of(id);
            size_t len = tz_bt_event_record(&f, 1, r);
            assert_int_equal(tz_table_writer_add(t, id, id * 10, r, len, &err), 0);
        }
        /* a rowid that is not above the last one is refused */
        traza_event f = ev_of(1);
        size_t len = tz_bt_event_record(&f, 1, r);
        assert_int_equal(tz_table_writer_add(t, have, 0, r, len, &err), -1);
        assert_non_null(strstr(err.msg, "rowid"));
    }
    /* taking from past the end does nothing */
    take_ctx none = {0, 0};
    assert_int_equal(tz_table_writer_take_from(t, n + 5, take_cb, &none, &err), 0);
    assert_int_equal(none.got, 0);
    tz_dbfile f;
    assert_int_equal(tz_dbfile_open(&f, path, &err), 0);
    assert_int_equal(tz_dbfile_put_table(&f, rev, t, &err), 0);
    assert_int_equal(tz_dbfile_close(&f, &err), 0);
    tz_table_writer_free(t);
    /* the table is complete; the index was left empty, so fill it from SQL */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "REINDEX event_type_producer", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
    int64_t *rowids = rowids_of((size_t)n, 1);
    check_db(path, rowids, (size_t)n, 1);
    free(rowids);
    free(path);
    tu_rmdir(dir);
}

/* The page holding the lock bytes (at 1 GiB) is never used: the file is made to end
 * just before it (sparse: the pages in between are holes), the b-trees are appended
 * across it, and its bytes stay zero while every row reads back. */
static void test_lock_page(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    uint32_t rev, rix;
    char *path = make_db(dir, &rev, &rix);
    const uint32_t lock = 0x40000000u / PSIZE + 1, start = lock - 10;
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    unsigned char h[100];
    assert_int_equal(pread(fd, h, sizeof h, 0), (ssize_t)sizeof h);
    h[28] = (unsigned char)(start >> 24);
    h[29] = (unsigned char)(start >> 16);
    h[30] = (unsigned char)(start >> 8);
    h[31] = (unsigned char)start;
    assert_int_equal(pwrite(fd, h, sizeof h, 0), (ssize_t)sizeof h);
    assert_int_equal(ftruncate(fd, (off_t)start * PSIZE), 0);
    close(fd);
    const size_t n = 20000; /* ~70 table pages and ~30 index pages: past the lock page */
    int64_t *rowids = rowids_of(n, 1);
    write_db(dir, path, rev, rix, rowids, n);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > (off_t)lock * PSIZE);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    unsigned char *pg = malloc(PSIZE), *zero = calloc(1, PSIZE);
    assert_non_null(pg);
    assert_non_null(zero);
    assert_int_equal(pread(fd, pg, PSIZE, (off_t)(lock - 1) * PSIZE), PSIZE);
    assert_memory_equal(pg, zero, PSIZE);
    close(fd);
    free(pg);
    free(zero);
    /* integrity_check would list the holes as never-used pages: read instead */
    check_db(path, rowids, n, 0);
    free(rowids);
    free(path);
    tu_rmdir(dir);
}

/* ---- the param table: records of any length, overflow pages ---- */

/* The value of parameter `def` of event e: integers of every width, doubles, and
 * strings from empty to many overflow pages long. */
static traza_value pval_of(int64_t e, int32_t def, char *sbuf, size_t cap)
{
    traza_value v;
    memset(&v, 0, sizeof v);
    switch ((e + def) % 4) {
    case 0: v.kind = TRAZA_PT_INT; v.i = (e * 2654435761LL) % 1000000007 - 500000000 + (e % 3 ? 0 : INT64_MAX / (e + 1)); break;
    case 1: v.kind = TRAZA_PT_DOUBLE; v.d = (double)e / 7.0 - def; break;
    default: {
        static const size_t lens[] = {0, 1, 100, 2029, 2030, 2031, 2100, 9000, 50000, 8188, 8189};
        size_t len = lens[(e * 31 + def) % 11];
        assert_true(len < cap);
        for (size_t i = 0; i < len; i++)
            sbuf[i] = (char)('a' + (e + def + i) % 26);
        sbuf[len] = '\0';
        v.kind = TRAZA_PT_STRING;
        v.s = sbuf;
    }
    }
    return v;
}

typedef struct rsp_seen {
    int64_t next_key;
    uint64_t n;
} rsp_seen;

static int rsp_cb(void *ctx, int64_t key, const unsigned char *rec, size_t n, traza_err *err)
{
    (void)err;
    rsp_seen *c = ctx;
    int64_t ev;
    int32_t def;
    traza_value v;
    size_t slen;
    assert_int_equal(tz_bt_param_decode(rec, n, &ev, &def, &v, &slen), 0);
    assert_int_equal(ev, key);
    assert_true(key >= c->next_key);
    c->next_key = key;
    c->n++;
    return 0;
}

static void test_params(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4096], spool[4096];
    snprintf(path, sizeof path, "%s/p.db", dir);
    snprintf(spool, sizeof spool, "%s/p.spool", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "PRAGMA page_size=8192; PRAGMA journal_mode=OFF;"
                                  "CREATE TABLE param(event INTEGER NOT NULL, def INTEGER NOT NULL, value,"
                                  " PRIMARY KEY(event, def)) WITHOUT ROWID;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name='param'", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    uint32_t root = (uint32_t)sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);

    traza_err err = {0};
    tz_rec_spool *r;
    assert_int_equal(tz_rec_spool_open(&r, spool, &err), 0);
    char *sbuf = malloc(60000);
    assert_non_null(sbuf);
    tz_buf b;
    tz_buf_init(&b);
    const int64_t nev = 6000;
    uint64_t want = 0;
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0 adds events 1..nev, takes back from 4321 on, pass 1 adds them again */
        for (int64_t e = pass ? 4321 : 1; e <= nev; e++)
            for (int32_t def = -1; def < (int32_t)(e % 4); def++) {
                traza_value v = pval_of(e, def, sbuf, 60000);
                tz_buf_reset(&b);
                tz_bt_param_record(e, def, &v, 1, &b);
                assert_false(b.oom);
                assert_int_equal(tz_rec_spool_add(r, e, (const unsigned char *)b.s, b.len, &err), 0);
                /* the record decodes to what went in */
                int64_t ev;
                int32_t d;
                traza_value g;
                size_t slen;
                assert_int_equal(tz_bt_param_decode((const unsigned char *)b.s, b.len, &ev, &d, &g, &slen), 0);
                assert_int_equal(ev, e);
                assert_int_equal(d, def);
                assert_int_equal(g.kind, v.kind);
                if (v.kind == TRAZA_PT_STRING) {
                    assert_int_equal(slen, strlen(v.s));
                    assert_memory_equal(g.s, v.s, slen);
                } else if (v.kind == TRAZA_PT_DOUBLE) {
                    assert_true(g.d == v.d);
                } else {
                    assert_int_equal(g.i, v.i);
                }
                if (pass == 0)
                    want++;
            }
        if (pass == 0) {
            rsp_seen c = {4321, 0};
            uint64_t before = tz_rec_spool_count(r);
            assert_int_equal(tz_rec_spool_take_from(r, 4321, rsp_cb, &c, &err), 0);
            assert_int_equal(tz_rec_spool_count(r), before - c.n);
            assert_true(c.n > 0);
        }
    }
    assert_int_equal(tz_rec_spool_count(r), want);
    tz_dbfile f;
    assert_int_equal(tz_dbfile_open(&f, path, &err), 0);
    assert_int_equal(tz_rec_spool_rewind(r, &err), 0);
    assert_int_equal(tz_dbfile_put_index(&f, root, tz_rec_spool_count(r), tz_rec_spool_next, r, &err), 0);
    assert_int_equal(tz_dbfile_close(&f, &err), 0);
    tz_rec_spool_free(r);
    assert_int_equal(access(spool, F_OK), -1);

    /* SQLite reads it: integrity, every row, and an index built over it */
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE INDEX param_value ON param(def, value)", NULL, NULL, NULL), SQLITE_OK);
    assert_integrity(db);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT event, def, value FROM param ORDER BY event, def", -1, &st, NULL), SQLITE_OK);
    uint64_t k = 0;
    for (int64_t e = 1; e <= nev; e++)
        for (int32_t def = -1; def < (int32_t)(e % 4); def++) {
            assert_int_equal(sqlite3_step(st), SQLITE_ROW);
            assert_int_equal(sqlite3_column_int64(st, 0), e);
            assert_int_equal(sqlite3_column_int(st, 1), def);
            traza_value v = pval_of(e, def, sbuf, 60000);
            switch (v.kind) {
            case TRAZA_PT_INT:
                assert_int_equal(sqlite3_column_type(st, 2), SQLITE_INTEGER);
                assert_int_equal(sqlite3_column_int64(st, 2), v.i);
                break;
            case TRAZA_PT_DOUBLE:
                assert_int_equal(sqlite3_column_type(st, 2), SQLITE_FLOAT);
                assert_true(sqlite3_column_double(st, 2) == v.d);
                break;
            default:
                assert_int_equal(sqlite3_column_type(st, 2), SQLITE_TEXT);
                assert_int_equal(sqlite3_column_bytes(st, 2), (int)strlen(v.s));
                assert_memory_equal(sqlite3_column_text(st, 2), v.s, strlen(v.s));
            }
            k++;
        }
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    assert_int_equal(k, want);
    sqlite3_finalize(st);
    /* a key look-up through the interior pages */
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT length(value) FROM param WHERE event=? AND def=?", -1, &st, NULL), SQLITE_OK);
    for (int64_t e = 2; e <= nev; e += 397) {
        sqlite3_bind_int64(st, 1, e);
        sqlite3_bind_int(st, 2, 1);
        int has = 1 < (int32_t)(e % 4);
        assert_int_equal(sqlite3_step(st), has ? SQLITE_ROW : SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    tz_buf_free(&b);
    free(sbuf);
    tu_rmdir(dir);
}

/* Records larger than the spool's 1 MiB buffer go around it and read back whole;
 * taking back from a key in the middle keeps the records before it. */
static size_t big_len(int64_t key) { return key % 1000 == 0 ? (3u << 20) - (size_t)key : 1 + (size_t)key % 300; }

static void big_fill(unsigned char *b, int64_t key, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(key * 31 + (int64_t)i);
}

static int big_check(void *ctx, int64_t key, const unsigned char *rec, size_t n, traza_err *err)
{
    (void)err;
    rsp_seen *c = ctx;
    assert_int_equal(key, c->next_key);
    assert_int_equal(n, big_len(key));
    assert_int_equal(rec[0], (unsigned char)(key * 31));
    assert_int_equal(rec[n - 1], (unsigned char)(key * 31 + (int64_t)n - 1));
    c->next_key++;
    c->n++;
    return 0;
}

static void test_spool_big_records(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char spool[4096];
    snprintf(spool, sizeof spool, "%s/big.spool", dir);
    traza_err err = {0};
    tz_rec_spool *r;
    assert_int_equal(tz_rec_spool_open(&r, spool, &err), 0);
    unsigned char *b = malloc(3u << 20);
    assert_non_null(b);
    for (int64_t key = 1; key <= 3000; key++) {
        big_fill(b, key, big_len(key));
        assert_int_equal(tz_rec_spool_add(r, key, b, big_len(key), &err), 0);
    }
    rsp_seen c = {2000, 0};
    assert_int_equal(tz_rec_spool_take_from(r, 2000, big_check, &c, &err), 0); /* a big record first */
    assert_int_equal(c.n, 1001);
    assert_int_equal(tz_rec_spool_count(r), 1999);
    for (int64_t key = 2000; key <= 3000; key++) {
        big_fill(b, key, big_len(key));
        assert_int_equal(tz_rec_spool_add(r, key, b, big_len(key), &err), 0);
    }
    assert_int_equal(tz_rec_spool_rewind(r, &err), 0);
    rsp_seen all = {1, 0};
    for (;;) {
        const unsigned char *rec;
        size_t n;
        int got = tz_rec_spool_next(r, &rec, &n, &err);
        assert_true(got >= 0);
        if (!got)
            break;
        big_check(&all, all.next_key, rec, n, &err);
    }
    assert_int_equal(all.n, 3000);
    tz_rec_spool_free(r);
    free(b);
    tu_rmdir(dir);
}

/* Files the writer must not touch are refused with the reason. */
static void test_refuses(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    traza_err err = {0};
    tz_dbfile f;
    char path[4096];
    snprintf(path, sizeof path, "%s/none.db", dir);
    assert_int_equal(tz_dbfile_open(&f, path, &err), -1);
    assert_non_null(strstr(err.msg, "cannot open"));
    snprintf(path, sizeof path, "%s/text.db", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    for (int i = 0; i < 100; i++)
        fputs("not a database at all ", fp);
    fclose(fp);
    assert_int_equal(tz_dbfile_open(&f, path, &err), -1);
    assert_non_null(strstr(err.msg, "not an SQLite 3 file"));
    snprintf(path, sizeof path, "%s/av.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA auto_vacuum=FULL; CREATE TABLE x(a)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(tz_dbfile_open(&f, path, &err), -1);
    assert_non_null(strstr(err.msg, "auto-vacuum"));
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records),   cmocka_unit_test(test_sizes),   cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_take_back), cmocka_unit_test(test_lock_page), cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_small_pages), cmocka_unit_test(test_params), cmocka_unit_test(test_spool_big_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

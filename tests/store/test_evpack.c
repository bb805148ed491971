/* Packed events (src/store/event_pack.c, sqlite_packed.c): the block and posting-list
 * codecs round trip every field and reject damaged bytes; a packed store answers
 * every query as the same events stored in rows do. */
#include "testutil.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/event_pack.h"

/* Events with every optional field, extreme values, repeated and changing types. */
static traza_event ev_of(size_t i)
{
    static const int64_t big[] = {0, 1, -1, 127, -128, INT32_MAX, (int64_t)INT32_MIN - 1, INT64_MAX, INT64_MIN};
    traza_event e;
    memset(&e, 0, sizeof e);
    e.ts = (int64_t)i * 1000 + (i == 0 ? INT64_MIN / 2 : 0);
    e.type = (int32_t)(i % 3 == 0 ? i : 7);
    e.producer = (int32_t)(i % 5 == 0 ? INT32_MAX : 2);
    if (i % 2) {
        e.has |= TRAZA_HAS_END;
        e.end_ts = big[i % 9];
    }
    if (i % 3 == 1) {
        e.has |= TRAZA_HAS_END_PRODUCER;
        e.end_producer = INT32_MIN + (int32_t)i;
    }
    if (i % 4 == 1) {
        e.has |= TRAZA_HAS_LEVEL;
        e.level = -(int32_t)i;
    }
    if (i % 5 == 2) {
        e.has |= TRAZA_HAS_VALUE;
        e.value = i % 10 == 2 ? -0.0 : 1e300 / (double)(i + 1);
    }
    if (i % 6 == 3) {
        e.has |= TRAZA_HAS_CPU;
        e.cpu = INT32_MAX - (int32_t)i;
    }
    return e;
}

static size_t put_block(unsigned char *out, size_t n)
{
    size_t len = 0;
    traza_event prev;
    for (size_t i = 0; i < n; i++) {
        traza_event e = ev_of(i);
        len += tz_pack_put(i ? &prev : NULL, &e, out + len);
        prev = e;
    }
    return len;
}

static void test_block_round_trip(void **state)
{
    (void)state;
    static unsigned char buf[TZ_PACK_BLOCK * TZ_PACK_MAXEV];
    static tz_pack_block blk;
    size_t len = put_block(buf, TZ_PACK_BLOCK);
    assert_int_equal(tz_pack_decode(buf, len, 41, &blk), 0);
    assert_int_equal(blk.n, TZ_PACK_BLOCK);
    for (size_t i = 0; i < blk.n; i++) {
        traza_event want = ev_of(i), got;
        tz_pack_event(&blk, i, &got);
        assert_true(got.id == 41 + (int64_t)i);
        assert_true(got.ts == want.ts);
        assert_int_equal(got.type, want.type);
        assert_int_equal(got.producer, want.producer);
        assert_int_equal(got.has, want.has);
        if (want.has & TRAZA_HAS_END)
            assert_true(got.end_ts == want.end_ts);
        assert_int_equal(got.end_producer, want.has & TRAZA_HAS_END_PRODUCER ? want.end_producer : 0);
        assert_int_equal(got.level, want.has & TRAZA_HAS_LEVEL ? want.level : 0);
        assert_int_equal(got.cpu, want.has & TRAZA_HAS_CPU ? want.cpu : 0);
        if (want.has & TRAZA_HAS_VALUE)
            assert_memory_equal(&got.value, &want.value, sizeof want.value); /* -0.0 stays -0.0 */
    }
    /* a NaN value is stored as absent, as SQLite stores it (NULL) */
    traza_event e = ev_of(0);
    e.has = TRAZA_HAS_VALUE;
    e.value = NAN;
    len = tz_pack_put(NULL, &e, buf);
    assert_int_equal(tz_pack_decode(buf, len, 1, &blk), 0);
    assert_int_equal(blk.has[0], 0);
    /* a function call: flags, time gap, type, duration and level in 8 bytes */
    traza_event a = {.ts = 1000000, .type = 300, .producer = 1, .has = TRAZA_HAS_END | TRAZA_HAS_LEVEL, .end_ts = 1000900, .level = 3};
    traza_event b = a;
    b.ts += 250;
    b.end_ts = b.ts + 4000;
    b.type = 301;
    assert_int_equal(tz_pack_put(&a, &b, buf), 8);
}

static void test_block_rejects(void **state)
{
    (void)state;
    static unsigned char buf[TZ_PACK_BLOCK * TZ_PACK_MAXEV + 8];
    static tz_pack_block blk;
    size_t len = put_block(buf, 20);
    /* every cut inside an event is refused; a cut between events reads fewer */
    size_t ends[21], ne = 0, at = 0;
    unsigned char one[TZ_PACK_MAXEV];
    traza_event prev;
    ends[ne++] = 0;
    for (size_t i = 0; i < 20; i++) { /* where each event ends */
        traza_event e = ev_of(i);
        at += tz_pack_put(i ? &prev : NULL, &e, one);
        prev = e;
        ends[ne++] = at;
    }
    assert_int_equal(at, len);
    for (size_t cut = 0, k = 0; cut < len; cut++) {
        while (k < ne && ends[k] < cut)
            k++;
        int boundary = k < ne && ends[k] == cut;
        int rc = tz_pack_decode(buf, cut, 1, &blk);
        if (boundary && cut > 0) {
            assert_int_equal(rc, 0);
            assert_int_equal(blk.n, k);
        } else {
            assert_int_equal(rc, -1);
        }
    }
    assert_int_equal(tz_pack_decode(buf, len, 0, &blk), -1);          /* ids start at 1 */
    assert_int_equal(tz_pack_decode(buf, len, INT64_MAX - 5, &blk), -1); /* ids past INT64_MAX */
    unsigned char bad[4] = {0x80 | 0x60, 0, 0, 0};                    /* an unknown flag */
    assert_int_equal(tz_pack_decode(bad, 4, 1, &blk), -1);
    unsigned char notype[2] = {0x40, 0};                               /* a first event without its type */
    assert_int_equal(tz_pack_decode(notype, 2, 1, &blk), -1);
    /* a type past 32 bits */
    unsigned char wide[8] = {0x60, 0, 0x80, 0x80, 0x80, 0x80, 0x20, 0};
    assert_int_equal(tz_pack_decode(wide, 8, 1, &blk), -1);
    /* more than TZ_PACK_BLOCK events */
    len = put_block(buf, TZ_PACK_BLOCK);
    buf[len] = 0; /* flags: nothing new */
    buf[len + 1] = 1;
    assert_int_equal(tz_pack_decode(buf, len + 2, 1, &blk), -1);
}

static void test_ids(void **state)
{
    (void)state;
    tz_buf b;
    tz_buf_init(&b);
    int64_t want[5] = {3, 4, 200, 70000, INT64_MAX}, got[8];
    for (int i = 1; i < 5; i++)
        tz_pack_put_id(&b, want[i - 1], want[i]);
    assert_int_equal(tz_pack_ids((const unsigned char *)b.s, b.len, 3, got, 8), 5);
    assert_memory_equal(got, want, sizeof want);
    assert_int_equal(tz_pack_ids((const unsigned char *)b.s, b.len, 3, got, 4), -1); /* more than cap */
    assert_int_equal(tz_pack_ids((const unsigned char *)b.s, b.len, 4, got, 8), -1); /* past INT64_MAX */
    assert_int_equal(tz_pack_ids((const unsigned char *)b.s, b.len - 1, 3, got, 8), -1); /* cut */
    unsigned char zero[1] = {0};
    assert_int_equal(tz_pack_ids(zero, 1, 3, got, 8), -1); /* an id twice */
    assert_int_equal(tz_pack_ids(zero, 0, 3, got, 8), 1);  /* one id */
    tz_buf_free(&b);
}

/* ---- a packed store against rows ------------------------------------------------ */

/* back: every 1000th event goes back in time (the writer then sorts) */
static void write_trace(tu_ws *w, const char *name, int packed, int back)
{
    traza_writer *wr = traza_writer_begin(w->ws, name, "test", &w->err);
    assert_non_null(wr);
    if (packed)
        traza_writer_pack_events(wr);
    int32_t prod[3], type[40];
    for (int i = 0; i < 3; i++) {
        char n[16];
        snprintf(n, sizeof n, "t%d", i);
        prod[i] = traza_writer_producer(wr, -1, n, "Thread", &w->err);
    }
    int32_t v = traza_writer_event_type(wr, "var", TRAZA_VARIABLE, &w->err);
    int32_t def = traza_writer_param_def(wr, v, "x", TRAZA_PT_INT, &w->err);
    for (int i = 0; i < 40; i++) {
        char n[16];
        snprintf(n, sizeof n, "f%02d", i);
        type[i] = traza_writer_event_type(wr, n, TRAZA_STATE, &w->err);
    }
    /* 30000 calls over three threads, f00 common and f39 rare; a variable with a
     * parameter every 7th event */
    uint64_t x = 12345;
    for (int i = 0; i < 30000; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        traza_event e;
        memset(&e, 0, sizeof e);
        e.ts = (int64_t)i * 10 + (int64_t)(x >> 61) - (back && i % 1000 == 999 ? 20000 : 0);
        e.producer = prod[(x >> 20) % 3];
        traza_param p = {.def = def, .v = {.kind = TRAZA_PT_INT, .i = i}};
        if (i % 7 == 0) {
            e.type = v;
            e.has = TRAZA_HAS_END | TRAZA_HAS_VALUE;
            e.end_ts = e.ts + 5;
            e.value = (double)(i % 100) / 4;
            e.params = &p;
            e.nparams = 1;
        } else {
            int k = (x >> 33) % 100;
            e.type = type[k < 50 ? 0 : k == 99 ? 39 : 1 + k % 38];
            e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
            e.end_ts = e.ts + (int64_t)((x >> 40) % 500);
            e.level = (int32_t)((x >> 50) % 8);
        }
        if (traza_writer_event(wr, &e, &w->err) < 0)
            fail_msg("event %d: %s", i, w->err.msg);
    }
    if (traza_writer_commit(wr, NULL, &w->err) < 0)
        fail_msg("commit %s: %s", name, w->err.msg);
}

/* Every event a filter gives on both traces, compared field by field. */
static int64_t same_events(tu_ws *w, traza_trace *r, traza_trace *p, const traza_filter *f)
{
    traza_cursor *a = traza_query(r, f, &w->err), *b = traza_query(p, f, &w->err);
    assert_non_null(a);
    assert_non_null(b);
    const traza_event *x, *y;
    int64_t n = 0;
    for (;;) {
        int ra = traza_cursor_next(a, &x, &w->err);
        traza_event xa;
        if (ra == 1) {
            xa = *x;
            xa.params = NULL;
        }
        int rb = traza_cursor_next(b, &y, &w->err);
        assert_int_equal(ra, rb);
        if (ra != 1)
            break;
        assert_true(xa.id == y->id && xa.ts == y->ts && xa.type == y->type && xa.producer == y->producer);
        assert_true(xa.has == y->has && xa.end_ts == y->end_ts && xa.level == y->level);
        assert_true(xa.value == y->value && xa.nparams == y->nparams);
        n++;
    }
    traza_cursor_free(a);
    traza_cursor_free(b);
    if (f->limit == 0 && f->offset == 0) { /* a count takes neither */
        assert_int_equal(traza_count(r, f, &w->err), n);
        assert_int_equal(traza_count(p, f, &w->err), n);
    }
    return n;
}

static void compare_traces(tu_ws *wp);
static void layout_of(tu_ws *w, const char *name, char *out, size_t size);

/* The two traces answer alike; ids and order included. */
static void compare(tu_ws *w, int back)
{
    setenv("TRAZA_STORE_LAYOUT", "", 1); /* neither forced packed nor forced rows */
    write_trace(w, "rows", 0, back);
    write_trace(w, "packed", 1, back);
    compare_traces(w);
    char lr[16], lp[16];
    layout_of(w, "rows", lr, sizeof lr);
    layout_of(w, "packed", lp, sizeof lp);
    assert_string_equal(lr, "");
    /* packed unless the sort budget was passed */
    assert_string_equal(lp, getenv("TRAZA_SORT_MEM") ? "" : "packed");
    unsetenv("TRAZA_STORE_LAYOUT");
}

static void compare_traces(tu_ws *wp)
{
    tu_ws w = *wp;
    traza_trace *r = traza_trace_open(w.ws, "rows", TRAZA_OPEN_READ, &w.err);
    traza_trace *p = traza_trace_open(w.ws, "packed", TRAZA_OPEN_READ, &w.err);
    assert_non_null(r);
    assert_non_null(p);
    int32_t f00 = -1, f39 = -1, t1 = -1;
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(p, &types);
    for (size_t i = 0; i < nt; i++) {
        if (!strcmp(types[i].name, "f00")) f00 = types[i].id;
        if (!strcmp(types[i].name, "f39")) f39 = types[i].id;
    }
    const traza_producer *prods;
    size_t np = traza_trace_producers(p, &prods);
    for (size_t i = 0; i < np; i++)
        if (!strcmp(prods[i].name, "t1")) t1 = prods[i].id;
    for (int order = 0; order < 2; order++) {
        traza_filter f;
        traza_filter_init(&f);
        f.order = order ? TRAZA_ORDER_TIME_DESC : TRAZA_ORDER_TIME;
        f.with_params = 1;
        assert_int_equal(same_events(&w, r, p, &f), 30000);
        /* a window; a window with overlap; a rare type (posting lists); a common
         * type in a small window (the walk); a producer; an offset and a limit */
        f.has_from = f.has_to = 1, f.from = 100000, f.to = 120000;
        assert_true(same_events(&w, r, p, &f) > 1900);
        f.overlap = 1;
        same_events(&w, r, p, &f);
        f.overlap = 0;
        f.types = &f39, f.ntypes = 1;
        f.has_from = f.has_to = 0;
        int64_t rare = same_events(&w, r, p, &f);
        assert_true(rare > 100 && rare < 400);
        f.types = &f00;
        f.has_from = f.has_to = 1;
        assert_true(same_events(&w, r, p, &f) > 700);
        f.producers = &t1, f.nproducers = 1;
        same_events(&w, r, p, &f);
        f.types = NULL, f.ntypes = 0, f.has_from = f.has_to = 0;
        f.offset = 333, f.limit = 1000;
        assert_int_equal(same_events(&w, r, p, &f), 1000);
    }
    traza_trace_close(r);
    traza_trace_close(p);
    wp->err = w.err;
}

/* The layout trace `name` was stored in: its meta key event_layout ("" for rows). */
static void layout_of(tu_ws *w, const char *name, char *out, size_t size)
{
    char path[4096];
    sqlite3 *db;
    sqlite3_stmt *st;
    snprintf(path, sizeof path, "%s/catalog.db", w->dir);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT file FROM trace WHERE name=?", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(path, sizeof path, "%s/traces/%s", w->dir, (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT coalesce((SELECT value FROM meta WHERE key='event_layout'), '')", -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_store_same(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    compare(&w, 0);
    tu_ws_close(&w);
}

/* Events out of order: the blocks packed so far become rows, sorted, packed again. */
static void test_store_back_in_time(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    compare(&w, 1);
    tu_ws_close(&w);
}

/* Past the sort budget the import is stored in rows whatever was asked. */
static void test_store_spilled(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    setenv("TRAZA_SORT_MEM", "100000", 1);
    compare(&w, 1);
    unsetenv("TRAZA_SORT_MEM");
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_round_trip),
        cmocka_unit_test(test_block_rejects),
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_store_same),
        cmocka_unit_test(test_store_back_in_time),
        cmocka_unit_test(test_store_spilled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

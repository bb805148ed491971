/* The one-pass call walk (tools/callwalk) finds, for every call, the caller and self
 * time that the whole-trace call profile finds (traza_callprofile_build with
 * traza_callprofile_parents): on random call trees of three threads interleaved in
 * time, with calls that start on their caller's tick (stored callee first) and a
 * thread first seen deep in its stack. */
#include "testutil.h"
#include "tools/callwalk.h"

typedef struct rec {
    int32_t producer, level, type;
    int64_t ts, end;
    int64_t parent_ts, parent_level; /* -1: a root call */
    int64_t self;
} rec;

typedef struct gen {
    traza_cp_call *c;
    size_t n, limit; /* calls so far, and the current thread's last */
    uint64_t s;
} gen;

static uint64_t rnd(gen *g)
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return g->s >> 33;
}

/* A call over [ts, end] at level, and calls inside it; a callee may start on its
 * caller's tick. */
static void tree(gen *g, int32_t prod, int level, int64_t ts, int64_t end, int ntypes)
{
    traza_cp_call *c = &g->c[g->n++];
    *c = (traza_cp_call){ts, end, (int32_t)(rnd(g) % (uint64_t)ntypes), prod, level};
    int64_t t = ts + (int64_t)(rnd(g) % 2);
    while (level < 6 && g->n < g->limit && end - t > 4 && rnd(g) % 4) {
        int64_t len = 1 + (int64_t)(rnd(g) % (uint64_t)((end - t) / 2));
        tree(g, prod, level + 1, t, t + len, ntypes);
        t += len + (int64_t)(rnd(g) % 3);
    }
}

static int cmp_call_ts(const void *a, const void *b)
{
    const traza_cp_call *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    /* a callee before its caller on one tick: the walk must put them in order */
    return (x->level < y->level) - (x->level > y->level);
}

static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->level > y->level) - (x->level < y->level);
}

typedef struct walked {
    rec *r;
    size_t n;
} walked;

static int on_open(void *ctx, tz_cw_frame *f, const tz_cw_frame *parent, traza_err *err)
{
    (void)err;
    walked *w = ctx;
    f->user = (int64_t)w->n;
    w->r[w->n++] = (rec){f->c.producer, f->c.level, f->c.type, f->c.ts, f->c.end,
                         parent ? parent->c.ts : -1, parent ? parent->c.level : -1, -1};
    return 0;
}

static int on_close(void *ctx, const tz_cw_frame *f, traza_err *err)
{
    (void)err;
    walked *w = ctx;
    w->r[f->user].self = f->c.end - f->c.ts - f->child_time;
    return 0;
}

static void test_walk_matches_profile(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "calls", "test", &w.err);
    assert_non_null(wr);
    int32_t prod[3], types[5];
    const char *pn[3] = {"t0", "t1", "t2"}, *tn[5] = {"f0", "f1", "f2", "f3", "f4"};
    for (int p = 0; p < 3; p++)
        prod[p] = traza_writer_producer(wr, -1, pn[p], "Thread", &w.err);
    for (int k = 0; k < 5; k++)
        types[k] = traza_writer_event_type(wr, tn[k], TRAZA_STATE, &w.err);
    gen g = {calloc(3 * 3000, sizeof *g.c), 0, 0, 7};
    assert_non_null(g.c);
    for (int p = 0; p < 3; p++) {
        g.limit = g.n + 2500;
        for (int64_t t = 0; t < 100000 && g.n < g.limit;) {
            int64_t len = 10 + (int64_t)(rnd(&g) % 400);
            tree(&g, prod[p], p == 2 ? 2 : 0, t, t + len, 5); /* t2: first seen two levels deep */
            t += len + (int64_t)(rnd(&g) % 5);
        }
    }
    qsort(g.c, g.n, sizeof *g.c, cmp_call_ts);
    for (size_t i = 0; i < g.n; i++) {
        traza_event e = {0};
        e.ts = g.c[i].ts;
        e.end_ts = g.c[i].end;
        e.type = types[g.c[i].type];
        e.producer = g.c[i].producer;
        e.level = g.c[i].level;
        e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    traza_trace_info info;
    assert_int_equal(traza_writer_commit(wr, &info, &w.err), 0);
    traza_trace_info_clear(&info);
    traza_trace *t = traza_trace_open(w.ws, "calls", 0, &w.err);
    assert_non_null(t);

    traza_callprofile cp;
    assert_int_equal(traza_callprofile_build(t, &cp, NULL, NULL, NULL, &w.err), 0);
    assert_int_equal(cp.ncalls, g.n);
    /* the threads, stored interleaved, come out sorted by (producer, ts, level), every
     * call once: the same sums of times and levels per thread as generated */
    int64_t sum_want[3] = {0, 0, 0}, sum_got[3] = {0, 0, 0};
    for (size_t i = 0; i < g.n; i++)
        for (int p = 0; p < 3; p++)
            if (g.c[i].producer == prod[p])
                sum_want[p] += g.c[i].ts * 7 + g.c[i].end * 3 + g.c[i].level;
    for (size_t i = 0; i < cp.ncalls; i++) {
        const traza_cp_call *c = &cp.calls[i];
        if (i > 0) {
            const traza_cp_call *b = &cp.calls[i - 1];
            assert_true(b->producer < c->producer ||
                        (b->producer == c->producer && (b->ts < c->ts || (b->ts == c->ts && b->level <= c->level))));
        }
        for (int p = 0; p < 3; p++)
            if (c->producer == prod[p])
                sum_got[p] += c->ts * 7 + c->end * 3 + c->level;
    }
    for (int p = 0; p < 3; p++)
        assert_true(sum_got[p] == sum_want[p]);
    int64_t *parent = malloc(cp.ncalls * sizeof *parent);
    rec *want = calloc(cp.ncalls, sizeof *want);
    assert_non_null(parent);
    assert_non_null(want);
    assert_int_equal(traza_callprofile_parents(&cp, parent), 0);
    for (size_t i = 0; i < cp.ncalls; i++) {
        const traza_cp_call *c = &cp.calls[i];
        want[i] = (rec){c->producer, c->level, c->type, c->ts, c->end, -1, -1, c->end - c->ts};
        if (parent[i] >= 0) {
            want[i].parent_ts = cp.calls[parent[i]].ts;
            want[i].parent_level = cp.calls[parent[i]].level;
        }
    }
    for (size_t i = 0; i < cp.ncalls; i++)
        if (parent[i] >= 0)
            want[parent[i]].self -= cp.calls[i].end - cp.calls[i].ts;

    walked got = {calloc(g.n, sizeof *got.r), 0};
    assert_non_null(got.r);
    tz_callwalk_fns fns = {on_open, on_close};
    assert_int_equal(tz_callwalk(t, &fns, &got, &w.err), 0);
    assert_int_equal(got.n, cp.ncalls);
    qsort(got.r, got.n, sizeof *got.r, cmp_rec);
    size_t roots = 0, nested = 0;
    for (size_t i = 0; i < got.n; i++) {
        assert_memory_equal(&got.r[i], &want[i], sizeof want[i]);
        roots += want[i].parent_level < 0;
        nested += want[i].level > 0 && want[i].parent_level >= 0;
    }
    assert_true(roots > 300 && nested > 3000); /* the trees are trees */
    free(got.r);
    free(want);
    free(parent);
    free(g.c);
    traza_callprofile_free(&cp);
    traza_trace_close(t);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_walk_matches_profile)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

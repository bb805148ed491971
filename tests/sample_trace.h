/* A small sample trace for tests: root/{cpu0,cpu1}; types run (state), irq
 * (punctual, params vector/who/addr), msg (link), load (variable); events given
 * out of time order on purpose. For n: irq at i*10 (cpu i%2), run [i*10+1, i*10+6]
 * on cpu0, one msg 5..25 cpu0->cpu1, one load 0..100 = 0.75 on root. Time unit us. */
#ifndef TZ_SAMPLE_TRACE_H
#define TZ_SAMPLE_TRACE_H

#include "testutil.h"

static inline void tu_sample_trace(tu_ws *w, const char *name, int n)
{
    traza_writer *wr = traza_writer_begin(w->ws, name, "test", &w->err);
    assert_non_null(wr);
    int32_t root = traza_writer_producer(wr, -1, "root", "Machine", &w->err);
    int32_t c0 = traza_writer_producer(wr, root, "cpu0", "Core", &w->err);
    int32_t c1 = traza_writer_producer(wr, root, "cpu1", "Core", &w->err);
    assert_int_equal(traza_writer_producer(wr, root, "cpu0", "Core", &w->err), c0); /* get-or-create */
    int32_t run = traza_writer_event_type(wr, "run", TRAZA_STATE, &w->err);
    int32_t irq = traza_writer_event_type(wr, "irq", TRAZA_PUNCTUAL, &w->err);
    int32_t msg = traza_writer_event_type(wr, "msg", TRAZA_LINK, &w->err);
    int32_t load = traza_writer_event_type(wr, "load", TRAZA_VARIABLE, &w->err);
    assert_int_equal(traza_writer_event_type(wr, "irq", TRAZA_STATE, &w->err), -1);
    assert_err_contains(w->err, "both as punctual and as state");
    int32_t vec = traza_writer_param_def(wr, irq, "vector", TRAZA_PT_INT, &w->err);
    int32_t who = traza_writer_param_def(wr, irq, "who", TRAZA_PT_STRING, &w->err);
    int32_t addr = traza_writer_param_def(wr, irq, "addr", TRAZA_PT_HEX, &w->err);
    assert_true(vec >= 0 && who >= 0 && addr >= 0);
    for (int i = n - 1; i >= 0; i--) { /* reversed: the store must sort */
        traza_param ps[3] = {{vec, {TRAZA_PT_INT, i % 7, 0, NULL}},
                             {who, {TRAZA_PT_STRING, 0, 0, (i % 2) ? "uart" : "timer"}},
                             {addr, {TRAZA_PT_HEX, 0x8000 + i, 0, NULL}}};
        traza_event e = {0};
        e.ts = i * 10;
        e.type = irq;
        e.producer = (i % 2) ? c1 : c0;
        e.params = ps;
        e.nparams = 3;
        e.cpu = i % 2;
        e.has = TRAZA_HAS_CPU;
        assert_int_equal(traza_writer_event(wr, &e, &w->err), 0);
        traza_event s = {0};
        s.ts = i * 10 + 1;
        s.end_ts = i * 10 + 6;
        s.type = run;
        s.producer = c0;
        s.level = 0;
        s.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
        assert_int_equal(traza_writer_event(wr, &s, &w->err), 0);
    }
    traza_event l = {0};
    l.ts = 5; l.end_ts = 25; l.type = msg; l.producer = c0; l.end_producer = c1;
    l.has = TRAZA_HAS_END | TRAZA_HAS_END_PRODUCER;
    assert_int_equal(traza_writer_event(wr, &l, &w->err), 0);
    traza_event v = {0};
    v.ts = 0; v.end_ts = 100; v.type = load; v.producer = root; v.value = 0.75; v.has = TRAZA_HAS_END | TRAZA_HAS_VALUE;
    assert_int_equal(traza_writer_event(wr, &v, &w->err), 0);
    traza_event bad = {0};
    bad.ts = 10; bad.type = run; bad.producer = c0;
    assert_int_equal(traza_writer_event(wr, &bad, &w->err), -1);
    assert_err_contains(w->err, "needs an end time");
    traza_writer_set_time_unit(wr, -6);
    traza_writer_set_param(wr, "board", "stm32", &w->err);
    traza_trace_info info;
    assert_int_equal(traza_writer_commit(wr, &info, &w->err), 0);
    assert_string_equal(info.name, name);
    assert_int_equal(info.events, 2 * n + 2);
    assert_int_equal(info.categories[TRAZA_PUNCTUAL], n);
    assert_int_equal(info.categories[TRAZA_STATE], n);
    assert_int_equal(info.categories[TRAZA_LINK], 1);
    assert_int_equal(info.categories[TRAZA_VARIABLE], 1);
    assert_int_equal(info.producers, 3);
    assert_int_equal(info.time_unit, -6);
    assert_int_equal(info.min_ts, 0);
    assert_int_equal(info.max_ts, (n - 1) * 10 + 6 > 100 ? (n - 1) * 10 + 6 : 100);
    assert_int_equal(info.nparams, 1);
    traza_trace_info_clear(&info);
}

/* A trace of "req" events on producer "core" with a string parameter s: ids 1..nlong
 * (ts 0..nlong-1) hold `lng`, the next nshort hold "b". For regex limits. */
static inline void tu_string_trace(traza_workspace *ws, const char *name, const char *lng, int nlong, int nshort)
{
    traza_err err;
    traza_writer *wr = traza_writer_begin(ws, name, "test", &err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "core", "Core", &err);
    int32_t ty = traza_writer_event_type(wr, "req", TRAZA_PUNCTUAL, &err);
    int32_t def = traza_writer_param_def(wr, ty, "s", TRAZA_PT_STRING, &err);
    assert_true(p >= 0 && ty >= 0 && def >= 0);
    for (int i = 0; i < nlong + nshort; i++) {
        traza_param ps = {def, {TRAZA_PT_STRING, 0, 0, i < nlong ? lng : "b"}};
        traza_event e = {0};
        e.ts = i;
        e.type = ty;
        e.producer = p;
        e.params = &ps;
        e.nparams = 1;
        assert_int_equal(traza_writer_event(wr, &e, &err), 0);
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &err), 0);
}

#endif

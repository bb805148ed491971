/* Deterministic synthetic traces for the analysis tests and benchmarks (not part of
 * libtraza: the tests and tests/analysis/helper_mkgen.c include it). */
#ifndef TZ_TEST_SYNTH_H
#define TZ_TEST_SYNTH_H
#include "traza/traza.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t synth_sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline uint64_t synth_rnd(uint64_t *s, uint64_t n) { return n ? synth_sm64(s) % n : 0; }

static inline int synth_state(traza_writer *w, int32_t type, int32_t prod, int64_t ts, int64_t end, traza_err *err)
{
    traza_event e;
    memset(&e, 0, sizeof e);
    e.ts = ts;
    e.end_ts = end;
    e.type = type;
    e.producer = prod;
    e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
    return traza_writer_event(w, &e, err);
}

static inline int synth_point(traza_writer *w, int32_t type, int32_t prod, int64_t ts, traza_err *err)
{
    traza_event e;
    memset(&e, 0, sizeof e);
    e.ts = ts;
    e.type = type;
    e.producer = prod;
    return traza_writer_event(w, &e, err);
}

#define MS 1000000LL
#define CK(x) do { if ((x) < 0) goto fail; } while (0)

/* A trace with a reader "read" (state, producer "net", every 10 to 10.1 ms for 1 ms)
 * whose reads last 30 ms, and delay the next read, while a periodic "flush" (state,
 * producer "disk", every 5 s for 200 ms) runs, plus distractors: "timer" (punctual,
 * every 1 s, "cpu0"), "gc" (state, every 7.3 s, "vm"), "irq" (punctual, random, mean
 * 20 ms, "cpu1"), "log" (punctual, random, "app"), plus `extra` random punctual
 * "noiseN" events on 16 "workerN" producers. `seconds` of trace, ns time unit,
 * deterministic from `seed`. */
static inline int synth_flush(traza_workspace *ws, const char *name, int seconds, int64_t extra, uint64_t seed,
                              traza_trace_info *info, traza_err *err)
{
    traza_writer *w = traza_writer_begin(ws, name, "gen", err);
    if (!w)
        return -1;
    uint64_t s = seed;
    int64_t end = (int64_t)seconds * 1000 * MS;
    int32_t host, net, disk, cpu0, cpu1, vm, app, tread, tflush, ttimer, tgc, tirq, tlog;
    CK(traza_writer_set_time_unit(w, -9));
    CK(host = traza_writer_producer(w, -1, "host", "Machine", err));
    CK(net = traza_writer_producer(w, host, "net", "Thread", err));
    CK(disk = traza_writer_producer(w, host, "disk", "Thread", err));
    CK(cpu0 = traza_writer_producer(w, host, "cpu0", "Core", err));
    CK(cpu1 = traza_writer_producer(w, host, "cpu1", "Core", err));
    CK(vm = traza_writer_producer(w, host, "vm", "Thread", err));
    CK(app = traza_writer_producer(w, host, "app", "Thread", err));
    CK(tread = traza_writer_event_type(w, "read", TRAZA_STATE, err));
    CK(tflush = traza_writer_event_type(w, "flush", TRAZA_STATE, err));
    CK(ttimer = traza_writer_event_type(w, "timer", TRAZA_PUNCTUAL, err));
    CK(tgc = traza_writer_event_type(w, "gc", TRAZA_STATE, err));
    CK(tirq = traza_writer_event_type(w, "irq", TRAZA_PUNCTUAL, err));
    CK(tlog = traza_writer_event_type(w, "log", TRAZA_PUNCTUAL, err));
    for (int64_t f = 2500 * MS; f < end; f += 5000 * MS)
        CK(synth_state(w, tflush, disk, f, f + 200 * MS, err));
    /* The reader blocks: a read that stalls delays the next one, so both the
     * durations and the periods of the reads show the flushes. */
    for (int64_t r = 3 * MS; r < end;) {
        int64_t off = (r - 2500 * MS) % (5000 * MS);
        int stalled = r >= 2500 * MS && off < 200 * MS;
        int64_t d = (stalled ? 30 * MS : 1 * MS) + (int64_t)synth_rnd(&s, 200000);
        CK(synth_state(w, tread, net, r, r + d, err));
        int64_t next = r + 10 * MS + (int64_t)synth_rnd(&s, 100000);
        r = next > r + d ? next : r + d;
    }
    for (int64_t t = 370 * MS; t < end; t += 1000 * MS)
        CK(synth_point(w, ttimer, cpu0, t, err));
    for (int64_t t = 1100 * MS; t < end; t += 7300 * MS)
        CK(synth_state(w, tgc, vm, t, t + 100 * MS, err));
    for (int64_t t = (int64_t)synth_rnd(&s, 50 * MS); t < end; t += 1 + (int64_t)synth_rnd(&s, 40 * MS))
        CK(synth_point(w, tirq, cpu1, t, err));
    for (int64_t t = (int64_t)synth_rnd(&s, 200 * MS); t < end; t += 1 + (int64_t)synth_rnd(&s, 400 * MS))
        CK(synth_point(w, tlog, app, t, err));
    if (extra > 0) {
        int32_t wk[16], nt[8];
        char nm[32];
        for (int i = 0; i < 16; i++) {
            snprintf(nm, sizeof nm, "worker%d", i);
            CK(wk[i] = traza_writer_producer(w, host, nm, "Thread", err));
        }
        for (int i = 0; i < 8; i++) {
            snprintf(nm, sizeof nm, "noise%d", i);
            CK(nt[i] = traza_writer_event_type(w, nm, TRAZA_PUNCTUAL, err));
        }
        for (int64_t i = 0; i < extra; i++)
            CK(synth_point(w, nt[synth_rnd(&s, 8)], wk[synth_rnd(&s, 16)], (int64_t)synth_rnd(&s, (uint64_t)end), err));
    }
    return traza_writer_commit(w, info, err);
fail:
    traza_writer_abort(w);
    return -1;
}

/* A G-Streamer-like trace: `nproducers` threads under a few processes, `nevents`
 * states and punctual events of 8 types over 10 s. */
static inline int synth_many(traza_workspace *ws, const char *name, int64_t nevents, int nproducers, uint64_t seed,
                              traza_trace_info *info, traza_err *err)
{
    if (nproducers < 1 || nevents < 1)
        return traza_err_set(err, TRAZA_E_USAGE, "synthetic trace needs at least one producer and one event");
    traza_writer *w = traza_writer_begin(ws, name, "gen", err);
    if (!w)
        return -1;
    uint64_t s = seed;
    int32_t types[8];
    static const char *const tn[8] = {"decode", "render", "queue", "push", "buffer", "signal", "alloc", "wait"};
    int32_t *prods = NULL;
    char nm[64];
    int32_t root;
    CK(traza_writer_set_time_unit(w, -9));
    CK(root = traza_writer_producer(w, -1, "gst", "Machine", err));
    for (int i = 0; i < 8; i++)
        CK(types[i] = traza_writer_event_type(w, tn[i], i < 4 ? TRAZA_STATE : TRAZA_PUNCTUAL, err));
    prods = malloc((size_t)nproducers * sizeof *prods);
    if (!prods) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto fail;
    }
    int nproc = nproducers / 50 + 1;
    int32_t proc = root;
    for (int i = 0; i < nproducers; i++) {
        if (i % 50 == 0) {
            snprintf(nm, sizeof nm, "pipeline%d", i / 50);
            CK(proc = traza_writer_producer(w, root, nm, "Process", err));
        }
        snprintf(nm, sizeof nm, "thread%d", i);
        CK(prods[i] = traza_writer_producer(w, proc, nm, "Thread", err));
    }
    (void)nproc;
    /* Four phases of 2.5 s with different type mixes. */
    const int64_t span = 10000 * MS, phase = span / 4;
    for (int64_t i = 0; i < nevents; i++) {
        int64_t ts = (int64_t)synth_rnd(&s, (uint64_t)span);
        int ph = (int)(ts / phase);
        int ty = (int)synth_rnd(&s, 8);
        if (synth_rnd(&s, 4) == 0)
            ty = (ph * 2 + (int)synth_rnd(&s, 2)) % 8; /* the phase's favourite types */
        int32_t p = prods[synth_rnd(&s, (uint64_t)nproducers)];
        if (ty < 4)
            CK(synth_state(w, types[ty], p, ts, ts + 1000 + (int64_t)synth_rnd(&s, 200000), err));
        else
            CK(synth_point(w, types[ty], p, ts, err));
    }
    free(prods);
    return traza_writer_commit(w, info, err);
fail:
    free(prods);
    traza_writer_abort(w);
    return -1;
}

#undef MS
#undef CK
#endif

/* The time of ETM elements, from the trace's timestamps (doc/formats/etm.md, "Time").
 *
 * A first decoding pass (tz_etm_time_scan) records, per core, each timestamp with the
 * instructions and the cycles the core had executed when it was decoded (an anchor),
 * and, for the segment between two anchors, whether it is cycle-accurate (it counts
 * cycles and every instruction range in it carries its count) and where tracing was
 * last switched on in it. The second pass (tz_etm_time_place) gives each element its
 * time:
 *
 * - In a segment that is not cycle-accurate, time is interpolated over the executed
 *   instructions: an element at instruction count I takes
 *   T_k + (I - I_k) * (T_k+1 - T_k) / (I_k+1 - I_k), rounded down.
 * - In a cycle-accurate segment time follows the cycles, at the core's rate R (cycles
 *   per tick, the highest rate its cycle-accurate segments show: those of at least 16
 *   timestamp steps, or any when none is that long). The cycles of a segment take
 *   (C_k+1 - C_k) / R ticks; the rest of it is time without cycles (a core waiting for
 *   an interrupt, tracing off), placed where tracing was switched on again in the
 *   segment or, when it was not, at its end, before the next timestamp. An element at
 *   cycle count C takes T_k + (C - C_k) / R (+ that rest when it comes after it),
 *   rounded down. When the cycles need more time than the segment has (R estimated
 *   low), they share it in proportion.
 *
 * Cycle counts are added where they are decoded: a range's count is its own cycles (it
 * lasts [C, C + count)); a cycle_count element's and a timestamp's are the cycles
 * before them. Before a core's first timestamp its elements hold T_0, after its last
 * one T_last; a timestamp lower than the previous one of its core counts as that one,
 * so time never goes back on a core. A core without timestamps takes the trace's first
 * one. Given the counter's frequency, timestamps are turned into nanoseconds as they
 * are read (T * 10^9 / hz, rounded down), before all that. */
#include "import/etm_internal.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Segments at least this many timestamp steps long give the cycle rate. */
#define TZ_ETM_RATE_MIN_STEPS 16

typedef struct anchor {
    uint64_t instr, cycles;
    int64_t ts;
    uint64_t rest_from; /* the segment from here: ordinal of the element its rest precedes */
    int by_cycles;      /* the segment from here is cycle-accurate */
} anchor;

typedef struct core_time {
    anchor *a;
    size_t n, cap;
    double rate; /* cycles per tick of its cycle-accurate segments; 0: none */
    /* first pass */
    uint64_t instr, cycles, elems, seg_on;
    int64_t ranges, seg_nocc;
    int seg_has_on;
    /* second pass */
    size_t seen;
    uint64_t instr2, cycles2, elems2;
} core_time;

struct tz_etm_time {
    tz_map ids; /* core -> index in cores */
    core_time *cores;
    size_t ncores, cap;
    int64_t first; /* the trace's first timestamp */
    int64_t nts;
    double hz;     /* the counter's frequency; 0 = ticks */
};

int tz_etm_time_new(double hz, tz_etm_time **out, traza_err *err)
{
    tz_etm_time *t = calloc(1, sizeof *t);
    if (!t)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    tz_map_init(&t->ids);
    t->hz = hz;
    *out = t;
    return 0;
}

void tz_etm_time_free(tz_etm_time *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->ncores; i++)
        free(t->cores[i].a);
    free(t->cores);
    tz_map_free(&t->ids);
    free(t);
}

static core_time *core_of(tz_etm_time *t, const char *core)
{
    int64_t v;
    if (tz_map_get(&t->ids, core, &v))
        return &t->cores[v];
    if (TZ_GROW(t->cores, t->cap, t->ncores + 1) < 0 || tz_map_put(&t->ids, core, (int64_t)t->ncores) < 0)
        return NULL;
    memset(&t->cores[t->ncores], 0, sizeof t->cores[0]);
    return &t->cores[t->ncores++];
}

/* A timestamp's value in the trace's time unit. */
static int64_t ts_value(const tz_etm_time *t, uint64_t raw)
{
    int64_t ts = raw > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)raw;
    if (t->hz > 0) {
        long double ns = (long double)ts * 1e9L / (long double)t->hz;
        ts = ns >= 9223372036854775807.0L ? INT64_MAX : (int64_t)ns;
    }
    return ts;
}

int tz_etm_time_scan(void *u, const traza_etm_elem *e, traza_err *err)
{
    tz_etm_time *t = u;
    if (e->kind == TRAZA_ETM_OTHER)
        return 0;
    core_time *c = core_of(t, e->core);
    if (!c)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    uint64_t ord = c->elems++;
    if (e->has_cc)
        c->cycles += e->cycle_count;
    if (e->kind == TRAZA_ETM_RANGE) {
        c->instr += e->ninstr;
        c->ranges++;
        c->seg_nocc += !e->has_cc;
    } else if (e->kind == TRAZA_ETM_TRACE_ON) {
        c->seg_on = ord;
        c->seg_has_on = 1;
    } else if (e->kind == TRAZA_ETM_TIMESTAMP) {
        if (TZ_GROW(c->a, c->cap, c->n + 1) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        int64_t ts = ts_value(t, e->timestamp);
        if (c->n) {
            anchor *p = &c->a[c->n - 1];
            if (ts < p->ts)
                ts = p->ts;
            p->by_cycles = c->seg_nocc == 0 && c->cycles > p->cycles;
            p->rest_from = c->seg_has_on ? c->seg_on : ord;
        }
        c->a[c->n++] = (anchor){c->instr, c->cycles, ts, 0, 0};
        c->seg_nocc = 0;
        c->seg_has_on = 0;
        if (t->nts++ == 0 || ts < t->first)
            t->first = ts;
    }
    return 0;
}

/* The highest cycle rate among the core's cycle-accurate segments of at least
 * TZ_ETM_RATE_MIN_STEPS timestamp steps (the smallest step between two of its
 * timestamps), or among all of them when none is that long; 0 without any. */
static double core_rate(const core_time *c)
{
    int64_t step = 0;
    for (size_t k = 0; k + 1 < c->n; k++) {
        int64_t d = c->a[k + 1].ts - c->a[k].ts;
        if (d > 0 && (step == 0 || d < step))
            step = d;
    }
    double best = 0, any = 0;
    for (size_t k = 0; k + 1 < c->n; k++) {
        int64_t d = c->a[k + 1].ts - c->a[k].ts;
        if (!c->a[k].by_cycles || d <= 0)
            continue;
        double r = (double)(c->a[k + 1].cycles - c->a[k].cycles) / (double)d;
        if (r > any)
            any = r;
        if (d >= TZ_ETM_RATE_MIN_STEPS * step && r > best)
            best = r;
    }
    return best > 0 ? best : any;
}

int tz_etm_time_usable(tz_etm_time *t)
{
    if (t->nts == 0)
        return 0;
    for (size_t i = 0; i < t->ncores; i++)
        if (t->cores[i].ranges && t->cores[i].n == 0)
            return 0;
    for (size_t i = 0; i < t->ncores; i++)
        t->cores[i].rate = core_rate(&t->cores[i]);
    return 1;
}

int64_t tz_etm_time_count(const tz_etm_time *t) { return t->nts; }

double tz_etm_time_rate(const tz_etm_time *t, const char *core)
{
    int64_t v;
    return tz_map_get(&t->ids, core, &v) ? t->cores[v].rate : 0;
}

/* The time of an element of core c at instruction count instr and cycle count cycles,
 * the ord-th element of the core (see above). */
static int64_t time_at(const tz_etm_time *t, const core_time *c, uint64_t instr, uint64_t cycles, uint64_t ord)
{
    if (c->n == 0)
        return t->first;
    if (c->seen == 0)
        return c->a[0].ts;
    const anchor *a = &c->a[c->seen - 1];
    if (c->seen == c->n)
        return a->ts;
    int64_t dt = a[1].ts - a->ts;
    if (a->by_cycles) {
        uint64_t dc = a[1].cycles - a->cycles, x = cycles > a->cycles ? cycles - a->cycles : 0;
        if (x > dc)
            x = dc;
        double busy = c->rate > 0 ? (double)dc / c->rate : INFINITY;
        if (busy >= (double)dt)
            return a->ts + (int64_t)((unsigned __int128)(uint64_t)dt * x / dc);
        double off = (double)x / c->rate + (ord >= a->rest_from ? (double)dt - busy : 0);
        int64_t o = (int64_t)floor(off);
        return a->ts + (o > dt ? dt : o);
    }
    if (instr <= a->instr || a[1].instr == a->instr)
        return a->ts;
    uint64_t di = a[1].instr - a->instr, x = instr - a->instr;
    if (x > di)
        x = di;
    return a->ts + (int64_t)((unsigned __int128)(uint64_t)dt * x / di);
}

int tz_etm_time_place(tz_etm_time *t, const traza_etm_elem *e, int64_t *ts, int64_t *end_ts, traza_err *err)
{
    core_time *c = core_of(t, e->core);
    if (!c)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    uint64_t ord = c->elems2++;
    if (e->kind == TRAZA_ETM_RANGE) {
        *ts = time_at(t, c, c->instr2, c->cycles2, ord);
        c->instr2 += e->ninstr;
        if (e->has_cc)
            c->cycles2 += e->cycle_count;
        *end_ts = time_at(t, c, c->instr2, c->cycles2, ord);
        return 0;
    }
    if (e->has_cc)
        c->cycles2 += e->cycle_count;
    if (e->kind == TRAZA_ETM_TIMESTAMP && c->seen < c->n)
        c->seen++;
    *ts = *end_ts = time_at(t, c, c->instr2, c->cycles2, ord);
    return 0;
}

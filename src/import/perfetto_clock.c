/* Perfetto's clocks: see perfetto_clock.h. */
#include "import/perfetto_clock.h"

#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* BOOTTIME: the trace clock of a trace whose snapshots name no other. */
#define PF_BOOTTIME 6u

/* A reading of a clock (in ns) and of the trace clock at the same instant. */
typedef struct pf_sync {
    int64_t clock_ns, trace_ns;
} pf_sync;

struct tz_pf_clock {
    uint64_t key; /* the id, and for a sequence-scoped id its sequence above bit 32 */
    int incremental, has_last;
    uint64_t mult;  /* ns per unit */
    uint64_t last;  /* an incremental clock's current value, in its units */
    pf_sync *syncs; /* in snapshot order */
    size_t nsyncs, capsyncs;
};

typedef struct tz_pf_seq_default {
    uint32_t seq, clock_id;
} tz_pf_seq_default;

static uint64_t clock_key(uint32_t seq, uint32_t id) { return id >= 64 && id < 128 ? (uint64_t)seq << 32 | id : id; }

void tz_pf_clocks_init(tz_pf_clocks *c)
{
    memset(c, 0, sizeof *c);
    c->trace_clock = PF_BOOTTIME;
}

void tz_pf_clocks_free(tz_pf_clocks *c)
{
    for (size_t i = 0; i < c->nclocks; i++)
        free(c->clocks[i].syncs);
    free(c->clocks);
    free(c->defaults);
    memset(c, 0, sizeof *c);
}

static tz_pf_clock *find(tz_pf_clocks *c, uint64_t key)
{
    for (size_t i = 0; i < c->nclocks; i++)
        if (c->clocks[i].key == key)
            return &c->clocks[i];
    return NULL;
}

static tz_pf_clock *find_or_add(tz_pf_clocks *c, uint64_t key)
{
    tz_pf_clock *k = find(c, key);
    if (k)
        return k;
    if (TZ_GROW(c->clocks, c->capclocks, c->nclocks + 1) < 0)
        return NULL;
    k = &c->clocks[c->nclocks++];
    memset(k, 0, sizeof *k);
    k->key = key;
    k->mult = 1;
    return k;
}

/* v * m as int64, or -1 when it leaves the range. */
static int scale(uint64_t v, uint64_t m, int64_t *out)
{
    if (m && v > (uint64_t)INT64_MAX / m)
        return -1;
    *out = (int64_t)(v * m);
    return 0;
}

int tz_pf_clocks_snapshot(tz_pf_clocks *c, uint32_t seq, const Perfetto__Protos__ClockSnapshot *s)
{
    if (!c->trace_clock_set) {
        if (s->has_primary_trace_clock && s->primary_trace_clock)
            c->trace_clock = s->primary_trace_clock;
        c->trace_clock_set = 1;
    }
    int has_trace = 0;
    int64_t trace_ns = 0;
    for (size_t i = 0; i < s->n_clocks; i++) {
        const Perfetto__Protos__ClockSnapshot__Clock *k = s->clocks[i];
        uint64_t mult = k->has_unit_multiplier_ns && k->unit_multiplier_ns ? k->unit_multiplier_ns : 1;
        if (k->has_clock_id && k->clock_id == c->trace_clock && k->has_timestamp && scale(k->timestamp, mult, &trace_ns) == 0)
            has_trace = 1;
    }
    for (size_t i = 0; i < s->n_clocks; i++) {
        const Perfetto__Protos__ClockSnapshot__Clock *k = s->clocks[i];
        if (!k->has_clock_id || !k->has_timestamp || k->clock_id == c->trace_clock)
            continue;
        tz_pf_clock *t = find_or_add(c, clock_key(seq, k->clock_id));
        if (!t)
            return -1;
        t->incremental = k->has_is_incremental && k->is_incremental;
        t->mult = k->has_unit_multiplier_ns && k->unit_multiplier_ns ? k->unit_multiplier_ns : 1;
        t->last = k->timestamp;
        t->has_last = 1;
        int64_t ns;
        if (!has_trace || scale(k->timestamp, t->mult, &ns) < 0)
            continue;
        if (TZ_GROW(t->syncs, t->capsyncs, t->nsyncs + 1) < 0)
            return -1;
        t->syncs[t->nsyncs++] = (pf_sync){ns, trace_ns};
    }
    return 0;
}

int tz_pf_clocks_default(tz_pf_clocks *c, uint32_t seq, uint32_t clock_id)
{
    for (size_t i = 0; i < c->ndefaults; i++)
        if (c->defaults[i].seq == seq) {
            c->defaults[i].clock_id = clock_id;
            return 0;
        }
    if (TZ_GROW(c->defaults, c->capdefaults, c->ndefaults + 1) < 0)
        return -1;
    c->defaults[c->ndefaults++] = (tz_pf_seq_default){seq, clock_id};
    return 0;
}

int tz_pf_clocks_convert(tz_pf_clocks *c, uint32_t seq, int has_clock, uint32_t clock_id, uint64_t ts, int64_t *out,
                         uint32_t *why)
{
    for (size_t i = 0; !has_clock && i < c->ndefaults; i++)
        if (c->defaults[i].seq == seq) {
            clock_id = c->defaults[i].clock_id;
            has_clock = 1;
        }
    if (!has_clock || clock_id == c->trace_clock) {
        if (ts > INT64_MAX)
            return -1;
        *out = (int64_t)ts;
        return 1;
    }
    *why = clock_id;
    tz_pf_clock *k = find(c, clock_key(seq, clock_id));
    if (!k || !k->nsyncs)
        return 0;
    uint64_t v = ts;
    if (k->incremental) {
        if (k->last > UINT64_MAX - ts)
            return -1;
        v = k->last + ts;
        k->last = v;
    }
    int64_t ns;
    if (scale(v, k->mult, &ns) < 0)
        return -1;
    /* the latest snapshot at or before this reading; before the first, the first */
    size_t j = k->nsyncs - 1;
    while (j > 0 && k->syncs[j].clock_ns > ns)
        j--;
    const pf_sync *s = &k->syncs[j];
    int64_t d = ns - s->clock_ns; /* both within [0, INT64_MAX]: no overflow */
    if ((d > 0 && s->trace_ns > INT64_MAX - d) || (d < 0 && s->trace_ns < -d))
        return -1;
    *out = s->trace_ns + d;
    return 1;
}

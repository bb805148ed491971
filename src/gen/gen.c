/* The synthetic trace generator: see include/traza/gen.h.
 *
 * One event stream, drawn from a splitmix64 generator seeded by the options, feeds
 * both outputs, so `traza gen` into the store and `traza gen -o f.csv` followed by
 * `traza import f.csv` give the same events (the file carries leaf producers only). */
#include "traza/gen.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cat_prefix[TRAZA_NCATEGORIES] = {"punctual", "state", "link", "variable"};
static const char *const words[16] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                                      "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"};

void traza_gen_opts_init(traza_gen_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->events = 100000;
    o->fanout[0] = 4;
    o->fanout[1] = 8;
    o->depth = 2;
    o->types[TRAZA_PUNCTUAL] = 4;
    o->types[TRAZA_STATE] = 4;
    o->types[TRAZA_LINK] = 1;
    o->types[TRAZA_VARIABLE] = 1;
    o->time_unit = -9;
    o->mean_gap = 100;
}

int traza_gen_parse_tree(traza_gen_opts *o, const char *spec, traza_err *err)
{
    int d = 0;
    const char *p = spec;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > 1000000 || d == TRAZA_GEN_MAX_DEPTH || (*end && *end != 'x'))
            return traza_err_set(err, TRAZA_E_USAGE, "a producer tree is fan-outs like 4x8x16 (1 to %d levels, each 1..1000000), not '%s'",
                                 TRAZA_GEN_MAX_DEPTH, spec);
        o->fanout[d++] = (int)v;
        p = *end ? end + 1 : end;
        if (*end == 'x' && !*p)
            return traza_err_set(err, TRAZA_E_USAGE, "trailing 'x' in the producer tree '%s'", spec);
    }
    if (d == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "a producer tree needs fan-outs like 4x8x16");
    o->depth = d;
    int64_t leaves;
    if (traza_gen_producer_count(o, &leaves) < 0)
        return traza_err_set(err, TRAZA_E_USAGE, "the producer tree '%s' makes too many producers (limit 10 million)", spec);
    return 0;
}

int traza_gen_set_producers(traza_gen_opts *o, int64_t producers, int depth, traza_err *err)
{
    if (producers < 1 || producers > 10000000 || depth < 1 || depth > TRAZA_GEN_MAX_DEPTH)
        return traza_err_set(err, TRAZA_E_USAGE, "the producer count must be 1..10000000 and the depth 1..%d", TRAZA_GEN_MAX_DEPTH);
    /* Equal fan-outs f with f^depth close to the count; the last level is rounded up. */
    int64_t f = 1;
    while (depth > 1) {
        int64_t p = 1;
        for (int i = 0; i < depth; i++)
            p *= f + 1;
        if (p > producers)
            break;
        f++;
    }
    int64_t prod = 1;
    for (int i = 0; i < depth - 1; i++) {
        o->fanout[i] = (int)f;
        prod *= f;
    }
    o->fanout[depth - 1] = (int)((producers + prod - 1) / prod);
    o->depth = depth;
    return 0;
}

int traza_gen_parse_types(traza_gen_opts *o, const char *spec, traza_err *err)
{
    int t[TRAZA_NCATEGORIES] = {0};
    const char *p = spec;
    while (*p) {
        const char *eq = strchr(p, '=');
        const char *comma = strchr(p, ',');
        if (!eq || (comma && comma < eq))
            return traza_err_set(err, TRAZA_E_USAGE, "event types are counted as punctual=N,state=N,link=N,variable=N, not '%s'", spec);
        char name[16];
        size_t nl = (size_t)(eq - p);
        if (nl >= sizeof name)
            return traza_err_set(err, TRAZA_E_USAGE, "unknown category in the event types '%s'", spec);
        memcpy(name, p, nl);
        name[nl] = '\0';
        int c = traza_category_parse(name);
        char *end;
        long v = strtol(eq + 1, &end, 10);
        if (c < 0 || end == eq + 1 || v < 0 || v > 100000 || (*end && *end != ','))
            return traza_err_set(err, TRAZA_E_USAGE, "event types are counted as punctual=N,state=N,link=N,variable=N (N 0..100000), not '%s'", spec);
        t[c] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (t[0] + t[1] + t[2] + t[3] == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "at least one event type is needed");
    memcpy(o->types, t, sizeof t);
    return 0;
}

int64_t traza_gen_producer_count(const traza_gen_opts *o, int64_t *leaves)
{
    int64_t total = 0, level = 1;
    for (int i = 0; i < o->depth; i++) {
        level *= o->fanout[i];
        total += level;
        if (total > 10000000)
            return -1;
    }
    if (leaves)
        *leaves = level;
    return total;
}

/* ---- the event stream ----------------------------------------------------- */

typedef struct gen_iter {
    uint64_t s;
    int64_t ts, i;
    int64_t leaves;
    int ntypes;
    int first[TRAZA_NCATEGORIES + 1];
    int64_t ival[64];
    double dval[64];
    int sval[64];
} gen_iter;

typedef struct gen_event {
    int64_t ts, end;
    int type;                 /* 0..ntypes-1 (types grouped by category) */
    traza_category cat;
    int64_t leaf, end_leaf;
    int cpu;
    double value;
    int64_t value_milli;
} gen_event;

static uint64_t next_u64(gen_iter *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void iter_init(gen_iter *g, const traza_gen_opts *o)
{
    memset(g, 0, sizeof *g);
    g->s = o->seed * 0x2545f4914f6cdd1dull + 0x1234567ull;
    traza_gen_producer_count(o, &g->leaves);
    int n = 0;
    for (int c = 0; c < TRAZA_NCATEGORIES; c++) {
        g->first[c] = n;
        n += o->types[c];
    }
    g->first[TRAZA_NCATEGORIES] = n;
    g->ntypes = n;
}

static void iter_next(gen_iter *g, const traza_gen_opts *o, gen_event *e)
{
    uint64_t r = next_u64(g);
    int64_t gap = o->mean_gap > 0 ? o->mean_gap : 1;
    g->ts += (int64_t)(r % (uint64_t)(2 * gap));
    g->i++;
    e->ts = g->ts;
    r = next_u64(g);
    e->type = (int)(r % (uint64_t)g->ntypes);
    int c = 0;
    while (c + 1 < TRAZA_NCATEGORIES && e->type >= g->first[c + 1])
        c++;
    e->cat = (traza_category)c;
    r = next_u64(g);
    e->leaf = (int64_t)(r % (uint64_t)g->leaves);
    e->cpu = (int)(e->leaf % 8);
    e->end = e->ts;
    e->end_leaf = 0;
    e->value = 0;
    uint64_t r2 = next_u64(g);
    switch (e->cat) {
    case TRAZA_PUNCTUAL: break;
    case TRAZA_STATE: e->end = e->ts + 1 + (int64_t)(r2 % (uint64_t)(10 * gap)); break;
    case TRAZA_LINK:
        e->end = e->ts + 1 + (int64_t)(r2 % (uint64_t)(5 * gap));
        e->end_leaf = (int64_t)((r2 >> 20) % (uint64_t)g->leaves);
        break;
    case TRAZA_VARIABLE:
        e->end = e->ts + gap;
        e->value_milli = (int64_t)(r2 % 1000000);
        e->value = (double)e->value_milli / 1000.0;
        break;
    default: break;
    }
    for (int k = 0; k < o->params && k < 64; k++) {
        uint64_t x = next_u64(g);
        switch (k % 4) {
        case 0: g->ival[k] = (int64_t)(x % 1000000); break;
        case 1: g->ival[k] = (int64_t)(x % 1000000); g->dval[k] = (double)g->ival[k] / 1000.0; break;
        case 2: g->sval[k] = (int)(x % 16); break;
        case 3: g->ival[k] = 0x10000000 + (int64_t)(x % 65536) * 4; break;
        }
    }
}

static traza_ptype param_type(int k)
{
    static const traza_ptype t[4] = {TRAZA_PT_INT, TRAZA_PT_DOUBLE, TRAZA_PT_STRING, TRAZA_PT_HEX};
    return t[k % 4];
}

static int check_opts(const traza_gen_opts *o, traza_err *err)
{
    int64_t leaves;
    if (o->depth < 1 || o->depth > TRAZA_GEN_MAX_DEPTH || traza_gen_producer_count(o, &leaves) < 0 || leaves < 1)
        return traza_err_set(err, TRAZA_E_USAGE, "gen: bad producer tree");
    if (o->events < 0 || o->events > (int64_t)1 << 40)
        return traza_err_set(err, TRAZA_E_USAGE, "gen: the event count must be 0..2^40");
    if (o->params < 0 || o->params > 64)
        return traza_err_set(err, TRAZA_E_USAGE, "gen: the parameter count must be 0..64");
    int n = 0;
    for (int c = 0; c < TRAZA_NCATEGORIES; c++) {
        if (o->types[c] < 0)
            return traza_err_set(err, TRAZA_E_USAGE, "gen: negative type count");
        n += o->types[c];
    }
    if (n == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "gen: at least one event type is needed");
    if (o->types[TRAZA_LINK] && leaves < 1)
        return traza_err_set(err, TRAZA_E_USAGE, "gen: links need producers");
    if (o->time_unit < -18 || o->time_unit > 3 || o->mean_gap < 1 || o->mean_gap > ((int64_t)1 << 32))
        return traza_err_set(err, TRAZA_E_USAGE, "gen: bad time unit or gap");
    return 0;
}

/* ---- into the store ------------------------------------------------------- */

int traza_gen_store(traza_workspace *ws, const char *name, const traza_gen_opts *o, traza_trace_info *out, traza_err *err)
{
    if (check_opts(o, err) < 0)
        return -1;
    traza_writer *w = traza_writer_begin(ws, name, "gen", err);
    if (!w)
        return -1;
    int64_t leaves;
    traza_gen_producer_count(o, &leaves);
    int32_t *leaf_id = malloc((size_t)leaves * sizeof *leaf_id);
    int32_t *defs = NULL;
    gen_iter g;
    iter_init(&g, o);
    tz_buf nm;
    tz_buf_init(&nm);
    int32_t *level = NULL, *next = NULL;
    if (!leaf_id)
        goto oom;
    traza_writer_set_time_unit(w, o->time_unit);
    /* The tree, level by level: inner nodes "g<level>_<k>", leaves "n<k>" (k counts
     * across the level, so names are unique and match the files' flat leaf names). */
    {
        int64_t count = 1;
        level = malloc(sizeof *level);
        if (!level)
            goto oom;
        level[0] = -1;
        for (int d = 0; d < o->depth; d++) {
            int64_t nc = count * o->fanout[d];
            next = malloc((size_t)nc * sizeof *next);
            if (!next)
                goto oom;
            for (int64_t p = 0, k = 0; p < count; p++)
                for (int c = 0; c < o->fanout[d]; c++, k++) {
                    tz_buf_reset(&nm);
                    if (d + 1 == o->depth)
                        tz_buf_printf(&nm, "n%lld", (long long)k);
                    else
                        tz_buf_printf(&nm, "g%d_%lld", d, (long long)k);
                    if (nm.oom)
                        goto oom;
                    int32_t id = traza_writer_producer(w, level[p], nm.s, d + 1 == o->depth ? "Leaf" : "Node", err);
                    if (id < 0)
                        goto fail;
                    next[k] = id;
                }
            free(level);
            level = next;
            next = NULL;
            count = nc;
        }
        memcpy(leaf_id, level, (size_t)leaves * sizeof *leaf_id);
    }
    defs = calloc((size_t)g.ntypes * (size_t)(o->params + 1), sizeof *defs);
    if (!defs)
        goto oom;
    for (int c = 0; c < TRAZA_NCATEGORIES; c++)
        for (int t = 0; t < o->types[c]; t++) {
            tz_buf_reset(&nm);
            tz_buf_printf(&nm, "%s%d", cat_prefix[c], t);
            if (nm.oom)
                goto oom;
            int32_t id = traza_writer_event_type(w, nm.s, (traza_category)c, err);
            if (id < 0)
                goto fail;
            for (int k = 0; k < o->params; k++) {
                char pn[16];
                snprintf(pn, sizeof pn, "p%d", k);
                int32_t d = traza_writer_param_def(w, id, pn, param_type(k), err);
                if (d < 0)
                    goto fail;
                defs[(size_t)id * (size_t)o->params + (size_t)k] = d;
            }
        }
    traza_param ps[64];
    for (int64_t i = 0; i < o->events; i++) {
        gen_event e;
        iter_next(&g, o, &e);
        traza_event ev;
        memset(&ev, 0, sizeof ev);
        ev.ts = e.ts;
        ev.type = e.type;
        ev.producer = leaf_id[e.leaf];
        ev.cpu = e.cpu;
        ev.has = TRAZA_HAS_CPU;
        if (e.cat != TRAZA_PUNCTUAL) {
            ev.end_ts = e.end;
            ev.has |= TRAZA_HAS_END;
        }
        if (e.cat == TRAZA_LINK) {
            ev.end_producer = leaf_id[e.end_leaf];
            ev.has |= TRAZA_HAS_END_PRODUCER;
        }
        if (e.cat == TRAZA_VARIABLE) {
            ev.value = e.value;
            ev.has |= TRAZA_HAS_VALUE;
        }
        for (int k = 0; k < o->params; k++) {
            ps[k].def = defs[(size_t)e.type * (size_t)o->params + (size_t)k];
            ps[k].v.kind = param_type(k);
            ps[k].v.i = g.ival[k];
            ps[k].v.d = g.dval[k];
            ps[k].v.s = words[g.sval[k]];
        }
        ev.params = ps;
        ev.nparams = (uint32_t)o->params;
        if (traza_writer_event(w, &ev, err) < 0)
            goto fail;
        if ((i & 0xffff) == 0 && traza_progress(traza_workspace_ctx(ws), "generating", (uint64_t)i, (uint64_t)o->events)) {
            traza_err_set(err, TRAZA_E_CANCELLED, "generation cancelled");
            goto fail;
        }
    }
    {
        char buf[200];
        snprintf(buf, sizeof buf, "seed=%llu events=%lld params=%d", (unsigned long long)o->seed, (long long)o->events, o->params);
        if (traza_writer_set_param(w, "gen", buf, err) < 0)
            goto fail;
    }
    free(leaf_id);
    free(defs);
    free(level);
    tz_buf_free(&nm);
    return traza_writer_commit(w, out, err);
oom:
    traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
fail:
    free(leaf_id);
    free(defs);
    free(level);
    free(next);
    tz_buf_free(&nm);
    traza_writer_abort(w);
    return -1;
}

/* ---- into a file ------------------------------------------------------------ */

static char *put_i64(char *p, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_milli(char *p, int64_t m)
{
    p = put_i64(p, m / 1000);
    *p++ = '.';
    p[0] = (char)('0' + (m / 100) % 10);
    p[1] = (char)('0' + (m / 10) % 10);
    p[2] = (char)('0' + m % 10);
    return p + 3;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static char *put_leaf(char *p, int64_t leaf) { *p++ = 'n'; return put_i64(p, leaf); }

int traza_gen_file(const char *path, const char *format, const traza_gen_opts *o, traza_err *err)
{
    if (check_opts(o, err) < 0)
        return -1;
    int kp;
    if (!format || !strcmp(format, "csv"))
        kp = 0;
    else if (!strcmp(format, "kptrace"))
        kp = 1;
    else
        return traza_err_set(err, TRAZA_E_USAGE, "gen: the format must be csv or kptrace, not '%s'", format);
    tz_outfile of = {stdout, NULL, NULL};
    if (strcmp(path, "-") != 0 && tz_outfile_open(&of, path, err) < 0)
        return -1;
    FILE *f = of.f;
    size_t cap = 1 << 20;
    char *buf = malloc(cap + 8192);
    if (!buf) {
        if (f != stdout)
            tz_outfile_close(&of, 0, NULL);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    char *p = buf;
    /* Leaf names in the file are the leaf index ("n<k>"): unique and flat. */
    p = put_str(p, kp ? "start,end,unused1,unused2,type,producer,producer2,cpu" : "ts,end,type,producer,end_producer,cpu,value");
    for (int k = 0; k < o->params; k++) {
        *p++ = ',';
        *p++ = 'p';
        p = put_i64(p, k);
    }
    if (kp && o->types[TRAZA_VARIABLE])
        p = put_str(p, ",value");
    *p++ = '\n';
    gen_iter g;
    iter_init(&g, o);
    int io_err = 0;
    for (int64_t i = 0; i < o->events && !io_err; i++) {
        gen_event e;
        iter_next(&g, o, &e);
        int c = (int)e.cat;
        int tnum = e.type - g.first[c];
        p = put_i64(p, e.ts);
        *p++ = ',';
        if (e.cat != TRAZA_PUNCTUAL)
            p = put_i64(p, e.end);
        p = put_str(p, kp ? ",,," : ",");
        p = put_str(p, cat_prefix[c]);
        p = put_i64(p, tnum);
        *p++ = ',';
        p = put_leaf(p, e.leaf);
        *p++ = ',';
        if (e.cat == TRAZA_LINK)
            p = put_leaf(p, e.end_leaf);
        *p++ = ',';
        p = put_i64(p, e.cpu);
        if (!kp) {
            *p++ = ',';
            if (e.cat == TRAZA_VARIABLE)
                p = put_milli(p, e.value_milli);
        }
        for (int k = 0; k < o->params; k++) {
            *p++ = ',';
            switch (k % 4) {
            case 0: p = put_i64(p, g.ival[k]); break;
            case 1: p = put_milli(p, g.ival[k]); break;
            case 2: p = put_str(p, words[g.sval[k]]); break;
            case 3: p += snprintf(p, 24, "0x%llx", (unsigned long long)g.ival[k]); break;
            }
        }
        if (kp && o->types[TRAZA_VARIABLE]) {
            *p++ = ',';
            if (e.cat == TRAZA_VARIABLE)
                p = put_milli(p, e.value_milli);
        }
        *p++ = '\n';
        if ((size_t)(p - buf) >= cap) {
            if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
                io_err = 1;
            p = buf;
        }
    }
    if (!io_err && p > buf && fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
        io_err = 1;
    free(buf);
    int e = errno;
    if (f == stdout) {
        if (fflush(f) != 0)
            io_err = 1, e = errno;
    } else if (tz_outfile_close(&of, !io_err, err) < 0) {
        return -1;
    }
    if (io_err)
        return traza_err_set(err, TRAZA_E_IO, "%s: write failed: %s", path, strerror(e));
    return 0;
}

/* CoreSight snapshots (see include/traza/etm.h; decoded by etm_decode.c), and the
 * "etm" importer: one producer per core (snapshot -> core), instruction ranges as
 * states; exceptions, exception returns, trace-on, no-sync, end of trace,
 * inaccessible addresses, timestamps, PE contexts and cycle counts as punctual
 * events. Element kinds left out (events, software trace...) are counted per kind.
 * Time is that of the trace's timestamps, interpolated over the cycles or the
 * instructions between them (etm_time.c); without timestamps it counts executed
 * instructions per core: a range of N instructions starting when the core has
 * executed T lasts [T, T + N). */
#include "traza/etm.h"
#include "import/etm_internal.h"
#include "import/importers.h"
#include "import/skips.h"
#include "util/features.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* 0, or -1 in a build without OpenCSD, said before the snapshot is read. */
static int need_opencsd(const char *dir, traza_err *err)
{
    return tz_built_etm ? 0 : tz_feature_missing_at(err, dir, TZ_FEATURE_ETM);
}

int traza_etm_is_snapshot(const char *dir)
{
    char *p = tz_asprintf("%s/snapshot.ini", dir);
    struct stat st;
    int ok = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return ok;
}

int tz_etm_read_file(const char *path, uint8_t **data, size_t *len, traza_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open", path);
    tz_buf b;
    tz_buf_init(&b);
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        tz_buf_put(&b, tmp, k);
    int bad = ferror(f);
    fclose(f);
    if (bad || b.oom) {
        tz_buf_free(&b);
        return traza_err_set(err, bad ? TRAZA_E_IO : TRAZA_E_NOMEM, "%s: %s", path, bad ? "read error" : "out of memory");
    }
    *len = b.len;
    *data = (uint8_t *)b.s;
    if (!*data && !(*data = malloc(1)))
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    return 0;
}

/* ---- PC expansion ------------------------------------------------------------ */

typedef struct memimg {
    uint64_t addr;
    uint8_t *data;
    size_t len;
} memimg;

typedef struct pcctx {
    const char *core;
    memimg *mem;
    size_t nmem;
    uint64_t *pcs;
    size_t n, cap;
} pcctx;

static int mem_u16(const pcctx *p, uint64_t a, uint16_t *v)
{
    for (size_t i = 0; i < p->nmem; i++)
        if (a >= p->mem[i].addr && a - p->mem[i].addr + 2 <= p->mem[i].len) {
            const uint8_t *d = p->mem[i].data + (a - p->mem[i].addr);
            *v = (uint16_t)(d[0] | d[1] << 8);
            return 1;
        }
    return 0;
}

static int on_pc(void *u, const traza_etm_elem *e, traza_err *err)
{
    pcctx *p = u;
    if (e->kind != TRAZA_ETM_RANGE || (p->core && strcmp(p->core, e->core) != 0))
        return 0;
    uint64_t a = e->start;
    uint32_t k = 0;
    while (a < e->end) {
        if (TZ_GROW(p->pcs, p->cap, p->n + 1) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        p->pcs[p->n++] = a;
        k++;
        if (strcmp(e->isa, "T32") == 0) {
            uint16_t hw;
            if (!mem_u16(p, a, &hw))
                return traza_err_set(err, TRAZA_E_PARSE, "%s: range 0x%llx-0x%llx: no memory image holds the T32 instruction at 0x%llx",
                                     e->core, (unsigned long long)e->start, (unsigned long long)e->end, (unsigned long long)a);
            a += (hw >> 11) >= 0x1d ? 4 : 2;
        } else {
            a += 4;
        }
    }
    if (k != e->ninstr)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: range 0x%llx-0x%llx (%s): expanded to %u instructions, the decoder counted %u",
                             e->core, (unsigned long long)e->start, (unsigned long long)e->end, e->isa, k, e->ninstr);
    return 0;
}

int traza_etm_pcs(const char *dir, const char *core, uint64_t **pcs, size_t *n, traza_err *err)
{
    *pcs = NULL;
    *n = 0;
    if (need_opencsd(dir, err) < 0)
        return -1;
    tz_snapshot ss;
    if (tz_snapshot_load(dir, &ss, err) < 0)
        return -1;
    pcctx p;
    memset(&p, 0, sizeof p);
    p.core = core;
    int rc = 0;
    size_t cap = 0;
    for (size_t i = 0; i < ss.ndev && rc == 0; i++)
        for (size_t j = 0; j < ss.dev[i].ndumps && rc == 0; j++) {
            const tz_ss_dump *m = &ss.dev[i].dumps[j];
            uint8_t *data;
            size_t len;
            if ((rc = tz_etm_read_file(m->path, &data, &len, err)) < 0)
                break;
            if (TZ_GROW(p.mem, cap, p.nmem + 1) < 0) {
                free(data);
                rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                break;
            }
            size_t off = m->offset < len ? (size_t)m->offset : len;
            size_t l = len - off;
            if (m->length && m->length < l)
                l = (size_t)m->length;
            memmove(data, data + off, l);
            p.mem[p.nmem++] = (memimg){m->address, data, l};
        }
    tz_snapshot_free(&ss);
    if (rc == 0)
        rc = traza_etm_decode(dir, on_pc, &p, err);
    for (size_t i = 0; i < p.nmem; i++)
        free(p.mem[i].data);
    free(p.mem);
    if (rc < 0) {
        free(p.pcs);
        return -1;
    }
    if (core && p.n == 0) {
        free(p.pcs);
        return traza_err_set(err, TRAZA_E_NOTFOUND, "%s: no instruction range decoded for core '%s'", dir, core);
    }
    *pcs = p.pcs;
    *n = p.n;
    return 0;
}

/* ---- the importer ------------------------------------------------------------- */

/* The element kinds not imported, counted by OpenCSD's name. */
static const char *const other_names[] = {
    "OCSD_GEN_TRC_ELEM_EVENT",  "OCSD_GEN_TRC_ELEM_SWTRACE", "OCSD_GEN_TRC_ELEM_SYNC_MARKER",
    "OCSD_GEN_TRC_ELEM_MEMTRANS", "OCSD_GEN_TRC_ELEM_CUSTOM", "OCSD_GEN_TRC_ELEM_UNKNOWN",
};
#define N_OTHER (sizeof other_names / sizeof other_names[0])

enum { K_RANGE, K_EXC, K_ERET, K_ON, K_NOSYNC, K_EOT, K_NACC, K_TS, K_CTX, K_CC, N_KINDS };

typedef struct ictx {
    traza_writer *w;
    int32_t root;
    tz_map cores;     /* core -> producer */
    tz_map counters;  /* core -> executed instructions so far */
    int32_t t[N_KINDS];
    int32_t d_idxs[N_KINDS];
    int32_t d_start, d_end, d_isa, d_n, d_last, d_exc, d_ret, d_reason, d_addr, d_exec;
    int32_t d_func;
    tz_etm_syms *syms; /* function names of the ELF images */
    int32_t d_ccs[N_KINDS]; /* cycle_count of each kind but K_CC (whose count is its "cycles") */
    int32_t d_ts, d_ctxid, d_vmid, d_sec, d_el, d_cisa, d_bits, d_cc;
    int64_t ranges;
    tz_etm_time *time; /* NULL: time counts executed instructions */
    double hz;         /* the timestamp counter's frequency; 0: ticks */
    int64_t unresolved; /* ranges without their path, addresses the decoder lost */
    int64_t other[N_OTHER]; /* decoder elements of other kinds, not imported */
} ictx;

/* The cycle rate that timed a cycle-accurate core: CORE.cycles_per_timestamp_tick and,
 * given the counter's frequency, the core clock it implies, CORE.cycle_hz. */
static int core_rate_params(ictx *c, const char *core, traza_err *err)
{
    double r = c->time ? tz_etm_time_rate(c->time, core) : 0; /* cycles per time unit */
    if (r <= 0)
        return 0;
    char key[160], val[64];
    snprintf(key, sizeof key, "%s.cycles_per_timestamp_tick", core);
    snprintf(val, sizeof val, "%.6g", c->hz > 0 ? r * 1e9 / c->hz : r);
    if (traza_writer_set_param(c->w, key, val, err) < 0)
        return -1;
    if (c->hz <= 0)
        return 0;
    snprintf(key, sizeof key, "%s.cycle_hz", core);
    snprintf(val, sizeof val, "%.6g", r * 1e9);
    return traza_writer_set_param(c->w, key, val, err);
}

static int imp_elem(void *u, const traza_etm_elem *e, traza_err *err)
{
    ictx *c = u;
    if (e->kind == TRAZA_ETM_OTHER) {
        size_t i = 0;
        while (i < N_OTHER && strcmp(e->elem_name, other_names[i]) != 0)
            i++;
        if (i < N_OTHER)
            c->other[i]++;
        else
            c->unresolved++;
        return 0;
    }
    int64_t v;
    int32_t prod;
    if (tz_map_get(&c->cores, e->core, &v)) {
        prod = (int32_t)v;
    } else {
        prod = traza_writer_producer(c->w, c->root, e->core, "Core", err);
        if (prod < 0)
            return -1;
        if (tz_map_put(&c->cores, e->core, prod) < 0 || tz_map_put(&c->counters, e->core, 0) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        char key[160], val[64];
        snprintf(key, sizeof key, "%s.trace_id", e->core);
        snprintf(val, sizeof val, "%u", e->trace_id);
        if (traza_writer_set_param(c->w, key, val, err) < 0)
            return -1;
        snprintf(key, sizeof key, "%s.source", e->core);
        if (traza_writer_set_param(c->w, key, e->source, err) < 0)
            return -1;
        snprintf(key, sizeof key, "%s.protocol", e->core);
        if (traza_writer_set_param(c->w, key, e->protocol, err) < 0)
            return -1;
        if (core_rate_params(c, e->core, err) < 0)
            return -1;
    }
    int64_t now = 0;
    tz_map_get(&c->counters, e->core, &now);
    traza_event ev = {0};
    ev.producer = prod;
    ev.ts = now;
    int64_t end = now + (e->kind == TRAZA_ETM_RANGE ? (int64_t)e->ninstr : 0);
    if (c->time && tz_etm_time_place(c->time, e, &ev.ts, &end, err) < 0)
        return -1;
    traza_param ps[10];
    uint32_t np = 0;
#define P(d_, k_, val_) (ps[np].def = (d_), ps[np].v = (traza_value){(k_), (int64_t)(val_), 0, NULL}, np++)
    int32_t k_idx;
    switch (e->kind) {
    case TRAZA_ETM_RANGE:
        k_idx = K_RANGE;
        ev.end_ts = end;
        ev.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
        P(c->d_start, TRAZA_PT_HEX, e->start);
        P(c->d_end, TRAZA_PT_HEX, e->end);
        ps[np].def = c->d_isa, ps[np].v = (traza_value){TRAZA_PT_STRING, 0, 0, e->isa}, np++;
        P(c->d_n, TRAZA_PT_INT, e->ninstr);
        P(c->d_last, TRAZA_PT_INT, e->last_size);
        P(c->d_exec, TRAZA_PT_INT, e->executed);
        if (e->has_cc)
            P(c->d_ccs[K_RANGE], TRAZA_PT_INT, e->cycle_count);
        const char *fn = tz_etm_syms_func(c->syms, e->start);
        if (fn)
            ps[np].def = c->d_func, ps[np].v = (traza_value){TRAZA_PT_STRING, 0, 0, fn}, np++;
        if (tz_map_put(&c->counters, e->core, now + e->ninstr) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        c->ranges++;
        break;
    case TRAZA_ETM_EXCEPTION:
        k_idx = K_EXC;
        P(c->d_exc, TRAZA_PT_INT, e->number);
        if (e->has_ret)
            P(c->d_ret, TRAZA_PT_HEX, e->end);
        break;
    case TRAZA_ETM_EXCEPTION_RET: k_idx = K_ERET; break;
    case TRAZA_ETM_TRACE_ON:
        k_idx = K_ON;
        P(c->d_reason, TRAZA_PT_INT, e->number);
        break;
    case TRAZA_ETM_NO_SYNC: k_idx = K_NOSYNC; break;
    case TRAZA_ETM_END_OF_TRACE: k_idx = K_EOT; break;
    case TRAZA_ETM_ADDR_NACC:
        k_idx = K_NACC;
        P(c->d_addr, TRAZA_PT_HEX, e->start);
        break;
    case TRAZA_ETM_TIMESTAMP:
        k_idx = K_TS;
        P(c->d_ts, TRAZA_PT_INT, e->timestamp);
        if (e->has_cc)
            P(c->d_ccs[K_TS], TRAZA_PT_INT, e->cycle_count);
        break;
    case TRAZA_ETM_PE_CONTEXT:
        k_idx = K_CTX;
        if (e->ctxt_id_valid)
            P(c->d_ctxid, TRAZA_PT_HEX, e->context_id);
        if (e->vmid_valid)
            P(c->d_vmid, TRAZA_PT_INT, e->vmid);
        ps[np].def = c->d_sec, ps[np].v = (traza_value){TRAZA_PT_STRING, 0, 0, e->secure}, np++;
        if (e->el >= 0)
            P(c->d_el, TRAZA_PT_INT, e->el);
        ps[np].def = c->d_cisa, ps[np].v = (traza_value){TRAZA_PT_STRING, 0, 0, e->isa}, np++;
        P(c->d_bits, TRAZA_PT_INT, e->bits64 ? 64 : 32);
        break;
    case TRAZA_ETM_CYCLE_COUNT:
        k_idx = K_CC;
        P(c->d_cc, TRAZA_PT_INT, e->cycle_count);
        break;
    default: return 0;
    }
    /* the cycles an element of another kind carries (an I-sync's count covers the time
     * tracing was off): kept, as they time the trace */
    if (e->has_cc && k_idx != K_RANGE && k_idx != K_TS && k_idx != K_CC)
        P(c->d_ccs[k_idx], TRAZA_PT_INT, e->cycle_count);
    ev.type = c->t[k_idx];
    P(c->d_idxs[k_idx], TRAZA_PT_INT, e->index);
#undef P
    ev.params = ps;
    ev.nparams = np;
    return traza_writer_event(c->w, &ev, err);
}

static int etm_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts, traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "etm: give one snapshot directory");
    if (!traza_etm_is_snapshot(paths[0]))
        return traza_err_set(err, TRAZA_E_PARSE, "%s: not a CoreSight snapshot directory (no snapshot.ini)", paths[0]);
    if (need_opencsd(paths[0], err) < 0)
        return -1;
    ictx c;
    memset(&c, 0, sizeof c);
    c.w = w;
    tz_map_init(&c.cores);
    tz_map_init(&c.counters);
    int rc = -1;
    const char *base = strrchr(paths[0], '/');
    char *root = tz_strdup(base && base[1] ? base + 1 : paths[0]);
    if (!root) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        root[--rl] = '\0';
    if ((c.root = traza_writer_producer(w, -1, root, "Snapshot", err)) < 0)
        goto out;
    static const struct { const char *name; traza_category cat; } types[N_KINDS] = {
        [K_RANGE] = {"instr_range", TRAZA_STATE},  [K_EXC] = {"exception", TRAZA_PUNCTUAL},   [K_ERET] = {"exception_return", TRAZA_PUNCTUAL},
        [K_ON] = {"trace_on", TRAZA_PUNCTUAL},     [K_NOSYNC] = {"no_sync", TRAZA_PUNCTUAL},   [K_EOT] = {"end_of_trace", TRAZA_PUNCTUAL},
        [K_NACC] = {"addr_nacc", TRAZA_PUNCTUAL},  [K_TS] = {"timestamp", TRAZA_PUNCTUAL},     [K_CTX] = {"pe_context", TRAZA_PUNCTUAL},
        [K_CC] = {"cycle_count", TRAZA_PUNCTUAL},
    };
    for (size_t i = 0; i < N_KINDS; i++)
        if ((c.t[i] = traza_writer_event_type(w, types[i].name, types[i].cat, err)) < 0)
            goto out;
    struct { int32_t *id; int kind; const char *name; traza_ptype pt; } defs[] = {
        {&c.d_start, K_RANGE, "start", TRAZA_PT_HEX},       {&c.d_end, K_RANGE, "end", TRAZA_PT_HEX},
        {&c.d_isa, K_RANGE, "isa", TRAZA_PT_STRING},        {&c.d_n, K_RANGE, "ninstr", TRAZA_PT_INT},
        {&c.d_last, K_RANGE, "last_size", TRAZA_PT_INT},    {&c.d_exec, K_RANGE, "last_executed", TRAZA_PT_INT},
        {&c.d_ccs[K_RANGE], K_RANGE, "cycle_count", TRAZA_PT_INT}, {&c.d_func, K_RANGE, "function", TRAZA_PT_STRING},
        {&c.d_exc, K_EXC, "number", TRAZA_PT_INT},          {&c.d_ret, K_EXC, "return_address", TRAZA_PT_HEX},
        {&c.d_reason, K_ON, "reason", TRAZA_PT_INT},        {&c.d_addr, K_NACC, "address", TRAZA_PT_HEX},
        {&c.d_ts, K_TS, "timestamp", TRAZA_PT_INT},         {&c.d_ccs[K_TS], K_TS, "cycle_count", TRAZA_PT_INT},
        {&c.d_ctxid, K_CTX, "context_id", TRAZA_PT_HEX},    {&c.d_vmid, K_CTX, "vmid", TRAZA_PT_INT},
        {&c.d_sec, K_CTX, "security", TRAZA_PT_STRING},     {&c.d_el, K_CTX, "exception_level", TRAZA_PT_INT},
        {&c.d_cisa, K_CTX, "isa", TRAZA_PT_STRING},         {&c.d_bits, K_CTX, "bits", TRAZA_PT_INT},
        {&c.d_cc, K_CC, "cycles", TRAZA_PT_INT},
    };
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if ((*defs[i].id = traza_writer_param_def(w, c.t[defs[i].kind], defs[i].name, defs[i].pt, err)) < 0)
            goto out;
    for (size_t i = 0; i < N_KINDS; i++)
        if (i != K_RANGE && i != K_TS && i != K_CC && (c.d_ccs[i] = traza_writer_param_def(w, c.t[i], "cycle_count", TRAZA_PT_INT, err)) < 0)
            goto out;
    /* "index" exists on every type; one definition per type */
    for (size_t i = 0; i < N_KINDS; i++)
        if ((c.d_idxs[i] = traza_writer_param_def(w, c.t[i], "index", TRAZA_PT_INT, err)) < 0)
            goto out;
    tz_snapshot ss;
    if (tz_snapshot_load(paths[0], &ss, err) < 0)
        goto out;
    rc = tz_etm_syms_open(&ss, opts ? opts->elf : NULL, &c.syms, err);
    tz_snapshot_free(&ss);
    if (rc < 0)
        goto out;
    double hz = c.hz = opts ? opts->timestamp_hz : 0;
    tz_etm_time *tm;
    if ((rc = tz_etm_time_new(hz, &tm, err)) < 0)
        goto out;
    rc = traza_etm_decode(paths[0], tz_etm_time_scan, tm, err);
    int timed = rc == 0 && tz_etm_time_usable(tm);
    if (rc == 0 && !timed && hz > 0)
        rc = traza_err_set(err, TRAZA_E_USAGE,
                           "%s: a timestamp counter frequency was given, but %s: its time counts executed instructions",
                           paths[0], tz_etm_time_count(tm) ? "a core that executed instructions has no timestamp" : "the trace has no timestamp");
    if (rc == 0) {
        c.time = timed ? tm : NULL;
        rc = traza_etm_decode(paths[0], imp_elem, &c, err);
    }
    tz_etm_time_free(tm);
    c.time = NULL;
    if (rc == 0 && opts && opts->timestamp_hz > 0) {
        traza_writer_set_time_unit(w, -9); /* nanoseconds: a time axis in seconds */
        char hzs[64];
        snprintf(hzs, sizeof hzs, "%.17g", opts->timestamp_hz);
        if ((rc = traza_writer_set_param(w, "etm.timestamp_hz", hzs, err)) < 0)
            goto out;
    } else if (rc == 0) {
        traza_writer_set_time_unit(w, 0);
        /* ticks are those of the trace's timestamp counter, or executed instructions
         * per core when the trace has no timestamps to tell the time: not seconds */
        if ((rc = traza_writer_set_param(w, TRAZA_TIME_AXIS_PARAM, timed ? "ticks" : "instructions", err)) < 0)
            goto out;
    }
    if (rc == 0) {
        tz_skips sk;
        tz_skips_init(&sk, ctx, w, paths[0], err);
        tz_skips_note(&sk, "unresolved", "ranges or addresses the decoder could not resolve (I_RANGE_NOPATH, ADDR_UNKNOWN)", c.unresolved);
        for (size_t i = 0; i < N_OTHER; i++) {
            char key[64], what[96];
            snprintf(key, sizeof key, "other.%s", other_names[i] + strlen("OCSD_GEN_TRC_ELEM_"));
            snprintf(what, sizeof what, "decoded %s elements", other_names[i]);
            tz_skips_note(&sk, key, what, c.other[i]);
        }
        rc = tz_skips_finish(&sk, tz_strict(opts), -1);
    }
out:
    tz_etm_syms_close(c.syms);
    free(root);
    tz_map_free(&c.cores);
    tz_map_free(&c.counters);
    return rc;
}

static int etm_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)len;
    if (head)
        return 0;
    return path && traza_etm_is_snapshot(path) ? 95 : 0;
}

const traza_importer tz_importer_etm = {
    "etm", "import-etm", "CoreSight ETMv3/PTM/ETMv4/ETE snapshot directory (snapshot.ini) decoded with OpenCSD", etm_detect, etm_read,
};

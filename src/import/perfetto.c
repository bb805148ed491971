/* Perfetto protobuf trace (.pftrace) importer, for the TrackEvent subset traza's
 * exporter writes (src/export/perfetto.c, whose header comment gives the mapping):
 *
 *   TrackDescriptor          -> a producer (parent: parent_uuid, or for a thread the
 *                               process track of its pid); a counter track names the
 *                               variable type of its values, on its parent's producer;
 *                               a lane track (TZ_PF_LANE_UUID) is its parent's producer
 *   SLICE_BEGIN / SLICE_END  -> a state (nesting level = depth on its track); a slice
 *                               still open at the end closes at the last timestamp
 *   INSTANT                  -> a punctual event; one carrying flow_ids starts a link,
 *                               one carrying terminating_flow_ids ends it
 *   COUNTER                  -> a variable holding for its "traza.dur" annotation, or
 *                               else until the next value of its track (the last one:
 *                               until the last timestamp)
 *   debug annotations        -> parameters ("traza.cpu": the cpu field)
 *   categories (own, interned) -> the parameter "cat"
 *
 * Timestamps are nanoseconds (time unit 10^-9 s) of the trace clock: a packet on
 * another clock (timestamp_clock_id, or its sequence's TracePacketDefaults) is
 * converted through the clock snapshots (import/perfetto_clock.h); an event no
 * snapshot places on the trace clock is counted as skipped. An event without a
 * track_uuid is on its sequence's default track (TrackEventDefaults), or else on
 * the "global" producer. Interned event, annotation and
 * category names are read per packet sequence. Anything else a Perfetto trace holds
 * (ftrace, process stats, ...: counted per packet kind), fields outside the subset in
 * any message (per message type and field), nested annotation values, counter units,
 * annotations of slice ends and unmatched flows are counted as skipped
 * (import/skips.h). Errors give the byte offset of the packet at fault and what
 * was expected there. */
#include "formats/perfetto_names.h"
#include "import/importers.h"
#include "import/perfetto_clock.h"
#include "import/skips.h"
#include "perfetto_trace.pb-c.h"
#include "util/input.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

typedef Perfetto__Protos__TracePacket pf_packet;
typedef Perfetto__Protos__TrackEvent pf_event;

/* Largest packet accepted (Perfetto's own writers stay far below). */
#define PF_MAX_PACKET (64u << 20)
/* Interned ids and sequence ids share one 64-bit key: seq << 40 | iid. */
#define PF_IID_BITS 40

enum { TK_PLAIN, TK_PROCESS, TK_THREAD, TK_COUNTER, TK_LANE };

typedef struct pf_open {
    int64_t ts;
    int32_t type;
    traza_param *params;
    uint32_t nparams;
    int32_t cpu;
    int has_cpu;
} pf_open;

typedef struct pf_track {
    uint64_t uuid, parent_uuid;
    int has_parent;
    int kind;
    int32_t pid;
    char *name;
    int32_t producer; /* -1 until made */
    int resolving;
    pf_open *open;
    size_t nopen, capopen;
} pf_track;

typedef struct pf_sample {
    int64_t ts, end;  /* end: -1 = until the next value */
    size_t track, index;
    double value;
    int32_t type, cpu;
    int has_cpu;
    traza_param *params;
    uint32_t nparams;
} pf_sample;

typedef struct pf_flow {
    int64_t ts;
    int32_t producer, type;
    traza_param *params;
    uint32_t nparams;
    int32_t cpu;
    int has_cpu;
    int done; /* its end was read */
} pf_flow;

/* A field outside the subset, counted once per message holding it. */
typedef struct pf_unread {
    const ProtobufCMessageDescriptor *msg; /* the message type holding it */
    uint32_t field;
    int64_t n;
} pf_unread;

typedef struct pf_reader {
    traza_ctx *ctx;
    traza_writer *w;
    int strict;
    traza_err *err;
    const char *path;
    tz_input *in;
    unsigned char buf[65536];
    size_t pos, len;
    uint64_t off;   /* bytes consumed */
    uint64_t at;    /* offset of the packet being read */
    pf_track *tracks;
    size_t ntracks, captracks;
    tz_imap by_uuid, by_pid, names, anns, cats;
    char **strs;
    size_t nstrs, capstrs;
    pf_sample *samples;
    size_t nsamples, capsamples;
    pf_flow *flows;
    size_t nflows, capflows;
    tz_imap by_flow;
    int64_t max_ts;
    int32_t global;
    int64_t unmatched_flows;
    int64_t nested_annotations; /* outside the TrackEvent subset: not imported */
    int64_t counter_units;      /* CounterDescriptor.unit_name: no place in the model */
    int64_t end_annotations;    /* TYPE_SLICE_END events with debug annotations or categories */
    int64_t unsynced;           /* events on a clock no snapshot relates to the trace clock */
    uint32_t unsynced_clock;    /* the first such clock */
    tz_pf_clocks clocks;
    tz_imap default_track;      /* sequence -> TrackEventDefaults.track_uuid */
    pf_unread *unread;          /* fields outside the subset, per message type and field */
    size_t nunread, capunread;
} pf_reader;

static int oom(pf_reader *r) { return traza_err_set(r->err, TRAZA_E_NOMEM, "out of memory"); }

static int bad(pf_reader *r, const char *what)
{
    return traza_err_set(r->err, TRAZA_E_PARSE, "%s: offset %llu: %s", r->path, (unsigned long long)r->at, what);
}

/* ---- the byte stream: Trace = repeated (tag 0x0a, varint length, TracePacket) ---- */

/* 1 and a byte, 0 at the end, -1 on error. */
static int get_byte(pf_reader *r, unsigned char *c)
{
    if (r->pos == r->len) {
        long n = tz_input_read(r->in, r->buf, sizeof r->buf, r->err);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        r->pos = 0;
        r->len = (size_t)n;
    }
    *c = r->buf[r->pos++];
    r->off++;
    return 1;
}

/* 1 and a varint, 0 at a clean end (no byte read), -1 on error. */
static int get_varint(pf_reader *r, uint64_t *v, const char *what)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        unsigned char c;
        int k = get_byte(r, &c);
        if (k < 0)
            return -1;
        if (k == 0) {
            if (shift == 0)
                return 0;
            return traza_err_set(r->err, TRAZA_E_PARSE, "%s: offset %llu: the file ends inside the varint of %s", r->path,
                                 (unsigned long long)r->off, what);
        }
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return 1;
    }
    return traza_err_set(r->err, TRAZA_E_PARSE, "%s: offset %llu: the varint of %s is longer than 10 bytes", r->path,
                         (unsigned long long)r->off, what);
}

static int get_bytes(pf_reader *r, unsigned char *d, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (r->pos == r->len) {
            long k = tz_input_read(r->in, r->buf, sizeof r->buf, r->err);
            if (k < 0)
                return -1;
            if (k == 0)
                return traza_err_set(r->err, TRAZA_E_PARSE, "%s: offset %llu: the file ends inside a packet of %zu bytes (expected %zu more)",
                                     r->path, (unsigned long long)r->at, n, n - got);
            r->pos = 0;
            r->len = (size_t)k;
        }
        size_t take = r->len - r->pos < n - got ? r->len - r->pos : n - got;
        memcpy(d + got, r->buf + r->pos, take);
        r->pos += take;
        r->off += take;
        got += take;
    }
    return 0;
}

/* ---- interned strings ------------------------------------------------------- */

static int intern(pf_reader *r, tz_imap *m, uint32_t seq, uint64_t iid, const char *name)
{
    if (iid >= (1ull << PF_IID_BITS) || seq >= (1u << (63 - PF_IID_BITS)))
        return bad(r, "interned id or sequence id too large (traza reads iids below 2^40 and sequence ids below 2^23)");
    char *s = tz_strdup(name ? name : "");
    if (!s || TZ_GROW(r->strs, r->capstrs, r->nstrs + 1) < 0) {
        free(s);
        return oom(r);
    }
    /* Counted before the map is told, so that a failed put leaves the string owned. */
    r->strs[r->nstrs++] = s;
    if (tz_imap_put(m, (int64_t)((uint64_t)seq << PF_IID_BITS | iid), (int64_t)r->nstrs - 1) < 0)
        return oom(r);
    return 0;
}

static const char *interned(pf_reader *r, const tz_imap *m, uint32_t seq, uint64_t iid)
{
    int64_t v;
    if (iid >= (1ull << PF_IID_BITS) || seq >= (1u << (63 - PF_IID_BITS)))
        return NULL;
    if (!tz_imap_get(m, (int64_t)((uint64_t)seq << PF_IID_BITS | iid), &v))
        return NULL;
    return r->strs[v];
}

static int read_interned(pf_reader *r, const Perfetto__Protos__InternedData *d, uint32_t seq)
{
    for (size_t i = 0; i < d->n_event_names; i++)
        if (intern(r, &r->names, seq, d->event_names[i]->iid, d->event_names[i]->name) < 0)
            return -1;
    for (size_t i = 0; i < d->n_debug_annotation_names; i++)
        if (intern(r, &r->anns, seq, d->debug_annotation_names[i]->iid, d->debug_annotation_names[i]->name) < 0)
            return -1;
    for (size_t i = 0; i < d->n_event_categories; i++)
        if (intern(r, &r->cats, seq, d->event_categories[i]->iid, d->event_categories[i]->name) < 0)
            return -1;
    return 0;
}

/* ---- tracks and producers ----------------------------------------------------- */

static int32_t global_producer(pf_reader *r)
{
    if (r->global < 0)
        r->global = traza_writer_producer(r->w, -1, "global", TZ_PF_TRACK_TYPE, r->err);
    return r->global;
}

static int32_t track_producer(pf_reader *r, size_t i)
{
    pf_track *t = &r->tracks[i];
    if (t->producer >= 0)
        return t->producer;
    if (t->resolving)
        return bad(r, "the tracks' parent_uuid links form a cycle");
    t->resolving = 1;
    int32_t parent = -1;
    int64_t pi;
    if (t->kind == TK_THREAD && tz_imap_get(&r->by_pid, t->pid, &pi))
        parent = track_producer(r, (size_t)pi);
    else if (t->has_parent && tz_imap_get(&r->by_uuid, (int64_t)t->parent_uuid, &pi))
        parent = track_producer(r, (size_t)pi);
    else if (t->has_parent) {
        t->resolving = 0;
        char msg[128];
        snprintf(msg, sizeof msg, "track %llu names parent_uuid %llu, which no TrackDescriptor before it defines",
                 (unsigned long long)t->uuid, (unsigned long long)t->parent_uuid);
        return bad(r, msg);
    }
    t = &r->tracks[i];
    t->resolving = 0;
    if (parent < 0 && (t->has_parent || (t->kind == TK_THREAD && tz_imap_get(&r->by_pid, t->pid, &pi))))
        return -1;
    if (t->kind == TK_COUNTER || t->kind == TK_LANE)
        return t->producer = parent >= 0 ? parent : global_producer(r);
    const char *type = t->kind == TK_PROCESS ? TZ_PF_PROCESS_TYPE : t->kind == TK_THREAD ? TZ_PF_THREAD_TYPE : TZ_PF_TRACK_TYPE;
    return t->producer = traza_writer_producer(r->w, parent, t->name, type, r->err);
}

static int read_descriptor(pf_reader *r, const Perfetto__Protos__TrackDescriptor *d)
{
    if (!d->has_uuid)
        return bad(r, "TrackDescriptor without a uuid");
    int64_t v;
    if (tz_imap_get(&r->by_uuid, (int64_t)d->uuid, &v))
        return 0; /* writers repeat descriptors */
    if (TZ_GROW(r->tracks, r->captracks, r->ntracks + 1) < 0)
        return oom(r);
    pf_track *t = &r->tracks[r->ntracks];
    memset(t, 0, sizeof *t);
    t->uuid = d->uuid;
    t->has_parent = d->has_parent_uuid && d->parent_uuid != 0;
    t->parent_uuid = d->parent_uuid;
    t->producer = -1;
    const char *name = d->name;
    char num[48];
    if (d->counter)
        t->kind = TK_COUNTER;
    else if ((d->uuid & TZ_PF_LANE_BIT) && t->has_parent && (uint32_t)d->uuid == d->parent_uuid)
        t->kind = TK_LANE;
    else if (d->thread) {
        t->kind = TK_THREAD;
        t->pid = d->thread->pid;
        if (!name || !*name)
            name = d->thread->thread_name;
        if (!name || !*name) {
            snprintf(num, sizeof num, "tid %d", d->thread->tid);
            name = num;
        }
    } else if (d->process) {
        t->kind = TK_PROCESS;
        t->pid = d->process->pid;
        if (!name || !*name)
            name = d->process->process_name;
        if (!name || !*name) {
            snprintf(num, sizeof num, "pid %d", d->process->pid);
            name = num;
        }
    }
    if (!name || !*name) {
        snprintf(num, sizeof num, "track %llu", (unsigned long long)d->uuid);
        name = num;
    }
    if (!(t->name = tz_strdup(name)))
        return oom(r);
    /* Counted before the maps are told, so that a failed put leaves the name owned. */
    int64_t ti = (int64_t)r->ntracks++;
    if (tz_imap_put(&r->by_uuid, (int64_t)d->uuid, ti) < 0)
        return oom(r);
    if (t->kind == TK_PROCESS && !tz_imap_get(&r->by_pid, t->pid, &v) && tz_imap_put(&r->by_pid, t->pid, ti) < 0)
        return oom(r);
    /* Producers in the order of their descriptors, when their parent is known. */
    if (t->kind != TK_COUNTER && t->kind != TK_LANE && (!t->has_parent || tz_imap_get(&r->by_uuid, (int64_t)t->parent_uuid, &v)))
        return track_producer(r, r->ntracks - 1) < 0 ? -1 : 0;
    return 0;
}

/* ---- events --------------------------------------------------------------------- */

static void free_params(traza_param *p, uint32_t n)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (p[i].v.kind == TRAZA_PT_STRING)
            free((char *)p[i].v.s);
    free(p);
}

/* The event's categories (its own names, then the interned ones) as the parameter
 * "cat" of `type`: "a,b" (owned). */
static int read_categories(pf_reader *r, const pf_event *e, uint32_t seq, int32_t type, traza_param *p)
{
    tz_buf b;
    tz_buf_init(&b);
    for (size_t i = 0; i < e->n_categories; i++)
        tz_buf_printf(&b, "%s%s", b.len ? "," : "", e->categories[i]);
    for (size_t i = 0; i < e->n_category_iids; i++) {
        const char *c = interned(r, &r->cats, seq, e->category_iids[i]);
        if (!c) {
            tz_buf_free(&b);
            char msg[128];
            snprintf(msg, sizeof msg, "category_iid %llu is not interned on sequence %u", (unsigned long long)e->category_iids[i], seq);
            return bad(r, msg);
        }
        tz_buf_printf(&b, "%s%s", b.len ? "," : "", c);
    }
    char *s = b.oom ? NULL : tz_buf_take(&b);
    tz_buf_free(&b);
    if (!s)
        return oom(r);
    int32_t def = traza_writer_param_def(r->w, type, "cat", TRAZA_PT_STRING, r->err);
    if (def < 0) {
        free(s);
        return -1;
    }
    p->def = def;
    p->v = (traza_value){TRAZA_PT_STRING, 0, 0, s};
    return 0;
}

/* An annotation with a value of the subset (else it is counted as nested). */
static int annotation_scalar(const Perfetto__Protos__DebugAnnotation *a)
{
    return a->has_int_value || a->has_pointer_value || a->has_uint_value || a->has_bool_value || a->has_double_value || a->string_value;
}

/* The event's debug annotations and categories as parameters of `type` (owned copies). */
static int read_params(pf_reader *r, const pf_event *e, uint32_t seq, int32_t type, traza_param **out, uint32_t *n, int32_t *cpu,
                       int *has_cpu, int64_t *dur)
{
    *dur = -1;
    *out = NULL;
    *n = 0;
    *has_cpu = 0;
    if (!e->n_debug_annotations && !e->n_categories && !e->n_category_iids)
        return 0;
    traza_param *ps = calloc(e->n_debug_annotations + 1, sizeof *ps);
    if (!ps)
        return oom(r);
    uint32_t k = 0;
    for (size_t i = 0; i < e->n_debug_annotations; i++) {
        const Perfetto__Protos__DebugAnnotation *a = e->debug_annotations[i];
        const char *name = a->name;
        if (!name && a->has_name_iid && !(name = interned(r, &r->anns, seq, a->name_iid))) {
            free_params(ps, k);
            char msg[128];
            snprintf(msg, sizeof msg, "debug annotation name_iid %llu is not interned on sequence %u", (unsigned long long)a->name_iid, seq);
            return bad(r, msg);
        }
        if (!name)
            continue;
        traza_value v = {0};
        if (a->has_int_value) {
            v.kind = TRAZA_PT_INT;
            v.i = a->int_value;
        } else if (a->has_pointer_value) {
            v.kind = TRAZA_PT_HEX;
            v.i = (int64_t)a->pointer_value;
        } else if (a->has_uint_value) {
            v.kind = a->uint_value > INT64_MAX ? TRAZA_PT_HEX : TRAZA_PT_INT;
            v.i = (int64_t)a->uint_value;
        } else if (a->has_bool_value) {
            v.kind = TRAZA_PT_INT;
            v.i = a->bool_value != 0;
        } else if (a->has_double_value) {
            v.kind = TRAZA_PT_DOUBLE;
            v.d = a->double_value;
        } else if (a->string_value) {
            v.kind = TRAZA_PT_STRING;
            if (!(v.s = tz_strdup(a->string_value))) {
                free_params(ps, k);
                return oom(r);
            }
        } else {
            r->nested_annotations++; /* nested values: not in the subset (annotation_scalar) */
            continue;
        }
        if (strcmp(name, TZ_PF_CPU_ANNOTATION) == 0 && v.kind == TRAZA_PT_INT && v.i >= INT32_MIN && v.i <= INT32_MAX) {
            *cpu = (int32_t)v.i;
            *has_cpu = 1;
            continue;
        }
        if (strcmp(name, TZ_PF_DUR_ANNOTATION) == 0 && v.kind == TRAZA_PT_INT && v.i >= 0) {
            *dur = v.i;
            continue;
        }
        int32_t def = traza_writer_param_def(r->w, type, name, v.kind, r->err);
        if (def < 0) {
            if (v.kind == TRAZA_PT_STRING)
                free((char *)v.s);
            free_params(ps, k);
            return -1;
        }
        ps[k].def = def;
        ps[k].v = v;
        k++;
    }
    if (e->n_categories || e->n_category_iids) {
        if (read_categories(r, e, seq, type, &ps[k]) < 0) {
            free_params(ps, k);
            return -1;
        }
        k++;
    }
    *out = ps;
    *n = k;
    return 0;
}

static int emit(pf_reader *r, traza_event *ev, traza_param *ps, uint32_t n, int32_t cpu, int has_cpu)
{
    ev->params = ps;
    ev->nparams = n;
    if (has_cpu) {
        ev->cpu = cpu;
        ev->has |= TRAZA_HAS_CPU;
    }
    return traza_writer_event(r->w, ev, r->err);
}

static int close_slice(pf_reader *r, pf_track *t, int64_t end)
{
    pf_open *o = &t->open[--t->nopen];
    traza_event ev = {0};
    ev.ts = o->ts;
    ev.end_ts = end;
    ev.type = o->type;
    ev.producer = t->producer;
    ev.level = (int32_t)t->nopen;
    ev.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
    int rc = emit(r, &ev, o->params, o->nparams, o->cpu, o->has_cpu);
    free_params(o->params, o->nparams);
    return rc;
}

static const char *event_name(pf_reader *r, const pf_event *e, uint32_t seq)
{
    if (e->name)
        return e->name;
    if (e->has_name_iid)
        return interned(r, &r->names, seq, e->name_iid);
    return "";
}

static int read_event(pf_reader *r, const pf_packet *p, const pf_event *e)
{
    uint32_t seq = p->has_trusted_packet_sequence_id ? p->trusted_packet_sequence_id : 0;
    if (!p->has_timestamp)
        return bad(r, "TrackEvent packet without a timestamp (expected TracePacket.timestamp, field 8)");
    int64_t ts;
    uint32_t clock = 0;
    int synced = tz_pf_clocks_convert(&r->clocks, seq, p->has_timestamp_clock_id, p->timestamp_clock_id, p->timestamp, &ts, &clock);
    if (synced < 0)
        return bad(r, "timestamp above 2^63-1 ns on the trace clock");
    if (synced == 0) {
        if (!r->unsynced++)
            r->unsynced_clock = clock;
        return 0;
    }
    if (ts > r->max_ts)
        r->max_ts = ts;
    size_t ti;
    int64_t v;
    uint64_t track_uuid = e->track_uuid;
    int has_track = e->has_track_uuid;
    if (!has_track && tz_imap_get(&r->default_track, (int64_t)seq, &v)) {
        track_uuid = (uint64_t)v;
        has_track = 1;
    }
    if (!has_track) {
        /* no track: the "global" producer, through a pseudo track of uuid 0 */
        if (!tz_imap_get(&r->by_uuid, 0, &v)) {
            Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
            d.has_uuid = 1;
            d.name = (char *)"global";
            if (read_descriptor(r, &d) < 0 || !tz_imap_get(&r->by_uuid, 0, &v))
                return -1;
        }
        ti = (size_t)v;
    } else if (tz_imap_get(&r->by_uuid, (int64_t)track_uuid, &v))
        ti = (size_t)v;
    else {
        char msg[128];
        snprintf(msg, sizeof msg, "track_uuid %llu: expected a TrackDescriptor of that uuid before the event, found none",
                 (unsigned long long)track_uuid);
        return bad(r, msg);
    }
    if (track_producer(r, ti) < 0)
        return -1;
    pf_track *t = &r->tracks[ti];
    int type_of_event = e->has_type ? (int)e->type : 0;
    if (type_of_event == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END) {
        if (!t->nopen) {
            char msg[128];
            snprintf(msg, sizeof msg, "TYPE_SLICE_END on track %llu: expected an open slice, found none", (unsigned long long)t->uuid);
            return bad(r, msg);
        }
        if (t->open[t->nopen - 1].ts > ts)
            return bad(r, "TYPE_SLICE_END before the begin of its slice");
        if (e->n_debug_annotations || e->n_categories || e->n_category_iids)
            r->end_annotations++; /* the slice is its begin's: a second set has no place */
        return close_slice(r, t, ts);
    }
    if (type_of_event == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER) {
        if (!e->has_double_counter_value && !e->has_counter_value)
            return bad(r, "TYPE_COUNTER event without counter_value or double_counter_value");
        if (TZ_GROW(r->samples, r->capsamples, r->nsamples + 1) < 0)
            return oom(r);
        pf_sample *s = &r->samples[r->nsamples];
        memset(s, 0, sizeof *s);
        if ((s->type = traza_writer_event_type(r->w, t->name, TRAZA_VARIABLE, r->err)) < 0)
            return -1;
        int64_t dur;
        if (read_params(r, e, seq, s->type, &s->params, &s->nparams, &s->cpu, &s->has_cpu, &dur) < 0)
            return -1;
        if (dur > INT64_MAX - ts) {
            free_params(s->params, s->nparams);
            return bad(r, "traza.dur annotation: the counter value's end is above 2^63-1 ns");
        }
        s->ts = ts;
        s->end = dur >= 0 ? ts + dur : -1;
        if (s->end > r->max_ts)
            r->max_ts = s->end;
        s->track = ti;
        s->index = r->nsamples++;
        s->value = e->has_double_counter_value ? e->double_counter_value : (double)e->counter_value;
        return 0;
    }
    const char *name = event_name(r, e, seq);
    if (!name) {
        char msg[128];
        snprintf(msg, sizeof msg, "name_iid %llu is not interned on sequence %u", (unsigned long long)e->name_iid, seq);
        return bad(r, msg);
    }
    if (!*name)
        name = "(unnamed)";
    traza_category cat;
    if (type_of_event == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN)
        cat = TRAZA_STATE;
    else if (type_of_event == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT)
        cat = e->n_flow_ids ? TRAZA_LINK : TRAZA_PUNCTUAL;
    else
        return bad(r, "TrackEvent type: expected TYPE_SLICE_BEGIN, TYPE_SLICE_END, TYPE_INSTANT or TYPE_COUNTER, found TYPE_UNSPECIFIED");
    /* A link's end: the instant that terminates flows. */
    for (size_t i = 0; i < e->n_terminating_flow_ids; i++) {
        if (!tz_imap_get(&r->by_flow, (int64_t)e->terminating_flow_ids[i], &v) || v < 0) {
            r->unmatched_flows++;
            continue;
        }
        pf_flow *f = &r->flows[v];
        f->done = 1;
        traza_event ev = {0};
        ev.ts = f->ts;
        ev.end_ts = ts;
        ev.type = f->type;
        ev.producer = f->producer;
        ev.end_producer = t->producer;
        ev.has = TRAZA_HAS_END | TRAZA_HAS_END_PRODUCER;
        int rc = emit(r, &ev, f->params, f->nparams, f->cpu, f->has_cpu);
        free_params(f->params, f->nparams);
        f->params = NULL;
        if (rc < 0 || tz_imap_put(&r->by_flow, (int64_t)e->terminating_flow_ids[i], -1) < 0)
            return rc < 0 ? -1 : oom(r);
    }
    if (e->n_terminating_flow_ids && !e->n_flow_ids)
        return 0;
    int32_t type = traza_writer_event_type(r->w, name, cat, r->err);
    if (type < 0)
        return -1;
    traza_param *ps;
    uint32_t np;
    int32_t cpu = 0;
    int has_cpu;
    int64_t dur;
    if (read_params(r, e, seq, type, &ps, &np, &cpu, &has_cpu, &dur) < 0)
        return -1;
    if (cat == TRAZA_STATE) {
        if (TZ_GROW(t->open, t->capopen, t->nopen + 1) < 0) {
            free_params(ps, np);
            return oom(r);
        }
        pf_open *o = &t->open[t->nopen++];
        o->ts = ts;
        o->type = type;
        o->params = ps;
        o->nparams = np;
        o->cpu = cpu;
        o->has_cpu = has_cpu;
        return 0;
    }
    if (cat == TRAZA_PUNCTUAL) {
        traza_event ev = {0};
        ev.ts = ts;
        ev.type = type;
        ev.producer = t->producer;
        int rc = emit(r, &ev, ps, np, cpu, has_cpu);
        free_params(ps, np);
        return rc;
    }
    /* a link's start: one per flow id, each with its own copy of the parameters */
    for (size_t i = 0; i < e->n_flow_ids; i++) {
        if (TZ_GROW(r->flows, r->capflows, r->nflows + 1) < 0) {
            free_params(ps, np);
            return oom(r);
        }
        pf_flow *f = &r->flows[r->nflows];
        memset(f, 0, sizeof *f);
        f->ts = ts;
        f->producer = t->producer;
        f->type = type;
        f->cpu = cpu;
        f->has_cpu = has_cpu;
        if (i + 1 == e->n_flow_ids) {
            f->params = ps;
            f->nparams = np;
            ps = NULL;
        } else if (np) {
            if (!(f->params = calloc(np, sizeof *f->params))) {
                free_params(ps, np);
                return oom(r);
            }
            for (uint32_t k = 0; k < np; k++) {
                f->params[k] = ps[k];
                if (ps[k].v.kind == TRAZA_PT_STRING && !(f->params[k].v.s = tz_strdup(ps[k].v.s))) {
                    free_params(f->params, k);
                    f->params = NULL;
                    free_params(ps, np);
                    return oom(r);
                }
            }
            f->nparams = np;
        }
        if (tz_imap_put(&r->by_flow, (int64_t)e->flow_ids[i], (int64_t)r->nflows) < 0) {
            free_params(f->params, f->nparams);
            free_params(ps, np);
            return oom(r);
        }
        r->nflows++;
    }
    free_params(ps, np);
    return 0;
}

/* The TracePacket content fields of Perfetto's trace_packet.proto outside the
 * subset, by field number, named in the skip counts. */
static const struct {
    uint32_t field;
    const char *name;
} pf_packet_fields[] = {
    {1, "ftrace_events"}, {2, "process_tree"}, {4, "inode_file_map"}, {5, "chrome_events"},
    {7, "sys_stats"}, {9, "process_stats"}, {33, "trace_config"}, {34, "ftrace_stats"}, {35, "trace_stats"},
    {36, "synchronization_marker"}, {37, "profile_packet"}, {38, "battery"}, {39, "android_log"}, {40, "power_rails"},
    {43, "process_descriptor"}, {44, "thread_descriptor"}, {45, "system_info"}, {46, "trigger"}, {47, "packages_list"},
    {48, "chrome_benchmark_metadata"}, {49, "perfetto_metatrace"}, {50, "compressed_packets"}, {51, "chrome_metadata"},
    {52, "gpu_counter_event"}, {53, "gpu_render_stage_event"}, {54, "streaming_profile_packet"}, {55, "profiled_frame_symbols"},
    {56, "heap_graph"}, {57, "graphics_frame_event"}, {61, "module_symbols"}, {62, "vulkan_memory_event"}, {63, "gpu_log"},
    {64, "deobfuscation_mapping"}, {65, "vulkan_api_event"}, {66, "perf_sample"}, {67, "cpu_info"}, {68, "smaps_packet"},
    {69, "service_event"}, {70, "initial_display_state"}, {71, "gpu_mem_total_event"}, {72, "extension_descriptor"},
    {73, "memory_tracker_snapshot"}, {74, "streaming_allocation"}, {75, "streaming_free"}, {76, "frame_timeline_event"},
    {77, "android_energy_estimation_breakdown"}, {78, "ui_state"}, {900, "for_testing"},
};
/* TracePacket fields that describe the packet, not trace content: nothing is lost
 * without them (trusted_uid, incremental_state_cleared, previous_packet_dropped,
 * trusted_pid, first_packet_on_sequence). */
static int pf_header_field(uint32_t f) { return f == 3 || f == 41 || f == 42 || f == 79 || f == 87; }

/* Counts the fields of m outside the subset, and those of the messages it holds. */
static int note_unread(pf_reader *r, const ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *md = m->descriptor;
    if (md == &perfetto__protos__debug_annotation__descriptor && !annotation_scalar((const Perfetto__Protos__DebugAnnotation *)m))
        return 0; /* counted once, as a nested annotation */
    for (unsigned i = 0; i < md->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &md->fields[i];
        if (fd->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        const char *at = (const char *)m + fd->offset;
        size_t n = fd->label == PROTOBUF_C_LABEL_REPEATED ? *(const size_t *)((const char *)m + fd->quantifier_offset) : 1;
        const ProtobufCMessage *const *sub = fd->label == PROTOBUF_C_LABEL_REPEATED ? *(const ProtobufCMessage *const *const *)at
                                                                                    : (const ProtobufCMessage *const *)at;
        for (size_t j = 0; sub && j < n; j++)
            if (sub[j] && note_unread(r, sub[j]) < 0)
                return -1;
    }
    int packet = md == &perfetto__protos__trace_packet__descriptor;
    for (size_t i = 0; i < m->n_unknown_fields; i++) {
        uint32_t f = m->unknown_fields[i].tag;
        size_t k = 0;
        if (packet && pf_header_field(f))
            continue;
        int seen = 0; /* a repeated field counts once per message */
        for (size_t j = 0; j < i; j++)
            seen = seen || m->unknown_fields[j].tag == f;
        if (seen)
            continue;
        while (k < r->nunread && (r->unread[k].field != f || r->unread[k].msg != md))
            k++;
        if (k == r->nunread) {
            if (TZ_GROW(r->unread, r->capunread, r->nunread + 1) < 0)
                return oom(r);
            r->unread[r->nunread++] = (pf_unread){md, f, 0};
        }
        r->unread[k].n++;
    }
    return 0;
}

static int read_packet(pf_reader *r, const pf_packet *p)
{
    uint32_t seq = p->has_trusted_packet_sequence_id ? p->trusted_packet_sequence_id : 0;
    if (p->clock_snapshot && tz_pf_clocks_snapshot(&r->clocks, seq, p->clock_snapshot) < 0)
        return oom(r);
    const Perfetto__Protos__TracePacketDefaults *d = p->trace_packet_defaults;
    if (d && d->has_timestamp_clock_id && tz_pf_clocks_default(&r->clocks, seq, d->timestamp_clock_id) < 0)
        return oom(r);
    if (d && d->track_event_defaults && d->track_event_defaults->has_track_uuid &&
        (d->track_event_defaults->track_uuid > INT64_MAX ||
         tz_imap_put(&r->default_track, (int64_t)seq, (int64_t)d->track_event_defaults->track_uuid) < 0))
        return d->track_event_defaults->track_uuid > INT64_MAX ? bad(r, "TrackEventDefaults.track_uuid above 2^63-1") : oom(r);
    if (p->interned_data && read_interned(r, p->interned_data, seq) < 0)
        return -1;
    if (p->track_descriptor && read_descriptor(r, p->track_descriptor) < 0)
        return -1;
    if (p->track_event && read_event(r, p, p->track_event) < 0)
        return -1;
    if (p->track_descriptor && p->track_descriptor->counter && p->track_descriptor->counter->unit_name)
        r->counter_units++;
    return note_unread(r, &p->base);
}

/* TracePacket first, TrackEvent second, the other messages by name; then by field. */
static int unread_rank(const ProtobufCMessageDescriptor *d)
{
    return d == &perfetto__protos__trace_packet__descriptor ? 0 : d == &perfetto__protos__track_event__descriptor ? 1 : 2;
}

static int unread_cmp(const void *a, const void *b)
{
    const pf_unread *x = a, *y = b;
    int c = unread_rank(x->msg) - unread_rank(y->msg);
    if (c == 0 && x->msg != y->msg)
        c = strcmp(x->msg->short_name, y->msg->short_name);
    if (c)
        return c;
    return x->field < y->field ? -1 : x->field > y->field;
}

/* What was read but not imported: one kind per packet kind (TracePacket field), per
 * TrackEvent field outside the subset and per field of the other messages. */
static int report_skipped(pf_reader *r)
{
    tz_skips sk;
    tz_skips_init(&sk, r->ctx, r->w, r->path, r->err);
    tz_skips_note(&sk, "unmatched_flows", "flows that start and never end or end and never start (no link)", r->unmatched_flows);
    if (r->nunread)
        qsort(r->unread, r->nunread, sizeof *r->unread, unread_cmp);
    for (size_t i = 0; i < r->nunread; i++) {
        const pf_unread *u = &r->unread[i];
        const char *name = NULL;
        int rank = unread_rank(u->msg);
        for (size_t j = 0; rank == 0 && j < sizeof pf_packet_fields / sizeof pf_packet_fields[0]; j++)
            if (pf_packet_fields[j].field == u->field)
                name = pf_packet_fields[j].name;
        char key[96], what[160];
        if (rank == 2) {
            snprintf(key, sizeof key, "fields.%s.%u", u->msg->short_name, u->field);
            snprintf(what, sizeof what, "%s messages with field %u (outside the subset)", u->msg->short_name, u->field);
        } else if (rank == 1) {
            snprintf(key, sizeof key, "track_event_field_%u", u->field);
            snprintf(what, sizeof what, "track events with field %u of TrackEvent (outside the subset)", u->field);
        } else if (name) {
            snprintf(key, sizeof key, "packets.%s", name);
            snprintf(what, sizeof what, "%s packets (TracePacket field %u)", name, u->field);
        } else {
            snprintf(key, sizeof key, "packets.field_%u", u->field);
            snprintf(what, sizeof what, "packets with TracePacket field %u", u->field);
        }
        tz_skips_note(&sk, key, what, u->n);
    }
    char unsynced[128];
    snprintf(unsynced, sizeof unsynced, "track events on clocks no clock snapshot relates to the trace clock (the first: clock %u)",
             r->unsynced_clock);
    tz_skips_note(&sk, "clock_unsynced", unsynced, r->unsynced);
    tz_skips_note(&sk, "nested_annotations", "debug annotations with nested values", r->nested_annotations);
    tz_skips_note(&sk, "counter_units", "counter track units (CounterDescriptor.unit_name)", r->counter_units);
    tz_skips_note(&sk, "slice_end_annotations", "slice ends with debug annotations or categories (a slice keeps its begin's)",
                  r->end_annotations);
    return tz_skips_finish(&sk, r->strict, -1);
}

static int sample_cmp(const void *a, const void *b)
{
    const pf_sample *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Open slices close and counters end at the last timestamp; then the variables. */
static int finish(pf_reader *r)
{
    for (size_t i = 0; i < r->ntracks; i++)
        while (r->tracks[i].nopen)
            if (close_slice(r, &r->tracks[i], r->max_ts) < 0)
                return -1;
    if (r->nsamples)
        qsort(r->samples, r->nsamples, sizeof *r->samples, sample_cmp);
    for (size_t i = 0; i < r->nsamples; i++) {
        pf_sample *s = &r->samples[i];
        const pf_track *t = &r->tracks[s->track];
        traza_event ev = {0};
        ev.type = s->type;
        ev.ts = s->ts;
        ev.producer = t->producer;
        ev.value = s->value;
        ev.end_ts = s->end >= 0 ? s->end : i + 1 < r->nsamples && r->samples[i + 1].track == s->track ? r->samples[i + 1].ts : r->max_ts;
        ev.has = TRAZA_HAS_END | TRAZA_HAS_VALUE;
        int rc = emit(r, &ev, s->params, s->nparams, s->cpu, s->has_cpu);
        free_params(s->params, s->nparams);
        s->params = NULL;
        if (rc < 0)
            return -1;
    }
    /* descriptors no event referred to still make their producers */
    for (size_t i = 0; i < r->ntracks; i++)
        if (track_producer(r, i) < 0)
            return -1;
    /* flows that start and never end (or end and never start) make no link */
    for (size_t i = 0; i < r->nflows; i++)
        if (!r->flows[i].done)
            r->unmatched_flows++;
    return report_skipped(r);
}

static int pf_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts, traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "the perfetto importer reads one file at a time (got %zu)", npaths);
    pf_reader *r = calloc(1, sizeof *r);
    if (!r)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    r->ctx = ctx;
    r->w = w;
    r->err = err;
    r->path = paths[0];
    r->strict = tz_strict(opts);
    r->global = -1;
    tz_imap_init(&r->by_uuid);
    tz_imap_init(&r->by_pid);
    tz_imap_init(&r->names);
    tz_imap_init(&r->anns);
    tz_imap_init(&r->cats);
    tz_imap_init(&r->by_flow);
    tz_imap_init(&r->default_track);
    tz_pf_clocks_init(&r->clocks);
    traza_writer_set_time_unit(w, -9);
    unsigned char *pkt = NULL;
    size_t cappkt = 0;
    int rc = 0;
    size_t npackets = 0;
    if (!(r->in = tz_input_open(r->path, err)))
        rc = -1;
    while (rc == 0) {
        uint64_t tag, len;
        r->at = r->off;
        int k = get_varint(r, &tag, "a field tag");
        if (k <= 0) {
            rc = k;
            break;
        }
        if (tag != 0x0a) {
            char msg[160];
            snprintf(msg, sizeof msg, "expected a Trace.packet (field 1, length-delimited: tag 0x0a), found field %llu wire type %u",
                     (unsigned long long)(tag >> 3), (unsigned)(tag & 7));
            rc = bad(r, msg);
            break;
        }
        if ((k = get_varint(r, &len, "a packet length")) <= 0) {
            rc = k < 0 ? -1 : bad(r, "the file ends after a packet tag (expected its length)");
            break;
        }
        if (len > PF_MAX_PACKET) {
            char msg[128];
            snprintf(msg, sizeof msg, "packet length %llu: expected at most %u bytes", (unsigned long long)len, PF_MAX_PACKET);
            rc = bad(r, msg);
            break;
        }
        if (TZ_GROW(pkt, cappkt, len + 1) < 0) {
            rc = oom(r);
            break;
        }
        if ((rc = get_bytes(r, pkt, (size_t)len)) < 0)
            break;
        pf_packet *p = perfetto__protos__trace_packet__unpack(NULL, (size_t)len, pkt);
        if (!p) {
            char msg[128];
            snprintf(msg, sizeof msg, "packet of %llu bytes: expected a TracePacket, found bytes that do not decode as one",
                     (unsigned long long)len);
            rc = bad(r, msg);
            break;
        }
        rc = read_packet(r, p);
        perfetto__protos__trace_packet__free_unpacked(p, NULL);
        npackets++;
    }
    if (rc == 0 && npackets == 0)
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: no packet: an empty file is not a Perfetto trace", r->path);
    if (rc == 0)
        rc = finish(r);
    free(pkt);
    if (r->in)
        tz_input_close(r->in);
    for (size_t i = 0; i < r->ntracks; i++) {
        for (size_t k = 0; k < r->tracks[i].nopen; k++)
            free_params(r->tracks[i].open[k].params, r->tracks[i].open[k].nparams);
        free(r->tracks[i].open);
        free(r->tracks[i].name);
    }
    free(r->tracks);
    for (size_t i = 0; i < r->nflows; i++)
        free_params(r->flows[i].params, r->flows[i].nparams);
    free(r->flows);
    free(r->unread);
    for (size_t i = 0; i < r->nstrs; i++)
        free(r->strs[i]);
    free(r->strs);
    for (size_t i = 0; i < r->nsamples; i++)
        free_params(r->samples[i].params, r->samples[i].nparams);
    free(r->samples);
    tz_imap_free(&r->by_uuid);
    tz_imap_free(&r->by_pid);
    tz_imap_free(&r->names);
    tz_imap_free(&r->anns);
    tz_imap_free(&r->cats);
    tz_imap_free(&r->by_flow);
    tz_imap_free(&r->default_track);
    tz_pf_clocks_free(&r->clocks);
    free(r);
    return rc < 0 ? -1 : 0;
}

/* Content detection: a Trace starts with packet tag 0x0a, a varint length, and a
 * TracePacket whose first field is one a TrackEvent trace starts with. The .pftrace
 * and .perfetto-trace extensions are surer. */
static int pf_detect(const char *path, const unsigned char *head, size_t len)
{
    size_t pl = path ? strlen(path) : 0;
    if ((pl > 8 && strcmp(path + pl - 8, ".pftrace") == 0) || (pl > 15 && strcmp(path + pl - 15, ".perfetto-trace") == 0))
        return 90;
    if (!head || len < 3 || head[0] != 0x0a)
        return 0;
    size_t i = 1;
    uint64_t plen = 0;
    for (int shift = 0; i < len && shift < 35; shift += 7) {
        plen |= (uint64_t)(head[i] & 0x7f) << shift;
        if (!(head[i++] & 0x80))
            break;
    }
    if (i >= len || plen == 0 || plen > PF_MAX_PACKET)
        return 0;
    /* first field of the packet: clock_snapshot (6), timestamp (8, varint),
     * trusted_packet_sequence_id (10, varint), track_event (11), interned_data (12),
     * sequence_flags (13), or, as two-byte tags, trace_packet_defaults (59: 0xda 0x03)
     * or track_descriptor (60: 0xe2 0x03) */
    unsigned char t = head[i];
    int t2 = i + 1 < len ? head[i + 1] : -1;
    if (t == 0x32 || t == 0x40 || t == 0x50 || t == 0x5a || t == 0x62 || t == 0x68 || ((t == 0xda || t == 0xe2) && t2 == 0x03))
        return 40;
    return 0;
}

const traza_importer tz_importer_perfetto = {"perfetto", "import-perfetto",
                                             "Perfetto protobuf trace (.pftrace: TrackEvent tracks, slices, counters, flows)", pf_detect,
                                             pf_read};

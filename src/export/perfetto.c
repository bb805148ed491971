/* Perfetto's native protobuf trace (.pftrace, TrackEvent), readable by
 * ui.perfetto.dev, trace_processor and traza's own perfetto importer:
 *
 *   producer -> a TrackDescriptor (uuid = id + 1, parent_uuid = the parent's); a root
 *               of type "Process" gets a ProcessDescriptor, its children of type
 *               "Thread" a ThreadDescriptor (pid, tid: producer id + 1)
 *   state    -> TYPE_SLICE_BEGIN at ts, TYPE_SLICE_END at end_ts (nested slices); a
 *               state that overlaps without nesting goes to a lane track, a child of
 *               its producer's of the same name (TZ_PF_LANE_UUID)
 *   punctual -> TYPE_INSTANT
 *   variable -> TYPE_COUNTER (double_counter_value) on a counter track per
 *               (producer, variable type), named after the type, child of the
 *               producer; its duration goes as the annotation "traza.dur" (ns)
 *   link     -> an instant on the producer at ts carrying flow_ids = {id + 1}, and one
 *               on the end producer at end_ts carrying terminating_flow_ids
 *
 * Parameters become debug annotations (int -> int_value, hex -> pointer_value, double
 * -> double_value, string -> string_value), the cpu field the annotation "traza.cpu".
 * Event names and annotation names are interned (InternedData, on the packet that first
 * uses them) on a single packet sequence. Timestamps are exact nanoseconds: a unit
 * coarser than ns is multiplied; a finer one is accepted only for timestamps that are
 * whole nanoseconds (the export fails on the first that is not, naming it).
 * Packets are written in time order; the ends of slices and links wait in a heap. */
#include "export/exporters.h"
#include "formats/perfetto_names.h"
#include "perfetto_trace.pb-c.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef Perfetto__Protos__TracePacket pf_packet;
typedef Perfetto__Protos__TrackEvent pf_event;
typedef Perfetto__Protos__DebugAnnotation pf_ann;

/* A slice end or link end waiting for its time. */
typedef struct pf_pending {
    uint64_t ns;
    uint64_t seq;
    uint64_t track;
    uint64_t flow; /* 0 for a slice end */
    int32_t level;
    int32_t type;
} pf_pending;

/* The slices open on a track, as their end times (innermost last). */
typedef struct pf_lane {
    uint64_t *ends;
    size_t n, cap;
} pf_lane;

/* A producer's tracks for states: its own, then lanes for states that overlap
 * without nesting. */
typedef struct pf_lanes {
    pf_lane *l;
    size_t n, cap;
} pf_lanes;

typedef struct pf_writer {
    traza_trace *t;
    FILE *out;
    traza_err *err;
    int unit;
    tz_buf buf;
    size_t nprod, ntypes, ndefs;
    unsigned char *name_sent, *ann_sent;
    tz_imap counters; /* (producer << 32 | type) -> counter track uuid */
    uint64_t next_uuid;
    pf_pending *heap;
    size_t nheap, capheap;
    uint64_t seq;
    pf_lanes *lanes;  /* per producer */
    uint64_t dur_ns;  /* of the event being written */
} pf_writer;

/* Ticks of 10^unit s as nanoseconds, exactly, or an error naming the tick. */
static int to_ns(pf_writer *w, int64_t ts, uint64_t *ns)
{
    if (ts < 0)
        return traza_err_set(w->err, TRAZA_E_UNSUPPORTED, "perfetto export: timestamp %lld is negative (Perfetto's are unsigned)", (long long)ts);
    uint64_t v = (uint64_t)ts;
    if (w->unit >= -9) {
        for (int i = w->unit; i > -9; i--) {
            if (v > UINT64_MAX / 10)
                return traza_err_set(w->err, TRAZA_E_UNSUPPORTED, "perfetto export: timestamp %lld (10^%d s) overflows 64-bit nanoseconds",
                                     (long long)ts, w->unit);
            v *= 10;
        }
    } else {
        for (int i = w->unit; i < -9; i++) {
            if (v % 10)
                return traza_err_set(w->err, TRAZA_E_UNSUPPORTED,
                                     "perfetto export: timestamp %lld (10^%d s) is not a whole number of nanoseconds, "
                                     "the finest time Perfetto keeps",
                                     (long long)ts, w->unit);
            v /= 10;
        }
    }
    *ns = v;
    return 0;
}

static int flush(pf_writer *w)
{
    if (w->buf.oom)
        return traza_err_set(w->err, TRAZA_E_NOMEM, "writing Perfetto trace: out of memory");
    if (w->buf.len && fwrite(w->buf.s, 1, w->buf.len, w->out) != w->buf.len)
        return traza_err_set(w->err, TRAZA_E_IO, "writing Perfetto trace: %s", strerror(errno));
    tz_buf_reset(&w->buf);
    return 0;
}

/* Appends one Trace.packet (field 1, length-delimited). */
static int put_packet(pf_writer *w, pf_packet *p)
{
    p->has_trusted_packet_sequence_id = 1;
    p->trusted_packet_sequence_id = TZ_PF_SEQUENCE_ID;
    size_t n = perfetto__protos__trace_packet__get_packed_size(p);
    if (tz_buf_reserve(&w->buf, n + 11) < 0)
        return traza_err_set(w->err, TRAZA_E_NOMEM, "writing Perfetto trace: out of memory");
    unsigned char *d = (unsigned char *)w->buf.s + w->buf.len;
    size_t k = 0;
    d[k++] = 0x0a;
    for (uint64_t v = n; ; v >>= 7) {
        d[k++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (v <= 0x7f)
            break;
    }
    k += perfetto__protos__trace_packet__pack(p, d + k);
    w->buf.len += k;
    w->buf.s[w->buf.len] = 0;
    return w->buf.len > (1u << 20) ? flush(w) : 0;
}

static int is_type(const char *type, const char *what) { return type && strcasestr(type, what) != NULL; }

static int put_tracks(pf_writer *w)
{
    const traza_producer *ps;
    size_t n = traza_trace_producers(w->t, &ps);
    pf_packet first = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    first.has_sequence_flags = 1;
    first.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
    if (put_packet(w, &first) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
        Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
        Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
        td.has_uuid = 1;
        td.uuid = i + 1;
        td.name = (char *)ps[i].name;
        int32_t parent = ps[i].parent;
        if (parent < 0 && is_type(ps[i].type, "process")) {
            pd.has_pid = 1;
            pd.pid = (int32_t)i + 1;
            pd.process_name = (char *)ps[i].name;
            td.process = &pd;
        } else if (parent >= 0 && ps[parent].parent < 0 && is_type(ps[parent].type, "process") && is_type(ps[i].type, "thread")) {
            thd.has_pid = thd.has_tid = 1;
            thd.pid = parent + 1;
            thd.tid = (int32_t)i + 1;
            thd.thread_name = (char *)ps[i].name;
            td.thread = &thd;
        } else if (parent >= 0) {
            td.has_parent_uuid = 1;
            td.parent_uuid = (uint64_t)parent + 1;
        }
        pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
        p.track_descriptor = &td;
        if (put_packet(w, &p) < 0)
            return -1;
    }
    w->next_uuid = n + 1;
    return 0;
}

/* ---- the heap of pending ends: earliest first; at one time the deepest slice, then
 * the latest begun, ends first (Perfetto closes the innermost open slice). */
static int pend_before(const pf_pending *a, const pf_pending *b)
{
    if (a->ns != b->ns)
        return a->ns < b->ns;
    if (a->level != b->level)
        return a->level > b->level;
    return a->seq > b->seq;
}

static int pend_push(pf_writer *w, const pf_pending *p)
{
    if (TZ_GROW(w->heap, w->capheap, w->nheap + 1) < 0)
        return traza_err_set(w->err, TRAZA_E_NOMEM, "out of memory");
    size_t i = w->nheap++;
    while (i > 0 && pend_before(p, &w->heap[(i - 1) / 2])) {
        w->heap[i] = w->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->heap[i] = *p;
    return 0;
}

static pf_pending pend_pop(pf_writer *w)
{
    pf_pending top = w->heap[0], last = w->heap[--w->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->nheap)
            break;
        if (c + 1 < w->nheap && pend_before(&w->heap[c + 1], &w->heap[c]))
            c++;
        if (!pend_before(&w->heap[c], &last))
            break;
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (w->nheap)
        w->heap[i] = last;
    return top;
}

/* ---- events ---------------------------------------------------------------- */

/* An event packet; its name is interned on first use. */
typedef struct pf_out {
    pf_packet p;
    pf_event e;
    Perfetto__Protos__InternedData idata;
    Perfetto__Protos__EventName en, *enp;
    Perfetto__Protos__DebugAnnotationName *dnp;
    Perfetto__Protos__DebugAnnotationName **dnpp;
} pf_out;

static void out_init(pf_writer *w, pf_out *o, uint64_t ns, uint64_t track, int type_id, Perfetto__Protos__TrackEvent__Type ty)
{
    pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    pf_event e = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    Perfetto__Protos__InternedData idata = PERFETTO__PROTOS__INTERNED_DATA__INIT;
    Perfetto__Protos__EventName en = PERFETTO__PROTOS__EVENT_NAME__INIT;
    o->p = p;
    o->e = e;
    o->idata = idata;
    o->en = en;
    o->p.has_timestamp = 1;
    o->p.timestamp = ns;
    o->p.has_sequence_flags = 1;
    o->p.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    o->p.track_event = &o->e;
    o->e.has_type = 1;
    o->e.type = ty;
    o->e.has_track_uuid = 1;
    o->e.track_uuid = track;
    if (type_id >= 0) {
        o->e.has_name_iid = 1;
        o->e.name_iid = (uint64_t)type_id + 1;
        if (!w->name_sent[type_id]) {
            w->name_sent[type_id] = 1;
            o->en.has_iid = 1;
            o->en.iid = o->e.name_iid;
            o->en.name = (char *)traza_trace_event_type(w->t, type_id)->name;
            o->enp = &o->en;
            o->idata.n_event_names = 1;
            o->idata.event_names = &o->enp;
            o->p.interned_data = &o->idata;
        }
    }
}

/* The annotations of one event; names are interned: parameter definition d as iid
 * d + 1, then the cpu and duration annotations. */
typedef struct pf_anns {
    pf_ann *a;
    pf_ann **ap;
    Perfetto__Protos__DebugAnnotationName *dn;
    Perfetto__Protos__DebugAnnotationName **dnp;
    size_t na, nd;
} pf_anns;

static pf_ann *add_ann(pf_writer *w, pf_anns *s, size_t name_index, const char *name)
{
    pf_ann a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
    a.has_name_iid = 1;
    a.name_iid = name_index + 1;
    if (!w->ann_sent[name_index]) {
        Perfetto__Protos__DebugAnnotationName d = PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT;
        w->ann_sent[name_index] = 1;
        d.has_iid = 1;
        d.iid = a.name_iid;
        d.name = (char *)name;
        s->dn[s->nd] = d;
        s->dnp[s->nd] = &s->dn[s->nd];
        s->nd++;
    }
    s->a[s->na] = a;
    s->ap[s->na] = &s->a[s->na];
    return &s->a[s->na++];
}

/* Debug annotations of the event's parameters, cpu and (variables) duration; the
 * arrays of s hold nparams + 2. */
static void put_annotations(pf_writer *w, pf_out *o, const traza_event *ev, pf_anns *s, int with_dur)
{
    s->na = s->nd = 0;
    for (uint32_t i = 0; i < ev->nparams; i++) {
        int32_t def = ev->params[i].def;
        pf_ann *a = add_ann(w, s, (size_t)def, traza_trace_param_def(w->t, def)->name);
        const traza_value *v = &ev->params[i].v;
        switch (v->kind) {
        case TRAZA_PT_INT: a->has_int_value = 1; a->int_value = v->i; break;
        case TRAZA_PT_HEX: a->has_pointer_value = 1; a->pointer_value = (uint64_t)v->i; break;
        case TRAZA_PT_DOUBLE: a->has_double_value = 1; a->double_value = v->d; break;
        case TRAZA_PT_STRING: a->string_value = (char *)(v->s ? v->s : ""); break;
        }
    }
    if (ev->has & TRAZA_HAS_CPU) {
        pf_ann *a = add_ann(w, s, w->ndefs, TZ_PF_CPU_ANNOTATION);
        a->has_int_value = 1;
        a->int_value = ev->cpu;
    }
    if (with_dur && (ev->has & TRAZA_HAS_END)) {
        pf_ann *a = add_ann(w, s, w->ndefs + 1, TZ_PF_DUR_ANNOTATION);
        a->has_uint_value = 1;
        a->uint_value = w->dur_ns;
    }
    o->e.n_debug_annotations = s->na;
    o->e.debug_annotations = s->ap;
    if (s->nd) {
        o->idata.n_debug_annotation_names = s->nd;
        o->idata.debug_annotation_names = s->dnp;
        o->p.interned_data = &o->idata;
    }
}

static int put_pending(pf_writer *w, const pf_pending *pe)
{
    pf_out o;
    if (pe->flow) {
        out_init(w, &o, pe->ns, pe->track, pe->type, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT);
        uint64_t flow = pe->flow;
        o.e.n_terminating_flow_ids = 1;
        o.e.terminating_flow_ids = &flow;
        return put_packet(w, &o.p);
    }
    out_init(w, &o, pe->ns, pe->track, -1, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END);
    return put_packet(w, &o.p);
}

/* Emits every pending end up to and including `ns`. */
static int drain(pf_writer *w, uint64_t ns, int all)
{
    while (w->nheap && (all || w->heap[0].ns <= ns)) {
        pf_pending pe = pend_pop(w);
        if (put_pending(w, &pe) < 0)
            return -1;
    }
    return 0;
}

static int counter_track(pf_writer *w, const traza_event *ev, uint64_t *uuid)
{
    int64_t key = ((int64_t)ev->producer << 32) | (uint32_t)ev->type, v;
    if (tz_imap_get(&w->counters, key, &v)) {
        *uuid = (uint64_t)v;
        return 0;
    }
    *uuid = w->next_uuid++;
    if (tz_imap_put(&w->counters, key, (int64_t)*uuid) < 0)
        return traza_err_set(w->err, TRAZA_E_NOMEM, "out of memory");
    Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
    Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
    td.has_uuid = td.has_parent_uuid = 1;
    td.uuid = *uuid;
    td.parent_uuid = (uint64_t)ev->producer + 1;
    td.name = (char *)traza_trace_event_type(w->t, ev->type)->name;
    td.counter = &cd;
    pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    p.track_descriptor = &td;
    return put_packet(w, &p);
}

/* The track of a state: the producer's own (lane 0) if the state nests in the slices
 * open there, else the first lane track (a child of the producer, of the same name)
 * where it does. *depth: the number of slices open around it on that track. */
static int state_track(pf_writer *w, int32_t producer, uint64_t b, uint64_t e, uint64_t *uuid, int32_t *depth)
{
    pf_lanes *ls = &w->lanes[producer];
    size_t k = 0;
    for (;; k++) {
        if (k == ls->n) {
            if (TZ_GROW(ls->l, ls->cap, k + 1) < 0)
                return traza_err_set(w->err, TRAZA_E_NOMEM, "out of memory");
            memset(&ls->l[k], 0, sizeof ls->l[k]);
            ls->n++;
            if (k > 0) {
                Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
                td.has_uuid = td.has_parent_uuid = 1;
                td.uuid = TZ_PF_LANE_UUID(k, producer);
                td.parent_uuid = (uint64_t)producer + 1;
                td.name = (char *)traza_trace_producer(w->t, producer)->name;
                pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
                p.track_descriptor = &td;
                if (put_packet(w, &p) < 0)
                    return -1;
            }
        }
        pf_lane *l = &ls->l[k];
        while (l->n && l->ends[l->n - 1] <= b && !(l->ends[l->n - 1] == b && e == b))
            l->n--;
        if (l->n && l->ends[l->n - 1] < e)
            continue;
        if (TZ_GROW(l->ends, l->cap, l->n + 1) < 0)
            return traza_err_set(w->err, TRAZA_E_NOMEM, "out of memory");
        *depth = (int32_t)l->n;
        l->ends[l->n++] = e;
        *uuid = k ? TZ_PF_LANE_UUID(k, producer) : (uint64_t)producer + 1;
        return 0;
    }
}

static int put_event(pf_writer *w, const traza_event *ev, pf_anns *anns)
{
    const traza_event_type *ty = traza_trace_event_type(w->t, ev->type);
    uint64_t ns, end_ns = ns = 0;
    if (to_ns(w, ev->ts, &ns) < 0)
        return -1;
    if (ty->category != TRAZA_PUNCTUAL && (ev->has & TRAZA_HAS_END) && to_ns(w, ev->end_ts > ev->ts ? ev->end_ts : ev->ts, &end_ns) < 0)
        return -1;
    if (end_ns < ns)
        end_ns = ns;
    w->dur_ns = end_ns - ns;
    if (drain(w, ns, 0) < 0)
        return -1;
    uint64_t track = (uint64_t)ev->producer + 1;
    pf_out o;
    pf_pending pe = {0};
    switch (ty->category) {
    case TRAZA_STATE:
        if (state_track(w, ev->producer, ns, end_ns, &track, &pe.level) < 0)
            return -1;
        out_init(w, &o, ns, track, ev->type, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN);
        put_annotations(w, &o, ev, anns, 0);
        break;
    case TRAZA_PUNCTUAL:
        out_init(w, &o, ns, track, ev->type, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT);
        put_annotations(w, &o, ev, anns, 0);
        break;
    case TRAZA_VARIABLE: {
        uint64_t ct;
        if (counter_track(w, ev, &ct) < 0)
            return -1;
        out_init(w, &o, ns, ct, -1, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER);
        o.e.has_double_counter_value = 1;
        o.e.double_counter_value = ev->value;
        put_annotations(w, &o, ev, anns, 1);
        break;
    }
    case TRAZA_LINK:
        out_init(w, &o, ns, track, ev->type, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT);
        put_annotations(w, &o, ev, anns, 0);
        pe.flow = (uint64_t)ev->id + 1;
        o.e.n_flow_ids = 1;
        o.e.flow_ids = &pe.flow;
        break;
    default:
        return 0;
    }
    if (put_packet(w, &o.p) < 0)
        return -1;
    if (ty->category == TRAZA_STATE || ty->category == TRAZA_LINK) {
        pe.ns = end_ns;
        pe.seq = w->seq++;
        pe.type = ev->type;
        if (ty->category == TRAZA_LINK && (ev->has & TRAZA_HAS_END_PRODUCER))
            track = (uint64_t)ev->end_producer + 1;
        pe.track = track;
        if (pend_push(w, &pe) < 0)
            return -1;
    }
    return 0;
}

/* Events of one timestamp: the longer first (a parent begins before its children),
 * then by nesting level, then in store order. */
static int ev_nest_cmp(const void *a, const void *b)
{
    const traza_event *x = *(const traza_event *const *)a, *y = *(const traza_event *const *)b;
    int64_t ex = (x->has & TRAZA_HAS_END) ? x->end_ts : x->ts, ey = (y->has & TRAZA_HAS_END) ? y->end_ts : y->ts;
    if (ex != ey)
        return ex > ey ? -1 : 1;
    int32_t lx = (x->has & TRAZA_HAS_LEVEL) ? x->level : 0, ly = (y->has & TRAZA_HAS_LEVEL) ? y->level : 0;
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct pf_group {
    traza_event *ev;
    size_t *first; /* index of each event's first parameter in params */
    traza_param *params;
    char **strs;
    size_t n, cap, capf, np, capp, ns, caps;
} pf_group;

static void group_clear(pf_group *g)
{
    for (size_t i = 0; i < g->ns; i++)
        free(g->strs[i]);
    g->n = g->np = g->ns = 0;
}

/* Copies an event (the cursor's is only valid until the next call). */
static int group_add(pf_group *g, const traza_event *ev, traza_err *err)
{
    if (TZ_GROW(g->ev, g->cap, g->n + 1) < 0 || TZ_GROW(g->first, g->capf, g->n + 1) < 0 || TZ_GROW(g->params, g->capp, g->np + ev->nparams) < 0 ||
        TZ_GROW(g->strs, g->caps, g->ns + ev->nparams) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    g->first[g->n] = g->np;
    traza_event *e = &g->ev[g->n++];
    *e = *ev;
    e->params = NULL;
    for (uint32_t i = 0; i < ev->nparams; i++) {
        traza_param p = ev->params[i];
        if (p.v.kind == TRAZA_PT_STRING && p.v.s) {
            char *s = tz_strdup(p.v.s);
            if (!s)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            g->strs[g->ns++] = s;
            p.v.s = s;
        }
        g->params[g->np + i] = p;
    }
    /* params are linked once the group is complete (the array may move) */
    g->np += ev->nparams;
    return 0;
}

static int group_flush(pf_writer *w, pf_group *g)
{
    size_t maxp = 0;
    for (size_t i = 0; i < g->n; i++) {
        g->ev[i].params = g->params + g->first[i];
        if (g->ev[i].nparams > maxp)
            maxp = g->ev[i].nparams;
    }
    const traza_event **order = malloc((g->n ? g->n : 1) * sizeof *order);
    pf_anns an = {0};
    an.a = malloc((maxp + 2) * sizeof *an.a);
    an.ap = malloc((maxp + 2) * sizeof *an.ap);
    an.dn = malloc((maxp + 2) * sizeof *an.dn);
    an.dnp = malloc((maxp + 2) * sizeof *an.dnp);
    int rc = 0;
    if (!order || !an.a || !an.ap || !an.dn || !an.dnp)
        rc = traza_err_set(w->err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < g->n; i++)
        order[i] = &g->ev[i];
    if (rc == 0 && g->n > 1)
        qsort(order, g->n, sizeof *order, ev_nest_cmp);
    for (size_t i = 0; rc == 0 && i < g->n; i++)
        rc = put_event(w, order[i], &an);
    free(order);
    free(an.a);
    free(an.ap);
    free(an.dn);
    free(an.dnp);
    group_clear(g);
    return rc < 0 ? -1 : 0;
}

static int write_perfetto(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    traza_filter all;
    traza_filter_init(&all);
    traza_filter q = f ? *f : all;
    q.with_params = 1;
    pf_writer w;
    memset(&w, 0, sizeof w);
    w.t = t;
    w.out = out;
    w.err = err;
    w.unit = traza_trace_info_of(t)->time_unit;
    tz_buf_init(&w.buf);
    tz_imap_init(&w.counters);
    const traza_producer *ps;
    const traza_event_type *ets;
    const traza_param_def *pds;
    w.nprod = traza_trace_producers(t, &ps);
    w.ntypes = traza_trace_event_types(t, &ets);
    w.ndefs = traza_trace_param_defs(t, &pds);
    w.name_sent = calloc(w.ntypes + 1, 1);
    w.ann_sent = calloc(w.ndefs + 2, 1);
    w.lanes = calloc(w.nprod + 1, sizeof *w.lanes);
    pf_group g = {0};
    int rc = 0;
    if (!w.name_sent || !w.ann_sent || !w.lanes)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = put_tracks(&w);
    traza_cursor *c = rc == 0 ? traza_query(t, &q, err) : NULL;
    if (rc == 0 && !c)
        rc = -1;
    if (rc == 0) {
        const traza_event *ev;
        int r;
        while ((r = traza_cursor_next(c, &ev, err)) > 0) {
            if (g.n && g.ev[0].ts != ev->ts && group_flush(&w, &g) < 0) {
                r = -1;
                break;
            }
            if (group_add(&g, ev, err) < 0) {
                r = -1;
                break;
            }
        }
        rc = r;
        if (rc == 0 && g.n)
            rc = group_flush(&w, &g);
        if (rc == 0)
            rc = drain(&w, 0, 1);
        if (rc == 0)
            rc = flush(&w);
    }
    traza_cursor_free(c);
    group_clear(&g);
    free(g.ev);
    free(g.first);
    free(g.params);
    free(g.strs);
    free(w.heap);
    free(w.name_sent);
    free(w.ann_sent);
    for (size_t i = 0; w.lanes && i < w.nprod; i++) {
        for (size_t k = 0; k < w.lanes[i].n; k++)
            free(w.lanes[i].l[k].ends);
        free(w.lanes[i].l);
    }
    free(w.lanes);
    tz_imap_free(&w.counters);
    tz_buf_free(&w.buf);
    return rc < 0 ? -1 : 0;
}

const traza_exporter tz_exporter_perfetto = {"perfetto", "export-perfetto",
                                             "Perfetto protobuf trace (.pftrace: TrackEvent tracks, slices, counters, flows)",
                                             write_perfetto, NULL};

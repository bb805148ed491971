/* CTF traces through libbabeltrace2: a graph src.ctf.fs -> flt.utils.muxer -> a
 * simple sink of ours. Every event message becomes one punctual event (so the event
 * count equals the lines `babeltrace2 DIR` prints), with:
 *   type       the event class name ("sched_switch", "ust_tests_hello:tptest")
 *   producer   trace name -> "cpu N" (packet context cpu_id) or the stream name
 *   cpu        the packet's cpu_id when present
 *   params     payload fields by name, nested fields as "outer.inner", context fields
 *              as "ctx.NAME"; arrays and sequences as text "[a, b, ...]"
 * lttng-ust-cyg-profile function entries/exits also give calls per thread (ctf_cyg.h).
 * Timestamps are nanoseconds from the clock origin. A trace babeltrace2 rejects in
 * part (timestamps going backwards, CTF 2) fails with babeltrace2's own error causes
 * and leaves the workspace unchanged. */
#include "import/bt_api.h"
#include "import/ctf_cyg.h"
#include "import/importers.h"
#include "import/skips.h"
#include "util/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct ctf_ctx {
    traza_ctx *ctx;
    traza_writer *w;
    traza_err *err;
    const char *path;
    int failed;              /* err is set */
    tz_map types;            /* event class name -> type */
    tz_map defs;             /* "type\x1fname\x1fptype" -> def */
    tz_map producers;        /* "trace\x1fcpu" -> producer */
    tz_map roots;            /* trace name -> producer */
    traza_param *params;
    size_t nparams, capparams;
    tz_buf names;            /* scratch for field paths */
    char **strs;             /* strings owned for the current event */
    size_t nstrs, capstrs;
    int64_t events, discarded_events, discarded_packets; /* as the tracer reported (a report without its count: 1) */
    uint64_t progress;
    int64_t last_ns;             /* the timestamp of the last event */
    int64_t span_begin, span_end; /* the streams' time span, when known (begin < end) */
    int span_unknown;             /* a stream had no span: progress counts events */
    const char *symbols, *elf;    /* name the cyg-profile functions (NULL: addresses) */
    tz_cyg *cyg;                  /* the cyg-profile call stacks, made at their first event */
} ctf_ctx;

static int ctf_oom(ctf_ctx *c)
{
    c->failed = 1;
    return traza_err_set(c->err, TRAZA_E_NOMEM, "%s: out of memory", c->path);
}

static int32_t def_for(ctf_ctx *c, int32_t type, const char *name, traza_ptype pt)
{
    char *key = tz_asprintf("%d\x1f%s\x1f%d", type, name, (int)pt);
    if (!key)
        return ctf_oom(c);
    int64_t v;
    if (tz_map_get(&c->defs, key, &v)) {
        free(key);
        return (int32_t)v;
    }
    /* another kind under the same name (a variant): suffix the kind */
    int32_t id = traza_writer_param_def(c->w, type, name, pt, c->err);
    if (id < 0) {
        char *alt = tz_asprintf("%s:%s", name, traza_ptype_name(pt));
        id = alt ? traza_writer_param_def(c->w, type, alt, pt, c->err) : -1;
        free(alt);
    }
    if (id < 0 || tz_map_put(&c->defs, key, id) < 0) {
        free(key);
        c->failed = 1;
        return id < 0 ? -1 : ctf_oom(c);
    }
    free(key);
    return id;
}

static int keep_str(ctf_ctx *c, char *s)
{
    if (!s || TZ_GROW(c->strs, c->capstrs, c->nstrs + 1) < 0) {
        free(s);
        return ctf_oom(c);
    }
    c->strs[c->nstrs++] = s;
    return 0;
}

static int push(ctf_ctx *c, int32_t type, const char *name, traza_value v)
{
    int32_t d = def_for(c, type, name, v.kind);
    if (d < 0)
        return -1;
    for (size_t i = 0; i < c->nparams; i++)
        if (c->params[i].def == d)
            return 0;
    if (TZ_GROW(c->params, c->capparams, c->nparams + 1) < 0)
        return ctf_oom(c);
    c->params[c->nparams].def = d;
    c->params[c->nparams].v = v;
    c->nparams++;
    return 0;
}

/* A field as text (for arrays and what has no scalar form). */
static void field_text(tz_buf *b, const bt_field *f)
{
    bt_field_class_type t = bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_BOOL)) {
        tz_buf_puts(b, bt_field_bool_get_value(f) ? "true" : "false");
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_BIT_ARRAY)) {
        tz_buf_printf(b, "0x%llx", (unsigned long long)bt_field_bit_array_get_value_as_integer(f));
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
        tz_buf_printf(b, "%llu", (unsigned long long)bt_field_integer_unsigned_get_value(f));
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
        tz_buf_printf(b, "%lld", (long long)bt_field_integer_signed_get_value(f));
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL)) {
        tz_buf_printf(b, "%.17g", bt_field_real_double_precision_get_value(f));
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL)) {
        tz_buf_printf(b, "%.9g", (double)bt_field_real_single_precision_get_value(f));
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_STRING)) {
        const char *s = bt_field_string_get_value(f);
        tz_json_str(b, s ? s : "");
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
        uint64_t n = bt_field_array_get_length(f);
        tz_buf_putc(b, '[');
        for (uint64_t i = 0; i < n; i++) {
            if (i)
                tz_buf_puts(b, ", ");
            field_text(b, bt_field_array_borrow_element_field_by_index_const(f, i));
        }
        tz_buf_putc(b, ']');
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_STRUCTURE)) {
        const bt_field_class *fc = bt_field_borrow_class_const(f);
        uint64_t n = bt_field_class_structure_get_member_count(fc);
        tz_buf_putc(b, '{');
        for (uint64_t i = 0; i < n; i++) {
            if (i)
                tz_buf_puts(b, ", ");
            tz_buf_printf(b, "%s = ", bt_field_class_structure_member_get_name(bt_field_class_structure_borrow_member_by_index_const(fc, i)));
            field_text(b, bt_field_structure_borrow_member_field_by_index_const(f, i));
        }
        tz_buf_putc(b, '}');
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT)) {
        field_text(b, bt_field_variant_borrow_selected_option_field_const(f));
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION)) {
        const bt_field *o = bt_field_option_borrow_field_const(f);
        if (o)
            field_text(b, o);
        else
            tz_buf_puts(b, "none");
    }
}

/* Adds a field as parameters under `name` (structures flatten to name.member). */
static int add_field(ctf_ctx *c, int32_t type, const char *name, const bt_field *f)
{
    bt_field_class_type t = bt_field_get_class_type(f);
    traza_value v = {TRAZA_PT_INT, 0, 0, NULL};
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_STRUCTURE)) {
        const bt_field_class *fc = bt_field_borrow_class_const(f);
        uint64_t n = bt_field_class_structure_get_member_count(fc);
        for (uint64_t i = 0; i < n; i++) {
            const char *m = bt_field_class_structure_member_get_name(bt_field_class_structure_borrow_member_by_index_const(fc, i));
            char *full = *name ? tz_asprintf("%s.%s", name, m) : tz_strdup(m);
            if (!full)
                return ctf_oom(c);
            int rc = add_field(c, type, full, bt_field_structure_borrow_member_field_by_index_const(f, i));
            free(full);
            if (rc < 0)
                return -1;
        }
        return 0;
    }
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT))
        return add_field(c, type, name, bt_field_variant_borrow_selected_option_field_const(f));
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION)) {
        const bt_field *o = bt_field_option_borrow_field_const(f);
        return o ? add_field(c, type, name, o) : 0;
    }
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_BOOL)) {
        v.i = bt_field_bool_get_value(f);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_BIT_ARRAY)) {
        v.kind = TRAZA_PT_HEX;
        v.i = (int64_t)bt_field_bit_array_get_value_as_integer(f);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
        v.i = (int64_t)bt_field_integer_unsigned_get_value(f);
        if (bt_field_class_integer_get_preferred_display_base(bt_field_borrow_class_const(f)) == 16)
            v.kind = TRAZA_PT_HEX;
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
        v.i = bt_field_integer_signed_get_value(f);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL)) {
        v.kind = TRAZA_PT_DOUBLE;
        v.d = bt_field_real_double_precision_get_value(f);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL)) {
        v.kind = TRAZA_PT_DOUBLE;
        v.d = bt_field_real_single_precision_get_value(f);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_STRING)) {
        v.kind = TRAZA_PT_STRING;
        v.s = bt_field_string_get_value(f);
        if (!v.s)
            v.s = "";
    } else {
        tz_buf b;
        tz_buf_init(&b);
        field_text(&b, f);
        if (b.oom)
            return ctf_oom(c);
        char *s = tz_buf_take(&b);
        tz_buf_free(&b);
        if (keep_str(c, s) < 0)
            return -1;
        v.kind = TRAZA_PT_STRING;
        v.s = s;
    }
    return push(c, type, name, v);
}

static int32_t producer_for(ctf_ctx *c, const bt_event *ev, int64_t *cpu)
{
    const bt_stream *st = bt_event_borrow_stream_const(ev);
    const bt_trace *tr = bt_stream_borrow_trace_const(st);
    const char *tname = bt_trace_get_name(tr);
    if (!tname)
        tname = "trace";
    *cpu = -1;
    const bt_packet *pk = bt_event_borrow_packet_const(ev);
    const bt_field *pctx = pk ? bt_packet_borrow_context_field_const(pk) : NULL;
    if (pctx) {
        const bt_field *f = bt_field_structure_borrow_member_field_by_name_const(pctx, "cpu_id");
        if (f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
            *cpu = (int64_t)bt_field_integer_unsigned_get_value(f);
    }
    char sbuf[64];
    const char *sub = NULL;
    if (*cpu >= 0) {
        snprintf(sbuf, sizeof sbuf, "cpu %lld", (long long)*cpu);
        sub = sbuf;
    } else {
        sub = bt_stream_get_name(st);
        if (!sub) {
            snprintf(sbuf, sizeof sbuf, "stream %llu", (unsigned long long)bt_stream_get_id(st));
            sub = sbuf;
        }
    }
    char *key = tz_asprintf("%s\x1f%s", tname, sub);
    if (!key)
        return ctf_oom(c);
    int64_t v;
    if (tz_map_get(&c->producers, key, &v)) {
        free(key);
        return (int32_t)v;
    }
    int32_t root;
    if (tz_map_get(&c->roots, tname, &v)) {
        root = (int32_t)v;
    } else {
        root = traza_writer_producer(c->w, -1, tname, "Trace", c->err);
        if (root < 0 || tz_map_put(&c->roots, tname, root) < 0) {
            free(key);
            c->failed = 1;
            return root < 0 ? -1 : ctf_oom(c);
        }
    }
    int32_t id = traza_writer_producer(c->w, root, sub, *cpu >= 0 ? "Cpu" : "Stream", c->err);
    if (id < 0 || tz_map_put(&c->producers, key, id) < 0) {
        free(key);
        c->failed = 1;
        return id < 0 ? -1 : ctf_oom(c);
    }
    free(key);
    return id;
}

/* The unsigned integer or string member `name` of a structure field. */
static int ctx_uint(const bt_field *st, const char *name, uint64_t *v)
{
    const bt_field *f = st ? bt_field_structure_borrow_member_field_by_name_const(st, name) : NULL;
    if (!f)
        return 0;
    bt_field_class_type t = bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        *v = bt_field_integer_unsigned_get_value(f);
    else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        *v = (uint64_t)bt_field_integer_signed_get_value(f);
    else
        return 0;
    return 1;
}

static const char *ctx_str(const bt_field *st, const char *name)
{
    const bt_field *f = st ? bt_field_structure_borrow_member_field_by_name_const(st, name) : NULL;
    return f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_STRING) ? bt_field_string_get_value(f) : NULL;
}

/* A producer under `parent` found or made by its key in c->producers. */
static int32_t keyed_producer(ctf_ctx *c, const char *key, int32_t parent, const char *name, const char *ptype)
{
    int64_t v;
    if (tz_map_get(&c->producers, key, &v))
        return (int32_t)v;
    int32_t id = traza_writer_producer(c->w, parent, name, ptype, c->err);
    if (id < 0 || tz_map_put(&c->producers, key, id) < 0) {
        c->failed = 1;
        return id < 0 ? -1 : ctf_oom(c);
    }
    return id;
}

/* The thread of a cyg-profile event, from its context fields vtid (vpid, procname):
 * trace -> "PROCNAME (VPID)" -> "tid VTID"; without vtid the event's own producer
 * (cpu or stream). */
static int32_t cyg_thread(ctf_ctx *c, const bt_event *ev, int32_t own)
{
    const bt_field *cc = bt_event_borrow_common_context_field_const(ev);
    uint64_t tid, pid = 0;
    if (!ctx_uint(cc, "vtid", &tid))
        return own;
    int has_pid = ctx_uint(cc, "vpid", &pid);
    const char *proc = ctx_str(cc, "procname");
    const char *tname = bt_trace_get_name(bt_stream_borrow_trace_const(bt_event_borrow_stream_const(ev)));
    int64_t v;
    if (!tname)
        tname = "trace";
    if (!tz_map_get(&c->roots, tname, &v))
        return own; /* the event's own producer made the root */
    int32_t parent = (int32_t)v;
    char *key = NULL, *name = NULL;
    if (proc || has_pid) {
        if (proc && has_pid)
            name = tz_asprintf("%s (%llu)", proc, (unsigned long long)pid);
        else
            name = proc ? tz_strdup(proc) : tz_asprintf("pid %llu", (unsigned long long)pid);
        key = name ? tz_asprintf("%s\x1fprocess\x1f%s", tname, name) : NULL;
        parent = key ? keyed_producer(c, key, parent, name, "Process") : ctf_oom(c);
        free(key);
        free(name);
        if (parent < 0)
            return -1;
    }
    name = tz_asprintf("tid %llu", (unsigned long long)tid);
    key = name ? tz_asprintf("%s\x1fthread\x1f%d\x1f%s", tname, (int)parent, name) : NULL;
    int32_t id = key ? keyed_producer(c, key, parent, name, "Thread") : ctf_oom(c);
    free(key);
    free(name);
    return id;
}

/* A cyg-profile entry or exit into the call stacks of its thread. */
static int on_cyg(ctf_ctx *c, const bt_event *ev, int kind, int32_t own, int64_t ts)
{
    if (!c->cyg && !(c->cyg = tz_cyg_new(c->w, c->path, c->symbols, c->elf, c->err))) {
        c->failed = 1;
        return -1;
    }
    int32_t thread = cyg_thread(c, ev, own);
    if (thread < 0)
        return -1;
    uint64_t addr = 0;
    int has_addr = ctx_uint(bt_event_borrow_payload_field_const(ev), "addr", &addr);
    if (kind == TZ_CYG_ENTRY && !has_addr) {
        c->failed = 1;
        return traza_err_set(c->err, TRAZA_E_PARSE, "%s: event #%lld (%s): a function entry without its 'addr' field", c->path,
                             (long long)c->events, bt_event_class_get_name(bt_event_borrow_class_const(ev)));
    }
    if (tz_cyg_event(c->cyg, kind, thread, ts, has_addr, addr) < 0) {
        c->failed = 1;
        return -1;
    }
    return 0;
}

static int on_event(ctf_ctx *c, const bt_message *msg)
{
    const bt_event *ev = bt_message_event_borrow_event_const(msg);
    const bt_event_class *ec = bt_event_borrow_class_const(ev);
    const char *name = bt_event_class_get_name(ec);
    char nbuf[32];
    if (!name) {
        snprintf(nbuf, sizeof nbuf, "event %llu", (unsigned long long)bt_event_class_get_id(ec));
        name = nbuf;
    }
    int64_t v;
    int32_t type;
    if (tz_map_get(&c->types, name, &v)) {
        type = (int32_t)v;
    } else {
        type = traza_writer_event_type(c->w, name, TRAZA_PUNCTUAL, c->err);
        if (type < 0 || tz_map_put(&c->types, name, type) < 0) {
            c->failed = 1;
            return type < 0 ? -1 : ctf_oom(c);
        }
    }
    traza_event e = {0};
    e.type = type;
    if (bt_message_event_borrow_stream_class_default_clock_class_const(msg)) {
        const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
        int64_t ns;
        if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
            c->failed = 1;
            return traza_err_set(c->err, TRAZA_E_PARSE, "%s: event #%lld (%s): its timestamp overflows nanoseconds from the origin",
                                 c->path, (long long)c->events, name);
        }
        e.ts = ns;
        c->last_ns = ns;
    }
    int64_t cpu;
    if ((e.producer = producer_for(c, ev, &cpu)) < 0)
        return -1;
    if (cpu >= 0) {
        e.cpu = (int32_t)cpu;
        e.has |= TRAZA_HAS_CPU;
    }
    c->nparams = 0;
    const bt_field *fs[3] = {bt_event_borrow_payload_field_const(ev), bt_event_borrow_specific_context_field_const(ev),
                             bt_event_borrow_common_context_field_const(ev)};
    const char *prefix[3] = {"", "ctx", "ctx"};
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++)
        if (fs[i])
            rc = add_field(c, type, prefix[i], fs[i]);
    if (rc == 0) {
        e.params = c->params;
        e.nparams = (uint32_t)c->nparams;
        rc = traza_writer_event(c->w, &e, c->err);
        if (rc < 0)
            c->failed = 1;
    }
    int cyg = tz_cyg_kind(name);
    if (rc == 0 && cyg != TZ_CYG_NONE)
        rc = on_cyg(c, ev, cyg, e.producer, e.ts);
    for (size_t i = 0; i < c->nstrs; i++)
        free(c->strs[i]);
    c->nstrs = 0;
    c->events++;
    return rc;
}

static bt_graph_simple_sink_component_initialize_func_status sink_init(bt_message_iterator *it, void *data)
{
    (void)it;
    (void)data;
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

/* Reports how far the import is: how far the last event is into the streams' time
 * span (the muxer hands the events over in time order; babeltrace2 maps the stream
 * files and tells no byte offsets), in ten-thousandths, else the events read so far.
 * `end`: the import is done. 0, or -1 when cancelled. */
static int ctf_progress(ctf_ctx *c, int end)
{
    uint64_t done = (uint64_t)c->events, total = end ? done : 0;
    if (c->span_begin < c->span_end) {
        int64_t at = end || c->last_ns > c->span_end ? c->span_end : c->last_ns < c->span_begin ? c->span_begin : c->last_ns;
        total = 10000;
        done = (uint64_t)((double)(at - c->span_begin) / (double)(c->span_end - c->span_begin) * 10000.0);
    }
    if (traza_progress(c->ctx, "importing CTF", done, total)) {
        c->failed = 1;
        return traza_err_set(c->err, TRAZA_E_CANCELLED, "cancelled");
    }
    return 0;
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it, void *data)
{
    ctf_ctx *c = data;
    bt_message_array_const msgs;
    uint64_t n;
    switch (bt_message_iterator_next(it, &msgs, &n)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
        break;
    default:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    }
    int bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        const bt_message *m = msgs[i];
        bt_message_type t = bt_message_get_type(m);
        if (!bad && t == BT_MESSAGE_TYPE_EVENT && on_event(c, m) < 0)
            bad = 1;
        else if (t == BT_MESSAGE_TYPE_DISCARDED_EVENTS || t == BT_MESSAGE_TYPE_DISCARDED_PACKETS) {
            uint64_t k = 1;
            if ((t == BT_MESSAGE_TYPE_DISCARDED_EVENTS ? bt_message_discarded_events_get_count(m, &k)
                                                       : bt_message_discarded_packets_get_count(m, &k)) !=
                    BT_PROPERTY_AVAILABILITY_AVAILABLE || k == 0 || k > INT64_MAX / 2)
                k = 1;
            *(t == BT_MESSAGE_TYPE_DISCARDED_EVENTS ? &c->discarded_events : &c->discarded_packets) += (int64_t)k;
        }
        bt_message_put_ref(m);
    }
    if (!bad && (c->events - (int64_t)c->progress) > 65536) {
        c->progress = (uint64_t)c->events;
        /* the muxer hands the events over in time order: how far the last one is into
         * the span is how far the import is (babeltrace2 maps the stream files and
         * tells no byte offsets); else a count */
        if (ctf_progress(c, 0) < 0)
            bad = 1;
    }
    return bad ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* The causes babeltrace2 adds while an error goes up its graph: they name its own
 * components and addresses, not what is wrong with the trace. */
static int bt_wrapper_cause(const char *m)
{
    static const char *const wrappers[] = {
        "Component's \"consume\" method failed",
        "Simple sink component's user's",
        "Component input port message iterator's",
        "Cannot validate muxer's upstream",
        "Upstream iterator's next method returned an error",
        "Failed to get next message from CTF message iterator",
        "Cannot handle state:",
    };
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
        if (strncmp(m, wrappers[i], strlen(wrappers[i])) == 0)
            return 1;
    return 0;
}

/* babeltrace2's error causes into err, the innermost (what is wrong) first, without
 * the wrappers of its graph unless nothing else is said. */
static int bt_fail(ctf_ctx *c, const char *what)
{
    if (c->failed) {
        /* the import's own error is set; babeltrace2's, which it caused, is released
         * all the same: a thread error left behind makes the next babeltrace2 call on
         * this thread fail (or abort, babeltrace2's precondition) */
        const bt_error *e = bt_current_thread_take_error();
        if (e)
            bt_error_release(e);
        return -1;
    }
    tz_buf b;
    tz_buf_init(&b);
    const bt_error *e = bt_current_thread_take_error();
    if (e) {
        uint64_t n = bt_error_get_cause_count(e);
        for (int pass = 0; pass < 2 && b.len == 0; pass++)
            for (uint64_t i = 0; i < n; i++) {
                const char *m = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, i));
                if (m && (pass == 1 || !bt_wrapper_cause(m)))
                    tz_buf_printf(&b, "%s%s", b.len ? "; " : "", m);
            }
        bt_error_release(e);
    }
    traza_err_set(c->err, TRAZA_E_PARSE, "%s: babeltrace2: %s%s%s", c->path, what, b.len ? ": " : "", b.s ? b.s : "");
    tz_buf_free(&b);
    return -1;
}

/* The signed integer at key of a map value, into *v; 0, or -1 if absent. */
static int map_i64(const bt_value *map, const char *key, int64_t *v)
{
    const bt_value *x = map && bt_value_get_type(map) == BT_VALUE_TYPE_MAP ? bt_value_map_borrow_entry_value_const(map, key) : NULL;
    if (!x || bt_value_get_type(x) != BT_VALUE_TYPE_SIGNED_INTEGER)
        return -1;
    *v = bt_value_integer_signed_get(x);
    return 0;
}

/* Widens [c->span_begin, c->span_end] by the time span of the streams of the trace
 * `params` opens, from babeltrace2's trace-infos query (read from the packet indexes,
 * no event decoded). A stream without a span makes the whole span unknown. */
static void add_span(ctf_ctx *c, const bt_component_class_source *src_cls, const bt_value *params)
{
    bt_query_executor *q = bt_query_executor_create(bt_component_class_source_as_component_class_const(src_cls),
                                                    "babeltrace.trace-infos", params);
    const bt_value *res = NULL;
    int ok = q && bt_query_executor_query(q, &res) == BT_QUERY_EXECUTOR_QUERY_STATUS_OK && res &&
             bt_value_get_type(res) == BT_VALUE_TYPE_ARRAY;
    for (uint64_t i = 0; ok && i < bt_value_array_get_length(res); i++) {
        const bt_value *ti = bt_value_array_borrow_element_by_index_const(res, i);
        const bt_value *sis = bt_value_get_type(ti) == BT_VALUE_TYPE_MAP ? bt_value_map_borrow_entry_value_const(ti, "stream-infos") : NULL;
        ok = sis && bt_value_get_type(sis) == BT_VALUE_TYPE_ARRAY;
        for (uint64_t j = 0; ok && j < bt_value_array_get_length(sis); j++) {
            const bt_value *si = bt_value_array_borrow_element_by_index_const(sis, j);
            const bt_value *r = bt_value_get_type(si) == BT_VALUE_TYPE_MAP ? bt_value_map_borrow_entry_value_const(si, "range-ns") : NULL;
            int64_t b, e;
            ok = map_i64(r, "begin", &b) == 0 && map_i64(r, "end", &e) == 0;
            if (ok && (c->span_begin >= c->span_end || b < c->span_begin))
                c->span_begin = b;
            if (ok && e > c->span_end)
                c->span_end = e;
        }
    }
    if (!ok) {
        c->span_begin = c->span_end = 0;
        c->span_unknown = 1;
        const bt_error *e = bt_current_thread_take_error(); /* not this import's error */
        if (e)
            bt_error_release(e);
    }
    bt_value_put_ref(res);
    bt_query_executor_put_ref(q);
}

/* Packetized metadata (CTF 1.8): every packet header must be whole and declare a
 * packet that fits in the file. babeltrace2 2.0 loops forever on some truncated
 * metadata files, so they are refused here with the byte offset. */
static int check_metadata(const char *dir, traza_err *err)
{
    char *p = tz_asprintf("%s/metadata", dir);
    if (!p)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    char *data = NULL;
    size_t len = 0;
    if (tz_read_file(p, &data, &len, err) < 0) {
        free(p);
        return -1;
    }
    const unsigned char *m = (const unsigned char *)data;
    int rc = 0;
    int be = len >= 4 && m[0] == 0x75 && m[1] == 0xd1 && m[2] == 0x1d && m[3] == 0x57;
    int le = len >= 4 && m[0] == 0x57 && m[1] == 0x1d && m[2] == 0xd1 && m[3] == 0x75;
    for (size_t off = 0; (be || le) && off < len && rc == 0;) {
        if (len - off < 37) {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: metadata packet header cut short (%zu of 37 bytes)", p, off, len - off);
            break;
        }
        const unsigned char *h = m + off;
        uint32_t magic, content, size;
#define U32(q) (be ? ((uint32_t)(q)[0] << 24 | (uint32_t)(q)[1] << 16 | (uint32_t)(q)[2] << 8 | (q)[3]) \
                   : ((uint32_t)(q)[3] << 24 | (uint32_t)(q)[2] << 16 | (uint32_t)(q)[1] << 8 | (q)[0]))
        magic = U32(h);
        content = U32(h + 24);
        size = U32(h + 28);
#undef U32
        if (magic != 0x75D11D57u) {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: expected the metadata packet magic 0x75d11d57, found 0x%08x", p, off, magic);
        } else if (size % 8 || content % 8 || size < 37 * 8 || content > size || content < 37 * 8) {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: metadata packet sizes out of range (content %u bits, packet %u bits)", p, off,
                               content, size);
        } else if (size / 8 > len - off) {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: metadata packet of %u bytes, but only %zu bytes remain (file cut short)", p, off,
                               size / 8, len - off);
        } else {
            off += size / 8;
        }
    }
    free(data);
    free(p);
    return rc;
}

/* Trace directories (with a "metadata" file) at or under `dir`, like babeltrace2's
 * own discovery. */
static int find_traces(const char *dir, int depth, char ***out, size_t *n, size_t *cap)
{
    char *p = tz_asprintf("%s/metadata", dir);
    if (!p)
        return -1;
    struct stat st;
    int is_trace = stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    if (is_trace) {
        char *d = tz_strdup(dir);
        if (!d || TZ_GROW(*out, *cap, *n + 1) < 0) {
            free(d);
            return -1;
        }
        (*out)[(*n)++] = d;
        return 0;
    }
    if (depth == 0)
        return 0;
    struct dirent **list;
    int k = scandir(dir, &list, NULL, alphasort);
    int rc = 0;
    for (int i = 0; i < k; i++) {
        if (rc == 0 && list[i]->d_name[0] != '.') {
            char *sub = tz_asprintf("%s/%s", dir, list[i]->d_name);
            if (!sub)
                rc = -1;
            else if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                rc = find_traces(sub, depth - 1, out, n, cap);
            free(sub);
        }
        free(list[i]);
    }
    if (k >= 0)
        free(list);
    return rc;
}

/* Closes the calls still open and says how many calls the cyg-profile events gave
 * (trace parameters "cyg.calls", "cyg.unended_calls"). */
static int cyg_report(ctf_ctx *c)
{
    if (tz_cyg_finish(c->cyg) < 0)
        return -1;
    char num[24];
    int64_t unended = tz_cyg_unended(c->cyg);
    snprintf(num, sizeof num, "%lld", (long long)tz_cyg_calls(c->cyg));
    if (traza_writer_set_param(c->w, "cyg.calls", num, c->err) < 0)
        return -1;
    snprintf(num, sizeof num, "%lld", (long long)unended);
    if (traza_writer_set_param(c->w, "cyg.unended_calls", num, c->err) < 0)
        return -1;
    if (unended)
        traza_log(c->ctx, TRAZA_LOG_WARN, "%s: %lld function call(s) without a recorded exit end at their thread's last event", c->path,
                  (long long)unended);
    return 0;
}

int tz_ctf_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts, traza_err *err)
{
    ctf_ctx c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.w = w;
    c.err = err;
    c.path = npaths ? paths[0] : "";
    c.elf = opts ? opts->elf : NULL;
    c.symbols = opts ? opts->symbols : NULL;
    tz_map_init(&c.types);
    tz_map_init(&c.defs);
    tz_map_init(&c.producers);
    tz_map_init(&c.roots);
    tz_buf_init(&c.names);
    int rc = -1;
    const bt_plugin *ctf = NULL, *utils = NULL;
    bt_graph *g = NULL;
    bt_value *params = NULL, *inputs = NULL;
    char **dirs = NULL;
    size_t ndirs = 0, capdirs = 0;
    if (npaths == 0) {
        rc = traza_err_set(err, TRAZA_E_USAGE, "ctf: no trace directory given");
        goto out;
    }
    if (tz_babel_load(err) < 0) /* libbabeltrace2 is opened on first use */
        goto out;
    if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
        bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
        rc = traza_err_set(err, TRAZA_E_UNSUPPORTED, "ctf: the babeltrace2 'ctf' and 'utils' plugins are not installed (Debian: babeltrace2)");
        goto out;
    }
    const bt_component_class_source *src_cls = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
    const bt_component_class_filter *mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
    if (!src_cls || !mux_cls) {
        rc = traza_err_set(err, TRAZA_E_UNSUPPORTED, "ctf: babeltrace2 lacks src.ctf.fs or flt.utils.muxer");
        goto out;
    }
    for (size_t i = 0; i < npaths; i++)
        if (find_traces(paths[i], 6, &dirs, &ndirs, &capdirs) < 0) {
            rc = ctf_oom(&c);
            goto out;
        }
    if (ndirs == 0) {
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: no CTF trace (a directory with a 'metadata' file) at or under this path", c.path);
        goto out;
    }
    for (size_t i = 0; i < ndirs; i++)
        if (check_metadata(dirs[i], err) < 0)
            goto out;
    g = bt_graph_create(0);
    if (!g) {
        rc = ctf_oom(&c);
        goto out;
    }
    const bt_component_filter *mux;
    const bt_component_sink *sink;
    if (bt_graph_add_filter_component(g, mux_cls, "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
        bt_graph_add_simple_sink_component(g, "traza", sink_init, sink_consume, NULL, &c, &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
        rc = bt_fail(&c, "cannot build the graph");
        goto out;
    }
    uint64_t nin = 0;
    for (size_t d = 0; d < ndirs; d++) {
        bt_value_put_ref(params);
        params = bt_value_map_create();
        inputs = bt_value_array_create();
        if (!params || !inputs || bt_value_array_append_string_element(inputs, dirs[d]) != BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK ||
            bt_value_map_insert_entry(params, "inputs", inputs) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
            rc = ctf_oom(&c);
            goto out;
        }
        bt_value_put_ref(inputs);
        inputs = NULL;
        if (!c.span_unknown)
            add_span(&c, src_cls, params);
        char cname[32];
        snprintf(cname, sizeof cname, "src%zu", d);
        const bt_component_source *src;
        if (bt_graph_add_source_component(g, src_cls, cname, params, BT_LOGGING_LEVEL_NONE, &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
            char what[4200];
            snprintf(what, sizeof what, "cannot open the trace %s", dirs[d]);
            rc = bt_fail(&c, what);
            goto out;
        }
        uint64_t nout = bt_component_source_get_output_port_count(src);
        for (uint64_t i = 0; i < nout; i++, nin++) {
            const bt_port_output *op = bt_component_source_borrow_output_port_by_index_const(src, i);
            const bt_port_input *ip = bt_component_filter_borrow_input_port_by_index_const(mux, nin);
            if (!ip || bt_graph_connect_ports(g, op, ip, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
                rc = bt_fail(&c, "cannot connect the streams");
                goto out;
            }
        }
    }
    if (nin == 0) {
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: babeltrace2 found no data stream in the trace", c.path);
        goto out;
    }
    if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
                               bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
        rc = bt_fail(&c, "cannot connect the sink");
        goto out;
    }
    bt_graph_run_status st;
    do {
        st = bt_graph_run(g);
    } while (st == BT_GRAPH_RUN_STATUS_AGAIN);
    if (st != BT_GRAPH_RUN_STATUS_OK) {
        /* babeltrace2 tells no file offset: the place is the last event read */
        char what[160];
        if (c.events > 0)
            snprintf(what, sizeof what, "reading failed after %lld event(s), the last at %lld ns", (long long)c.events,
                     (long long)c.last_ns);
        else
            snprintf(what, sizeof what, "reading failed before the first event");
        rc = bt_fail(&c, what);
        goto out;
    }
    if (ctf_progress(&c, 1) < 0)
        goto out;
    traza_writer_set_time_unit(w, -9);
    if (c.cyg && cyg_report(&c) < 0)
        goto out;
    const tz_skip_kind kinds[] = {
        {"discarded_events", "events the tracer discarded", c.discarded_events},
        {"discarded_packets", "packets the tracer discarded", c.discarded_packets},
        {"unmatched_func_exits", "function exits without a recorded entry (no call)", c.cyg ? tz_cyg_unmatched_exits(c.cyg) : 0},
    };
    rc = tz_skips_report(ctx, w, c.path, kinds, sizeof kinds / sizeof kinds[0], tz_strict(opts), -1, err);
out:
    for (size_t i = 0; i < ndirs; i++)
        free(dirs[i]);
    free(dirs);
    bt_value_put_ref(inputs);
    bt_value_put_ref(params);
    bt_graph_put_ref(g);
    bt_plugin_put_ref(ctf);
    bt_plugin_put_ref(utils);
    free(c.params);
    for (size_t i = 0; i < c.nstrs; i++)
        free(c.strs[i]);
    free(c.strs);
    tz_map_free(&c.types);
    tz_map_free(&c.defs);
    tz_map_free(&c.producers);
    tz_map_free(&c.roots);
    tz_buf_free(&c.names);
    tz_cyg_free(c.cyg);
    if (rc < 0 && err && err->code == TRAZA_OK)
        traza_err_set(err, TRAZA_E_INTERNAL, "%s: ctf import failed", c.path);
    return rc;
}

/* Chrome trace-event JSON importer (the format of chrome://tracing, Perfetto's JSON
 * import, catapult). Parsed with jansson. See doc/formats/chrome.md for the mapping:
 *
 *   B/E, X           -> states on the thread, nesting level from the interval tree
 *   i/I, R, n, T, p  -> punctual events (instant, mark, async instant/step)
 *   P                -> a punctual event (a sample) named by its "name"
 *   C                -> one variable event type "NAME.KEY" per series, held until the
 *                       next sample of the series (the last one until the trace end)
 *   s/t/f (flow v1)  -> links from the producer of 's' (or of the previous 't') to the
 *                       next step, matched first-in first-out by (cat, id)
 *   S/F, b/e (async) -> one link per span, from the start thread to the end thread,
 *                       matched last-in first-out by (cat, name, id)
 *   M                -> process_name / thread_name become producers (with or without
 *                       events); a thread_name's "parent_tid" arg puts it under that
 *                       thread (traza's export keeps a deeper producer tree so)
 *   O, N, D, c, (, ) and unknown phases are counted and logged as ignored.
 *
 * Stacks: "stackFrames" (id -> name, category, parent) is the frame tree; an event's
 * "sf" (frame id) or "stack" (frames root first) becomes its parameter "stack", the
 * path "root;...;leaf" ("esf"/"estack" -> "end_stack"), and the frames' categories
 * along it the parameter "stack_categories" ("end_stack_categories"). Each entry of
 * "samples" is a punctual event "sample" on its pid/tid thread (the pid of the thread's first event
 * when the sample has none; else on "global", the tid a parameter) with its stack and
 * its other keys (weight, cpu, name...) as parameters. Frames on no stack and stacks naming an unknown frame are counted.
 *
 * Producers: process "NAME (PID)" (or "pid PID") -> thread "NAME (TID)" (or
 * "tid TID"); events with scope "g" go to a root producer "global". Timestamps are
 * microseconds (possibly fractional) and are stored in nanoseconds. */
#include "import/chrome_internal.h"
#include "import/skips.h"
#include "import/importers.h"
#include "util/input.h"
#include "util/util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ch_state {
    int64_t start, end; /* end < 0 while open */
    int32_t producer, type;
    int32_t level;
    int64_t prev_open;  /* the B below this one on the thread's stack, -1 */
    size_t index;       /* order of appearance */
    json_t *ev;         /* the B or X event (args, cat) */
    json_t *end_ev;     /* the E event (its args are added too) */
} ch_state;

typedef struct ch_point {
    int64_t ts;
    int32_t producer;
    int64_t next;       /* queue / stack link, -1 */
    json_t *ev;
} ch_point;

typedef struct ch_queue {
    int64_t head, tail;
} ch_queue;

typedef struct ch_var {
    int64_t ts;
    int32_t producer, type;
    size_t index;
    double value;
} ch_var;

typedef struct ch_ctx {
    traza_ctx *ctx;
    traza_writer *w;
    traza_err *err;
    const char *path;
    tz_map pnames;      /* "pid" -> index into names[] */
    tz_map tnames;      /* "pid\x1ftid" -> index into names[] */
    tz_map tparent;     /* "pid\x1ftid" -> index into names[] of the parent thread's tid */
    char **names;
    size_t nnames, capnames;
    tz_map producers;   /* "p\x1fpid" / "t\x1fpid\x1ftid" / "g" -> producer id */
    tz_map types;       /* name -> type id (its first category wins) */
    tz_map typecat;     /* name -> category of the first registration */
    tz_map defs;        /* "type\x1fkey\x1fptype" -> def id */
    tz_imap open_top;   /* thread producer -> index of the innermost open B, -1 */
    ch_state *states;
    size_t nstates, capstates;
    ch_point *points;
    size_t npoints, cappoints;
    ch_queue *queues;
    size_t nqueues, capqueues;
    tz_map flows;       /* "cat\x1fid" -> queue index */
    tz_map asyncs;      /* "cat\x1fname\x1fid" -> top point index + 1 (0 = empty) */
    ch_var *vars;
    size_t nvars, capvars;
    int64_t max_ts;
    int have_ts;
    /* statistics */
    int64_t n_ignored[128];
    int64_t unmatched_e, unmatched_b, unmatched_f, unmatched_s, unmatched_async_end, unmatched_async_begin;
    int64_t bad_counter_values;
    int64_t bad_snapshot_values; /* 'O' members that are not numbers */
    int64_t bad_snapshots;       /* 'O' without args.snapshot */
    int64_t snapshot_refs;       /* 'O' members referring to another object */
    int64_t skipped_sections;  /* top-level sections holding data that is not read */
    const json_t *frames;      /* "stackFrames", NULL when absent */
    tz_map used_frames;        /* frame ids on some stack */
    tz_map tid_pid;            /* tid -> index into names[] of the pid of its first event */
    int64_t bad_stacks;        /* sf/stack values naming no known frame, or unreadable */
    int64_t emitted;           /* events written */
    int strict;
    traza_param *params;
    size_t capparams;
    tz_buf keybuf;
    char **tmpstr;      /* strings made for the event being written */
    size_t ntmp, captmp;
} ch_ctx;

static int oom(ch_ctx *c) { return traza_err_set(c->err, TRAZA_E_NOMEM, "%s: out of memory", c->path); }

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* The text form of a pid/tid/id (number or string) into b; 0 if absent/unusable. */
static int id_text(const json_t *v, tz_buf *b)
{
    if (!v)
        return 0;
    if (json_is_integer(v))
        tz_buf_printf(b, "%lld", (long long)json_integer_value(v));
    else if (json_is_string(v))
        tz_buf_put(b, json_string_value(v), json_string_length(v));
    else if (json_is_real(v))
        tz_buf_printf(b, "%.17g", json_real_value(v));
    else
        return 0;
    return 1;
}

/* Microseconds (JSON number) -> nanoseconds. */
static int us_to_ns(const json_t *v, int64_t *out)
{
    double d;
    if (json_is_integer(v)) {
        long long i = json_integer_value(v);
        if (i > INT64_MAX / 1000 || i < INT64_MIN / 1000)
            return -1;
        *out = (int64_t)i * 1000;
        return 0;
    }
    if (!json_is_real(v))
        return -1;
    d = json_real_value(v) * 1000.0;
    if (!isfinite(d) || d > 9.2e18 || d < -9.2e18)
        return -1;
    *out = (int64_t)llround(d);
    return 0;
}

static const char *ev_str(const json_t *ev, const char *key)
{
    const json_t *v = json_object_get(ev, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void note_ts(ch_ctx *c, int64_t ts)
{
    if (!c->have_ts || ts > c->max_ts)
        c->max_ts = ts;
    c->have_ts = 1;
}

/* ---- producers ------------------------------------------------------------ */

static int add_name(ch_ctx *c, tz_map *m, const char *key, const char *name)
{
    int64_t idx;
    if (tz_map_get(m, key, &idx)) {
        char *s = tz_strdup(name);
        if (!s)
            return oom(c);
        free(c->names[idx]);
        c->names[idx] = s;
        return 0;
    }
    if (TZ_GROW(c->names, c->capnames, c->nnames + 1) < 0)
        return oom(c);
    if (!(c->names[c->nnames] = tz_strdup(name)))
        return oom(c);
    /* Counted before the map is told, so that a failed put leaves the name owned. */
    c->nnames++;
    if (tz_map_put(m, key, (int64_t)c->nnames - 1) < 0)
        return oom(c);
    return 0;
}

/* The process producer of pid (text), made on first use. */
static int32_t process_producer(ch_ctx *c, const char *pid)
{
    tz_buf key;
    tz_buf_init(&key);
    tz_buf_printf(&key, "p\x1f%s", pid);
    int64_t v, ni;
    int32_t proc = -1;
    if (key.oom) {
        proc = oom(c);
    } else if (tz_map_get(&c->producers, key.s, &v)) {
        proc = (int32_t)v;
    } else {
        char *name = tz_map_get(&c->pnames, pid, &ni) ? tz_asprintf("%s (%s)", c->names[ni], pid) : tz_asprintf("pid %s", pid);
        if (!name)
            proc = oom(c);
        else if ((proc = traza_writer_producer(c->w, -1, name, "Process", c->err)) >= 0 && tz_map_put(&c->producers, key.s, proc) < 0)
            proc = oom(c);
        free(name);
    }
    tz_buf_free(&key);
    return proc;
}

/* The thread producer of (pid, tid), made on first use: under the thread its
 * metadata names as parent ("parent_tid", how traza keeps a deeper producer tree),
 * else under the process. depth bounds a parent chain that loops. */
static int32_t thread_producer(ch_ctx *c, int32_t proc, const char *pid, const char *tid, int depth)
{
    tz_buf key;
    tz_buf_init(&key);
    tz_buf_printf(&key, "t\x1f%s\x1f%s", pid, tid);
    int64_t v, ni;
    int32_t id = -1;
    if (key.oom) {
        id = oom(c);
        goto out;
    }
    if (tz_map_get(&c->producers, key.s, &v)) {
        id = (int32_t)v;
        goto out;
    }
    int32_t parent = proc;
    if (depth < 64 && tz_map_get(&c->tparent, key.s + 2, &ni) && strcmp(c->names[ni], tid) != 0 &&
        (parent = thread_producer(c, proc, pid, c->names[ni], depth + 1)) < 0)
        goto out;
    char *name = tz_map_get(&c->tnames, key.s + 2, &ni) ? tz_asprintf("%s (%s)", c->names[ni], tid) : tz_asprintf("tid %s", tid);
    if (!name) {
        id = oom(c);
        goto out;
    }
    id = traza_writer_producer(c->w, parent, name, "Thread", c->err);
    free(name);
    if (id >= 0 && tz_map_put(&c->producers, key.s, id) < 0)
        id = oom(c);
out:
    tz_buf_free(&key);
    return id;
}

static int32_t producer_for(ch_ctx *c, const json_t *ev, int scope_process)
{
    tz_buf pid, tid;
    tz_buf_init(&pid);
    tz_buf_init(&tid);
    int32_t id = -1;
    int has_pid = id_text(json_object_get(ev, "pid"), &pid);
    int has_tid = !scope_process && id_text(json_object_get(ev, "tid"), &tid);
    const char *sc = ev_str(ev, "s");
    if (!has_pid || (sc && strcmp(sc, "g") == 0)) {
        int64_t v;
        if (tz_map_get(&c->producers, "g", &v)) {
            id = (int32_t)v;
        } else if ((id = traza_writer_producer(c->w, -1, "global", "Global", c->err)) >= 0 &&
                   tz_map_put(&c->producers, "g", id) < 0) {
            id = oom(c);
        }
        goto out;
    }
    if (sc && strcmp(sc, "p") == 0)
        has_tid = 0;
    if (pid.oom || tid.oom) {
        id = oom(c);
        goto out;
    }
    int64_t ni;
    if (has_tid && !tz_map_get(&c->tid_pid, tid.s, &ni) && add_name(c, &c->tid_pid, tid.s, pid.s) < 0)
        goto out;
    id = process_producer(c, pid.s);
    if (id >= 0 && has_tid)
        id = thread_producer(c, id, pid.s, tid.s, 0);
out:
    tz_buf_free(&pid);
    tz_buf_free(&tid);
    return id;
}

/* ---- types and parameters ---------------------------------------------------- */

static int32_t type_for(ch_ctx *c, const char *name, traza_category cat)
{
    int64_t v, first;
    if (!name || !*name)
        name = "(unnamed)";
    if (tz_map_get(&c->typecat, name, &first) && first != cat) {
        /* One name used in two categories (e.g. an async span and its steps):
         * the later category gets a suffixed type. */
        char *alt = tz_asprintf("%s [%s]", name, traza_category_name(cat));
        if (!alt)
            return oom(c);
        int32_t id;
        if (tz_map_get(&c->types, alt, &v)) {
            id = (int32_t)v;
        } else {
            id = traza_writer_event_type(c->w, alt, cat, c->err);
            if (id >= 0 && tz_map_put(&c->types, alt, id) < 0)
                id = oom(c);
        }
        free(alt);
        return id;
    }
    if (tz_map_get(&c->types, name, &v))
        return (int32_t)v;
    int32_t id = traza_writer_event_type(c->w, name, cat, c->err);
    if (id < 0)
        return -1;
    if (tz_map_put(&c->types, name, id) < 0 || tz_map_put(&c->typecat, name, cat) < 0)
        return oom(c);
    return id;
}

static int32_t def_for(ch_ctx *c, int32_t type, const char *key, traza_ptype pt)
{
    tz_buf_reset(&c->keybuf);
    tz_buf_printf(&c->keybuf, "%d\x1f%s\x1f%d", type, key, (int)pt);
    if (c->keybuf.oom)
        return oom(c);
    int64_t v;
    if (tz_map_get(&c->defs, c->keybuf.s, &v))
        return (int32_t)v;
    /* First def under the plain name; a later one of another kind gets a suffix. */
    tz_buf k2;
    tz_buf_init(&k2);
    int taken = 0;
    for (int p = 0; p < 4; p++) {
        if (p == (int)pt)
            continue;
        tz_buf_reset(&k2);
        tz_buf_printf(&k2, "%d\x1f%s\x1f%d", type, key, p);
        if (k2.s && tz_map_get(&c->defs, k2.s, &v))
            taken = 1;
    }
    tz_buf_free(&k2);
    char *name = taken ? tz_asprintf("%s:%s", key, traza_ptype_name(pt)) : tz_strdup(key);
    if (!name)
        return oom(c);
    int32_t id = traza_writer_param_def(c->w, type, name, pt, c->err);
    free(name);
    if (id >= 0 && tz_map_put(&c->defs, c->keybuf.s, id) < 0)
        return oom(c);
    return id;
}

static int push_value(ch_ctx *c, size_t *n, int32_t type, const char *key, traza_value tv)
{
    int32_t d = def_for(c, type, key, tv.kind);
    if (d < 0)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (c->params[i].def == d)
            return 0; /* E args repeating a B arg: the B one stays */
    if (TZ_GROW(c->params, c->capparams, *n + 1) < 0)
        return oom(c);
    c->params[*n].def = d;
    c->params[*n].v = tv;
    (*n)++;
    return 0;
}

/* Keeps s (allocated) until the event is written; NULL s = out of memory. */
static const char *keep_tmp(ch_ctx *c, char *s)
{
    if (!s || TZ_GROW(c->tmpstr, c->captmp, c->ntmp + 1) < 0) {
        free(s);
        oom(c);
        return NULL;
    }
    return c->tmpstr[c->ntmp++] = s;
}

static int push_param(ch_ctx *c, size_t *n, int32_t type, const char *key, const json_t *val)
{
    traza_value tv = {TRAZA_PT_STRING, 0, 0, NULL};
    if (json_is_integer(val)) {
        tv.kind = TRAZA_PT_INT;
        tv.i = json_integer_value(val);
    } else if (json_is_real(val)) {
        tv.kind = TRAZA_PT_DOUBLE;
        tv.d = json_real_value(val);
    } else if (json_is_boolean(val)) {
        tv.kind = TRAZA_PT_INT;
        tv.i = json_is_true(val);
    } else if (json_is_string(val)) {
        tv.s = json_string_value(val);
    } else if (!(tv.s = keep_tmp(c, json_dumps(val, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)))) {
        return -1;
    }
    return push_value(c, n, type, key, tv);
}

/* ---- stacks ------------------------------------------------------------------- */

/* The path "root;...;leaf" of frame id in stackFrames into *out and the frames'
 * categories along it ("c1;...;cN", "" for a frame without one) into *cats, NULL when
 * no frame has one (both kept until the event is written); *out = NULL when a frame
 * on the way is unknown or the parent chain loops. */
static int frame_path(ch_ctx *c, const json_t *id, const char **out, const char **cats)
{
    enum { MAX_DEPTH = 4096 };
    const char **names = NULL, **fcats = NULL;
    size_t cap = 0, capc = 0, depth = 0;
    tz_buf key, path, cpath;
    tz_buf_init(&key);
    tz_buf_init(&path);
    tz_buf_init(&cpath);
    int rc = 0, ok = 0, any_cat = 0;
    *out = NULL;
    *cats = NULL;
    while (c->frames && depth < MAX_DEPTH) {
        tz_buf_reset(&key);
        if (!id_text(id, &key))
            break;
        if (key.oom) {
            rc = oom(c);
            break;
        }
        const json_t *f = json_object_get(c->frames, key.s);
        if (!json_is_object(f))
            break;
        if (tz_map_put(&c->used_frames, key.s, 1) < 0 || TZ_GROW(names, cap, depth + 1) < 0 || TZ_GROW(fcats, capc, depth + 1) < 0) {
            rc = oom(c);
            break;
        }
        const char *name = ev_str(f, "name"), *cat = ev_str(f, "category");
        any_cat |= cat && *cat;
        fcats[depth] = cat ? cat : "";
        names[depth++] = name ? name : "?";
        id = json_object_get(f, "parent");
        if (!id || json_is_null(id)) {
            ok = 1;
            break;
        }
    }
    if (rc == 0 && ok) {
        for (size_t i = depth; i-- > 0;) {
            tz_buf_printf(&path, "%s%s", names[i], i ? ";" : "");
            tz_buf_printf(&cpath, "%s%s", fcats[i], i ? ";" : "");
        }
        if (path.oom || cpath.oom)
            rc = oom(c);
        else if (!(*out = keep_tmp(c, tz_strdup(path.s ? path.s : ""))) ||
                 (any_cat && !(*cats = keep_tmp(c, tz_strdup(cpath.s ? cpath.s : "")))))
            rc = -1;
    }
    free(names);
    free(fcats);
    tz_buf_free(&key);
    tz_buf_free(&path);
    tz_buf_free(&cpath);
    return rc;
}

/* The stack of an event as parameter key: from the frame id under sf_key or the
 * frame array (root first) under stack_key; nothing when neither is there. The
 * categories of the frames of a frame id go to key_categories, "KEY_categories". */
static int push_stack(ch_ctx *c, size_t *n, int32_t type, const json_t *ev, const char *sf_key, const char *stack_key,
                      const char *key, const char *key_categories)
{
    const json_t *sf = json_object_get(ev, sf_key), *st = json_object_get(ev, stack_key);
    traza_value tv = {TRAZA_PT_STRING, 0, 0, NULL}, cv = tv;
    if (sf) {
        if (frame_path(c, sf, &tv.s, &cv.s) < 0)
            return -1;
    } else if (json_is_array(st)) {
        tz_buf b;
        tz_buf_init(&b);
        size_t i;
        const json_t *f;
        int ok = 1;
        json_array_foreach(st, i, f) {
            if (i)
                tz_buf_putc(&b, ';');
            ok = ok && id_text(f, &b);
        }
        if (b.oom) {
            tz_buf_free(&b);
            return oom(c);
        }
        if (ok && !(tv.s = keep_tmp(c, tz_strdup(b.s ? b.s : "")))) {
            tz_buf_free(&b);
            return -1;
        }
        tz_buf_free(&b);
    } else if (!st) {
        return 0;
    }
    if (!tv.s) {
        c->bad_stacks++;
        return 0;
    }
    if (push_value(c, n, type, key, tv) < 0)
        return -1;
    return cv.s ? push_value(c, n, type, key_categories, cv) : 0;
}

/* Parameters of an event: "cat" then every key of "args" (and of extra). */
static int build_params(ch_ctx *c, int32_t type, const json_t *ev, const json_t *extra, size_t *n)
{
    *n = 0;
    const char *cat = ev_str(ev, "cat");
    if (cat && *cat && push_param(c, n, type, "cat", json_object_get(ev, "cat")) < 0)
        return -1;
    if (push_stack(c, n, type, ev, "sf", "stack", "stack", "stack_categories") < 0 ||
        push_stack(c, n, type, ev, "esf", "estack", "end_stack", "end_stack_categories") < 0)
        return -1;
    const json_t *srcs[2] = {json_object_get(ev, "args"), extra ? json_object_get(extra, "args") : NULL};
    for (int s = 0; s < 2; s++) {
        if (!json_is_object(srcs[s]))
            continue;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)srcs[s], k, v) {
            if (push_param(c, n, type, k, v) < 0)
                return -1;
        }
    }
    return 0;
}

static void free_tmp(ch_ctx *c)
{
    for (size_t i = 0; i < c->ntmp; i++)
        free(c->tmpstr[i]);
    c->ntmp = 0;
}

static int emit(ch_ctx *c, traza_event *e, const json_t *ev, const json_t *extra)
{
    size_t n;
    int rc = build_params(c, e->type, ev, extra, &n);
    if (rc == 0) {
        e->params = c->params;
        e->nparams = (uint32_t)n;
        rc = traza_writer_event(c->w, e, c->err);
        c->emitted++;
    }
    free_tmp(c);
    return rc;
}

/* ---- phases ----------------------------------------------------------------- */

static int add_point(ch_ctx *c, int64_t ts, int32_t producer, json_t *ev)
{
    if (TZ_GROW(c->points, c->cappoints, c->npoints + 1) < 0)
        return oom(c);
    ch_point *p = &c->points[c->npoints++];
    p->ts = ts;
    p->producer = producer;
    p->next = -1;
    p->ev = ev;
    return 0;
}

static int emit_link(ch_ctx *c, const ch_point *from, int64_t ts, int32_t producer, json_t *end_ev)
{
    const char *name = ev_str(from->ev, "name");
    int32_t type = type_for(c, name, TRAZA_LINK);
    if (type < 0)
        return -1;
    traza_event e = {0};
    e.type = type;
    e.producer = from->producer;
    e.end_producer = producer;
    e.ts = from->ts;
    e.end_ts = ts < from->ts ? from->ts : ts;
    e.has = TRAZA_HAS_END | TRAZA_HAS_END_PRODUCER;
    return emit(c, &e, from->ev, end_ev);
}

static int key_of(ch_ctx *c, const json_t *ev, int with_name)
{
    tz_buf_reset(&c->keybuf);
    const char *cat = ev_str(ev, "cat");
    tz_buf_puts(&c->keybuf, cat ? cat : "");
    tz_buf_putc(&c->keybuf, '\x1f');
    if (with_name) {
        const char *name = ev_str(ev, "name");
        tz_buf_puts(&c->keybuf, name ? name : "");
        tz_buf_putc(&c->keybuf, '\x1f');
    }
    const json_t *id = json_object_get(ev, "id");
    if (!id) {
        const json_t *id2 = json_object_get(ev, "id2");
        if (json_is_object(id2))
            id = json_object_get(id2, "local") ? json_object_get(id2, "local") : json_object_get(id2, "global");
    }
    id_text(id, &c->keybuf);
    if (c->keybuf.oom)
        return oom(c);
    if (!c->keybuf.s)
        tz_buf_puts(&c->keybuf, "");
    return 0;
}

static int do_flow(ch_ctx *c, char ph, json_t *ev, int64_t ts, int32_t producer)
{
    if (key_of(c, ev, 0) < 0)
        return -1;
    int64_t qi;
    int have = tz_map_get(&c->flows, c->keybuf.s, &qi);
    if (ph == 's') {
        if (!have) {
            if (TZ_GROW(c->queues, c->capqueues, c->nqueues + 1) < 0)
                return oom(c);
            qi = (int64_t)c->nqueues++;
            c->queues[qi].head = c->queues[qi].tail = -1;
            if (tz_map_put(&c->flows, c->keybuf.s, qi) < 0)
                return oom(c);
        }
        if (add_point(c, ts, producer, ev) < 0)
            return -1;
        int64_t pi = (int64_t)c->npoints - 1;
        if (c->queues[qi].tail >= 0)
            c->points[c->queues[qi].tail].next = pi;
        else
            c->queues[qi].head = pi;
        c->queues[qi].tail = pi;
        c->unmatched_s++;
        return 0;
    }
    if (!have || c->queues[qi].head < 0) {
        c->unmatched_f++; /* 't' or 'f' without a pending 's' */
        return 0;
    }
    ch_point *head = &c->points[c->queues[qi].head];
    if (emit_link(c, head, ts, producer, ev) < 0)
        return -1;
    if (ph == 't') {
        head->ts = ts < head->ts ? head->ts : ts;
        head->producer = producer;
        return 0;
    }
    c->unmatched_s--;
    c->queues[qi].head = head->next;
    if (head->next < 0)
        c->queues[qi].tail = -1;
    return 0;
}

static int do_async(ch_ctx *c, int begin, json_t *ev, int64_t ts, int32_t producer)
{
    if (key_of(c, ev, 1) < 0)
        return -1;
    int64_t top = 0;
    tz_map_get(&c->asyncs, c->keybuf.s, &top);
    if (begin) {
        if (add_point(c, ts, producer, ev) < 0)
            return -1;
        c->points[c->npoints - 1].next = top - 1;
        c->unmatched_async_begin++;
        return tz_map_put(&c->asyncs, c->keybuf.s, (int64_t)c->npoints) < 0 ? oom(c) : 0;
    }
    if (top == 0) {
        c->unmatched_async_end++;
        return 0;
    }
    ch_point *p = &c->points[top - 1];
    c->unmatched_async_begin--;
    if (tz_map_put(&c->asyncs, c->keybuf.s, p->next + 1) < 0)
        return oom(c);
    return emit_link(c, p, ts, producer, ev);
}

/* One sample of the variable `tname` (a number, or with `strings` a string holding
 * one): 1 stored, 0 not a number, -1 error. */
static int add_var(ch_ctx *c, const char *tname, const json_t *v, int strings, int64_t ts, int32_t producer)
{
    double d;
    if (json_is_number(v))
        d = json_number_value(v);
    else if (!strings || !json_is_string(v) || tz_parse_double(json_string_value(v), json_string_length(v), &d) < 0)
        return 0;
    if (!isfinite(d))
        return 0;
    int32_t type = type_for(c, tname, TRAZA_VARIABLE);
    if (type < 0)
        return -1;
    if (TZ_GROW(c->vars, c->capvars, c->nvars + 1) < 0)
        return oom(c);
    ch_var *cv = &c->vars[c->nvars];
    cv->ts = ts;
    cv->producer = producer;
    cv->type = type;
    cv->value = d;
    cv->index = c->nvars++;
    return 1;
}

/* The series name of a counter or an object: NAME, or NAME[ID] with an id. */
static void series_base(const json_t *ev, const char *fallback, tz_buf *base)
{
    const char *name = ev_str(ev, "name");
    tz_buf_puts(base, name && *name ? name : fallback);
    const json_t *id = json_object_get(ev, "id");
    if (id) {
        tz_buf_putc(base, '[');
        id_text(id, base);
        tz_buf_putc(base, ']');
    }
}

static int do_counter(ch_ctx *c, json_t *ev, int64_t ts, int32_t producer)
{
    const json_t *args = json_object_get(ev, "args");
    if (!json_is_object(args))
        return 0;
    tz_buf path; /* NAME[ID].KEY */
    tz_buf_init(&path);
    series_base(ev, "counter", &path);
    size_t len = path.len;
    const char *k;
    json_t *v;
    int rc = 0;
    json_object_foreach((json_t *)args, k, v) {
        path.len = len;
        tz_buf_putc(&path, '.');
        tz_buf_puts(&path, k);
        if (path.oom) {
            rc = oom(c);
            break;
        }
        if ((rc = add_var(c, path.s, v, 1, ts, producer)) < 0)
            break;
        c->bad_counter_values += rc == 0;
        rc = 0;
    }
    tz_buf_free(&path);
    return rc;
}

/* The numbers of an object snapshot: every JSON number reached through objects
 * (members joined by '.') is a sample of the variable BASE.PATH. Other values are
 * counted: strings (in snapshots they are text: URLs, states, addresses), booleans,
 * null, arrays, and references to other objects (an object with an `id_ref`, whose
 * numbers are identities, not quantities). `path` holds BASE.PATH so far. */
static int snapshot_values(ch_ctx *c, const json_t *obj, tz_buf *path, int64_t ts, int32_t producer, int depth)
{
    const char *k;
    json_t *v;
    size_t len = path->len;
    json_object_foreach((json_t *)obj, k, v) {
        path->len = len;
        tz_buf_putc(path, '.');
        tz_buf_puts(path, k);
        if (path->oom)
            return oom(c);
        int rc;
        if (json_is_object(v) && json_object_get(v, "id_ref"))
            rc = 0, c->snapshot_refs++;
        else if (json_is_object(v))
            rc = depth < 32 ? snapshot_values(c, v, path, ts, producer, depth + 1) : (c->bad_snapshot_values++, 0);
        else if ((rc = add_var(c, path->s, v, 0, ts, producer)) == 0)
            c->bad_snapshot_values++;
        if (rc < 0)
            return -1;
    }
    path->len = len;
    if (path->s)
        path->s[len] = 0;
    return 0;
}

/* 'O': the snapshot's numbers as variables of the object (NAME[ID].MEMBER...) on the
 * snapshot's thread, each holding until the object's next snapshot. */
static int do_snapshot(ch_ctx *c, json_t *ev, int64_t ts, int32_t producer)
{
    const json_t *args = json_object_get(ev, "args");
    const json_t *snap = json_is_object(args) ? json_object_get(args, "snapshot") : NULL;
    if (!json_is_object(snap)) {
        c->bad_snapshots++;
        return 0;
    }
    tz_buf path;
    tz_buf_init(&path);
    series_base(ev, "object", &path);
    int rc = path.oom ? oom(c) : snapshot_values(c, snap, &path, ts, producer, 0);
    tz_buf_free(&path);
    return rc;
}

/* 'N' / 'D': a punctual "NAME created" / "NAME deleted" with the object's id. */
static int do_object_life(ch_ctx *c, char ph, json_t *ev, int64_t ts, int32_t producer)
{
    const char *name = ev_str(ev, "name");
    char *tname = tz_asprintf("%s %s", name && *name ? name : "object", ph == 'N' ? "created" : "deleted");
    if (!tname)
        return oom(c);
    traza_event e = {0};
    e.ts = ts;
    e.producer = producer;
    e.type = type_for(c, tname, TRAZA_PUNCTUAL);
    free(tname);
    if (e.type < 0)
        return -1;
    const json_t *id = json_object_get(ev, "id");
    json_t *extra = id ? json_pack("{s:{s:O}}", "args", "id", (json_t *)id) : NULL;
    if (id && !extra)
        return oom(c);
    int rc = emit(c, &e, ev, extra);
    json_decref(extra);
    return rc;
}

static int add_state(ch_ctx *c, int64_t start, int64_t end, int32_t producer, json_t *ev)
{
    int32_t type = type_for(c, ev_str(ev, "name"), TRAZA_STATE);
    if (type < 0)
        return -1;
    if (TZ_GROW(c->states, c->capstates, c->nstates + 1) < 0)
        return oom(c);
    ch_state *s = &c->states[c->nstates];
    memset(s, 0, sizeof *s);
    s->start = start;
    s->end = end;
    s->producer = producer;
    s->type = type;
    s->prev_open = -1;
    s->index = c->nstates++;
    s->ev = ev;
    return 0;
}

static int do_event(ch_ctx *c, json_t *ev, size_t idx)
{
    if (!json_is_object(ev))
        return traza_err_set(c->err, TRAZA_E_PARSE, "%s: event #%zu: expected an object, found %s", c->path, idx, json_kind(ev));
    const json_t *phv = json_object_get(ev, "ph");
    if (!json_is_string(phv) || json_string_length(phv) != 1)
        return traza_err_set(c->err, TRAZA_E_PARSE, "%s: event #%zu: expected 'ph' as a one-letter string, found %s", c->path,
                             idx, phv ? json_kind(phv) : "nothing");
    char ph = json_string_value(phv)[0];
    if (ph == 'M')
        return 0; /* handled in the first pass */
    switch (ph) {
    case 'B': case 'E': case 'X': case 'i': case 'I': case 'R': case 'n': case 'T': case 'p': case 'P': case 'C':
    case 's': case 't': case 'f': case 'S': case 'F': case 'b': case 'e': case 'O': case 'N': case 'D':
        break;
    default:
        c->n_ignored[(unsigned char)ph & 127]++;
        return 0;
    }
    const json_t *tsv = json_object_get(ev, "ts");
    int64_t ts;
    if (!tsv || us_to_ns(tsv, &ts) < 0) {
        const char *name = ev_str(ev, "name");
        return traza_err_set(c->err, TRAZA_E_PARSE, "%s: event #%zu (ph '%c', name '%s'): expected 'ts' as a number of microseconds, found %s",
                             c->path, idx, ph, name ? name : "", tsv ? json_kind(tsv) : "nothing");
    }
    note_ts(c, ts);
    int32_t prod = producer_for(c, ev, ph == 'C' || ph == 'O' || ph == 'N' || ph == 'D'); /* counters and objects belong to the process */
    if (prod < 0)
        return -1;
    switch (ph) {
    case 'B':
        if (add_state(c, ts, -1, prod, ev) < 0)
            return -1;
        {
            int64_t top = -1;
            tz_imap_get(&c->open_top, prod, &top);
            c->states[c->nstates - 1].prev_open = top;
            if (tz_imap_put(&c->open_top, prod, (int64_t)c->nstates - 1) < 0)
                return oom(c);
        }
        return 0;
    case 'E': {
        int64_t top = -1;
        tz_imap_get(&c->open_top, prod, &top);
        if (top < 0) {
            c->unmatched_e++;
            return 0;
        }
        ch_state *s = &c->states[top];
        s->end = ts < s->start ? s->start : ts;
        s->end_ev = ev;
        return tz_imap_put(&c->open_top, prod, s->prev_open) < 0 ? oom(c) : 0;
    }
    case 'X': {
        const json_t *dv = json_object_get(ev, "dur");
        int64_t dur = 0;
        if (dv && (us_to_ns(dv, &dur) < 0 || dur < 0))
            return traza_err_set(c->err, TRAZA_E_PARSE, "%s: event #%zu (ph 'X'): expected 'dur' as a non-negative number, found %s",
                                 c->path, idx, json_kind(dv));
        if (dur > INT64_MAX - ts)
            return traza_err_set(c->err, TRAZA_E_PARSE, "%s: event #%zu (ph 'X'): ts + dur overflows", c->path, idx);
        note_ts(c, ts + dur);
        return add_state(c, ts, ts + dur, prod, ev);
    }
    case 'C':
        return do_counter(c, ev, ts, prod);
    case 'O':
        return do_snapshot(c, ev, ts, prod);
    case 'N': case 'D':
        return do_object_life(c, ph, ev, ts, prod);
    case 's': case 't': case 'f':
        return do_flow(c, ph, ev, ts, prod);
    case 'S': case 'b':
        return do_async(c, 1, ev, ts, prod);
    case 'F': case 'e':
        return do_async(c, 0, ev, ts, prod);
    default: { /* i I R n T p P */
        traza_event e = {0};
        e.ts = ts;
        e.producer = prod;
        if ((e.type = type_for(c, ev_str(ev, "name"), TRAZA_PUNCTUAL)) < 0)
            return -1;
        return emit(c, &e, ev, NULL);
    }
    }
}

/* One entry of "samples": a punctual event "sample" on its thread. */
static int do_sample(ch_ctx *c, const json_t *sm, size_t idx)
{
    if (!json_is_object(sm))
        return traza_err_set(c->err, TRAZA_E_PARSE, "%s: samples #%zu: expected an object, found %s", c->path, idx, json_kind(sm));
    const json_t *tsv = json_object_get(sm, "ts");
    int64_t ts;
    if (!tsv || us_to_ns(tsv, &ts) < 0)
        return traza_err_set(c->err, TRAZA_E_PARSE, "%s: samples #%zu: expected 'ts' as a number of microseconds, found %s", c->path,
                             idx, tsv ? json_kind(tsv) : "nothing");
    note_ts(c, ts);
    tz_buf pid, tid;
    tz_buf_init(&pid);
    tz_buf_init(&tid);
    int32_t prod = -1;
    int has_tid = id_text(json_object_get(sm, "tid"), &tid);
    int64_t ni;
    if (!id_text(json_object_get(sm, "pid"), &pid) && has_tid && !tid.oom && tz_map_get(&c->tid_pid, tid.s, &ni))
        tz_buf_puts(&pid, c->names[ni]);
    int on_thread = pid.s && has_tid;
    if (pid.oom || tid.oom)
        prod = oom(c);
    else if (!pid.s)
        prod = producer_for(c, sm, 0); /* the global producer; the tid stays a parameter */
    else if ((prod = process_producer(c, pid.s)) >= 0 && has_tid)
        prod = thread_producer(c, prod, pid.s, tid.s, 0);
    tz_buf_free(&pid);
    tz_buf_free(&tid);
    if (prod < 0)
        return -1;
    traza_event e = {0};
    e.ts = ts;
    e.producer = prod;
    if ((e.type = type_for(c, "sample", TRAZA_PUNCTUAL)) < 0)
        return -1;
    size_t n = 0;
    const char *k;
    json_t *v;
    int rc = push_stack(c, &n, e.type, sm, "sf", "stack", "stack", "stack_categories");
    json_object_foreach((json_t *)sm, k, v) {
        if (rc < 0)
            break;
        if (strcmp(k, "ts") != 0 && strcmp(k, "pid") != 0 && (strcmp(k, "tid") != 0 || !on_thread) && strcmp(k, "sf") != 0 && strcmp(k, "stack") != 0)
            rc = push_param(c, &n, e.type, k, v);
    }
    if (rc == 0) {
        e.params = c->params;
        e.nparams = (uint32_t)n;
        rc = traza_writer_event(c->w, &e, c->err);
        c->emitted++;
    }
    free_tmp(c);
    return rc;
}

static int meta_pass(ch_ctx *c, json_t *events)
{
    size_t i;
    json_t *ev;
    tz_buf key;
    tz_buf_init(&key);
    int rc = 0;
    json_array_foreach(events, i, ev) {
        const char *ph = ev_str(ev, "ph");
        if (!ph || strcmp(ph, "M") != 0)
            continue;
        const char *what = ev_str(ev, "name");
        const json_t *args = json_object_get(ev, "args");
        const char *name = json_is_object(args) ? ev_str(args, "name") : NULL;
        if (!what || !name)
            continue;
        tz_buf_reset(&key);
        if (!id_text(json_object_get(ev, "pid"), &key))
            continue;
        if (strcmp(what, "process_name") == 0) {
            if (key.oom || add_name(c, &c->pnames, key.s, name) < 0) {
                rc = key.oom ? oom(c) : -1;
                break;
            }
        } else if (strcmp(what, "thread_name") == 0) {
            tz_buf_putc(&key, '\x1f');
            if (!id_text(json_object_get(ev, "tid"), &key))
                continue;
            if (key.oom || add_name(c, &c->tnames, key.s, name) < 0) {
                rc = key.oom ? oom(c) : -1;
                break;
            }
            tz_buf parent;
            tz_buf_init(&parent);
            if (id_text(json_object_get(args, "parent_tid"), &parent) &&
                (parent.oom || add_name(c, &c->tparent, key.s, parent.s) < 0))
                rc = parent.oom ? oom(c) : -1;
            tz_buf_free(&parent);
            if (rc < 0)
                break;
        }
    }
    /* Every named process and thread is a producer, with events or not. */
    json_array_foreach(events, i, ev) {
        const char *ph = ev_str(ev, "ph");
        const char *what = ev_str(ev, "name");
        if (rc < 0 || !ph || strcmp(ph, "M") != 0 || !what)
            continue;
        int proc = strcmp(what, "process_name") == 0;
        if ((proc || strcmp(what, "thread_name") == 0) && json_object_get(ev, "pid") &&
            (proc || json_object_get(ev, "tid")) && producer_for(c, ev, proc) < 0)
            rc = -1;
    }
    tz_buf_free(&key);
    return rc;
}

static int state_cmp(const void *a, const void *b)
{
    const ch_state *x = a, *y = b;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int var_cmp(const void *a, const void *b)
{
    const ch_var *x = a, *y = b;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Says exactly what was not imported; a strict import, or one that would hold no
 * event while inputs were skipped, fails with the counts. */
static int report_skipped(ch_ctx *c)
{
    static const struct { char ph; const char *key, *what; } names[] = {
        {'c', "clock_syncs", "clock syncs ('c')"}, {'(', "context_enters", "context enters ('(')"},
        {')', "context_leaves", "context leaves (')')"}, {'v', "memory_dumps", "memory dumps ('v')"}, {'V', "memory_dumps_V", "memory dumps ('V')"},
    };
    tz_skips sk;
    tz_skips_init(&sk, c->ctx, c->w, c->path, c->err);
    for (int ph = 0; ph < 128; ph++) {
        if (!c->n_ignored[ph])
            continue;
        char key[32], what[64];
        snprintf(key, sizeof key, "phase_%d", ph);
        snprintf(what, sizeof what, "events of the unsupported phase '%c'", ph >= 32 && ph < 127 ? ph : '?');
        const char *k = key, *wh = what;
        for (size_t j = 0; j < sizeof names / sizeof names[0]; j++)
            if (names[j].ph == ph) {
                k = names[j].key;
                wh = names[j].what;
            }
        tz_skips_note(&sk, k, wh, c->n_ignored[ph]);
    }
    const tz_skip_kind kinds[] = {
        {"unmatched_E", "'E' events without an open 'B' on their thread", c->unmatched_e},
        {"unmatched_flow_s", "flow 's' events without an 'f'", c->unmatched_s},
        {"unmatched_flow_f", "flow 't'/'f' events without an 's'", c->unmatched_f},
        {"unmatched_async_begin", "async begins without an end", c->unmatched_async_begin},
        {"unmatched_async_end", "async ends without a begin", c->unmatched_async_end},
        {"counter_values", "non-numeric counter values", c->bad_counter_values},
        {"snapshot_values", "object snapshot values that are not numbers (strings, booleans, null, arrays)", c->bad_snapshot_values},
        {"snapshot_refs", "references to other objects in object snapshots (id_ref)", c->snapshot_refs},
        {"snapshots", "object snapshots without an args.snapshot object", c->bad_snapshots},
        {"sections", "sections other than traceEvents, samples and stackFrames (systemTraceEvents)", c->skipped_sections},
        {"stacks", "stacks naming an unknown frame (sf, stack)", c->bad_stacks},
        {"stack_frames", "stack frames on no stack", c->frames ? (int64_t)json_object_size(c->frames) - (int64_t)c->used_frames.count : 0},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        tz_skips_note(&sk, kinds[k].key, kinds[k].what, kinds[k].n);
    if (sk.rc == 0 && c->unmatched_b)
        traza_log(c->ctx, TRAZA_LOG_WARN, "%s: %lld 'B' event(s) never ended: closed at the trace end", c->path, (long long)c->unmatched_b);
    return tz_skips_finish(&sk, c->strict, c->emitted);
}

static int finish(ch_ctx *c)
{
    /* States: close what is still open at the trace end, then nesting levels. */
    for (size_t i = 0; i < c->nstates; i++)
        if (c->states[i].end < 0) {
            c->states[i].end = c->max_ts;
            c->unmatched_b++;
        }
    if (c->nstates)
        qsort(c->states, c->nstates, sizeof *c->states, state_cmp);
    int64_t *stack = NULL;
    size_t cap = 0, depth = 0;
    for (size_t i = 0; i < c->nstates; i++) {
        ch_state *s = &c->states[i];
        if (i == 0 || c->states[i - 1].producer != s->producer)
            depth = 0;
        while (depth > 0 && stack[depth - 1] <= s->start && !(stack[depth - 1] == s->start && s->end == s->start))
            depth--;
        if (TZ_GROW(stack, cap, depth + 1) < 0) {
            free(stack);
            return oom(c);
        }
        s->level = (int32_t)depth;
        stack[depth++] = s->end;
        traza_event e = {0};
        e.ts = s->start;
        e.end_ts = s->end;
        e.type = s->type;
        e.producer = s->producer;
        e.level = s->level;
        e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
        if (emit(c, &e, s->ev, s->end_ev) < 0) {
            free(stack);
            return -1;
        }
    }
    free(stack);
    /* Counters: each sample holds until the next one of its series. */
    if (c->nvars)
        qsort(c->vars, c->nvars, sizeof *c->vars, var_cmp);
    for (size_t i = 0; i < c->nvars; i++) {
        const ch_var *v = &c->vars[i];
        traza_event e = {0};
        e.ts = v->ts;
        e.type = v->type;
        e.producer = v->producer;
        e.value = v->value;
        e.end_ts = c->max_ts;
        if (i + 1 < c->nvars && c->vars[i + 1].producer == v->producer && c->vars[i + 1].type == v->type)
            e.end_ts = c->vars[i + 1].ts;
        e.has = TRAZA_HAS_END | TRAZA_HAS_VALUE;
        if (traza_writer_event(c->w, &e, c->err) < 0)
            return -1;
        c->emitted++;
    }
    return report_skipped(c);
}

static void ctx_free(ch_ctx *c)
{
    for (size_t i = 0; i < c->nnames; i++)
        free(c->names[i]);
    free(c->names);
    tz_map_free(&c->pnames);
    tz_map_free(&c->tnames);
    tz_map_free(&c->tparent);
    tz_map_free(&c->producers);
    tz_map_free(&c->types);
    tz_map_free(&c->typecat);
    tz_map_free(&c->defs);
    tz_map_free(&c->flows);
    tz_map_free(&c->asyncs);
    tz_map_free(&c->used_frames);
    tz_map_free(&c->tid_pid);
    tz_imap_free(&c->open_top);
    free(c->states);
    free(c->points);
    free(c->queues);
    free(c->vars);
    free(c->params);
    free_tmp(c);
    free(c->tmpstr);
    tz_buf_free(&c->keybuf);
}

/* ---- loading -------------------------------------------------------------- */

int tz_chrome_parse(const char *path, const char *data, size_t len, json_t **root, traza_err *err)
{
    json_error_t je;
    *root = json_loadb(data, len, JSON_ALLOW_NUL, &je);
    if (*root)
        return 0;
    /* The format allows an array form whose closing ']' is missing (a trace cut
     * short by its writer): retry with the tail closed before reporting. */
    size_t b = 0, e = len;
    while (b < len && strchr(" \t\r\n", data[b]))
        b++;
    while (e > b && strchr(" \t\r\n,", data[e - 1]))
        e--;
    if (b < len && data[b] == '[' && e > b && data[e - 1] != ']' && e < SIZE_MAX - 1) {
        char *copy = malloc(e + 1);
        if (!copy)
            return traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory", path);
        memcpy(copy, data, e);
        copy[e] = ']';
        json_error_t je2;
        *root = json_loadb(copy, e + 1, JSON_ALLOW_NUL, &je2);
        free(copy);
        if (*root)
            return 1;
    }
    return traza_err_set(err, TRAZA_E_PARSE, "%s:%d:%d: invalid JSON: %s (byte offset %d)", path, je.line, je.column, je.text,
                         je.position);
}

int tz_chrome_events(const char *path, json_t *root, json_t **events, traza_err *err)
{
    if (json_is_array(root)) {
        *events = root;
        return 0;
    }
    if (!json_is_object(root))
        return traza_err_set(err, TRAZA_E_PARSE, "%s: expected a JSON array of events or an object with \"traceEvents\", found %s", path,
                             json_kind(root));
    json_t *te = json_object_get(root, "traceEvents");
    if (!te)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: expected an object with a \"traceEvents\" array, found no such key", path);
    if (!json_is_array(te))
        return traza_err_set(err, TRAZA_E_PARSE, "%s: expected \"traceEvents\" to be an array, found %s", path, json_kind(te));
    *events = te;
    return 0;
}

int tz_input_slurp(const char *path, char **out, size_t *len, traza_err *err)
{
    tz_input *in = tz_input_open(path, err);
    if (!in)
        return -1;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        tz_input_close(in);
        return traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (cap - n < 4096) {
            if (cap > SIZE_MAX / 2) {
                free(buf);
                tz_input_close(in);
                return traza_err_set(err, TRAZA_E_NOMEM, "%s: file too large", path);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                tz_input_close(in);
                return traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        long r = tz_input_read(in, buf + n, cap - n - 1, err);
        if (r < 0) {
            free(buf);
            tz_input_close(in);
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    tz_input_close(in);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

int tz_chrome_import_json(traza_ctx *ctx, traza_writer *w, const char *path, json_t *root, int strict, traza_err *err)
{
    json_t *events;
    if (tz_chrome_events(path, root, &events, err) < 0)
        return -1;
    ch_ctx c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.w = w;
    c.err = err;
    c.path = path;
    c.strict = strict;
    c.frames = json_is_object(root) ? json_object_get(root, "stackFrames") : NULL;
    if (c.frames && !json_is_object(c.frames))
        return traza_err_set(err, TRAZA_E_PARSE, "%s: expected \"stackFrames\" to be an object (id -> frame), found %s", path,
                             json_kind(c.frames));
    /* Sections beside traceEvents that hold data this importer does not read. */
    static const char *const other[] = {"systemTraceEvents"};
    for (size_t k = 0; json_is_object(root) && k < sizeof other / sizeof other[0]; k++) {
        const json_t *v = json_object_get(root, other[k]);
        if ((json_is_string(v) && json_string_length(v)) || (json_is_array(v) && json_array_size(v)) ||
            (json_is_object(v) && json_object_size(v)))
            c.skipped_sections++;
    }
    tz_map_init(&c.pnames);
    tz_map_init(&c.tnames);
    tz_map_init(&c.tparent);
    tz_map_init(&c.producers);
    tz_map_init(&c.types);
    tz_map_init(&c.typecat);
    tz_map_init(&c.defs);
    tz_map_init(&c.flows);
    tz_map_init(&c.asyncs);
    tz_map_init(&c.used_frames);
    tz_map_init(&c.tid_pid);
    tz_imap_init(&c.open_top);
    tz_buf_init(&c.keybuf);
    int rc = meta_pass(&c, events);
    size_t i, n = json_array_size(events);
    for (i = 0; rc == 0 && i < n; i++) {
        rc = do_event(&c, json_array_get(events, i), i);
        if (rc == 0 && (i & 4095) == 0 && traza_progress(ctx, "import chrome", i, n))
            rc = traza_err_set(err, TRAZA_E_CANCELLED, "cancelled");
    }
    json_t *samples = json_is_object(root) ? json_object_get(root, "samples") : NULL;
    if (rc == 0 && samples && !json_is_array(samples))
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: expected \"samples\" to be an array, found %s", path, json_kind(samples));
    for (i = 0; rc == 0 && i < json_array_size(samples); i++)
        rc = do_sample(&c, json_array_get(samples, i), i);
    if (rc == 0)
        rc = finish(&c);
    if (rc == 0) {
        traza_writer_set_time_unit(w, -9);
        const char *dtu = json_is_object(root) ? ev_str(root, "displayTimeUnit") : NULL;
        if (dtu && traza_writer_set_param(w, "displayTimeUnit", dtu, err) < 0)
            rc = -1;
    }
    ctx_free(&c);
    return rc;
}

static int chrome_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                       traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "chrome: expected one JSON file, got %zu", npaths);
    char *data;
    size_t len;
    if (tz_input_slurp(paths[0], &data, &len, err) < 0)
        return -1;
    json_t *root;
    int pr = tz_chrome_parse(paths[0], data, len, &root, err);
    free(data);
    if (pr < 0)
        return -1;
    if (pr == 1)
        traza_log(ctx, TRAZA_LOG_WARN, "%s: the event array is not closed (allowed by the format): read to the end", paths[0]);
    int rc = tz_chrome_import_json(ctx, w, paths[0], root, opts && opts->strict, err);
    json_decref(root);
    return rc;
}

static int chrome_detect(const char *path, const unsigned char *head, size_t len)
{
    if (!head)
        return 0;
    if (len >= 2 && ((head[0] == 0x1f && head[1] == 0x8b) || (len >= 4 && memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0) ||
                     (len >= 6 && memcmp(head, "\xfd" "7zXZ", 5) == 0))) {
        /* Compressed: look at the start of the decompressed data instead. */
        unsigned char buf[4096];
        traza_err e;
        tz_input *in = path ? tz_input_open(path, &e) : NULL;
        if (!in)
            return 0;
        long r = tz_input_read(in, buf, sizeof buf, &e);
        tz_input_close(in);
        if (r <= 0 || buf[0] == 0x1f)
            return 0;
        return chrome_detect(NULL, buf, (size_t)r);
    }
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", head[i]))
        i++;
    if (i >= len)
        return 0;
    int score = 0;
    /* Search the head for the markers of trace events. */
    const char *h = (const char *)head;
    size_t n = len - i;
    int has_ph = memmem(h + i, n, "\"ph\"", 4) != NULL;
    int has_te = memmem(h + i, n, "\"traceEvents\"", 13) != NULL;
    if (head[i] == '{' && has_te)
        score = 90;
    else if (head[i] == '[' && has_ph)
        score = 80;
    else if ((head[i] == '{' || head[i] == '[') && path && (strstr(path, ".json") != NULL))
        score = 20;
    return score;
}

const traza_importer tz_importer_chrome = {
    "chrome", "import-chrome", "Chrome trace-event JSON (array or {\"traceEvents\"}, .json.gz too)", chrome_detect, chrome_read,
};

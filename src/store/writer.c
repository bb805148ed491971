/* Writing a new trace: ids, get-or-create maps and consistency checks, above the
 * backend. Nothing is published before traza_writer_commit. */
#include "store/store_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct traza_writer {
    traza_workspace *ws;
    tz_wstate *st;
    char *name, *format;
    int time_unit;
    tz_map producers;   /* "<parent>\x1f<name>" -> id */
    tz_map types;       /* name -> id */
    tz_map defs;        /* "<type>\x1f<name>" -> id */
    traza_category *type_cat;
    size_t ntypes, captypes;
    traza_ptype *def_ptype;
    int32_t *def_type;
    uint8_t *def_const;  /* 1: one value for the whole type (traza_writer_param_const) */
    size_t ndefs, capdefs, capdeftype, capdefconst;
    int32_t nproducers;
    int64_t events, cat[TRAZA_NCATEGORIES];
    int64_t min_ts, max_ts, last_ts;
    int sorted;
    int replace;        /* the commit replaces a trace of the same name, if any */
    char **sources;
    size_t nsources, capsources;
    traza_kv *params;
    size_t nparams, capparams;
    tz_buf key;
};

static traza_writer *writer_begin(traza_workspace *ws, const char *name, const char *format, int replace,
                                  traza_err *err)
{
    if (!name || !*name) {
        traza_err_set(err, TRAZA_E_USAGE, "a trace name cannot be empty");
        return NULL;
    }
    if (tz_utf8_invalid(name, strlen(name)) >= 0) {
        traza_err_set(err, TRAZA_E_USAGE, "the trace name is not valid UTF-8");
        return NULL;
    }
    int taken = replace ? 0 : ws->b->ops->name_taken(ws->b, name, err);
    if (taken < 0)
        return NULL;
    if (taken) {
        traza_err_set(err, TRAZA_E_EXISTS, "a trace named '%s' already exists", name);
        return NULL;
    }
    traza_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->name = tz_strdup(name)) || !(w->format = tz_strdup(format ? format : "unknown"))) {
        if (w) free(w->name);
        free(w);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    w->ws = ws;
    w->replace = replace;
    w->time_unit = -9;
    w->sorted = 1;
    w->min_ts = INT64_MAX;
    w->max_ts = INT64_MIN;
    w->last_ts = INT64_MIN;
    tz_map_init(&w->producers);
    tz_map_init(&w->types);
    tz_map_init(&w->defs);
    tz_buf_init(&w->key);
    if (ws->b->ops->w_begin(ws->b, name, &w->st, err) < 0) {
        free(w->name);
        free(w->format);
        free(w);
        return NULL;
    }
    return w;
}

traza_writer *traza_writer_begin(traza_workspace *ws, const char *name, const char *format, traza_err *err)
{
    return writer_begin(ws, name, format, 0, err);
}

traza_writer *traza_writer_begin_replacing(traza_workspace *ws, const char *name, const char *format, traza_err *err)
{
    return writer_begin(ws, name, format, 1, err);
}

static void writer_free(traza_writer *w)
{
    tz_map_free(&w->producers);
    tz_map_free(&w->types);
    tz_map_free(&w->defs);
    tz_buf_free(&w->key);
    free(w->type_cat);
    free(w->def_ptype);
    free(w->def_type);
    free(w->def_const);
    for (size_t i = 0; i < w->nsources; i++)
        free(w->sources[i]);
    free(w->sources);
    for (size_t i = 0; i < w->nparams; i++) {
        free(w->params[i].key);
        free(w->params[i].value);
    }
    free(w->params);
    free(w->name);
    free(w->format);
    free(w);
}

void traza_writer_set_layout(traza_writer *w, traza_layout layout)
{
    if (w && w->ws->b->ops->w_layout && layout != TRAZA_LAYOUT_AUTO)
        w->ws->b->ops->w_layout(w->st, layout == TRAZA_LAYOUT_PACKED, 1);
}

void traza_writer_pack_events(traza_writer *w)
{
    if (w && w->ws->b->ops->w_layout)
        w->ws->b->ops->w_layout(w->st, 1, 0);
}

static const char *const layout_names[] = {"auto", "rows", "packed"};

const char *traza_layout_name(traza_layout layout)
{
    return (unsigned)layout < 3 ? layout_names[layout] : "?";
}

int traza_layout_parse(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, layout_names[i]) == 0)
            return i;
    return -1;
}

void traza_writer_abort(traza_writer *w)
{
    if (!w)
        return;
    w->ws->b->ops->w_abort(w->st);
    writer_free(w);
}

int traza_writer_set_time_unit(traza_writer *w, int exponent)
{
    if (exponent < -18 || exponent > 3)
        return -1;
    w->time_unit = exponent;
    return 0;
}

int traza_writer_add_source(traza_writer *w, const char *path, traza_err *err)
{
    char *p = tz_strdup(path);
    if (!p || TZ_GROW(w->sources, w->capsources, w->nsources + 1) < 0) {
        free(p);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    w->sources[w->nsources++] = p;
    return 0;
}

int traza_writer_set_param(traza_writer *w, const char *key, const char *value, traza_err *err)
{
    for (size_t i = 0; i < w->nparams; i++)
        if (strcmp(w->params[i].key, key) == 0) {
            char *v = tz_strdup(value);
            if (!v)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            free(w->params[i].value);
            w->params[i].value = v;
            return 0;
        }
    char *k = tz_strdup(key), *v = tz_strdup(value);
    if (!k || !v || TZ_GROW(w->params, w->capparams, w->nparams + 1) < 0) {
        free(k);
        free(v);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    w->params[w->nparams].key = k;
    w->params[w->nparams].value = v;
    w->nparams++;
    return 0;
}

int32_t traza_writer_producer(traza_writer *w, int32_t parent, const char *name, const char *ptype, traza_err *err)
{
    if (parent < -1 || parent >= w->nproducers)
        return traza_err_set(err, TRAZA_E_USAGE, "producer '%s': parent %d does not exist", name, parent);
    tz_buf_reset(&w->key);
    tz_buf_printf(&w->key, "%d\x1f%s", parent, name);
    if (w->key.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int64_t id;
    if (tz_map_get(&w->producers, w->key.s, &id))
        return (int32_t)id;
    if (w->nproducers == INT32_MAX)
        return traza_err_set(err, TRAZA_E_USAGE, "too many producers");
    traza_producer p = {w->nproducers, parent, name, ptype};
    if (tz_map_put(&w->producers, w->key.s, p.id) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (w->ws->b->ops->w_producer(w->st, &p, err) < 0)
        return -1;
    return w->nproducers++;
}

int32_t traza_writer_event_type(traza_writer *w, const char *name, traza_category cat, traza_err *err)
{
    if ((unsigned)cat >= TRAZA_NCATEGORIES)
        return traza_err_set(err, TRAZA_E_USAGE, "event type '%s': bad category %d", name, (int)cat);
    int64_t id;
    if (tz_map_get(&w->types, name, &id)) {
        if (w->type_cat[id] != cat)
            return traza_err_set(err, TRAZA_E_EXISTS, "event type '%s' is used both as %s and as %s", name,
                                 traza_category_name(w->type_cat[id]), traza_category_name(cat));
        return (int32_t)id;
    }
    if (TZ_GROW(w->type_cat, w->captypes, w->ntypes + 1) < 0 || tz_map_put(&w->types, name, (int64_t)w->ntypes) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    traza_event_type t = {(int32_t)w->ntypes, name, cat, NULL};
    if (w->ws->b->ops->w_event_type(w->st, &t, err) < 0)
        return -1;
    w->type_cat[w->ntypes] = cat;
    return (int32_t)w->ntypes++;
}

int traza_writer_set_type_color(traza_writer *w, int32_t type, const char *color, traza_err *err)
{
    if (type < 0 || (size_t)type >= w->ntypes)
        return traza_err_set(err, TRAZA_E_USAGE, "event type %d does not exist", type);
    /* Re-sent to the backend as an update of the same id. */
    const char *name = NULL;
    for (size_t i = 0; i < w->types.cap; i++)
        if (w->types.keys[i] && w->types.vals[i] == type)
            name = w->types.keys[i];
    traza_event_type t = {type, name, w->type_cat[type], color};
    return w->ws->b->ops->w_event_type(w->st, &t, err);
}

int32_t traza_writer_param_def(traza_writer *w, int32_t type, const char *name, traza_ptype ptype, traza_err *err)
{
    if (type < 0 || (size_t)type >= w->ntypes)
        return traza_err_set(err, TRAZA_E_USAGE, "parameter '%s': event type %d does not exist", name, type);
    if ((unsigned)ptype > TRAZA_PT_HEX)
        return traza_err_set(err, TRAZA_E_USAGE, "parameter '%s': bad type %d", name, (int)ptype);
    tz_buf_reset(&w->key);
    tz_buf_printf(&w->key, "%d\x1f%s", type, name);
    if (w->key.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int64_t id;
    if (tz_map_get(&w->defs, w->key.s, &id)) {
        if (w->def_ptype[id] != ptype)
            return traza_err_set(err, TRAZA_E_EXISTS, "parameter '%s' is defined both as %s and as %s", name,
                                 traza_ptype_name(w->def_ptype[id]), traza_ptype_name(ptype));
        return (int32_t)id;
    }
    if (TZ_GROW(w->def_ptype, w->capdefs, w->ndefs + 1) < 0 ||
        TZ_GROW(w->def_type, w->capdeftype, w->ndefs + 1) < 0 || TZ_GROW(w->def_const, w->capdefconst, w->ndefs + 1) < 0 ||
        tz_map_put(&w->defs, w->key.s, (int64_t)w->ndefs) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    traza_param_def d = {(int32_t)w->ndefs, type, name, ptype};
    if (w->ws->b->ops->w_param_def(w->st, &d, err) < 0)
        return -1;
    w->def_ptype[w->ndefs] = ptype;
    w->def_type[w->ndefs] = type;
    w->def_const[w->ndefs] = 0;
    return (int32_t)w->ndefs++;
}

int traza_writer_param_const(traza_writer *w, int32_t def, const traza_value *v, traza_err *err)
{
    if (def < 0 || (size_t)def >= w->ndefs)
        return traza_err_set(err, TRAZA_E_USAGE, "parameter definition %d does not exist", def);
    if (w->def_const[def])
        return traza_err_set(err, TRAZA_E_EXISTS, "parameter definition %d already has its one value", def);
    traza_ptype want = w->def_ptype[def];
    int ints = (want == TRAZA_PT_INT || want == TRAZA_PT_HEX) && (v->kind == TRAZA_PT_INT || v->kind == TRAZA_PT_HEX);
    if (!ints && v->kind != want)
        return traza_err_set(err, TRAZA_E_USAGE, "parameter definition %d is of type %s, its value of type %s", def,
                             traza_ptype_name(want), traza_ptype_name(v->kind));
    if (v->kind == TRAZA_PT_DOUBLE && !isfinite(v->d))
        return traza_err_set(err, TRAZA_E_USAGE, "parameter definition %d: its value is not a finite number", def);
    if (v->kind == TRAZA_PT_STRING && !v->s)
        return traza_err_set(err, TRAZA_E_USAGE, "parameter definition %d: its value is a NULL string", def);
    if (w->ws->b->ops->w_param_const(w->st, def, v, err) < 0)
        return -1;
    w->def_const[def] = 1;
    return 0;
}

int traza_writer_event(traza_writer *w, const traza_event *ev, traza_err *err)
{
    if (ev->type < 0 || (size_t)ev->type >= w->ntypes)
        return traza_err_set(err, TRAZA_E_USAGE, "event type %d does not exist", ev->type);
    if (ev->producer < 0 || ev->producer >= w->nproducers)
        return traza_err_set(err, TRAZA_E_USAGE, "producer %d does not exist", ev->producer);
    traza_category cat = w->type_cat[ev->type];
    if (cat != TRAZA_PUNCTUAL && !(ev->has & TRAZA_HAS_END))
        return traza_err_set(err, TRAZA_E_USAGE, "a %s event needs an end time", traza_category_name(cat));
    if ((ev->has & TRAZA_HAS_END) && ev->end_ts < ev->ts)
        return traza_err_set(err, TRAZA_E_USAGE, "event ends (%lld) before it starts (%lld)", (long long)ev->end_ts, (long long)ev->ts);
    if (cat == TRAZA_LINK && !(ev->has & TRAZA_HAS_END_PRODUCER))
        return traza_err_set(err, TRAZA_E_USAGE, "a link event needs an end producer");
    if ((ev->has & TRAZA_HAS_END_PRODUCER) && (ev->end_producer < 0 || ev->end_producer >= w->nproducers))
        return traza_err_set(err, TRAZA_E_USAGE, "end producer %d does not exist", ev->end_producer);
    if ((ev->has & TRAZA_HAS_VALUE) && !isfinite(ev->value))
        return traza_err_set(err, TRAZA_E_USAGE, "event value is not a finite number");
    for (uint32_t i = 0; i < ev->nparams; i++) {
        int32_t d = ev->params[i].def;
        if (d < 0 || (size_t)d >= w->ndefs || w->def_type[d] != ev->type)
            return traza_err_set(err, TRAZA_E_USAGE, "parameter definition %d does not belong to event type %d", d, ev->type);
        if (w->def_const[d])
            return traza_err_set(err, TRAZA_E_USAGE, "parameter definition %d has one value for its whole type; an event cannot carry another", d);
        for (uint32_t j = 0; j < i; j++)
            if (ev->params[j].def == d)
                return traza_err_set(err, TRAZA_E_USAGE, "parameter definition %d given twice for one event", d);
    }
    if (ev->ts < w->last_ts)
        w->sorted = 0;
    w->last_ts = ev->ts;
    if (w->ws->b->ops->w_event(w->st, ev, w->events, err) < 0)
        return -1;
    if (ev->ts < w->min_ts)
        w->min_ts = ev->ts;
    int64_t end = (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts;
    if (end > w->max_ts)
        w->max_ts = end;
    w->cat[cat]++;
    w->events++;
    return 0;
}

int64_t traza_writer_count(const traza_writer *w) { return w->events; }

static int kv_cmp(const void *a, const void *b)
{
    return strcmp(((const traza_kv *)a)->key, ((const traza_kv *)b)->key);
}

/* A copy of `in` as the catalogue gives it back (parameters by key): out_info is
 * filled before the commit, since a failure after the trace is published would
 * report an error for a trace that is in the workspace. */
static int info_copy(const traza_trace_info *in, traza_trace_info *out)
{
    if (tz_trace_info_copy(out, in) < 0)
        return -1;
    if (out->nparams > 1)
        qsort(out->params, out->nparams, sizeof *out->params, kv_cmp);
    return 0;
}

int traza_writer_commit(traza_writer *w, traza_trace_info *out_info, traza_err *err)
{
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    info.name = w->name;
    info.format = w->format;
    info.time_unit = w->time_unit;
    info.min_ts = w->events ? w->min_ts : 0;
    info.max_ts = w->events ? w->max_ts : 0;
    info.events = w->events;
    info.producers = w->nproducers;
    info.event_types = (int64_t)w->ntypes;
    memcpy(info.categories, w->cat, sizeof info.categories);
    info.created = (int64_t)time(NULL);
    info.sources = w->sources;
    info.nsources = w->nsources;
    info.params = w->params;
    info.nparams = w->nparams;
    traza_trace_info copy;
    if (out_info && info_copy(&info, &copy) < 0) {
        traza_writer_abort(w);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    int64_t id = -1;
    int rc = w->ws->b->ops->w_commit(w->st, w->sorted, w->replace, &info, &id, err);
    if (out_info) {
        copy.id = id;
        if (rc == 0)
            *out_info = copy;
        else
            traza_trace_info_clear(&copy);
    }
    writer_free(w);
    return rc;
}

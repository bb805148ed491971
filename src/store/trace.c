/* Open traces: the in-memory model (producers, types, parameter definitions) and
 * the lookups every tool needs. */
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tz_model_str(tz_model *m, const char *s)
{
    if (!s)
        return NULL;
    char *c = tz_strdup(s);
    if (!c || TZ_GROW(m->strings, m->capstrings, m->nstrings + 1) < 0) {
        free(c);
        return NULL;
    }
    m->strings[m->nstrings++] = c;
    return c;
}

int tz_model_set_const(tz_model *m, int32_t def, const traza_value *v, traza_err *err)
{
    if (def < 0 || (size_t)def >= m->ndefs)
        return traza_err_set(err, TRAZA_E_FORMAT, "the trace store holds a constant of parameter definition %d, which does not exist", def);
    if (!m->consts && (!(m->consts = calloc(m->ndefs, sizeof *m->consts)) || !(m->is_const = calloc(m->ndefs, 1))))
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory loading the trace model");
    traza_value c = *v;
    if (c.kind == TRAZA_PT_STRING && !(c.s = tz_model_str(m, v->s ? v->s : "")))
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory loading the trace model");
    if ((c.kind == TRAZA_PT_INT || c.kind == TRAZA_PT_HEX) && m->defs[def].ptype == TRAZA_PT_HEX)
        c.kind = TRAZA_PT_HEX; /* the backend knows integers; the model knows which are addresses */
    m->consts[def] = c;
    m->is_const[def] = 1;
    return 0;
}

void tz_model_free(tz_model *m)
{
    for (size_t i = 0; i < m->nstrings; i++)
        free(m->strings[i]);
    free(m->strings);
    free(m->producers);
    free(m->types);
    free(m->defs);
    free(m->consts);
    free(m->is_const);
    free(m->tconst_start);
    free(m->tconst);
    memset(m, 0, sizeof *m);
}

/* The constant definitions of each type, as one array cut by type. */
static int index_consts(tz_model *m)
{
    if (!m->consts)
        return 0;
    size_t n = 0;
    for (size_t d = 0; d < m->ndefs; d++)
        n += m->is_const[d];
    if (!(m->tconst_start = calloc(m->ntypes + 1, sizeof *m->tconst_start)) || !(m->tconst = malloc((n ? n : 1) * sizeof *m->tconst)))
        return -1;
    for (size_t d = 0; d < m->ndefs; d++)
        if (m->is_const[d])
            m->tconst_start[m->defs[d].type_id + 1]++;
    for (size_t k = 0; k < m->ntypes; k++)
        m->tconst_start[k + 1] += m->tconst_start[k];
    size_t *fill = calloc(m->ntypes + 1, sizeof *fill);
    if (!fill)
        return -1;
    for (size_t d = 0; d < m->ndefs; d++)
        if (m->is_const[d]) {
            int32_t k = m->defs[d].type_id;
            m->tconst[m->tconst_start[k] + fill[k]++] = (int32_t)d;
        }
    free(fill);
    return 0;
}

static int build_index(traza_trace *t, traza_err *err)
{
    tz_model *m = &t->model;
    /* Ids are dense 0..n-1 (the writer assigns them so); check rather than trust. */
    for (size_t i = 0; i < m->nproducers; i++)
        if (m->producers[i].id != (int32_t)i || m->producers[i].parent >= (int32_t)m->nproducers)
            return traza_err_set(err, TRAZA_E_FORMAT, "trace '%s': producer table is inconsistent", t->info.name);
    for (size_t i = 0; i < m->ntypes; i++)
        if (m->types[i].id != (int32_t)i)
            return traza_err_set(err, TRAZA_E_FORMAT, "trace '%s': event type table is inconsistent", t->info.name);
    for (size_t i = 0; i < m->ndefs; i++)
        if (m->defs[i].id != (int32_t)i || m->defs[i].type_id < 0 || (size_t)m->defs[i].type_id >= m->ntypes)
            return traza_err_set(err, TRAZA_E_FORMAT, "trace '%s': parameter table is inconsistent", t->info.name);
    if (index_consts(m) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    size_t n = m->nproducers;
    t->child_start = calloc(n + 2, sizeof *t->child_start);
    t->children = malloc((n ? n : 1) * sizeof *t->children);
    if (!t->child_start || !t->children)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (m->producers[i].parent >= 0)
            t->child_start[m->producers[i].parent + 2]++;
    for (size_t i = 2; i < n + 2; i++)
        t->child_start[i] += t->child_start[i - 1];
    for (size_t i = 0; i < n; i++)
        if (m->producers[i].parent >= 0)
            t->children[t->child_start[m->producers[i].parent + 1]++] = (int32_t)i;
    char path[4096];
    for (size_t i = 0; i < n; i++) {
        traza_trace_producer_path(t, (int32_t)i, path, sizeof path);
        if (tz_map_put(&t->producer_by_path, path, (int64_t)i) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < m->ntypes; i++)
        if (tz_map_put(&t->type_by_name, m->types[i].name, (int64_t)i) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    return 0;
}

traza_trace *traza_trace_open(traza_workspace *ws, const char *name_or_id, int flags, traza_err *err)
{
    traza_trace *t = calloc(1, sizeof *t);
    if (!t) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    t->ws = ws;
    t->writable = (flags & TRAZA_OPEN_WRITE) != 0;
    tz_map_init(&t->producer_by_path);
    tz_map_init(&t->type_by_name);
    /* A trace replaced (traza_writer_begin_replacing) between the look-up of its name
     * and the open is gone under its old id: the name is looked up again, a few times. */
    for (int tries = 0;; tries++) {
        if (tz_ws_resolve(ws, name_or_id, &t->info, err) < 0) {
            free(t);
            return NULL;
        }
        if (ws->b->ops->t_open(ws->b, t->info.id, t->writable, &t->st, err) == 0)
            break;
        int64_t was = t->info.id;
        traza_trace_info_clear(&t->info);
        traza_trace_info again;
        traza_err e2;
        traza_err_clear(&e2);
        int replaced = 0;
        if (tries < 3 && tz_ws_resolve(ws, name_or_id, &again, &e2) == 0) {
            replaced = again.id != was;
            traza_trace_info_clear(&again);
        }
        if (!replaced) {
            free(t);
            return NULL;
        }
    }
    if (ws->b->ops->t_load_model(t->st, &t->model, err) < 0 || build_index(t, err) < 0) {
        traza_trace_close(t);
        return NULL;
    }
    return t;
}

void traza_trace_close(traza_trace *t)
{
    if (!t)
        return;
    if (t->st)
        t->ws->b->ops->t_close(t->st);
    tz_model_free(&t->model);
    tz_map_free(&t->producer_by_path);
    tz_map_free(&t->type_by_name);
    free(t->children);
    free(t->child_start);
    traza_trace_info_clear(&t->info);
    free(t);
}

const traza_trace_info *traza_trace_info_of(const traza_trace *t) { return &t->info; }

int traza_trace_storage_of(traza_trace *t, traza_trace_storage *out, traza_err *err)
{
    out->bytes = -1;
    out->packed = 0;
    return t->ws->b->ops->t_storage ? t->ws->b->ops->t_storage(t->st, out, err) : 0;
}
traza_workspace *traza_trace_workspace(traza_trace *t) { return t->ws; }

size_t traza_trace_producers(const traza_trace *t, const traza_producer **out)
{
    *out = t->model.producers;
    return t->model.nproducers;
}

size_t traza_trace_event_types(const traza_trace *t, const traza_event_type **out)
{
    *out = t->model.types;
    return t->model.ntypes;
}

size_t traza_trace_param_defs(const traza_trace *t, const traza_param_def **out)
{
    *out = t->model.defs;
    return t->model.ndefs;
}

const traza_producer *traza_trace_producer(const traza_trace *t, int32_t id)
{
    return (id >= 0 && (size_t)id < t->model.nproducers) ? &t->model.producers[id] : NULL;
}

const traza_event_type *traza_trace_event_type(const traza_trace *t, int32_t id)
{
    return (id >= 0 && (size_t)id < t->model.ntypes) ? &t->model.types[id] : NULL;
}

const traza_param_def *traza_trace_param_def(const traza_trace *t, int32_t id)
{
    return (id >= 0 && (size_t)id < t->model.ndefs) ? &t->model.defs[id] : NULL;
}

const traza_value *traza_trace_param_const(const traza_trace *t, int32_t def)
{
    return def >= 0 && (size_t)def < t->model.ndefs && t->model.is_const && t->model.is_const[def] ? &t->model.consts[def] : NULL;
}

const traza_event_type *traza_trace_event_type_by_name(const traza_trace *t, const char *name)
{
    int64_t id;
    return tz_map_get(&t->type_by_name, name, &id) ? &t->model.types[id] : NULL;
}

const traza_producer *traza_trace_producer_find(const traza_trace *t, const char *spec)
{
    int64_t id;
    if (tz_map_get(&t->producer_by_path, spec, &id))
        return &t->model.producers[id];
    /* A bare name matches when it is unique. */
    const traza_producer *hit = NULL;
    for (size_t i = 0; i < t->model.nproducers; i++)
        if (strcmp(t->model.producers[i].name, spec) == 0) {
            if (hit)
                return NULL;
            hit = &t->model.producers[i];
        }
    if (hit)
        return hit;
    if (spec[0] == '#' && tz_parse_i64(spec + 1, strlen(spec + 1), &id) == 0)
        return traza_trace_producer(t, (int32_t)id);
    return NULL;
}

const char *traza_trace_producer_path(const traza_trace *t, int32_t id, char *buf, size_t size)
{
    /* Walk up collecting names, then write them root first. */
    int32_t chain[256];
    size_t depth = 0;
    for (int32_t p = id; p >= 0 && depth < 256; p = t->model.producers[p].parent)
        chain[depth++] = p;
    size_t off = 0;
    buf[0] = '\0';
    while (depth-- > 0) {
        int n = snprintf(buf + off, off < size ? size - off : 0, "%s%s", off ? "/" : "", t->model.producers[chain[depth]].name);
        if (n < 0 || off + (size_t)n >= size)
            break;
        off += (size_t)n;
    }
    return buf;
}

int traza_trace_producer_subtree(const traza_trace *t, int32_t id, int32_t **ids, size_t *n, traza_err *err)
{
    if (!traza_trace_producer(t, id))
        return traza_err_set(err, TRAZA_E_NOTFOUND, "producer %d does not exist", id);
    size_t cap = 0, cnt = *n;
    int32_t *out = *ids;
    cap = cnt;
    size_t start = cnt;
    if (TZ_GROW(out, cap, cnt + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    out[cnt++] = id;
    for (size_t i = start; i < cnt; i++) {
        int32_t p = out[i];
        for (size_t c = t->child_start[p]; c < t->child_start[p + 1]; c++) {
            if (TZ_GROW(out, cap, cnt + 1) < 0) {
                *ids = out;
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            }
            out[cnt++] = t->children[c];
        }
    }
    *ids = out;
    *n = cnt;
    return (int)(cnt - start);
}

/* Results stored beside the trace: checks above the backend. */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

static int check_meta(traza_trace *t, const traza_result_meta *m, traza_err *err)
{
    if (!t->writable)
        return traza_err_set(err, TRAZA_E_USAGE, "trace '%s' was opened read-only: cannot save a result", t->info.name);
    if (!m || !m->name || !*m->name)
        return traza_err_set(err, TRAZA_E_USAGE, "a result needs a name");
    if (tz_utf8_invalid(m->name, strlen(m->name)) >= 0)
        return traza_err_set(err, TRAZA_E_USAGE, "result name is not valid UTF-8");
    return 0;
}

#define SAVE(kind, size, target, payload, n)                                                        \
    (check_meta(t, m, err) < 0 ? -1                                                                \
                               : t->ws->b->ops->r_save(t->st, m, kind, size, target, payload, n, err))

int64_t traza_result_save_events(traza_trace *t, const traza_result_meta *m, const int64_t *ids, size_t n, traza_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 1 || ids[i] > t->info.events)
            return traza_err_set(err, TRAZA_E_USAGE, "event id %lld is not in trace '%s'", (long long)ids[i], t->info.name);
    return SAVE(TRAZA_RES_EVENT_SET, (int64_t)n, NULL, ids, n);
}

int64_t traza_result_save_producers(traza_trace *t, const traza_result_meta *m, const int32_t *ids, size_t n, traza_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (!traza_trace_producer(t, ids[i]))
            return traza_err_set(err, TRAZA_E_USAGE, "producer id %d is not in trace '%s'", ids[i], t->info.name);
    return SAVE(TRAZA_RES_PRODUCER_SET, (int64_t)n, NULL, ids, n);
}

int64_t traza_result_save_group(traza_trace *t, const traza_result_meta *m, const traza_group_node *nodes, size_t n, traza_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (nodes[i].id <= 0)
            return traza_err_set(err, TRAZA_E_USAGE, "group node ids must be > 0");
        if (nodes[i].ref_kind < TRAZA_GROUP_NONE || nodes[i].ref_kind > TRAZA_GROUP_PRODUCER)
            return traza_err_set(err, TRAZA_E_USAGE, "group node %lld: bad reference kind", (long long)nodes[i].id);
    }
    return SAVE(TRAZA_RES_GROUP, (int64_t)n, NULL, nodes, n);
}

int64_t traza_result_save_annotations(traza_trace *t, const traza_result_meta *m, const traza_annotation *a, size_t n, traza_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (!a[i].key)
            return traza_err_set(err, TRAZA_E_USAGE, "annotation %zu has no key", i);
    return SAVE(TRAZA_RES_ANNOTATION, (int64_t)n, NULL, a, n);
}

int64_t traza_result_save_processed(traza_trace *t, const traza_result_meta *m, const char *derived_trace, traza_err *err)
{
    traza_trace_info info;
    if (tz_ws_resolve(t->ws, derived_trace, &info, err) < 0)
        return -1;
    int64_t id = SAVE(TRAZA_RES_PROCESSED_TRACE, 1, info.name, NULL, 0);
    traza_trace_info_clear(&info);
    return id;
}

int traza_result_list(traza_trace *t, traza_result_info **out, size_t *n, traza_err *err)
{
    return t->ws->b->ops->r_list(t->st, out, n, err);
}

int traza_result_find(traza_trace *t, const char *name_or_id, traza_result_info *out, traza_err *err)
{
    traza_result_info *all;
    size_t n;
    if (traza_result_list(t, &all, &n, err) < 0)
        return -1;
    int64_t id = -1;
    if (tz_parse_i64(name_or_id, strlen(name_or_id), &id) < 0)
        id = -1;
    size_t hit = n;
    for (size_t i = 0; i < n && hit == n; i++)
        if (strcmp(all[i].name, name_or_id) == 0)
            hit = i;
    for (size_t i = 0; i < n && hit == n; i++)
        if (all[i].id == id)
            hit = i;
    if (hit == n) {
        traza_result_info_array_free(all, n);
        return traza_err_set(err, TRAZA_E_NOTFOUND, "trace '%s' has no result named '%s' (see 'traza results %s')",
                             t->info.name, name_or_id, t->info.name);
    }
    *out = all[hit];
    memset(&all[hit], 0, sizeof all[hit]);
    traza_result_info_array_free(all, n);
    return 0;
}

int traza_result_delete(traza_trace *t, int64_t id, traza_err *err)
{
    if (!t->writable)
        return traza_err_set(err, TRAZA_E_USAGE, "trace '%s' was opened read-only", t->info.name);
    return t->ws->b->ops->r_delete(t->st, id, err);
}

int traza_result_events(traza_trace *t, int64_t id, int64_t **ids, size_t *n, traza_err *err)
{
    return t->ws->b->ops->r_events(t->st, id, ids, n, err);
}

int traza_result_sets_of_event(traza_trace *t, int64_t event, int64_t **ids, size_t *n, traza_err *err)
{
    return t->ws->b->ops->r_sets_of_event(t->st, event, ids, n, err);
}

int traza_result_producers(traza_trace *t, int64_t id, int32_t **ids, size_t *n, traza_err *err)
{
    return t->ws->b->ops->r_producers(t->st, id, ids, n, err);
}

int traza_result_group(traza_trace *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err)
{
    return t->ws->b->ops->r_group(t->st, id, nodes, n, err);
}

void traza_group_nodes_free(traza_group_node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)nodes[i].name);
    free(nodes);
}

int traza_result_annotations(traza_trace *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err)
{
    return t->ws->b->ops->r_annotations(t->st, id, a, n, err);
}

void traza_annotations_free(traza_annotation *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free((char *)a[i].key);
        if (a[i].value.kind == TRAZA_PT_STRING)
            free((char *)a[i].value.s);
    }
    free(a);
}

/* The node of group `gid` named `node` (by name first, then by id); 0 if none. */
static int64_t group_node(traza_trace *t, int64_t gid, const char *node, traza_err *err)
{
    traza_group_node *g;
    size_t n;
    if (traza_result_group(t, gid, &g, &n, err) < 0)
        return -1;
    int64_t id = 0, want = -1, hit = 0;
    if (tz_parse_i64(node, strlen(node), &want) < 0)
        want = -1;
    for (size_t i = 0; i < n && !hit; i++)
        if (g[i].name && strcmp(g[i].name, node) == 0)
            hit = g[i].id;
    for (size_t i = 0; i < n && !hit; i++)
        if (g[i].id == want)
            hit = g[i].id;
    id = hit;
    traza_group_nodes_free(g, n);
    return id;
}

int traza_result_input(traza_trace *t, const char *ref, traza_result_info *out, int64_t *node, traza_err *err)
{
    *node = 0;
    traza_err e1;
    traza_err_clear(&e1);
    if (traza_result_find(t, ref, out, &e1) == 0)
        return 0;
    const char *slash = strrchr(ref, '/');
    char *gname = slash && slash != ref && slash[1] ? tz_strndup(ref, (size_t)(slash - ref)) : NULL;
    traza_err e2;
    traza_err_clear(&e2);
    if (!gname || traza_result_find(t, gname, out, &e2) < 0) {
        free(gname);
        *err = e1;
        return -1;
    }
    int rc = 0;
    if (out->kind != TRAZA_RES_GROUP) {
        rc = traza_err_set(err, TRAZA_E_USAGE, "result '%s' is a %s: only a group has nodes to name with '%s/NODE'", gname,
                           traza_result_kind_name(out->kind), gname);
    } else {
        int64_t id = group_node(t, out->id, slash + 1, err);
        if (id == 0)
            rc = traza_err_set(err, TRAZA_E_NOTFOUND, "group '%s' has no node named or numbered '%s'", gname, slash + 1);
        else if (id < 0)
            rc = -1;
        *node = id > 0 ? id : 0;
    }
    free(gname);
    if (rc < 0)
        traza_result_info_clear(out);
    return rc;
}

/* traza_result_input, keeping the kind and id only. */
static int input_ref(traza_trace *t, const char *ref, traza_result_kind *kind, int64_t *id, int64_t *node, traza_err *err)
{
    traza_result_info r;
    if (traza_result_input(t, ref, &r, node, err) < 0)
        return -1;
    *kind = r.kind;
    *id = r.id;
    traza_result_info_clear(&r);
    return 0;
}

int traza_filter_set_result(traza_trace *t, traza_filter *f, const char *ref, traza_err *err)
{
    traza_result_kind kind;
    int64_t id, node;
    if (input_ref(t, ref, &kind, &id, &node, err) < 0)
        return -1;
    if (kind != TRAZA_RES_EVENT_SET && kind != TRAZA_RES_GROUP)
        return traza_err_set(err, TRAZA_E_USAGE, "result '%s' is a %s: only an event set or a group restricts events", ref,
                             traza_result_kind_name(kind));
    f->event_set = id;
    f->event_set_node = node;
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Appends the producers of the events of `f` to ids[*n..]. */
static int producers_of_events(traza_trace *t, const traza_filter *f, int32_t **ids, size_t *n, size_t *cap, traza_err *err)
{
    traza_cursor *c = traza_query(t, f, err);
    if (!c)
        return -1;
    const traza_event *ev;
    int k;
    while ((k = traza_cursor_next(c, &ev, err)) > 0) {
        if (TZ_GROW(*ids, *cap, *n + 1) < 0) {
            k = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        (*ids)[(*n)++] = ev->producer;
    }
    traza_cursor_free(c);
    return k < 0 ? -1 : 0;
}

/* Appends the producer leaves of group `gid` (under `node` when > 0) to ids[*n..]. */
static int group_producers(traza_trace *t, int64_t gid, int64_t node, int32_t **ids, size_t *n, size_t *cap, traza_err *err)
{
    traza_group_node *g;
    size_t ng;
    if (traza_result_group(t, gid, &g, &ng, err) < 0)
        return -1;
    /* in the subtree: a node whose ancestors reach `node` (nodes come ordered by id, but
     * a parent may have a larger id: walk up) */
    int rc = 0;
    for (size_t i = 0; i < ng && rc == 0; i++) {
        if (g[i].ref_kind != TRAZA_GROUP_PRODUCER)
            continue;
        int in = node <= 0;
        for (int64_t at = g[i].id, steps = 0; !in && at > 0 && steps <= (int64_t)ng; steps++) {
            if (at == node) {
                in = 1;
                break;
            }
            int64_t up = 0;
            for (size_t j = 0; j < ng; j++)
                if (g[j].id == at) {
                    up = g[j].parent;
                    break;
                }
            at = up;
        }
        if (!in)
            continue;
        if (TZ_GROW(*ids, *cap, *n + 1) < 0)
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        else
            (*ids)[(*n)++] = (int32_t)g[i].ref;
    }
    traza_group_nodes_free(g, ng);
    return rc;
}

int traza_result_producer_ids(traza_trace *t, const char *ref, int32_t **ids, size_t *n, traza_err *err)
{
    *ids = NULL;
    *n = 0;
    traza_result_kind kind;
    int64_t id, node;
    if (input_ref(t, ref, &kind, &id, &node, err) < 0)
        return -1;
    if (kind == TRAZA_RES_PRODUCER_SET)
        return traza_result_producers(t, id, ids, n, err);
    if (kind != TRAZA_RES_EVENT_SET && kind != TRAZA_RES_GROUP)
        return traza_err_set(err, TRAZA_E_USAGE, "result '%s' is a %s: only a producer set, an event set or a group names producers",
                             ref, traza_result_kind_name(kind));
    size_t cap = 0;
    traza_filter f;
    traza_filter_init(&f);
    f.event_set = id;
    f.event_set_node = node;
    if (producers_of_events(t, &f, ids, n, &cap, err) < 0 ||
        (kind == TRAZA_RES_GROUP && group_producers(t, id, node, ids, n, &cap, err) < 0)) {
        free(*ids);
        *ids = NULL;
        *n = 0;
        return -1;
    }
    if (*n) {
        qsort(*ids, *n, sizeof **ids, cmp_i32);
        size_t k = 1;
        for (size_t i = 1; i < *n; i++)
            if ((*ids)[i] != (*ids)[k - 1])
                (*ids)[k++] = (*ids)[i];
        *n = k;
    }
    return 0;
}

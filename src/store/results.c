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

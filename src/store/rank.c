/* Ranks and overviews of a trace (include/traza/store.h): checks, then the backend. */
#include "store/store_internal.h"

int traza_ranks_of(traza_trace *t, const int64_t *ts, size_t n, int64_t *rank, traza_err *err)
{
    const tz_backend_ops *ops = t->ws->b->ops;
    if (!ops->t_ranks)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "the %s store has no rank look-ups", ops->name);
    return n ? ops->t_ranks(t->st, ts, n, rank, err) : 0;
}

int traza_events_at(traza_trace *t, const int64_t *rank, size_t n, int64_t *ts, int32_t *type, int32_t *producer,
                    traza_err *err)
{
    const tz_backend_ops *ops = t->ws->b->ops;
    if (!ops->t_rows)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "the %s store has no rank look-ups", ops->name);
    for (size_t i = 0; i < n; i++)
        if (rank[i] < 0 || rank[i] >= t->info.events)
            return traza_err_set(err, TRAZA_E_USAGE, "rank %lld is outside the trace's %lld events", (long long)rank[i],
                                 (long long)t->info.events);
    return n ? ops->t_rows(t->st, rank, n, ts, type, producer, err) : 0;
}

int traza_trace_overview(traza_trace *t, traza_overview *ov, traza_err *err)
{
    const tz_backend_ops *ops = t->ws->b->ops;
    if (!ops->t_overview)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "the %s store keeps no overview", ops->name);
    return ops->t_overview(t->st, &ov->step, &ov->n, &ov->ts, &ov->type, &ov->producer, err);
}

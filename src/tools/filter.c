/* The filter tool: time region + event types + parameter values + regular
 * expressions on columns, include or exclude, saved as an event set or a producer set. */
#include "traza/filters.h"
#include "traza/tool.h"
#include "tools/tool_filter.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

int64_t traza_filter_save(traza_trace *t, const traza_filter *f, int exclude, int as_producers,
                          const traza_result_meta *m, int64_t *count, traza_err *err)
{
    traza_filter q = tz_filter_all_of(f);
    q.with_params = q.nregexes > 0;
    traza_cursor *c = traza_query(t, &q, err);
    if (!c)
        return -1;
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    const traza_event *ev;
    int rc;
    const traza_trace_info *info = traza_trace_info_of(t);
    size_t np = (size_t)info->producers;
    unsigned char *pmark = as_producers ? calloc(np ? np : 1, 1) : NULL;
    if (as_producers && !pmark) {
        traza_cursor_free(c);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    while ((rc = traza_cursor_next(c, &ev, err)) > 0) {
        if (TZ_GROW(ids, cap, n + 1) < 0) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        ids[n++] = ev->id;
        if (pmark && !exclude)
            pmark[ev->producer] = 1;
    }
    traza_cursor_free(c);
    int64_t rid = -1;
    if (rc < 0)
        goto out;
    if (exclude) {
        /* Complement in id order (ids are dense 1..events and come sorted). */
        int64_t total = info->events;
        int64_t *comp = malloc((size_t)(total - (int64_t)n > 0 ? total - (int64_t)n : 1) * sizeof *comp);
        if (!comp) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        size_t k = 0, j = 0;
        for (int64_t id = 1; id <= total; id++) {
            if (j < n && ids[j] == id) {
                j++;
                continue;
            }
            comp[k++] = id;
        }
        free(ids);
        ids = comp;
        n = k;
        if (pmark) {
            /* producers of the remaining events: one more pass over them */
            traza_filter all;
            traza_filter_init(&all);
            traza_cursor *c2 = traza_query(t, &all, err);
            if (!c2)
                goto out;
            size_t jj = 0;
            while ((rc = traza_cursor_next(c2, &ev, err)) > 0) {
                while (jj < n && ids[jj] < ev->id)
                    jj++;
                if (jj < n && ids[jj] == ev->id)
                    pmark[ev->producer] = 1;
            }
            traza_cursor_free(c2);
            if (rc < 0)
                goto out;
        }
    }
    if (pmark) {
        int32_t *pids = malloc((np ? np : 1) * sizeof *pids);
        if (!pids) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        size_t k = 0;
        for (size_t i = 0; i < np; i++)
            if (pmark[i])
                pids[k++] = (int32_t)i;
        rid = traza_result_save_producers(t, m, pids, k, err);
        if (count)
            *count = (int64_t)k;
        free(pids);
    } else {
        rid = traza_result_save_events(t, m, ids, n, err);
        if (count)
            *count = (int64_t)n;
    }
out:
    free(ids);
    free(pmark);
    return rid;
}

int64_t traza_producer_activity_save(traza_trace *t, int64_t from, int64_t to, int idle,
                                     const traza_result_meta *m, int64_t *count, traza_err *err)
{
    if (to < from)
        return traza_err_set(err, TRAZA_E_USAGE, "the interval ends before it starts");
    size_t np = (size_t)traza_trace_info_of(t)->producers;
    unsigned char *active = calloc(np ? np : 1, 1);
    int32_t *ids = malloc((np ? np : 1) * sizeof *ids);
    if (!active || !ids) {
        free(active);
        free(ids);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    traza_filter q;
    traza_filter_init(&q);
    q.has_from = q.has_to = 1;
    q.from = from;
    q.to = to;
    q.overlap = 1;
    traza_cursor *c = traza_query(t, &q, err);
    int64_t rid = -1;
    if (c) {
        const traza_event *ev;
        int rc;
        while ((rc = traza_cursor_next(c, &ev, err)) > 0) {
            int64_t end = (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts;
            if (end < from || ev->ts > to)
                continue;
            active[ev->producer] = 1;
            if (ev->has & TRAZA_HAS_END_PRODUCER)
                active[ev->end_producer] = 1;
        }
        traza_cursor_free(c);
        if (rc == 0) {
            size_t k = 0;
            for (size_t i = 0; i < np; i++)
                if (active[i] == !idle)
                    ids[k++] = (int32_t)i;
            rid = traza_result_save_producers(t, m, ids, k, err);
            if (count)
                *count = (int64_t)k;
        }
    }
    free(active);
    free(ids);
    return rid;
}

/* ---- as tools --------------------------------------------------------------- */

static int parse_time_opt(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *name, int *has,
                          int64_t *v, traza_err *err)
{
    const char *s = traza_tool_arg(tool, call->args, name);
    *has = s != NULL;
    if (s && traza_time_parse_in(traza_trace_info_of(t), s, 0, v, err) < 0)
        return traza_err_prefix(err, "--%s: ", name);
    return 0;
}

static char *args_text(const traza_tool_call *call)
{
    tz_buf b;
    tz_buf_init(&b);
    for (size_t i = 0; i < call->args->n; i++)
        tz_buf_printf(&b, "%s--%s=%s", i ? " " : "", call->args->keys[i], call->args->values[i] ? call->args->values[i] : "true");
    return tz_buf_take(&b);
}

static void report(const traza_tool *tool, const traza_tool_call *call, const char *name, const char *kind, int64_t rid, int64_t n)
{
    if (call->json) {
        tz_buf b; /* the result's name is the user's: escaped */
        tz_buf_init(&b);
        tz_buf_puts(&b, "{\"tool\":");
        tz_json_str(&b, tool->name);
        tz_buf_puts(&b, ",\"result\":");
        tz_json_str(&b, name);
        tz_buf_printf(&b, ",\"id\":%lld,\"kind\":\"%s\",\"size\":%lld}\n", (long long)rid, kind, (long long)n);
        traza_tool_printf(call, "%s", b.oom ? "" : b.s);
        tz_buf_free(&b);
    } else
        traza_tool_printf(call, "saved %s '%s' (%lld members)\n", kind, name, (long long)n);
}

static int is_true(const char *v) { return v && (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes")); }

static int run_filter(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    tz_filter_args tf;
    tz_filter_args_init(&tf);
    int rc = -1;
    char *params = NULL;
    if (parse_time_opt(tool, call, t, "from", &tf.f.has_from, &tf.f.from, err) < 0 ||
        parse_time_opt(tool, call, t, "to", &tf.f.has_to, &tf.f.to, err) < 0 ||
        tz_filter_args_read(tool, call, t, NULL, 0, &tf, err) < 0)
        goto out;
    const char *name = traza_tool_arg(tool, call->args, "name");
    int exclude = strcmp(traza_tool_arg(tool, call->args, "mode"), "exclude") == 0;
    if (!exclude && strcmp(traza_tool_arg(tool, call->args, "mode"), "include") != 0) {
        traza_err_set(err, TRAZA_E_USAGE, "option 'mode' expects include or exclude");
        goto out;
    }
    int as_prod = strcmp(traza_tool_arg(tool, call->args, "output"), "producers") == 0;
    params = args_text(call);
    traza_result_meta m = {name, tool->name, params, is_true(traza_tool_arg(tool, call->args, "replace")), NULL};
    int64_t n = 0;
    int64_t rid = traza_filter_save(t, &tf.f, exclude, as_prod, &m, &n, err);
    if (rid > 0) {
        report(tool, call, name, as_prod ? "producer_set" : "event_set", rid, n);
        rc = 0;
    }
out:
    tz_filter_args_free(&tf);
    free(params);
    traza_trace_close(t);
    return rc;
}

static const traza_tool_option filter_opts[] = {
    {"name", TRAZA_OPT_STRING, "filter", "name of the saved result", 0, 0},
    {"from", TRAZA_OPT_TIME, NULL, "start of the time region", 0, 0},
    {"to", TRAZA_OPT_TIME, NULL, "end of the time region", 0, 0},
    TZ_FILTER_OPTIONS,
    {"mode", TRAZA_OPT_STRING, "include", "include or exclude the matching events", 0, 0},
    {"output", TRAZA_OPT_STRING, "events", "events (event set) or producers (producer set)", 0, 0},
    {"replace", TRAZA_OPT_BOOL, "false", "replace a result of the same name", 0, 0},
};

const traza_tool tz_tool_filter = {
    "filter", "time region + event types + parameter values + regexes, include/exclude -> saved event or producer set",
    TRAZA_TOOL_ANALYSIS, filter_opts, sizeof filter_opts / sizeof filter_opts[0], run_filter, NULL, NULL,
};

static int run_activity(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    const traza_trace_info *info = traza_trace_info_of(t);
    int hf, ht, rc = -1;
    int64_t from = info->min_ts, to = info->max_ts;
    char *params = NULL;
    if (parse_time_opt(tool, call, t, "from", &hf, &from, err) == 0 && parse_time_opt(tool, call, t, "to", &ht, &to, err) == 0) {
        if (!hf) from = info->min_ts;
        if (!ht) to = info->max_ts;
        int idle = is_true(traza_tool_arg(tool, call->args, "idle"));
        const char *name = traza_tool_arg(tool, call->args, "name");
        params = args_text(call);
        traza_result_meta m = {name, tool->name, params, is_true(traza_tool_arg(tool, call->args, "replace")), NULL};
        int64_t n = 0;
        int64_t rid = traza_producer_activity_save(t, from, to, idle, &m, &n, err);
        if (rid > 0) {
            report(tool, call, name, "producer_set", rid, n);
            rc = 0;
        }
    }
    free(params);
    traza_trace_close(t);
    return rc;
}

static const traza_tool_option activity_opts[] = {
    {"name", TRAZA_OPT_STRING, "active-producers", "name of the saved producer set", 0, 0},
    {"from", TRAZA_OPT_TIME, NULL, "start of the interval (default: trace start)", 0, 0},
    {"to", TRAZA_OPT_TIME, NULL, "end of the interval (default: trace end)", 0, 0},
    {"idle", TRAZA_OPT_BOOL, "false", "keep the producers with no event in the interval instead", 0, 0},
    {"replace", TRAZA_OPT_BOOL, "false", "replace a result of the same name", 0, 0},
};

const traza_tool tz_tool_producer_activity = {
    "producer-activity", "producers active (or idle) during an interval -> saved producer set",
    TRAZA_TOOL_ANALYSIS, activity_opts, sizeof activity_opts / sizeof activity_opts[0], run_activity, NULL, NULL,
};

/* /api/traces, /api/trace, /api/results: the trace explorer. */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

static void info_json(const tz_req *r, tz_buf *b, const traza_trace_info *in, int full)
{
    tz_buf_printf(b, "{\"id\":%lld,\"name\":", (long long)in->id);
    tz_json_str(b, in->name);
    tz_buf_puts(b, ",\"alias\":");
    if (in->alias) tz_json_str(b, in->alias); else tz_buf_puts(b, "null");
    tz_buf_puts(b, ",\"format\":");
    tz_json_str(b, in->format ? in->format : "");
    tz_buf_printf(b, ",\"time_unit\":%d,\"min_ts\":", in->time_unit);
    tz_json_tick(r, b, in->min_ts);
    tz_buf_puts(b, ",\"max_ts\":");
    tz_json_tick(r, b, in->max_ts);
    tz_buf_printf(b, ",\"events\":%lld,\"producers\":%lld,\"event_types\":%lld,\"created\":%lld,\"categories\":{",
                  (long long)in->events, (long long)in->producers, (long long)in->event_types, (long long)in->created);
    for (int c = 0; c < TRAZA_NCATEGORIES; c++)
        tz_buf_printf(b, "%s\"%s\":%lld", c ? "," : "", traza_category_name((traza_category)c), (long long)in->categories[c]);
    tz_buf_puts(b, "}");
    if (full) {
        tz_buf_puts(b, ",\"sources\":[");
        for (size_t i = 0; i < in->nsources; i++) {
            if (i) tz_buf_putc(b, ',');
            tz_json_str(b, in->sources[i]);
        }
        tz_buf_puts(b, "],\"params\":{");
        for (size_t i = 0; i < in->nparams; i++) {
            if (i) tz_buf_putc(b, ',');
            tz_json_str(b, in->params[i].key);
            tz_buf_putc(b, ':');
            tz_json_str(b, in->params[i].value ? in->params[i].value : "");
        }
        tz_buf_puts(b, "}");
    }
    tz_buf_puts(b, "}");
}

int tz_api_traces(tz_req *r)
{
    traza_trace_info *arr = NULL;
    size_t n = 0;
    if (traza_workspace_list(r->api->ws, &arr, &n, &r->err) < 0)
        return tz_fail_err(r, &r->err);
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"traces\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) tz_buf_putc(&b, ',');
        info_json(r, &b, &arr[i], 1);
    }
    tz_buf_printf(&b, "],\"count\":%zu}", n);
    traza_trace_info_array_free(arr, n);
    return tz_send_json(r, &b);
}

static void results_json(tz_buf *b, const traza_result_info *res, size_t n)
{
    tz_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        const traza_result_info *x = &res[i];
        tz_buf_printf(b, "%s{\"id\":%lld,\"name\":", i ? "," : "", (long long)x->id);
        tz_json_str(b, x->name);
        tz_buf_puts(b, ",\"kind\":");
        tz_json_str(b, traza_result_kind_name(x->kind));
        tz_buf_puts(b, ",\"tool\":");
        tz_json_str(b, x->tool ? x->tool : "");
        tz_buf_puts(b, ",\"params\":");
        tz_json_str(b, x->params ? x->params : "");
        tz_buf_printf(b, ",\"created\":%lld,\"size\":%lld,\"target\":", (long long)x->created, (long long)x->size);
        if (x->target) tz_json_str(b, x->target); else tz_buf_puts(b, "null");
        tz_json_result_provenance(b, x);
        tz_buf_puts(b, "}");
    }
    tz_buf_puts(b, "]");
}

int tz_api_trace(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"info\":");
    info_json(r, &b, traza_trace_info_of(t), 1);
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    tz_buf_puts(&b, ",\"types\":[");
    for (size_t i = 0; i < nt; i++) {
        tz_buf_printf(&b, "%s{\"id\":%d,\"name\":", i ? "," : "", types[i].id);
        tz_json_str(&b, types[i].name);
        tz_buf_puts(&b, ",\"category\":");
        tz_json_str(&b, traza_category_name(types[i].category));
        tz_buf_puts(&b, ",\"color\":");
        tz_json_color(&b, types[i].name, types[i].color);
        tz_buf_puts(&b, "}");
    }
    /* Producers: bounded; a trace with more gets truncated=true (the timeline then
     * shows only these rows). */
    const traza_producer *prods;
    size_t np = traza_trace_producers(t, &prods);
    size_t maxp = 20000, shown = np < maxp ? np : maxp;
    tz_buf_puts(&b, "],\"producers\":[");
    for (size_t i = 0; i < shown; i++) {
        tz_buf_printf(&b, "%s{\"id\":%d,\"parent\":%d,\"name\":", i ? "," : "", prods[i].id, prods[i].parent);
        tz_json_str(&b, prods[i].name);
        tz_buf_puts(&b, ",\"type\":");
        tz_json_str(&b, prods[i].type ? prods[i].type : "");
        tz_buf_puts(&b, ",\"color\":");
        tz_json_color(&b, prods[i].name, NULL);
        tz_buf_puts(&b, "}");
    }
    tz_buf_printf(&b, "],\"producers_truncated\":%s", shown < np ? "true" : "false");
    const traza_param_def *defs;
    size_t nd = traza_trace_param_defs(t, &defs);
    tz_buf_puts(&b, ",\"param_defs\":[");
    for (size_t i = 0; i < nd; i++) {
        tz_buf_printf(&b, "%s{\"id\":%d,\"type\":%d,\"name\":", i ? "," : "", defs[i].id, defs[i].type_id);
        tz_json_str(&b, defs[i].name);
        tz_buf_puts(&b, ",\"ptype\":");
        tz_json_str(&b, traza_ptype_name(defs[i].ptype));
        tz_buf_puts(&b, "}");
    }
    tz_buf_puts(&b, "],\"results\":");
    traza_result_info *res = NULL;
    size_t nr = 0;
    if (traza_result_list(t, &res, &nr, &r->err) < 0) {
        tz_buf_free(&b);
        return tz_fail_err(r, &r->err);
    }
    results_json(&b, res, nr);
    traza_result_info_array_free(res, nr);
    tz_buf_puts(&b, "}");
    return tz_send_json(r, &b);
}

int tz_api_results(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    traza_result_info *res = NULL;
    size_t nr = 0;
    if (traza_result_list(t, &res, &nr, &r->err) < 0)
        return tz_fail_err(r, &r->err);
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"results\":");
    results_json(&b, res, nr);
    traza_result_info_array_free(res, nr);
    tz_buf_puts(&b, "}");
    return tz_send_json(r, &b);
}

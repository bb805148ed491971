/* The HTML report: one section per trace with inline SVG charts. */
#include "traza/report.h"
#include "traza/stats.h"
#include "traza/svg.h"
#include "report/html_diff.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


typedef struct ranked {
    const char *label;
    double v;
} ranked;

static int by_value_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? 1 : -1;
    return strcmp(x->label, y->label);
}

/* Adds a chart, taking ownership of the SVG text. */
static int add_svg(tz_buf *b, char *svg)
{
    if (!svg)
        return -1;
    tz_buf_puts(b, "<figure>");
    tz_buf_puts(b, svg);
    tz_buf_puts(b, "</figure>\n");
    free(svg);
    return 0;
}

static int section(tz_buf *b, traza_trace *t, size_t slices, traza_err *err)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    char t1[64], t2[64], title[600];
    tz_buf_puts(b, "<section><h2>");
    tz_xml_esc(b, info->name);
    tz_buf_puts(b, "</h2>\n<table class=\"meta\">");
    tz_buf_printf(b, "<tr><th>format</th><td>%s</td></tr>", info->format ? info->format : "");
    tz_buf_printf(b, "<tr><th>events</th><td>%lld (punctual %lld, state %lld, link %lld, variable %lld)</td></tr>", (long long)info->events,
                  (long long)info->categories[0], (long long)info->categories[1], (long long)info->categories[2], (long long)info->categories[3]);
    tz_buf_printf(b, "<tr><th>producers</th><td>%lld</td></tr><tr><th>event types</th><td>%lld</td></tr>", (long long)info->producers,
                  (long long)info->event_types);
    /* the start exactly (epoch timestamps need all their digits), the span readable */
    tz_buf_printf(b, "<tr><th>start</th><td>%s</td></tr><tr><th>span</th><td>%s</td></tr>",
                  traza_trace_time_format(info, info->min_ts, 1, t1, sizeof t1),
                  traza_trace_time_format(info, info->max_ts - info->min_ts, 0, t2, sizeof t2));
    for (size_t i = 0; i < info->nsources; i++) {
        tz_buf_puts(b, "<tr><th>source</th><td>");
        tz_xml_esc(b, info->sources[i]);
        tz_buf_puts(b, "</td></tr>");
    }
    tz_buf_puts(b, "</table>\n<div class=\"charts\">\n");

    uint64_t *counts = calloc(slices, sizeof *counts);
    if (!counts)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int64_t from, to;
    int rc = traza_density(t, NULL, slices, counts, &from, &to, err);
    if (rc == 0) {
        snprintf(title, sizeof title, "Event density (%zu slices)", slices);
        rc = add_svg(b, traza_svg_density(title, counts, slices, from, to, info));
    }
    free(counts);
    if (rc < 0)
        return rc;

    traza_stats st;
    if (traza_stats_compute(t, NULL, &st, err) < 0)
        return -1;
    size_t n = st.ntypes > st.nproducers ? st.ntypes : st.nproducers;
    traza_chart_item *items = calloc(n + 1, sizeof *items);
    ranked *rk = calloc(n + 1, sizeof *rk);
    char (*paths)[256] = calloc(st.nproducers + 1, sizeof *paths);
    if (!items || !rk || !paths) {
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < st.ntypes; i++) {
        rk[i].label = traza_trace_event_type(t, (int32_t)i)->name;
        rk[i].v = (double)st.types[i].count;
    }
    qsort(rk, st.ntypes, sizeof *rk, by_value_desc);
    for (size_t i = 0; i < st.ntypes; i++) {
        items[i].label = rk[i].label;
        items[i].value = rk[i].v;
    }
    if ((rc = add_svg(b, traza_svg_pie("Events per event type", items, st.ntypes))) < 0)
        goto oom;
    for (size_t i = 0; i < st.nproducers; i++) {
        rk[i].label = traza_trace_producer_path(t, (int32_t)i, paths[i], sizeof paths[i]);
        rk[i].v = (double)st.producers[i].count;
    }
    qsort(rk, st.nproducers, sizeof *rk, by_value_desc);
    for (size_t i = 0; i < st.nproducers; i++) {
        items[i].label = rk[i].label;
        items[i].value = rk[i].v;
    }
    if ((rc = add_svg(b, traza_svg_pie("Events per producer", items, st.nproducers))) < 0)
        goto oom;
    size_t k = 0;
    for (size_t i = 0; i < st.ntypes; i++) {
        const traza_event_type *ty = traza_trace_event_type(t, (int32_t)i);
        if (ty->category == TRAZA_STATE && st.types[i].duration > 0) {
            rk[k].label = ty->name;
            rk[k].v = (double)st.types[i].duration;
            k++;
        }
    }
    if (k) {
        qsort(rk, k, sizeof *rk, by_value_desc);
        if (k > 20)
            k = 20;
        /* Durations in the largest of s, ms, us, ns that keeps the longest >= 1; on a
         * count axis (traza_time_axis), in its counts. */
        static const struct { int exp; const char *name; } units[] = {{0, "s"}, {-3, "ms"}, {-6, "us"}, {-9, "ns"}};
        const char *axis = traza_time_axis(info);
        size_t u = 0;
        double scale = 1;
        for (u = 0; u < 4 && !axis; u++) {
            scale = 1;
            for (int e = info->time_unit; e < units[u].exp; e++) scale /= 10;
            for (int e = info->time_unit; e > units[u].exp; e--) scale *= 10;
            if (rk[0].v * scale >= 1 || u == 3)
                break;
        }
        for (size_t i = 0; i < k; i++) {
            items[i].label = rk[i].label;
            items[i].value = rk[i].v * scale;
            items[i].color = NULL;
        }
        char unit[32];
        snprintf(unit, sizeof unit, "%s", !axis ? units[u].name : strcmp(axis, "instructions") == 0 ? "instr" : axis);
        if ((rc = add_svg(b, traza_svg_bars("Top states by total duration", items, k, unit))) < 0)
            goto oom;
    }
    tz_buf_puts(b, "</div></section>\n");
    rc = 0;
    goto out;
oom:
    rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory drawing charts");
out:
    free(items);
    free(rk);
    free(paths);
    traza_stats_free(&st);
    return rc;
}

char *traza_report_html(traza_trace *const *traces, size_t n, size_t density_slices, traza_err *err)
{
    return traza_report_html_diff(traces, n, NULL, density_slices, err);
}

char *traza_report_html_diff(traza_trace *const *traces, size_t n, traza_trace *base, size_t density_slices, traza_err *err)
{
    if (!density_slices)
        density_slices = 60;
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b,
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>traza report</title>\n"
                "<style>body{font-family:sans-serif;margin:2em;color:#222}h1{font-size:1.6em}"
                "section{border-top:1px solid #ccc;margin-top:2em}table.meta th{text-align:left;padding-right:1em;color:#555}"
                ".charts{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}" TZ_REPORT_DIFF_CSS "</style></head><body>\n"
                "<h1>traza report</h1>\n");
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
    tz_buf_printf(&b, "<p>%zu trace%s, generated %s by traza %s.</p>\n", n, n == 1 ? "" : "s", when, traza_version());
    if (base && n && tz_report_diff_section(&b, base, traces[0], err) < 0) {
        tz_buf_free(&b);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (section(&b, traces[i], density_slices, err) < 0) {
            tz_buf_free(&b);
            return NULL;
        }
    tz_buf_puts(&b, "</body></html>\n");
    char *s = tz_buf_take(&b);
    if (!s)
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory writing the report");
    return s;
}

/* The diff section of the HTML report: the ranked rows of traza_diff by event type and,
 * for traces of calls, by function with the differential flame graph; then the
 * structure: the call paths of one run only and the sequence patterns whose counts
 * changed. */
#include "report/html_diff.h"
#include "traza/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows shown per table; the rest are counted under it. */
#define DIFF_ROWS 30

/* The table of the diff of a and tb by `by`; the diff is kept in *keep when keep is not
 * NULL (the caller frees it), else freed. */
static int table(tz_buf *b, traza_trace *a, traza_trace *tb, traza_diff_by by, const char *caption, traza_diff *keep,
                 traza_err *err)
{
    traza_diff_opts o;
    traza_diff_opts_init(&o);
    o.by = by;
    traza_diff d;
    if (traza_diff_compute(a, tb, &o, &d, err) < 0)
        return -1;
    char x[32], y[32], z[32];
    tz_buf_printf(b, "<h3>%s</h3>\n<table class=\"diff\" data-testid=\"diff-%s\"><tr><th>row</th><th>kind</th><th>count A</th>"
                  "<th>count B</th><th>median A</th><th>median B</th><th>shift</th><th>rel</th><th>p adj</th><th>verdict</th></tr>\n",
                  caption, by == TRAZA_DIFF_BY_FUNCTION ? "function" : "type");
    for (size_t i = 0; i < d.nrows && i < DIFF_ROWS; i++) {
        const traza_diff_row *r = &d.rows[i];
        const char *v = traza_diff_verdict_name(r->verdict);
        tz_buf_printf(b, "<tr class=\"%s\"><td>", r->verdict == TRAZA_DIFF_NEW_PATH ? "new" : r->verdict == TRAZA_DIFF_GONE_PATH ? "gone" : v);
        tz_xml_esc(b, r->name);
        tz_buf_printf(b, "</td><td>%s</td><td>%lld</td><td>%lld</td><td>%s</td><td>%s</td><td>%s</td>", traza_diff_kind_name(r->kind),
                      (long long)r->a.count, (long long)r->b.count, tz_secs_str(r->a.median, x, sizeof x),
                      tz_secs_str(r->b.median, y, sizeof y), tz_secs_str(r->shift, z, sizeof z));
        if (isnan(r->rel_shift)) tz_buf_puts(b, "<td>-</td>");
        else tz_buf_printf(b, "<td>%+.1f%%</td>", r->rel_shift * 100);
        tz_buf_printf(b, isnan(r->p_adj) ? "<td>-</td>" : "<td>%.2g</td>", r->p_adj);
        tz_buf_printf(b, "<td>%s</td></tr>\n", v);
    }
    tz_buf_puts(b, "</table>\n");
    if (d.nrows > DIFF_ROWS)
        tz_buf_printf(b, "<p>%zu more rows, not shown: the table lists the first %d of %zu.</p>\n", d.nrows - DIFF_ROWS, DIFF_ROWS, d.nrows);
    if (keep)
        *keep = d;
    else
        traza_diff_free(&d);
    return 0;
}

/* The call paths of fn (a diff by function; NULL when the traces hold no calls) found
 * in one run only, then the sequence patterns whose counts changed. */
static int structure(tz_buf *b, traza_trace *a, traza_trace *tb, const traza_diff *fn, traza_err *err)
{
    tz_buf_puts(b, "<div data-testid=\"diff-structure\"><h3>Structure</h3>\n");
    size_t npaths = 0, shown = 0;
    for (size_t i = 0; fn && i < fn->nrows; i++)
        npaths += fn->rows[i].kind == TRAZA_DIFF_PATH;
    if (!fn) {
        tz_buf_puts(b, "<p>No calls in these traces: no call paths to compare.</p>\n");
    } else if (!npaths) {
        tz_buf_puts(b, "<p>Every call path runs in both A and B.</p>\n");
    } else {
        tz_buf_printf(b, "<p>%zu call paths (root;&hellip;;function) run in one of A and B only.</p>\n<table class=\"diff\" "
                         "data-testid=\"diff-structure-paths\"><tr><th>call path</th><th>only in</th><th>calls</th></tr>\n", npaths);
        for (size_t i = 0; i < fn->nrows && shown < DIFF_ROWS; i++) {
            const traza_diff_row *r = &fn->rows[i];
            if (r->kind != TRAZA_DIFF_PATH)
                continue;
            shown++;
            tz_buf_printf(b, "<tr class=\"%s\"><td>", r->a.count ? "gone" : "new");
            tz_xml_esc(b, r->name);
            tz_buf_printf(b, "</td><td>%s</td><td>%lld</td></tr>\n", r->a.count ? "A (base)" : "B (new)",
                          (long long)(r->a.count ? r->a.count : r->b.count));
        }
        tz_buf_puts(b, "</table>\n");
        if (npaths > shown)
            tz_buf_printf(b, "<p>%zu more paths, not shown.</p>\n", npaths - shown);
    }
    traza_diff_opts o;
    traza_diff_opts_init(&o);
    traza_diff_counts c;
    if (traza_diff_patterns(a, tb, NULL, 0, TRAZA_DIFF_AUTO_PAIRS, 1, o.correction, o.alpha, &c, err) < 0)
        return -1;
    tz_buf_printf(b, "<p>Sequence patterns: the %d most frequent pairs of consecutive event types of each run, per producer, "
                     "counted in both (a rate test per pattern, Holm-corrected over the %zu patterns): %zu changed.</p>\n",
                  TRAZA_DIFF_AUTO_PAIRS, c.nrows, c.changed);
    if (c.changed) {
        tz_buf_puts(b, "<table class=\"diff\" data-testid=\"diff-structure-patterns\"><tr><th>pattern</th><th>count A</th>"
                       "<th>count B</th><th>rate A/s</th><th>rate B/s</th><th>p adj</th><th>verdict</th></tr>\n");
        for (size_t i = 0; i < c.changed && i < DIFF_ROWS; i++) {
            const traza_diff_count *r = &c.rows[i];
            const char *v = traza_diff_verdict_name(r->verdict);
            tz_buf_printf(b, "<tr class=\"%s\"><td>", v);
            tz_xml_esc(b, r->name);
            tz_buf_printf(b, "</td><td>%lld</td><td>%lld</td><td>%.4g</td><td>%.4g</td><td>%.2g</td><td>%s</td></tr>\n",
                          (long long)r->count_a, (long long)r->count_b, r->share_a, r->share_b, r->p_adj, v);
        }
        tz_buf_puts(b, "</table>\n");
        if (c.changed > DIFF_ROWS)
            tz_buf_printf(b, "<p>%zu more changed patterns, not shown.</p>\n", c.changed - DIFF_ROWS);
    }
    traza_diff_counts_free(&c);
    tz_buf_puts(b, "</div>\n");
    return 0;
}

int tz_report_diff_section(tz_buf *out, traza_trace *a, traza_trace *b, traza_err *err)
{
    const traza_trace_info *ia = traza_trace_info_of(a), *ib = traza_trace_info_of(b);
    char x[32], y[32];
    tz_buf_puts(out, "<section data-testid=\"diff\"><h2>What changed: ");
    tz_xml_esc(out, ib->name);
    tz_buf_puts(out, " against ");
    tz_xml_esc(out, ia->name);
    tz_buf_puts(out, "</h2>\n<p>A: ");
    tz_xml_esc(out, ia->name);
    tz_buf_printf(out, " (span %s), B: ", tz_secs_str((double)(ia->max_ts - ia->min_ts) * pow(10.0, ia->time_unit), x, sizeof x));
    tz_xml_esc(out, ib->name);
    tz_buf_printf(out,
                  " (span %s). Rows ranked by Holm-corrected p, then by relative shift; a corrected p below 0.01 is a change "
                  "(<code>traza diff</code>, doc/diff.md).</p>\n",
                  tz_secs_str((double)(ib->max_ts - ib->min_ts) * pow(10.0, ib->time_unit), y, sizeof y));
    if (table(out, a, b, TRAZA_DIFF_BY_TYPE, "By event type", NULL, err) < 0)
        return -1;
    traza_diff_tree tree;
    if (traza_diff_tree_compute(a, b, &tree, err) < 0)
        return -1;
    int rc = 0, have_fn = 0;
    traza_diff fn;
    if (tree.nframes) {
        rc = table(out, a, b, TRAZA_DIFF_BY_FUNCTION, "By function", &fn, err);
        have_fn = rc == 0;
        char *svg = rc == 0 ? traza_diff_flame_svg(&tree, TRAZA_DIFF_METRIC_SELF, "Differential flame graph (self time)") : NULL;
        if (rc == 0 && !svg)
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        if (svg) {
            tz_buf_puts(out, "<figure>");
            tz_buf_puts(out, svg);
            tz_buf_puts(out, "</figure>\n");
        }
        free(svg);
    }
    traza_diff_tree_free(&tree);
    if (rc == 0)
        rc = structure(out, a, b, have_fn ? &fn : NULL, err);
    if (have_fn)
        traza_diff_free(&fn);
    tz_buf_puts(out, "</section>\n");
    return rc;
}

/* traza callstack TRACE [FILTERS] [--tree] [--svg FILE] [--json] [--top N] */
#include "cli/cli.h"
#include "traza/callprofile.h"
#include "util/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char cmd_callstack_usage[] =
    "usage: traza callstack TRACE [FILTERS] [--tree] [--svg FILE] [--top N] [--json]\n"
    "\n"
    "Call-stack views of a trace whose functions are nested states (traza record,\n"
    "uftrace, ...): a flat profile (calls, inclusive and exclusive time per function;\n"
    "inclusive time counts only the outermost activation of a recursive function) and\n"
    "the call graph (caller -> callee, calls, time).\n"
    "The calls are the states the filters select (the filters of traza query, below);\n"
    "except that --from/--to do not select calls: the profile and call graph count the\n"
    "calls overlapping [--from, --to], each for its part inside; --during counts each call\n"
    "for its time inside the annotations' ranges (and inside --from/--to when given).\n"
    "  --tree       print the calls as an indented tree per producer (thread) instead\n"
    "  --svg FILE   write the call-stack timeline (depth downward, time to the right)\n"
    "  --top N      at most N functions / edges in the text output (default 30)\n"
    "  --json       {\"profile\":[{name,calls,inclusive,exclusive}],\n"
    "                \"callgraph\":[{caller,callee,calls,time}]}\n"
    "\n" CLI_FILTER_HELP;

static const char *tname(traza_trace *t, int32_t id)
{
    const traza_event_type *et = traza_trace_event_type(t, id);
    return et ? et->name : "?";
}

static void svg_text(tz_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') tz_buf_puts(b, "&lt;");
        else if (*s == '>') tz_buf_puts(b, "&gt;");
        else if (*s == '&') tz_buf_puts(b, "&amp;");
        else if (*s == '"') tz_buf_puts(b, "&quot;");
        else tz_buf_putc(b, *s);
    }
}

static void write_svg(tz_buf *b, traza_trace *t, const traza_callprofile *cp)
{
    const double W = 1200, row = 16, lane_gap = 24, left = 120;
    /* lanes: one per producer, height by its deepest level */
    size_t nl = 0;
    double y = 30, total = 30;
    for (size_t i = 0; i < cp->ncalls; i++) {
        if (i == 0 || cp->calls[i].producer != cp->calls[i - 1].producer)
            nl++;
    }
    int *lmax = calloc(nl ? nl : 1, sizeof *lmax);
    size_t li = 0;
    for (size_t i = 0; lmax && i < cp->ncalls; i++) {
        if (i > 0 && cp->calls[i].producer != cp->calls[i - 1].producer)
            li++;
        if (cp->calls[i].level > lmax[li])
            lmax[li] = cp->calls[i].level;
    }
    for (size_t k = 0; lmax && k < nl; k++)
        total += (lmax[k] + 1) * row + lane_gap;
    double span = cp->max_ts > cp->min_ts ? (double)(cp->max_ts - cp->min_ts) : 1;
    tz_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"10\">\n",
                  W + left + 10, total + 10);
    tz_buf_printf(b, "<text x=\"4\" y=\"16\" font-size=\"12\">call stacks of %s (%zu calls; time to the right, depth downward)</text>\n",
                  traza_trace_info_of(t)->name, cp->ncalls);
    li = 0;
    char path[512];
    for (size_t i = 0; lmax && i < cp->ncalls; i++) {
        const traza_cp_call *c = &cp->calls[i];
        if (i == 0 || c->producer != cp->calls[i - 1].producer) {
            if (i > 0) {
                y += (lmax[li] + 1) * row + lane_gap;
                li++;
            }
            tz_buf_printf(b, "<text x=\"4\" y=\"%.1f\">", y + 11);
            svg_text(b, traza_trace_producer_path(t, c->producer, path, sizeof path));
            tz_buf_puts(b, "</text>\n");
        }
        double x0 = left + (double)(c->ts - cp->min_ts) / span * W;
        double w = (double)(c->end - c->ts) / span * W;
        if (w < 0.3)
            continue; /* below a pixel: keeps big traces drawable */
        const char *nm = tname(t, c->type);
        uint64_t h = tz_hash_bytes(nm, strlen(nm));
        tz_buf_printf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"hsl(%u,60%%,70%%)\" stroke=\"#555\" stroke-width=\"0.3\"><title>",
                      x0, y + c->level * row, w, row - 2, (unsigned)(h % 360));
        svg_text(b, nm);
        tz_buf_printf(b, " (%" PRId64 " ticks)</title></rect>\n", c->end - c->ts);
        if (w > 6.0 * (double)strlen(nm)) {
            tz_buf_printf(b, "<text x=\"%.2f\" y=\"%.1f\">", x0 + 2, y + c->level * row + 10);
            svg_text(b, nm);
            tz_buf_puts(b, "</text>\n");
        }
    }
    tz_buf_puts(b, "</svg>\n");
    free(lmax);
}

/* The profile of the calls the filter selects; --from/--to (cf's window) restrict
 * what is counted, not the calls read: each call overlapping the window counts for
 * its part inside. EXIT_OK with *cp built, or the exit code. */
static int build_profile(traza_cli *cli, cli_filter *cf, traza_trace *t, traza_callprofile *cp)
{
    traza_err err;
    traza_err_clear(&err);
    int rc = cli_filter_resolve(cli, cf, t);
    if (rc != EXIT_OK)
        return rc;
    traza_filter f = cf->f;
    if (cf->from_s || cf->to_s)
        f.has_from = f.has_to = 0;
    if (traza_callprofile_build(t, cp, &f, NULL, NULL, &err) < 0)
        return cli_fail(cli, &err);
    if (!cf->from_s && !cf->to_s)
        return EXIT_OK;
    int64_t from = cf->from_s ? cf->f.from : cp->min_ts, to = cf->to_s ? cf->f.to : cp->max_ts;
    if (traza_callprofile_range(t, cp, from, to) < 0) {
        traza_callprofile_free(cp);
        traza_err_set(&err, TRAZA_E_NOMEM, "out of memory");
        return cli_fail(cli, &err);
    }
    return EXIT_OK;
}

int cmd_callstack(traza_cli *cli, int argc, char **argv)
{
    enum { OPT_TREE = OPT_FIRST_FREE, OPT_SVG, OPT_TOP };
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, CLI_FILTER_LONGOPTS,
                                             {"tree", no_argument, NULL, OPT_TREE},
                                             {"svg", required_argument, NULL, OPT_SVG},
                                             {"top", required_argument, NULL, OPT_TOP},
                                             {NULL, 0, NULL, 0}};
    int c, tree = 0;
    long top = 30;
    const char *svg = NULL;
    cli_filter cf;
    cli_filter_init(&cf);
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int r = cli_filter_opt(&cf, "callstack", c, optarg);
        if (r < 0) { cli_filter_free(&cf); return EXIT_USAGE; }
        if (r) continue;
        if (c == OPT_TREE) tree = 1;
        else if (c == OPT_SVG) svg = optarg;
        else if (c == OPT_TOP) {
            char *end;
            top = strtol(optarg, &end, 10);
            if (*end || top <= 0) {
                cli_filter_free(&cf);
                return cli_usage_error("callstack", "--top wants a positive number, got '%s'", optarg);
            }
        } else {
            int r2 = cli_common_opt(cli, "callstack", c);
            if (r2 <= 0) {
                cli_filter_free(&cf);
                return r2 == -1 ? EXIT_OK : EXIT_USAGE;
            }
        }
    }
    if (optind + 1 != argc) {
        cli_filter_free(&cf);
        return cli_usage_error("callstack", "expected one trace name");
    }
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_READ);
    if (!t) {
        cli_filter_free(&cf);
        return EXIT_FAIL;
    }
    traza_callprofile cp;
    int brc = build_profile(cli, &cf, t, &cp);
    cli_filter_free(&cf);
    if (brc != EXIT_OK) {
        traza_trace_close(t);
        return brc;
    }
    int rc = EXIT_OK;
    tz_buf b;
    tz_buf_init(&b);
    if (svg) {
        write_svg(&b, t, &cp);
        if (b.oom || cli_write_file(svg, b.s, b.len))
            rc = EXIT_FAIL;
        tz_buf_reset(&b);
    }
    if (cli->json) {
        tz_buf_puts(&b, "{\"profile\":[");
        for (size_t i = 0; i < cp.nfuncs; i++) {
            tz_buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
            tz_json_str(&b, cp.funcs[i].name);
            tz_buf_printf(&b, ",\"calls\":%" PRId64 ",\"inclusive\":%" PRId64 ",\"exclusive\":%" PRId64 ",\"max_level\":%d}",
                          cp.funcs[i].calls, cp.funcs[i].inclusive, cp.funcs[i].exclusive, cp.funcs[i].max_level);
        }
        tz_buf_puts(&b, "],\"callgraph\":[");
        for (size_t i = 0; i < cp.nedges; i++) {
            tz_buf_puts(&b, i ? ",{\"caller\":" : "{\"caller\":");
            if (cp.edges[i].caller < 0)
                tz_buf_puts(&b, "null");
            else
                tz_json_str(&b, tname(t, cp.edges[i].caller));
            tz_buf_puts(&b, ",\"callee\":");
            tz_json_str(&b, tname(t, cp.edges[i].callee));
            tz_buf_printf(&b, ",\"calls\":%" PRId64 ",\"time\":%" PRId64 "}", cp.edges[i].calls, cp.edges[i].time);
        }
        tz_buf_printf(&b, "],\"calls\":%zu,\"max_level\":%d}\n", cp.ncalls, cp.max_level);
    } else {
        if (tree) {
            char path[512];
            for (size_t i = 0; i < cp.ncalls; i++) {
                const traza_cp_call *k = &cp.calls[i];
                if (i == 0 || k->producer != cp.calls[i - 1].producer)
                    tz_buf_printf(&b, "%s:\n", traza_trace_producer_path(t, k->producer, path, sizeof path));
                tz_buf_printf(&b, "%*s%s\n", 2 + 2 * k->level, "", tname(t, k->type));
            }
        }
        if (tree)
            goto out;
        const traza_trace_info *ti = traza_trace_info_of(t);
        char t1[64], t2[64];
        tz_buf_printf(&b, "%-32s %10s %14s %14s\n", "function", "calls", "inclusive", "exclusive");
        for (size_t i = 0; i < cp.nfuncs && (long)i < top; i++)
            tz_buf_printf(&b, "%-32s %10" PRId64 " %14s %14s\n", cp.funcs[i].name, cp.funcs[i].calls,
                          traza_trace_time_format(ti, cp.funcs[i].inclusive, 0, t1, sizeof t1),
                          traza_trace_time_format(ti, cp.funcs[i].exclusive, 0, t2, sizeof t2));
        tz_buf_printf(&b, "\ncall graph (caller -> callee: calls, time)\n");
        for (size_t i = 0; i < cp.nedges && (long)i < top; i++)
            tz_buf_printf(&b, "  %s -> %s: %" PRId64 ", %s\n",
                          cp.edges[i].caller < 0 ? "(root)" : tname(t, cp.edges[i].caller), tname(t, cp.edges[i].callee),
                          cp.edges[i].calls, traza_trace_time_format(ti, cp.edges[i].time, 0, t1, sizeof t1));
    }
out:
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    traza_callprofile_free(&cp);
    traza_trace_close(t);
    return rc;
}

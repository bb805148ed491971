/* traza grammar cycles | cycle-time | compare | anomalies: cycle analyses on the grammar
 * (never on the expanded trace), with small self-contained SVG charts. */
#include "cli/grammar_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"

typedef struct gload {
    traza_grammar *g;
    uint64_t loop_header;
    traza_gcycle *tab;
    size_t n;
} gload;

/* Loads FILE, resolves the loop header and computes the cycle table. */
static int load_cycles(traza_cli *cli, const char *path, const grammar_opts *o, gload *L)
{
    memset(L, 0, sizeof *L);
    if (!(L->g = grammar_cli_load(path)))
        return EXIT_FAIL;
    if (grammar_cli_loop_header(L->g, o, &L->loop_header) < 0)
        return EXIT_USAGE;
    traza_err err;
    traza_err_clear(&err);
    if (traza_grammar_cycles(L->g, L->loop_header, &L->tab, &L->n, &err) < 0)
        return cli_fail(cli, &err);
    return EXIT_OK;
}

static void unload(gload *L)
{
    traza_grammar_free(L->g);
    free(L->tab);
}

static int cycle_arg(const gload *L, const char *s, size_t *idx)
{
    uint64_t v;
    if (s[0] == 'C' || s[0] == 'c')
        s++;
    if (grammar_cli_parse_u64(s, &v) < 0 || v < 1 || v > L->n) {
        fprintf(stderr, "traza grammar: cycle '%s': expected a number from 1 to %zu (see 'traza grammar cycles')\n", s,
                L->n);
        return -1;
    }
    *idx = (size_t)v - 1;
    return 0;
}

static int write_svg(const char *path, tz_buf *b)
{
    if (b->oom) {
        fprintf(stderr, "traza: out of memory\n");
        return EXIT_FAIL;
    }
    return cli_write_file(path, b->s ? b->s : "", b->len);
}

static const char *const PALETTE[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/* ---- cycles -------------------------------------------------------------------- */

int grammar_cmd_cycles(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "cycles", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (i + 1 != argc)
        return cli_usage_error("grammar", "cycles: expected one .tzg file");
    gload L;
    int rc = load_cycles(cli, argv[i], &o, &L);
    if (rc) {
        unload(&L);
        return rc;
    }
    double total = (double)L.g->len[0];
    uint64_t ncyc = 0;
    for (size_t k = 0; k < L.n; k++)
        ncyc += L.tab[k].count;
    tz_buf b;
    tz_buf_init(&b);
    if (o.json) {
        tz_buf_printf(&b, "{\"loop_header\": \"0x%llx\", \"cycles\": %llu, \"distinct_cycles\": %zu, \"table\": [",
                      (unsigned long long)L.loop_header, (unsigned long long)ncyc, L.n);
        for (size_t k = 0; k < L.n; k++)
            tz_buf_printf(&b,
                          "%s{\"cycle\": %zu, \"length\": %llu, \"count\": %llu, \"share\": %.6f, \"first\": %llu}",
                          k ? ", " : "", k + 1, (unsigned long long)L.tab[k].length,
                          (unsigned long long)L.tab[k].count,
                          total ? (double)L.tab[k].count * (double)L.tab[k].length / total : 0.0,
                          (unsigned long long)L.tab[k].first);
        tz_buf_puts(&b, "]}\n");
    } else {
        const char *lhname = traza_grammar_name(L.g, L.loop_header); /* an event type, on a trace's grammar */
        if (lhname)
            tz_buf_printf(&b, "loop header %s: %llu cycles, %zu distinct\n", lhname, (unsigned long long)ncyc, L.n);
        else
            tz_buf_printf(&b, "loop header 0x%llx: %llu cycles, %zu distinct\n", (unsigned long long)L.loop_header,
                          (unsigned long long)ncyc, L.n);
        tz_buf_printf(&b, "%-6s %12s %12s %8s %14s\n", "cycle", "length", "count", "share", "first at");
        for (size_t k = 0; k < L.n; k++)
            tz_buf_printf(&b, "C%-5zu %12llu %12llu %7.2f%% %14llu\n", k + 1, (unsigned long long)L.tab[k].length,
                          (unsigned long long)L.tab[k].count,
                          total ? 100.0 * (double)L.tab[k].count * (double)L.tab[k].length / total : 0.0,
                          (unsigned long long)L.tab[k].first);
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    if (o.svg) { /* pie chart: share of the trace's instructions per cycle */
        tz_buf s;
        tz_buf_init(&s);
        tz_buf_puts(&s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"520\" height=\"340\" "
                        "font-family=\"sans-serif\" font-size=\"12\">\n");
        tz_buf_puts(&s, "<title>cycles: share of the trace</title>\n");
        double a0 = 0, cx = 170, cy = 170, rr = 150;
        size_t shown = L.n < 10 ? L.n : 9;
        for (size_t k = 0; k <= shown && k < L.n; k++) {
            double share = 0;
            if (k < shown)
                share = total ? (double)L.tab[k].count * (double)L.tab[k].length / total : 0;
            else
                for (size_t q = shown; q < L.n; q++)
                    share += total ? (double)L.tab[q].count * (double)L.tab[q].length / total : 0;
            double a1 = a0 + share * 2 * M_PI;
            const char *col = PALETTE[k % 10];
            if (share >= 0.999999)
                tz_buf_printf(&s, "<circle cx=\"%g\" cy=\"%g\" r=\"%g\" fill=\"%s\"/>\n", cx, cy, rr, col);
            else if (share > 0)
                tz_buf_printf(&s,
                              "<path d=\"M%.2f,%.2f L%.2f,%.2f A%g,%g 0 %d,1 %.2f,%.2f Z\" fill=\"%s\" "
                              "stroke=\"#fff\"/>\n",
                              cx, cy, cx + rr * sin(a0), cy - rr * cos(a0), rr, rr, a1 - a0 > M_PI ? 1 : 0,
                              cx + rr * sin(a1), cy - rr * cos(a1), col);
            tz_buf_printf(&s, "<rect x=\"345\" y=\"%zu\" width=\"12\" height=\"12\" fill=\"%s\"/>", 20 + k * 20, col);
            if (k < shown)
                tz_buf_printf(&s, "<text x=\"362\" y=\"%zu\">C%zu: %.1f%% (%llu x %llu)</text>\n", 31 + k * 20, k + 1,
                              100 * share, (unsigned long long)L.tab[k].count,
                              (unsigned long long)L.tab[k].length);
            else
                tz_buf_printf(&s, "<text x=\"362\" y=\"%zu\">%zu others: %.1f%%</text>\n", 31 + k * 20, L.n - shown,
                              100 * share);
            a0 = a1;
        }
        tz_buf_puts(&s, "</svg>\n");
        rc = write_svg(o.svg, &s);
        tz_buf_free(&s);
    }
    unload(&L);
    return rc;
}

/* ---- cycle-time ----------------------------------------------------------------- */

int grammar_cmd_cycle_time(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "cycle-time", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (i + 2 != argc)
        return cli_usage_error("grammar", "cycle-time: expected FILE.tzg CYCLE");
    gload L;
    int rc = load_cycles(cli, argv[i], &o, &L);
    size_t c = 0;
    if (!rc && cycle_arg(&L, argv[i + 1], &c) < 0)
        rc = EXIT_USAGE;
    if (rc) {
        unload(&L);
        return rc;
    }
    traza_err err;
    traza_err_clear(&err);
    uint64_t *pos;
    size_t n;
    if (traza_grammar_cycle_positions(L.g, L.loop_header, L.tab[c].hash, L.tab[c].length, &pos, &n, &err) < 0) {
        unload(&L);
        return cli_fail(cli, &err);
    }
    tz_buf b;
    tz_buf_init(&b);
    if (o.json) {
        tz_buf_printf(&b, "{\"cycle\": %zu, \"length\": %llu, \"count\": %zu, \"positions\": [", c + 1,
                      (unsigned long long)L.tab[c].length, n);
        for (size_t k = 0; k < n; k++)
            tz_buf_printf(&b, "%s%llu", k ? ", " : "", (unsigned long long)pos[k]);
        tz_buf_puts(&b, "]}\n");
    } else {
        for (size_t k = 0; k < n; k++)
            tz_buf_printf(&b, "%llu\n", (unsigned long long)pos[k]);
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    if (o.svg) { /* strip chart: one tick per occurrence over the trace */
        tz_buf s;
        tz_buf_init(&s);
        double W = 1000, total = L.g->len[0] ? (double)L.g->len[0] : 1;
        tz_buf_printf(&s,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"70\" font-family=\"sans-serif\" "
                      "font-size=\"12\">\n<title>cycle C%zu in time</title>\n<rect x=\"0\" y=\"20\" width=\"%g\" "
                      "height=\"30\" fill=\"#eee\"/>\n",
                      W + 20, c + 1, W);
        long lastpx = -1;
        for (size_t k = 0; k < n; k++) {
            long px = (long)((double)pos[k] / total * W);
            if (px == lastpx)
                continue; /* one tick per pixel is enough */
            lastpx = px;
            double w = (double)L.tab[c].length / total * W;
            tz_buf_printf(&s, "<rect x=\"%ld\" y=\"20\" width=\"%.2f\" height=\"30\" fill=\"%s\"/>\n", px,
                          w < 1 ? 1 : w, PALETTE[c % 10]);
        }
        tz_buf_printf(&s, "<text x=\"0\" y=\"14\">C%zu: %zu occurrences over %llu symbols</text>\n</svg>\n", c + 1, n,
                      (unsigned long long)L.g->len[0]);
        rc = write_svg(o.svg, &s);
        tz_buf_free(&s);
    }
    free(pos);
    unload(&L);
    return rc;
}

/* ---- compare ------------------------------------------------------------------- */

/* Edits at most, before compare gives up (memory grows with their square). */
#define COMPARE_MAX_EDITS 4000

static void edit_text(const traza_grammar *g, const traza_gedit *e, const traza_elf *elf, tz_buf *b)
{
    traza_gsym s = {.value = e->value, .rep = 1, .is_rule = 0};
    grammar_cli_sym_text(g, &s, elf, b);
}

int grammar_cmd_compare(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "compare", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (i + 3 != argc)
        return cli_usage_error("grammar", "compare: expected FILE.tzg CYCLE CYCLE");
    gload L;
    int rc = load_cycles(cli, argv[i], &o, &L);
    size_t ca = 0, cb = 0;
    if (!rc && (cycle_arg(&L, argv[i + 1], &ca) < 0 || cycle_arg(&L, argv[i + 2], &cb) < 0))
        rc = EXIT_USAGE;
    if (rc) {
        unload(&L);
        return rc;
    }
    traza_err err;
    traza_err_clear(&err);
    traza_elf *elf = NULL;
    if (o.elf && !(elf = traza_elf_open(o.elf, &err))) {
        unload(&L);
        return cli_fail(cli, &err);
    }
    traza_gedit *ed = NULL;
    size_t ne = 0;
    const traza_gcycle *A = &L.tab[ca], *B = &L.tab[cb];
    if (traza_grammar_diff(L.g, A->first, A->length, B->first, B->length, COMPARE_MAX_EDITS, &ed, &ne, &err) < 0) {
        traza_elf_close(elf);
        unload(&L);
        return cli_fail(cli, &err);
    }
    size_t del = 0;
    for (size_t k = 0; k < ne; k++)
        del += ed[k].op == '-';
    tz_buf b;
    tz_buf_init(&b);
    if (o.json)
        tz_buf_printf(&b, "{\"a\": %zu, \"b\": %zu, \"length_a\": %llu, \"length_b\": %llu, \"first_a\": %llu, "
                          "\"first_b\": %llu, \"deleted\": %zu, \"inserted\": %zu, \"edits\": [",
                      ca + 1, cb + 1, (unsigned long long)A->length, (unsigned long long)B->length,
                      (unsigned long long)A->first, (unsigned long long)B->first, del, ne - del);
    else
        tz_buf_printf(&b, "C%zu (length %llu, first at %llu) vs C%zu (length %llu, first at %llu): %zu edit(s), "
                          "%zu deleted from C%zu, %zu inserted\n",
                      ca + 1, (unsigned long long)A->length, (unsigned long long)A->first, cb + 1,
                      (unsigned long long)B->length, (unsigned long long)B->first, ne, del, ca + 1, ne - del);
    for (size_t k = 0; k < ne; k++) {
        const traza_gedit *e = &ed[k];
        if (o.json) {
            tz_buf_printf(&b, "%s{\"op\": \"%c\", \"offset_a\": %llu, \"offset_b\": %llu, \"value\": \"0x%llx\", \"symbol\": ",
                          k ? ", " : "", e->op, (unsigned long long)e->off_a, (unsigned long long)e->off_b,
                          (unsigned long long)e->value);
            tz_buf sym;
            tz_buf_init(&sym);
            edit_text(L.g, e, elf, &sym);
            tz_json_str(&b, sym.s ? sym.s : "");
            tz_buf_free(&sym);
            tz_buf_putc(&b, '}');
        } else {
            tz_buf_printf(&b, "  %c C%zu+%llu C%zu+%llu  ", e->op, ca + 1, (unsigned long long)e->off_a, cb + 1,
                          (unsigned long long)e->off_b);
            edit_text(L.g, e, elf, &b);
            tz_buf_putc(&b, '\n');
        }
    }
    if (o.json)
        tz_buf_puts(&b, "]}\n");
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    free(ed);
    traza_elf_close(elf);
    unload(&L);
    return EXIT_OK;
}

/* ---- anomalies ------------------------------------------------------------------ */

typedef struct listctx {
    tz_buf *b;
    size_t n;
} listctx;

static int list_cycle(void *u, uint64_t c)
{
    listctx *x = u;
    tz_buf_printf(x->b, "%sC%llu", x->n++ ? " " : "", (unsigned long long)c + 1);
    return 0;
}

/* Rare transitions visited at most (the ranking covers them; counts cover all). */
#define ANOMALY_SCAN_LIMIT 1000000

int grammar_cmd_anomalies(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "anomalies", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (i + 1 != argc)
        return cli_usage_error("grammar", "anomalies: expected one .tzg file");
    gload L;
    int rc = load_cycles(cli, argv[i], &o, &L);
    if (rc) {
        unload(&L);
        return rc;
    }
    traza_err err;
    traza_err_clear(&err);
    /* the cycle sequence as a grammar: everything below costs O(|G|) plus the rare
     * transitions visited, never one step per cycle */
    traza_grammar *cg = NULL;
    uint64_t *wlen = NULL;
    traza_ganomaly *spans = NULL;
    size_t ns = 0;
    traza_ganomaly_info info;
    const double RARE = 0.05;
    if (traza_grammar_cycle_grammar(L.g, L.loop_header, L.tab, L.n, &cg, &wlen, &err) < 0 ||
        traza_grammar_anomalies(cg, wlen, L.tab, L.n, RARE, ANOMALY_SCAN_LIMIT, &spans, &ns, &info, &err) < 0) {
        traza_grammar_free(cg);
        free(wlen);
        unload(&L);
        return cli_fail(cli, &err);
    }
    uint64_t ncyc = info.cycles;
    /* rare cycles: at most 1% of the cycles (and not the only cycle) */
    tz_buf b;
    tz_buf_init(&b);
    size_t nrare = 0;
    if (o.json)
        tz_buf_printf(&b, "{\"cycles\": %llu, \"rare_transitions\": %llu, \"truncated\": %s, \"rare_cycles\": [",
                      (unsigned long long)ncyc, (unsigned long long)info.rare_transitions,
                      info.truncated ? "true" : "false");
    else
        tz_buf_printf(&b, "rare cycles (at most 1%% of %llu cycles), rarest first:\n", (unsigned long long)ncyc);
    for (size_t k = L.n; k-- > 0 && nrare < (size_t)o.top;) {
        if (L.n < 2 || (double)L.tab[k].count > 0.01 * (double)ncyc)
            continue;
        if (o.json)
            tz_buf_printf(&b, "%s{\"cycle\": %zu, \"count\": %llu, \"length\": %llu, \"first\": %llu}",
                          nrare ? ", " : "", k + 1, (unsigned long long)L.tab[k].count,
                          (unsigned long long)L.tab[k].length, (unsigned long long)L.tab[k].first);
        else
            tz_buf_printf(&b, "  C%zu: %llu occurrence(s), length %llu, first at %llu\n", k + 1,
                          (unsigned long long)L.tab[k].count, (unsigned long long)L.tab[k].length,
                          (unsigned long long)L.tab[k].first);
        nrare++;
    }
    if (o.json)
        tz_buf_puts(&b, "], \"unusual_sequences\": [");
    else
        tz_buf_printf(&b, "unusual cycle sequences (transitions with P(next|previous) < %.0f%%), ranked:\n",
                      RARE * 100);
    size_t shown = 0;
    for (size_t k = 0; k < ns && shown < (size_t)o.top; k++, shown++) {
        /* the span's cycles (at most 16), by random access into the cycle grammar */
        tz_buf seq;
        tz_buf_init(&seq);
        listctx lc = {&seq, 0};
        uint64_t to = spans[k].to_k + 1;
        if (to - spans[k].from_k > 16)
            to = spans[k].from_k + 16;
        if (traza_grammar_extract(cg, spans[k].from_k, to, list_cycle, &lc, &err) < 0)
            tz_buf_puts(&seq, "?");
        if (o.json) {
            tz_buf_printf(&b, "%s{\"start\": %llu, \"end\": %llu, \"score\": %.3f, \"cycles\": ", k ? ", " : "",
                          (unsigned long long)spans[k].start, (unsigned long long)spans[k].end, spans[k].score);
            tz_json_str(&b, seq.s ? seq.s : "");
            tz_buf_putc(&b, '}');
        } else {
            tz_buf_printf(&b, "  #%zu [%llu, %llu) score %.1f: %s\n", k + 1, (unsigned long long)spans[k].start,
                          (unsigned long long)spans[k].end, spans[k].score, seq.s ? seq.s : "");
        }
        tz_buf_free(&seq);
    }
    if (o.json)
        tz_buf_puts(&b, "]}\n");
    else if (!ns)
        tz_buf_puts(&b, "  none\n");
    else if (info.truncated)
        tz_buf_printf(&b, "  (ranking over the first %llu of %llu rare transitions)\n",
                      (unsigned long long)info.scanned, (unsigned long long)info.rare_transitions);
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    free(spans);
    free(wlen);
    traza_grammar_free(cg);
    unload(&L);
    return EXIT_OK;
}

/* traza diff: the cycle types of two grammars and the sequence-search patterns of two
 * traces, as text or JSON. */
#include "cli/diff_structure.h"
#include "cli/grammar_cli.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row's label: the pattern, or the cycle by its numbers on each side. */
static const char *count_label(const traza_diff_count *r, char *buf, size_t size)
{
    if (r->name)
        snprintf(buf, size, "%s", r->name);
    else if (r->index_a && r->index_b)
        snprintf(buf, size, "A:C%zu = B:C%zu (length %llu)", r->index_a, r->index_b, (unsigned long long)r->length);
    else
        snprintf(buf, size, "%s:C%zu (length %llu)", r->index_a ? "A" : "B", r->index_a ? r->index_a : r->index_b,
                 (unsigned long long)r->length);
    return buf;
}

/* The text table: the changed rows (at most top), then how many are unchanged. */
static void counts_text(tz_buf *b, const traza_diff_counts *c, int cycles, long top)
{
    char label[512];
    tz_buf_printf(b, "%-40s %10s %10s %9s %9s %9s  %s\n", cycles ? "cycle type" : "pattern", "count A", "count B",
                  cycles ? "share A" : "rate A/s", cycles ? "share B" : "rate B/s", "p adj", "verdict");
    size_t shown = 0;
    for (size_t i = 0; i < c->nrows && c->rows[i].verdict != TRAZA_DIFF_SAME && (long)shown < top; i++, shown++) {
        const traza_diff_count *r = &c->rows[i];
        if (cycles)
            tz_buf_printf(b, "%-40s %10lld %10lld %8.2f%% %8.2f%% %9.2g  %s\n", count_label(r, label, sizeof label),
                          (long long)r->count_a, (long long)r->count_b, 100 * r->share_a, 100 * r->share_b, r->p_adj,
                          traza_diff_verdict_name(r->verdict));
        else
            tz_buf_printf(b, "%-40s %10lld %10lld %9.4g %9.4g %9.2g  %s\n", count_label(r, label, sizeof label),
                          (long long)r->count_a, (long long)r->count_b, r->share_a, r->share_b, r->p_adj,
                          traza_diff_verdict_name(r->verdict));
    }
    if (c->changed > shown)
        tz_buf_printf(b, "(%zu more changed: --top or --json)\n", c->changed - shown);
    tz_buf_printf(b, "%zu of %zu %s unchanged\n", c->nrows - c->changed, c->nrows, cycles ? "cycle types" : "patterns");
}

/* An address of side `side` as text: function+offset in its program, else hex. */
static void addr_text(tz_buf *b, const traza_grammar *g, const traza_elf *elf, uint64_t v)
{
    uint64_t off = 0;
    const char *fn = elf ? traza_elf_func_at(elf, v, &off) : NULL;
    const char *name = traza_grammar_name(g, v);
    if (name)
        tz_buf_puts(b, name);
    else if (fn)
        tz_buf_printf(b, "%s+0x%llx (0x%llx)", fn, (unsigned long long)off, (unsigned long long)v);
    else
        tz_buf_printf(b, "0x%llx", (unsigned long long)v);
}

/* The loop headers of A and B: --loop-header (or auto) on A, else A's stored one, else
 * B's; B's is A's carried by function + offset when both programs are given, else B's
 * stored one when there is no --loop-header, else A's. */
static int loop_headers(const traza_grammar *a, const traza_grammar *b, const char *given, traza_elf *const elf[2],
                        const char *const elfpath[2], uint64_t *head_a, uint64_t *head_b)
{
    grammar_opts go;
    memset(&go, 0, sizeof go);
    go.loop_header = given;
    if (grammar_cli_loop_header(a->has_loop_header || given ? a : b, &go, head_a) != 0)
        return -1;
    *head_b = !given && b->has_loop_header && !elf[0] ? b->loop_header : *head_a;
    if (!elf[0])
        return 0;
    uint64_t off;
    const char *fn = traza_elf_func_at(elf[0], *head_a, &off);
    if (!fn)
        return 0; /* outside every function: the same address on both sides */
    traza_err err;
    traza_err_clear(&err);
    uint64_t at;
    if (traza_elf_symbol(elf[1], fn, &at, &err) < 0) {
        fprintf(stderr, "traza diff: the loop header 0x%llx is %s+0x%llx in %s, and %s has no %s\n",
                (unsigned long long)*head_a, fn, (unsigned long long)off, elfpath[0], elfpath[1], fn);
        return -1;
    }
    *head_b = at + off;
    return 0;
}

int diff_grammars(traza_cli *cli, const char *pa, const char *pb, const char *loop_header, const char *const *elfpath,
                  const traza_diff_opts *o, long top)
{
    traza_grammar *a = grammar_cli_load(pa), *b = a ? grammar_cli_load(pb) : NULL;
    traza_elf *elf[2] = {NULL, NULL};
    int rc = EXIT_FAIL;
    uint64_t loop_head_a, loop_head_b;
    traza_err err;
    traza_err_clear(&err);
    if (!a || !b)
        goto done;
    for (int k = 0; elfpath && k < 2; k++)
        if (!(elf[k] = traza_elf_open(elfpath[k], &err))) {
            rc = cli_fail(cli, &err);
            goto done;
        }
    if (loop_headers(a, b, loop_header, elf, elfpath, &loop_head_a, &loop_head_b) < 0) {
        rc = EXIT_USAGE;
        goto done;
    }
    traza_diff_counts c;
    if (traza_diff_grammar_cycles_elf(a, elf[0], loop_head_a, b, elf[1], loop_head_b, o->correction, o->alpha, &c, &err) < 0) {
        rc = cli_fail(cli, &err);
        goto done;
    }
    tz_buf out;
    tz_buf_init(&out);
    if (cli->json) {
        tz_buf_puts(&out, "{\"a\":");
        tz_json_str(&out, pa);
        tz_buf_puts(&out, ",\"b\":");
        tz_json_str(&out, pb);
        tz_buf_printf(&out, ",\"loop_header\":\"0x%llx\",\"loop_header_b\":\"0x%llx\",\"by_function\":%s,\"cycles_a\":%.0f,"
                            "\"cycles_b\":%.0f,\"changed\":%zu,\"cycle_types\":",
                      (unsigned long long)loop_head_a, (unsigned long long)loop_head_b, elf[0] ? "true" : "false", c.exposure_a, c.exposure_b,
                      c.changed);
        if (traza_diff_json_counts(tz_buf_sink, &out, &c) != 0)
            out.oom = 1;
        tz_buf_puts(&out, "}\n");
    } else {
        tz_buf_printf(&out, "A: %s (%.0f cycles)  B: %s (%.0f cycles)  loop header ", pa, c.exposure_a, pb, c.exposure_b);
        addr_text(&out, a, elf[0], loop_head_a);
        if (loop_head_b != loop_head_a || elf[0]) {
            tz_buf_puts(&out, " in A, ");
            addr_text(&out, b, elf[1], loop_head_b);
            tz_buf_puts(&out, " in B");
        }
        tz_buf_printf(&out, "\n%s%s-corrected p < %g is a change of frequency; a type on one side only is new or gone\n",
                      elf[0] ? "addresses compared as function + offset; " : "",
                      o->correction == TRAZA_DIFF_BH ? "BH" : "Holm", o->alpha);
        counts_text(&out, &c, 1, top);
    }
    rc = out.oom ? EXIT_FAIL : EXIT_OK;
    fputs(out.oom ? "traza: out of memory\n" : out.s ? out.s : "", out.oom ? stderr : stdout);
    tz_buf_free(&out);
    traza_diff_counts_free(&c);
done:
    for (int k = 0; k < 2; k++)
        traza_elf_close(elf[k]);
    traza_grammar_free(a);
    traza_grammar_free(b);
    return rc;
}

char *diff_patterns_section(traza_trace *a, traza_trace *b, const char *const *patterns, size_t npatterns,
                            const traza_diff_opts *o, int json, long top, traza_err *err)
{
    traza_diff_counts c;
    if (traza_diff_patterns(a, b, patterns, npatterns, TRAZA_DIFF_AUTO_PAIRS, 1, o->correction, o->alpha, &c, err) < 0)
        return NULL;
    tz_buf out;
    tz_buf_init(&out);
    if (json) {
        if (traza_diff_json_counts(tz_buf_sink, &out, &c) != 0)
            out.oom = 1;
    } else {
        tz_buf_printf(&out, "\nsequence patterns (%s, per producer; a rate test on the instance counts, corrected over the "
                            "patterns):\n",
                      npatterns ? "--pattern" : "the most frequent pairs of consecutive event types");
        counts_text(&out, &c, 0, top);
    }
    traza_diff_counts_free(&c);
    char *s = tz_buf_take(&out);
    if (!s) {
        tz_buf_free(&out);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return s;
}

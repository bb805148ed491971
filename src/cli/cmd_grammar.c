/* traza grammar compress|decompress|stats|show|cycles|cycle-time|compare|anomalies|at|extract */
#include "cli/grammar_cli.h"

#include <errno.h>
#include <math.h>
#include <libgen.h>
#include <stdio.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "traza/elf.h"
#include "traza/etm.h"

const char cmd_grammar_usage[] =
    "usage: traza grammar VERB [OPTIONS] ...\n"
    "\n"
    "Grammar compression of PC and event sequences (Sequitur, ReSequitur, Cyclitur) and\n"
    "analyses that read the grammar without expanding it.\n"
    "\n"
    "  compress IN -o OUT.tzg [--algo sequitur|resequitur|cyclitur] [--loop-header ADDR|auto]\n"
    "           [--raw32|--raw64] [--xz|--zstd]     IN: PC list (hex per line, .xz ok),\n"
    "           PC-trace CSV (time,address,...), raw LE words; or --trace NAME [--producer P]\n"
    "           (a stored trace as its sequence of event types); or --from-etm DIR [--producer CORE]\n"
    "           (a CoreSight snapshot decoded with OpenCSD, one PC per executed instruction)\n"
    "  decompress IN.tzg [-o OUT] [--raw32|--raw64]  the exact input (hex lines by default)\n"
    "  stats IN.tzg [--json]            Size(G), Comp(G), |w|, rules, depth, cycles\n"
    "  show IN.tzg [--elf FILE]         the rules; addresses symbolized with an ELF, event\n"
    "                                   types by the names stored at compress --trace\n"
    "  cycles IN.tzg [--svg OUT]        distinct cycles: length, occurrences, share (pie chart)\n"
    "  cycle-time IN.tzg N [--svg OUT]  positions of cycle N (from `cycles`) (strip chart)\n"
    "  compare IN.tzg N M [--elf FILE]  where cycles N and M differ: the edit script, symbol by\n"
    "                                   symbol, with offsets (and functions with an ELF)\n"
    "  anomalies IN.tzg [--top K]       rare cycles and unusual cycle sequences, ranked\n"
    "  at IN.tzg I                      the symbol at index I\n"
    "  extract IN.tzg I J               the symbols of [I, J)\n"
    "\n"
    "Cycle analyses use the file's loop header (Cyclitur) or --loop-header ADDR (with\n"
    "--trace, or on a grammar of a trace, an event type's name).\n"
    "--loop-header auto chooses over the whole sequence, from its grammar: the candidate\n"
    "whose cycles are the most regular (the largest share of the sequence in cycles that\n"
    "occur twice or more), a loop before the functions it calls; the first eight are\n"
    "printed on stderr with their cycle counts.\n"
    "  --json   machine-readable output (stats: size, comp, length, rules, depth, cycles,\n"
    "           distinct_cycles)\n";

enum { O_ALGO = OPT_FIRST_FREE, O_LH, O_RAW32, O_RAW64, O_TRACE, O_PRODUCER, O_ELF, O_SVG, O_XZ, O_ZSTD, O_TOP, O_FROM_ETM };

int grammar_cli_parse(traza_cli *cli, const char *verb, int argc, char **argv, grammar_opts *o)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"output", required_argument, NULL, 'o'},
        {"algo", required_argument, NULL, O_ALGO},
        {"loop-header", required_argument, NULL, O_LH},
        {"raw32", no_argument, NULL, O_RAW32},
        {"raw64", no_argument, NULL, O_RAW64},
        {"trace", required_argument, NULL, O_TRACE},
        {"producer", required_argument, NULL, O_PRODUCER},
        {"elf", required_argument, NULL, O_ELF},
        {"svg", required_argument, NULL, O_SVG},
        {"xz", no_argument, NULL, O_XZ},
        {"zstd", no_argument, NULL, O_ZSTD},
        {"top", required_argument, NULL, O_TOP},
        {"from-etm", required_argument, NULL, O_FROM_ETM},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->backend = TRAZA_TZG_XZ;
    o->top = 10;
    optind = 1;
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:o:", longopts)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case O_ALGO: o->algo = optarg; break;
        case O_LH: o->loop_header = optarg; break;
        case O_RAW32: o->raw = 32; break;
        case O_RAW64: o->raw = 64; break;
        case O_TRACE: o->trace = optarg; break;
        case O_FROM_ETM: o->from_etm = optarg; break;
        case O_PRODUCER: o->producer = optarg; break;
        case O_ELF: o->elf = optarg; break;
        case O_SVG: o->svg = optarg; break;
        case O_XZ: o->backend = TRAZA_TZG_XZ; break;
        case O_ZSTD: o->backend = TRAZA_TZG_ZSTD; break;
        case O_TOP:
            o->top = strtol(optarg, NULL, 10);
            if (o->top <= 0) {
                cli_usage_error("grammar", "%s: --top needs a positive number", verb);
                return -2;
            }
            break;
        case 'h':
            cli_print_usage("grammar");
            return -1;
        default: {
            int r = cli_common_opt(cli, "grammar", c);
            if (r == -1)
                return -1;
            if (r <= 0)
                return -2;
        }
        }
    }
    o->json = cli->json;
    o->quiet = cli->quiet;
    return optind;
}

int grammar_cli_parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s)
        return -1;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return tz_parse_u64_hex(s, strlen(s), v);
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || s[0] == '-')
        return -1;
    *v = x;
    return 0;
}

traza_grammar *grammar_cli_load(const char *path)
{
    traza_err err;
    traza_err_clear(&err);
    traza_grammar *g = traza_tzg_read(path, &err);
    if (!g)
        cli_fail(NULL, &err);
    return g;
}

/* A symbol as given: a hexadecimal value, or one of the names (event types of a
 * stored trace) vals/names hold. 0, or -1 when it is neither. */
static int symbol_of(const char *text, const uint64_t *vals, char *const *names, size_t n, uint64_t *out)
{
    if (tz_parse_u64_hex(text, strlen(text), out) == 0)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (strcmp(names[k], text) == 0) {
            *out = vals[k];
            return 0;
        }
    return -1;
}

/* Loops shown by --loop-header auto. */
enum { AUTO_SHOWN = 8 };

/* Whether candidate y cuts the sequence as x does, shifted (another address of the
 * same loop): as many cycles within one, as regular within 0.2 points, and the same
 * call tests (a function the loop calls gets a row of its own). */
static int same_loop(const traza_gheader *x, const traza_gheader *y)
{
    uint64_t d = x->cycles > y->cycles ? x->cycles - y->cycles : y->cycles - x->cycles;
    return d <= 1 && fabs(x->regular - y->regular) < 0.002 && x->in_call == y->in_call &&
           x->return_point == y->return_point;
}

int grammar_cli_auto_loop_header(const traza_grammar *g, int addresses, int quiet, uint64_t *loop_header)
{
    traza_err err;
    traza_err_clear(&err);
    traza_gheader *h;
    size_t n;
    if (traza_grammar_rank_loop_headers(g, addresses, TRAZA_GHEADER_CANDIDATES, &h, &n, &err) < 0)
        return cli_fail(NULL, &err);
    *loop_header = h[0].symbol;
    size_t shown[AUTO_SHOWN], same[AUTO_SHOWN], ns = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < ns && !same_loop(&h[shown[k]], &h[i]))
            k++;
        if (k < ns)
            same[k]++;
        else if (ns < AUTO_SHOWN) {
            shown[ns] = i;
            same[ns++] = 0;
        }
    }
    if (!quiet) {
        fprintf(stderr,
                "loop header auto: %zu candidates over the whole sequence (%llu symbols), the most regular cycles first:\n"
                "  %-18s %12s %9s %10s %8s%s\n",
                n, (unsigned long long)g->len[0], "candidate", "cycles", "distinct", "repeating", "largest",
                addresses ? "  backward" : "");
        for (size_t k = 0; k < ns; k++) {
            const traza_gheader *c = &h[shown[k]];
            const char *name = traza_grammar_name(g, c->symbol);
            char sym[64], more[64] = "";
            if (name)
                snprintf(sym, sizeof sym, "%.63s", name);
            else
                snprintf(sym, sizeof sym, "0x%llx", (unsigned long long)c->symbol);
            if (same[k])
                snprintf(more, sizeof more, "  (+%zu of the same loop)", same[k]);
            fprintf(stderr, "  %-18s %12llu %9llu %9.1f%% %7.1f%%", sym, (unsigned long long)c->cycles,
                    (unsigned long long)c->distinct_cycles, 100 * c->regular, 100 * c->largest);
            if (addresses)
                fprintf(stderr, " %8.0f%%", c->occurrences ? 100.0 * (double)c->back_entries / (double)c->occurrences : 0);
            fprintf(stderr, "%s%s%s%s\n", k == 0 ? "  chosen" : "", c->in_call ? "  inside a call" : "",
                    c->return_point ? "  where a call returns" : "", more);
        }
        fprintf(stderr, "  (repeating: the share of the sequence in cycles that occur twice or more; largest: the\n"
                        "  longest cycle's share%s)\n",
                addresses ? "; backward: the share of its occurrences entered by a backward jump;\n"
                            "  among equally regular ones, a loop ranks before the functions it calls" : "");
    }
    free(h);
    return 0;
}

int grammar_cli_loop_header(const traza_grammar *g, const grammar_opts *o, uint64_t *loop_header)
{
    if (o->loop_header && strcmp(o->loop_header, "auto") == 0)
        return grammar_cli_auto_loop_header(g, g->nnames == 0, o->quiet, loop_header) == 0 ? 0 : -1;
    if (o->loop_header) {
        if (symbol_of(o->loop_header, g->name_vals, g->names, g->nnames, loop_header) < 0) {
            cli_usage_error("grammar", "--loop-header '%s': expected a hexadecimal address%s", o->loop_header,
                            g->nnames ? " or an event type of the trace" : "");
            return -1;
        }
        return 0;
    }
    if (g->has_loop_header) {
        *loop_header = g->loop_header;
        return 0;
    }
    fprintf(stderr, "traza grammar: this grammar has no loop header: give --loop-header ADDR\n");
    return -1;
}

/* ---- compress ------------------------------------------------------------------- */

typedef struct vec64 {
    uint64_t *v;
    size_t n, cap;
} vec64;

static int vec_push(void *u, uint64_t s)
{
    vec64 *v = u;
    if (TZ_GROW(v->v, v->cap, v->n + 1) < 0)
        return -1;
    v->v[v->n++] = s;
    return 0;
}

/* The event type names of a trace, for the .tzg (show prints them). */
typedef struct tnames {
    uint64_t *vals;
    char **names;
    size_t n;
} tnames;

static void tnames_free(tnames *tn)
{
    for (size_t k = 0; k < tn->n; k++)
        free(tn->names[k]);
    free(tn->names), free(tn->vals);
    memset(tn, 0, sizeof *tn);
}

static int read_trace(traza_cli *cli, const grammar_opts *o, vec64 *v, tnames *tn)
{
    traza_trace *t = cli_trace(cli, o->trace, TRAZA_OPEN_READ);
    if (!t)
        return -1;
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    tn->vals = calloc(nt ? nt : 1, sizeof *tn->vals);
    tn->names = calloc(nt ? nt : 1, sizeof *tn->names);
    if (!tn->vals || !tn->names) {
        traza_trace_close(t);
        fprintf(stderr, "traza: out of memory\n");
        return -1;
    }
    for (size_t k = 0; k < nt; k++) {
        if (!types[k].name || !types[k].name[0] || strlen(types[k].name) > 4096)
            continue;
        if (!(tn->names[tn->n] = strdup(types[k].name))) {
            traza_trace_close(t);
            fprintf(stderr, "traza: out of memory\n");
            return -1;
        }
        tn->vals[tn->n++] = (uint64_t)(uint32_t)types[k].id;
    }
    traza_err err;
    traza_err_clear(&err);
    traza_filter f;
    traza_filter_init(&f);
    int32_t pid;
    if (o->producer) {
        const traza_producer *p = traza_trace_producer_find(t, o->producer);
        if (!p) {
            fprintf(stderr, "traza: trace %s has no producer '%s'\n", o->trace, o->producer);
            traza_trace_close(t);
            return -1;
        }
        pid = p->id;
        f.producers = &pid;
        f.nproducers = 1;
    }
    traza_cursor *cur = traza_query(t, &f, &err);
    int rc = cur ? 0 : -1;
    const traza_event *ev;
    int r;
    while (cur && (r = traza_cursor_next(cur, &ev, &err)) == 1)
        if (vec_push(v, (uint64_t)(uint32_t)ev->type) < 0) {
            traza_err_set(&err, TRAZA_E_NOMEM, "out of memory");
            rc = -1;
            break;
        }
    if (cur && r < 0)
        rc = -1;
    traza_cursor_free(cur);
    traza_trace_close(t);
    if (rc < 0)
        cli_fail(cli, &err);
    return rc;
}

static void print_stats(const traza_grammar *g, const traza_gstats *st, int json, FILE *out)
{
    if (json) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_printf(&b, "{\"algo\": \"%s\", \"size\": %llu, \"comp\": ", traza_galgo_name(g->algo), (unsigned long long)st->size);
        tz_json_num(&b, st->comp); /* NaN (an empty grammar) as null */
        tz_buf_printf(&b, ", \"length\": %llu, \"rules\": %llu, \"depth\": %u, \"cycles\": %llu, \"distinct_cycles\": %llu",
                      (unsigned long long)st->length, (unsigned long long)st->rules, st->depth, (unsigned long long)st->cycles,
                      (unsigned long long)st->distinct_cycles);
        if (g->has_loop_header)
            tz_buf_printf(&b, ", \"loop_header\": \"0x%llx\"", (unsigned long long)g->loop_header);
        if (g->has_loop_header && traza_grammar_name(g, g->loop_header)) {
            tz_buf_puts(&b, ", \"loop_header_name\": ");
            tz_json_str(&b, traza_grammar_name(g, g->loop_header));
        }
        tz_buf_puts(&b, "}\n");
        fputs(b.s ? b.s : "", out);
        tz_buf_free(&b);
        return;
    }
    fprintf(out, "algorithm   %s\n", traza_galgo_name(g->algo));
    fprintf(out, "|w|         %llu\n", (unsigned long long)st->length);
    fprintf(out, "Size(G)     %llu\n", (unsigned long long)st->size);
    fprintf(out, "Comp(G)     %.6f\n", st->comp);
    fprintf(out, "rules       %llu\n", (unsigned long long)st->rules);
    fprintf(out, "depth       %u\n", st->depth);
    if (g->has_loop_header) {
        const char *lhname = traza_grammar_name(g, g->loop_header); /* an event type, on a trace's grammar */
        if (lhname)
            fprintf(out, "loop header %s\n", lhname);
        else
            fprintf(out, "loop header 0x%llx\n", (unsigned long long)g->loop_header);
        fprintf(out, "cycles      %llu (%llu distinct)\n", (unsigned long long)st->cycles,
                (unsigned long long)st->distinct_cycles);
    }
}

typedef struct pushctx {
    traza_gbuilder *b;
    traza_err *err;
} pushctx;

static int push_builder(void *u, uint64_t sym)
{
    pushctx *p = u;
    return traza_gbuilder_push(p->b, sym, p->err) < 0;
}

static int finish_compress(traza_cli *cli, traza_grammar *g, const grammar_opts *o)
{
    traza_err err;
    traza_err_clear(&err);
    traza_gstats st;
    if (traza_grammar_stats(g, &st, &err) < 0 || traza_tzg_write(g, o->out, o->backend, &err) < 0) {
        traza_grammar_free(g);
        return cli_fail(cli, &err);
    }
    if (o->json)
        print_stats(g, &st, 1, stdout);
    else if (!o->quiet)
        print_stats(g, &st, 0, stderr);
    traza_grammar_free(g);
    return EXIT_OK;
}

/* g (Sequitur, of the whole input) with the loop header --loop-header auto chooses on
 * it, as algo: Sequitur records it, another algorithm is built anew from g's
 * expansion. g is freed on failure or when replaced; NULL: the error is printed. */
static traza_grammar *with_auto_loop_header(traza_cli *cli, traza_grammar *g, traza_galgo algo, int addresses, int quiet)
{
    uint64_t lh;
    if (grammar_cli_auto_loop_header(g, addresses && g->nnames == 0, quiet, &lh) != 0) {
        traza_grammar_free(g);
        return NULL;
    }
    if (algo == TRAZA_G_SEQUITUR) {
        g->has_loop_header = 1;
        g->loop_header = lh;
        return g;
    }
    traza_err err;
    traza_err_clear(&err);
    traza_gbuilder *b = traza_gbuilder_new(algo, &lh, &err);
    pushctx px = {b, &err};
    traza_grammar *out = NULL;
    if (b && traza_grammar_extract(g, 0, g->len[0], push_builder, &px, &err) == 0)
        out = traza_gbuilder_finish(b, &err);
    else
        traza_gbuilder_free(b);
    if (out && g->nnames &&
        traza_grammar_set_names(out, g->name_vals, (const char *const *)g->names, g->nnames, &err) < 0) {
        traza_grammar_free(out);
        out = NULL;
    }
    traza_grammar_free(g);
    if (!out)
        cli_fail(cli, &err);
    return out;
}

static int do_compress(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "compress", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (!o.out)
        return cli_usage_error("grammar", "compress: -o OUT.tzg is required");
    if ((o.trace || o.from_etm) ? i != argc : i + 1 != argc)
        return cli_usage_error("grammar", "compress: expected one input file (or --trace NAME, or --from-etm DIR)");
    int algo = o.algo ? traza_galgo_parse(o.algo) : (o.loop_header ? TRAZA_G_CYCLITUR : TRAZA_G_SEQUITUR);
    if (algo < 0)
        return cli_usage_error("grammar", "--algo '%s': expected sequitur, resequitur or cyclitur", o.algo);
    if (algo == TRAZA_G_CYCLITUR && !o.loop_header)
        return cli_usage_error("grammar", "cyclitur needs --loop-header ADDR or --loop-header auto");
    traza_err err;
    traza_err_clear(&err);
    uint64_t loop_header = 0;
    int auto_loop_header = o.loop_header && strcmp(o.loop_header, "auto") == 0;
    /* with --trace, a loop header may be an event type's name, known once it is read */
    int loop_header_by_name = o.loop_header && !auto_loop_header && tz_parse_u64_hex(o.loop_header, strlen(o.loop_header), &loop_header) < 0;
    if (loop_header_by_name && !o.trace)
        return cli_usage_error("grammar", "--loop-header '%s': expected a hexadecimal address or auto", o.loop_header);
    if (!o.trace && !o.from_etm) { /* streaming: memory follows the grammar, not the input */
        /* auto: the Sequitur grammar of the whole input chooses, then gives the input again */
        traza_gbuilder *b = traza_gbuilder_new(auto_loop_header ? TRAZA_G_SEQUITUR : (traza_galgo)algo,
                                               o.loop_header && !auto_loop_header ? &loop_header : NULL, &err);
        if (!b)
            return cli_fail(cli, &err);
        pushctx px = {b, &err};
        if (traza_grammar_read(argv[i], o.raw, push_builder, &px, &err) < 0) {
            traza_gbuilder_free(b);
            return cli_fail(cli, &err);
        }
        traza_grammar *g = traza_gbuilder_finish(b, &err);
        if (!g)
            return cli_fail(cli, &err);
        if (auto_loop_header && !(g = with_auto_loop_header(cli, g, (traza_galgo)algo, 1, o.quiet && !o.json)))
            return EXIT_FAIL;
        return finish_compress(cli, g, &o);
    }
    vec64 v = {0};
    tnames tn = {0};
    if (o.from_etm) {
        if (traza_etm_pcs(o.from_etm, o.producer, &v.v, &v.n, &err) < 0)
            return cli_fail(cli, &err);
        v.cap = v.n;
    } else if (o.trace ? read_trace(cli, &o, &v, &tn) < 0
                       : traza_grammar_read(argv[i], o.raw, vec_push, &v, &err) < 0) {
        free(v.v);
        tnames_free(&tn);
        return o.trace ? EXIT_FAIL : cli_fail(cli, &err);
    }
    if (loop_header_by_name && symbol_of(o.loop_header, tn.vals, tn.names, tn.n, &loop_header) < 0) {
        free(v.v);
        tnames_free(&tn);
        return cli_usage_error("grammar", "--loop-header '%s': expected a hexadecimal value, auto, or an event type of '%s'",
                               o.loop_header, o.trace);
    }
    traza_grammar *g = traza_grammar_build(v.v, v.n, auto_loop_header ? TRAZA_G_SEQUITUR : (traza_galgo)algo,
                                           o.loop_header && !auto_loop_header ? &loop_header : NULL, &err);
    free(v.v);
    /* a trace: the event type names go into the .tzg (format v2) for `show` */
    if (g && tn.n && traza_grammar_set_names(g, tn.vals, (const char *const *)tn.names, tn.n, &err) < 0) {
        traza_grammar_free(g);
        g = NULL;
    }
    tnames_free(&tn);
    if (!g)
        return cli_fail(cli, &err);
    if (auto_loop_header && !(g = with_auto_loop_header(cli, g, (traza_galgo)algo, !o.trace, o.quiet && !o.json)))
        return EXIT_FAIL;
    return finish_compress(cli, g, &o);
}

/* ---- decompress, stats, show, at, extract ----------------------------------------- */

typedef struct outctx {
    FILE *f;
    int raw;
    int bad;
} outctx;

static int out_sym(void *u, uint64_t s)
{
    outctx *o = u;
    if (o->raw) {
        unsigned char b[8];
        for (int k = 0; k < 8; k++)
            b[k] = (unsigned char)(s >> (8 * k));
        if (o->raw == 32 && s > UINT32_MAX) {
            o->bad = 2;
            return 1;
        }
        if (fwrite(b, 1, (size_t)o->raw / 8, o->f) != (size_t)o->raw / 8)
            o->bad = 1;
    } else if (fprintf(o->f, "%08llx\n", (unsigned long long)s) < 0) {
        o->bad = 1;
    }
    return o->bad;
}

/* A grammar of a few bytes may expand to terabytes: before writing a file, the
 * smallest size the expansion can have is compared with the room left on the file's
 * file system, and a refusal says both (nothing is written). */
static int check_room(const char *path, uint64_t nsym, int raw)
{
    uint64_t per = raw ? (uint64_t)raw / 8 : 9; /* "%08llx\n" writes at least 9 bytes */
    uint64_t need = nsym > UINT64_MAX / per ? UINT64_MAX : nsym * per;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    struct statvfs vs;
    if (statvfs(dirname(dir), &vs) != 0)
        return 0; /* no answer: the write itself will tell */
    uint64_t room = (uint64_t)vs.f_bavail * (uint64_t)vs.f_frsize;
    if (need <= room)
        return 0;
    fprintf(stderr,
            "traza: %s: the grammar expands to %llu symbols, at least %llu bytes, and that file system has %llu bytes "
            "free: nothing written\n",
            path, (unsigned long long)nsym, (unsigned long long)need, (unsigned long long)room);
    return -1;
}

static int expand_to(const traza_grammar *g, uint64_t i, uint64_t j, const char *path, int raw)
{
    outctx o = {stdout, raw, 0};
    cli_out co = {NULL, NULL, NULL};
    if (path && strcmp(path, "-") != 0) {
        if (check_room(path, j - i, raw) < 0)
            return EXIT_FAIL;
        if (cli_out_open(&co, path) < 0)
            return EXIT_FAIL;
        o.f = co.f;
    }
    traza_err err;
    traza_err_clear(&err);
    int rc = traza_grammar_extract(g, i, j, out_sym, &o, &err);
    int e = errno;
    if (o.f == stdout ? fflush(o.f) != 0 : cli_out_close(&co, rc == 0 && !o.bad) < 0)
        o.bad = 1, e = errno;
    if (rc < 0)
        return cli_fail(NULL, &err);
    if (o.bad == 2) {
        fprintf(stderr, "traza: a symbol does not fit in 32 bits: use --raw64\n");
        return EXIT_FAIL;
    }
    if (o.bad) {
        fprintf(stderr, "traza: %s: write error: %s\n", path ? path : "stdout", strerror(e));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

static int do_decompress(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "decompress", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (i + 1 != argc)
        return cli_usage_error("grammar", "decompress: expected one .tzg file");
    if (cli_no_json(cli, "grammar", "decompress (the sequence itself)"))
        return EXIT_USAGE;
    traza_grammar *g = grammar_cli_load(argv[i]);
    if (!g)
        return EXIT_FAIL;
    int rc = expand_to(g, 0, g->len[0], o.out, o.raw);
    traza_grammar_free(g);
    return rc;
}

static int do_stats(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "stats", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (i + 1 != argc)
        return cli_usage_error("grammar", "stats: expected one .tzg file");
    traza_grammar *g = grammar_cli_load(argv[i]);
    if (!g)
        return EXIT_FAIL;
    if (o.loop_header) {
        if (grammar_cli_loop_header(g, &o, &g->loop_header) < 0) {
            traza_grammar_free(g);
            return EXIT_USAGE;
        }
        g->has_loop_header = 1;
    }
    traza_err err;
    traza_err_clear(&err);
    traza_gstats st;
    int rc = EXIT_OK;
    if (traza_grammar_stats(g, &st, &err) < 0)
        rc = cli_fail(cli, &err);
    else
        print_stats(g, &st, o.json, stdout);
    traza_grammar_free(g);
    return rc;
}

void grammar_cli_sym_text(const traza_grammar *g, const traza_gsym *s, const traza_elf *elf, tz_buf *b)
{
    if (s->is_rule) {
        tz_buf_printf(b, "R%llu", (unsigned long long)s->value);
    } else {
        uint64_t off = 0;
        const char *name = elf ? traza_elf_func_at(elf, s->value, &off) : NULL;
        const char *stored = name ? NULL : traza_grammar_name(g, s->value);
        if (stored)
            tz_buf_puts(b, stored);
        else if (name && off)
            tz_buf_printf(b, "%s+0x%llx", name, (unsigned long long)off);
        else if (name)
            tz_buf_printf(b, "%s", name);
        else
            tz_buf_printf(b, "%llx", (unsigned long long)s->value);
    }
    if (s->rep > 1)
        tz_buf_printf(b, "^%llu", (unsigned long long)s->rep);
}

static int do_show(traza_cli *cli, int argc, char **argv)
{
    grammar_opts o;
    int i = grammar_cli_parse(cli, "show", argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    if (i + 1 != argc)
        return cli_usage_error("grammar", "show: expected one .tzg file");
    traza_grammar *g = grammar_cli_load(argv[i]);
    if (!g)
        return EXIT_FAIL;
    traza_elf *elf = NULL;
    if (o.elf) {
        traza_err err;
        traza_err_clear(&err);
        if (!(elf = traza_elf_open(o.elf, &err))) {
            traza_grammar_free(g);
            return cli_fail(cli, &err);
        }
    }
    tz_buf b;
    tz_buf_init(&b);
    if (o.json)
        tz_buf_puts(&b, "{\"rules\": [");
    for (uint32_t r = 0; r < g->nrules; r++) {
        if (o.json) {
            tz_buf_printf(&b, "%s{\"rule\": %u, \"length\": %llu, \"cycle\": %s, \"body\": [", r ? ", " : "", r,
                          (unsigned long long)g->len[r], g->is_cycle[r] ? "true" : "false");
            for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
                tz_buf t;
                tz_buf_init(&t);
                grammar_cli_sym_text(g, &g->syms[k], elf, &t);
                if (k > g->off[r])
                    tz_buf_puts(&b, ", ");
                tz_json_str(&b, t.s ? t.s : "");
                tz_buf_free(&t);
            }
            tz_buf_puts(&b, "]}");
        } else {
            if (r)
                tz_buf_printf(&b, "R%u%s ->", r, g->is_cycle[r] ? " (cycle)" : "");
            else
                tz_buf_puts(&b, "S ->");
            for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
                tz_buf_putc(&b, ' ');
                grammar_cli_sym_text(g, &g->syms[k], elf, &b);
            }
            tz_buf_printf(&b, "    [%llu]\n", (unsigned long long)g->len[r]);
        }
    }
    if (o.json)
        tz_buf_puts(&b, "]}\n");
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    traza_elf_close(elf);
    traza_grammar_free(g);
    return EXIT_OK;
}

static int do_at(traza_cli *cli, int argc, char **argv, int range)
{
    grammar_opts o;
    const char *verb = range ? "extract" : "at";
    int i = grammar_cli_parse(cli, verb, argc, argv, &o);
    if (i < 0)
        return i == -1 ? EXIT_OK : EXIT_USAGE;
    uint64_t a, z = 0;
    if (i + 2 + range != argc || grammar_cli_parse_u64(argv[i + 1], &a) < 0 ||
        (range && grammar_cli_parse_u64(argv[i + 2], &z) < 0))
        return cli_usage_error("grammar", range ? "extract: expected FILE.tzg I J" : "at: expected FILE.tzg I");
    if (range && cli_no_json(cli, "grammar", "extract (the symbols themselves)"))
        return EXIT_USAGE;
    traza_grammar *g = grammar_cli_load(argv[i]);
    if (!g)
        return EXIT_FAIL;
    int rc;
    if (!range) {
        traza_err err;
        traza_err_clear(&err);
        uint64_t v;
        if (traza_grammar_at(g, a, &v, &err) < 0)
            rc = cli_fail(cli, &err);
        else {
            if (o.json)
                printf("{\"index\": %llu, \"symbol\": \"0x%llx\"}\n", (unsigned long long)a, (unsigned long long)v);
            else
                printf("%08llx\n", (unsigned long long)v);
            rc = EXIT_OK;
        }
    } else {
        rc = expand_to(g, a, z, o.out, o.raw);
    }
    traza_grammar_free(g);
    return rc;
}

int cmd_grammar(traza_cli *cli, int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("grammar", "expected a verb");
    const char *v = argv[1];
    argc--, argv++;
    if (strcmp(v, "-h") == 0 || strcmp(v, "--help") == 0) {
        cli_print_usage("grammar");
        return EXIT_OK;
    }
    if (strcmp(v, "compress") == 0) return do_compress(cli, argc, argv);
    if (strcmp(v, "decompress") == 0) return do_decompress(cli, argc, argv);
    if (strcmp(v, "stats") == 0) return do_stats(cli, argc, argv);
    if (strcmp(v, "show") == 0) return do_show(cli, argc, argv);
    if (strcmp(v, "at") == 0) return do_at(cli, argc, argv, 0);
    if (strcmp(v, "extract") == 0) return do_at(cli, argc, argv, 1);
    if (strcmp(v, "cycles") == 0) return grammar_cmd_cycles(cli, argc, argv);
    if (strcmp(v, "cycle-time") == 0) return grammar_cmd_cycle_time(cli, argc, argv);
    if (strcmp(v, "compare") == 0) return grammar_cmd_compare(cli, argc, argv);
    if (strcmp(v, "anomalies") == 0) return grammar_cmd_anomalies(cli, argc, argv);
    return cli_usage_error("grammar", "unknown verb '%s'", v);
}

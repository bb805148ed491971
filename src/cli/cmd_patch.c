/* traza patch BINARY -o OUT [--only RE,..] [--disable-all] [--enable RE,..] [--disable RE,..]
 *             [--budget P% --from TRACE [--cost NS]] [--list] */
#include "cli/cli.h"
#include "traza/patch.h"
#include "traza/callprofile.h"
#include "util/util.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

const char cmd_patch_usage[] =
    "usage: traza patch BINARY -o OUT [--only RE,...] [--disable-all] [--enable RE,...]\n"
    "                  [--disable RE,...] [--budget P% --from TRACE [--cost NS]]\n"
    "       traza patch BINARY --list [--json]\n"
    "\n"
    "Selective instrumentation without recompiling: rewrites the entry-hook call sites\n"
    "of an x86_64 program built with -pg -mfentry into 5-byte NOPs (not traced) or back\n"
    "into calls (traced). Sites are found by decoding each function's first instruction\n"
    "(a call of __fentry__, or of its PLT stub or GOT slot when imported; never a call in\n"
    "a foo.cold part), with -mrecord-mcount only those __mcount_loc lists, or through\n"
    "__patchable_function_entries (-fpatchable-function-entry=5: NOPs that\n"
    "--enable turns into calls of the linked-in runtime).\n"
    "32-bit ARM programs (ARM and Thumb-2 code): -pg sites `push {lr}; bl __gnu_mcount_nc`\n"
    "are switched off as `push {lr}; pop {lr}` (ARM ldr lr,[sp],#4 / Thumb-2 ldr.w) and\n"
    "back; -fpatchable-function-entry=3 (Thumb-2) / =2 (ARM) NOPs become\n"
    "`push {lr}; bl tz_pfe_entry` (link the runtime with -Wl,-u,tz_pfe_entry).\n"
    "Cortex-M firmware (an M-profile ELF: Thumb-2 only): -fpatchable-function-entry=3\n"
    "sites become `push {lr}; bl tz_pfe_entry` of libtraza-rt-cm3.a, the same way.\n"
    "Selections apply in this order: --only (the matching functions on, all others off),\n"
    "--disable-all, --enable, --disable, --budget. RE are POSIX extended regular\n"
    "expressions matched against function names (anchor them: '^fib$').\n"
    "  --budget P%     with --from TRACE (an earlier recording of this program): turn off\n"
    "                  the most frequently called functions until the estimated overhead\n"
    "                  is at most P percent of the untraced run time:\n"
    "                    overhead = kept calls x cost / (run time - recorded calls x cost)\n"
    "                  (the recording's run time less what tracing its calls cost)\n"
    "  --cost NS       estimated cost of one traced call (default 25 ns; too high when\n"
    "                  the recorded calls x NS exceed the recording's run time)\n"
    "  --list          print the sites and their state (--json: [{name,addr,enabled}])\n";

static int match_list(const char *list, const char *name, int *bad, const char **badre)
{
    char *copy = tz_strdup(list);
    if (!copy)
        return 0;
    int hit = 0;
    for (char *sv = NULL, *re = strtok_r(copy, ",", &sv); re && !hit; re = strtok_r(NULL, ",", &sv)) {
        regex_t rx;
        if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0) {
            *bad = 1;
            *badre = list;
            break;
        }
        hit = regexec(&rx, name, 0, NULL, 0) == 0;
        regfree(&rx);
    }
    free(copy);
    return hit;
}

int cmd_patch(traza_cli *cli, int argc, char **argv)
{
    enum { OPT_ONLY = OPT_FIRST_FREE, OPT_DISALL, OPT_ENABLE, OPT_DISABLE, OPT_BUDGET, OPT_FROMTRACE, OPT_COST, OPT_LIST };
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"output", required_argument, NULL, 'o'},
                                             {"only", required_argument, NULL, OPT_ONLY},
                                             {"disable-all", no_argument, NULL, OPT_DISALL},
                                             {"enable", required_argument, NULL, OPT_ENABLE},
                                             {"disable", required_argument, NULL, OPT_DISABLE},
                                             {"budget", required_argument, NULL, OPT_BUDGET},
                                             {"from", required_argument, NULL, OPT_FROMTRACE},
                                             {"cost", required_argument, NULL, OPT_COST},
                                             {"list", no_argument, NULL, OPT_LIST},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL, *only = NULL, *enable = NULL, *disable = NULL, *from = NULL;
    int disall = 0, list = 0, c;
    double budget = -1, cost = 25;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:o:", longopts)) != -1) {
        char *end;
        switch (c) {
        case 'o': out = optarg; break;
        case OPT_ONLY: only = optarg; break;
        case OPT_DISALL: disall = 1; break;
        case OPT_ENABLE: enable = optarg; break;
        case OPT_DISABLE: disable = optarg; break;
        case OPT_FROMTRACE: from = optarg; break;
        case OPT_LIST: list = 1; break;
        case OPT_BUDGET:
            budget = strtod(optarg, &end);
            if (end == optarg || (*end && strcmp(end, "%") != 0) || budget < 0)
                return cli_usage_error("patch", "--budget wants a percentage like 5%%, got '%s'", optarg);
            break;
        case OPT_COST:
            cost = strtod(optarg, &end);
            if (end == optarg || *end || cost <= 0)
                return cli_usage_error("patch", "--cost wants nanoseconds, got '%s'", optarg);
            break;
        default: {
            int r = cli_common_opt(cli, "patch", c);
            if (r == -1) return EXIT_OK;
            if (r <= 0) return EXIT_USAGE;
        }
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("patch", "expected one program");
    if (!list && !out)
        return cli_usage_error("patch", "-o OUT is required (or --list)");
    if ((budget >= 0) != (from != NULL))
        return cli_usage_error("patch", "--budget and --from go together");
    const char *bin = argv[optind];
    traza_err err;
    traza_err_clear(&err);
    traza_patch_sites s;
    if (traza_patch_sites_find(bin, &s, &err) < 0)
        return cli_fail(cli, &err);
    int bad = 0;
    const char *badre = NULL;
    for (size_t i = 0; i < s.n; i++) {
        traza_patch_site *st = &s.v[i];
        if (only)
            st->want = match_list(only, st->name, &bad, &badre);
        if (disall)
            st->want = 0;
        if (enable && match_list(enable, st->name, &bad, &badre))
            st->want = 1;
        if (disable && match_list(disable, st->name, &bad, &badre))
            st->want = 0;
    }
    if (bad) {
        traza_patch_sites_free(&s);
        return cli_usage_error("patch", "bad regular expression in '%s'", badre);
    }
    tz_buf b;
    tz_buf_init(&b);
    if (from) {
        traza_trace *t = cli_trace(cli, from, TRAZA_OPEN_READ);
        if (!t) {
            traza_patch_sites_free(&s);
            return EXIT_FAIL;
        }
        traza_callprofile cp;
        if (traza_callprofile_build(t, &cp, NULL, NULL, NULL, &err) < 0) {
            traza_trace_close(t);
            traza_patch_sites_free(&s);
            return cli_fail(cli, &err);
        }
        double unit = 1;
        for (int k = traza_trace_info_of(t)->time_unit; k < -9; k++)
            unit /= 10;
        for (int k = traza_trace_info_of(t)->time_unit; k > -9; k--)
            unit *= 10;
        double run_ns = (double)(cp.max_ts - cp.min_ts) * unit, recorded = 0;
        /* the candidates: the recorded functions whose sites stay on */
        int64_t *calls = calloc(cp.nfuncs ? cp.nfuncs : 1, sizeof *calls);
        size_t *site = calloc(cp.nfuncs ? cp.nfuncs : 1, sizeof *site);
        unsigned char *off = calloc(cp.nfuncs ? cp.nfuncs : 1, 1);
        size_t nc = 0;
        for (size_t i = 0; calls && site && off && i < cp.nfuncs; i++) {
            recorded += (double)cp.funcs[i].calls;
            for (size_t k = 0; k < s.n; k++)
                if (s.v[k].want && strcmp(s.v[k].name, cp.funcs[i].name) == 0) {
                    calls[nc] = cp.funcs[i].calls;
                    site[nc++] = k;
                    break;
                }
        }
        traza_patch_estimate est;
        int brc = !calls || !site || !off ? traza_err_set(&err, TRAZA_E_NOMEM, "out of memory")
                                          : traza_patch_budget(calls, nc, recorded, run_ns, cost, budget, off, &est, &err);
        for (size_t i = 0; brc == 0 && i < nc; i++)
            if (off[i]) {
                s.v[site[i]].want = 0;
                if (!cli->json && !cli->quiet)
                    tz_buf_printf(&b, "budget: off %s (%" PRId64 " calls)\n", s.v[site[i]].name, calls[i]);
            }
        if (brc == 0 && !cli->json && !cli->quiet)
            tz_buf_printf(&b, "budget: estimated overhead %.2f%% (%.0f traced calls x %g ns over an untraced run of %.3f ms)\n",
                          est.overhead_pct, est.kept_calls, cost, est.base_ns / 1e6);
        free(calls);
        free(site);
        free(off);
        if (brc < 0) {
            tz_buf_free(&b);
            traza_callprofile_free(&cp);
            traza_trace_close(t);
            traza_patch_sites_free(&s);
            if (err.code != TRAZA_E_USAGE)
                return cli_fail(cli, &err);
            fprintf(stderr, "traza: %s (give a lower --cost)\n", err.msg);
            return EXIT_USAGE;
        }
        traza_callprofile_free(&cp);
        traza_trace_close(t);
    }
    int rc = EXIT_OK;
    if (out && traza_patch_write(bin, out, &s, &err) < 0)
        rc = cli_fail(cli, &err);
    size_t on = 0;
    for (size_t i = 0; i < s.n; i++)
        on += s.v[i].want;
    if (list || cli->json) {
        if (cli->json) {
            tz_buf_printf(&b, "{\"sites\":%zu,\"enabled\":%zu,\"functions\":[", s.n, on);
            for (size_t i = 0; i < s.n; i++) {
                tz_buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
                tz_json_str(&b, s.v[i].name);
                tz_buf_printf(&b, ",\"addr\":\"0x%" PRIx64 "\",\"enabled\":%s}", s.v[i].addr, s.v[i].want ? "true" : "false");
            }
            tz_buf_puts(&b, "]}\n");
        } else {
            for (size_t i = 0; i < s.n; i++)
                tz_buf_printf(&b, "%-3s 0x%-10" PRIx64 " %s\n", s.v[i].want ? "on" : "off", s.v[i].addr, s.v[i].name);
        }
    } else if (!cli->quiet && rc == EXIT_OK) {
        tz_buf_printf(&b, "%s: %zu of %zu functions traced\n", out, on, s.n);
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    traza_patch_sites_free(&s);
    return rc;
}

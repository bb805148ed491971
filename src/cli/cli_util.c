/* Helpers shared by subcommands: workspace, errors, options, progress. */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_exe_relative(char *out, size_t size, const char *rel)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    int len = snprintf(out, size, "%s/%s", self, rel);
    return len > 0 && (size_t)len < size ? 0 : -1;
}

traza_registry *cli_registry(traza_cli *cli)
{
    traza_registry *reg = traza_ctx_registry(cli->ctx);
    if (!cli->plugins_loaded) {
        /* (a plugin that fails to load is logged and skipped: the others still count) */
        const char *pp = getenv("TRAZA_PLUGIN_PATH");
        char dir[PATH_MAX + 32];
        if (!pp && cli_exe_relative(dir, sizeof dir, "../lib/traza/plugins") == 0)
            pp = dir;
        traza_err err;
        traza_err_clear(&err);
        traza_registry_load_path(reg, pp, &err);
        cli->plugins_loaded = 1;
    }
    return reg;
}

const char *cli_ws_location(traza_cli *cli)
{
    const char *loc = cli->ws_path;
    if (!loc)
        loc = traza_workspace_default(cli->ws_buf, sizeof cli->ws_buf);
    if (!loc)
        fprintf(stderr, "traza: no workspace: give -w DIR or set TRAZA_WORKSPACE\n");
    return loc;
}

traza_workspace *cli_ws_existing(traza_cli *cli, const char *trace)
{
    if (cli->ws)
        return cli->ws;
    const char *loc = cli_ws_location(cli);
    if (!loc)
        return NULL;
    if (!traza_workspace_exists(loc)) {
        cli_progress_clear(cli);
        if (trace)
            fprintf(stderr, "traza: no trace named '%s': there is no workspace at %s\n", trace, loc);
        else
            fprintf(stderr, "traza: there is no workspace at %s (add a trace with 'traza import FILE')\n", loc);
        return NULL;
    }
    return cli_ws(cli);
}

traza_workspace *cli_ws(traza_cli *cli)
{
    if (cli->ws)
        return cli->ws;
    const char *loc = cli_ws_location(cli);
    if (!loc)
        return NULL;
    traza_err err;
    traza_err_clear(&err);
    cli->ws = traza_workspace_open(cli->ctx, loc, &err);
    if (!cli->ws)
        cli_fail(cli, &err);
    return cli->ws;
}

traza_trace *cli_trace(traza_cli *cli, const char *name, int flags)
{
    traza_workspace *ws = cli_ws_existing(cli, name);
    if (!ws)
        return NULL;
    traza_err err;
    traza_err_clear(&err);
    traza_trace *t = traza_trace_open(ws, name, flags, &err);
    if (!t)
        cli_fail(cli, &err);
    return t;
}

int cli_fail(traza_cli *cli, const traza_err *err)
{
    if (cli)
        cli_progress_clear(cli);
    const char *hint = cli_hint(err->msg);
    fprintf(stderr, "traza: %s%s%s%s\n", err->msg[0] ? err->msg : traza_errcode_name(err->code), hint ? " (" : "", hint ? hint : "",
            hint ? ")" : "");
    return err->code == TRAZA_E_USAGE ? EXIT_USAGE : EXIT_FAIL;
}

int cli_fail_new_trace(traza_cli *cli, const traza_err *err)
{
    if (err->code != TRAZA_E_EXISTS || strncmp(err->msg, "a trace named '", 15) != 0)
        return cli_fail(cli, err);
    cli_progress_clear(cli);
    fprintf(stderr, "traza: %s (choose another with --name, or 'traza rm' it)\n", err->msg);
    return EXIT_FAIL;
}

int cli_fail_saved(traza_cli *cli, const traza_err *err, const char *name_opt)
{
    if (err->code != TRAZA_E_EXISTS || strncmp(err->msg, "a result named '", 16) != 0)
        return cli_fail(cli, err);
    cli_progress_clear(cli);
    fprintf(stderr, "traza: %s; %s NAME saves under another name, --replace replaces it\n", err->msg, name_opt);
    return EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "traza %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'traza %s --help')\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

/* Optimal string alignment distance (insertions, deletions, substitutions and swaps
 * of two neighbours each cost 1) between a and b, counted up to 255 characters. */
static size_t edit_distance(const char *a, const char *b)
{
    enum { MAXLEN = 255 };
    size_t la = strnlen(a, MAXLEN), lb = strnlen(b, MAXLEN);
    size_t d[3][MAXLEN + 1]; /* rows i-2, i-1, i of the table, by i % 3 */
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t *cur = d[i % 3], *prev = d[(i - 1) % 3], *prev2 = d[(i + 1) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t v = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
        }
    }
    return d[la % 3][lb];
}

void cli_near_init(cli_near *n, const char *word)
{
    n->word = word;
    n->best = NULL;
    n->dist = SIZE_MAX;
}

void cli_near_add(cli_near *n, const char *candidate)
{
    size_t len = strlen(n->word);
    /* one edit in words of up to 3 letters, two up to 8 (--fomr: --from), three beyond */
    size_t limit = len <= 3 ? 1 : len <= 8 ? 2 : 3;
    size_t d = edit_distance(n->word, candidate);
    if (d <= limit && d < n->dist) {
        n->best = candidate;
        n->dist = d;
    }
}

int cli_unknown_option(const char *cmd, const char *arg, const cli_near *near)
{
    if (near && near->best)
        return cli_usage_error(cmd, "unknown option '%s'; did you mean '--%s'?", arg, near->best);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_getopt(traza_cli *cli, int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    cli->opt_argv = argv;
    cli->opt_short = shortopts;
    cli->opt_long = longopts;
    return getopt_long(argc, argv, shortopts, longopts, NULL);
}

/* The option getopt_long has just refused: "--name" (without any "=value") for a long
 * option, "-c" for a short one, into buf. getopt_long leaves the long option in the
 * last argument it consumed and sets optopt to 0 (unknown) or to the option's value
 * (value missing or not wanted); a refused short option is optopt itself, and the
 * last argument consumed may be an earlier one when it sits inside a group (-qx). */
static void refused_option(const traza_cli *cli, const char *last, char *buf, size_t size)
{
    int long_form = strncmp(last, "--", 2) == 0;
    int is_short = optopt > 0 && optopt < 256 && !(long_form && cli->opt_short && strchr(cli->opt_short, optopt));
    if (is_short)
        snprintf(buf, size, "-%c", optopt);
    else
        snprintf(buf, size, "%.*s", (int)strcspn(last, "="), last);
}

/* The error for the option getopt_long refused with '?' or ':'. */
static void option_error(const traza_cli *cli, const char *cmd, int what)
{
    const char *a = cli->opt_argv && optind > 0 ? cli->opt_argv[optind - 1] : "";
    char name[256];
    refused_option(cli, a, name, sizeof name);
    if (what == ':') {
        cli_usage_error(cmd, "option '%s' needs a value", name);
        return;
    }
    if (name[1] != '-') {
        cli_unknown_option(cmd, name, NULL);
        return;
    }
    const char *word = name + 2;
    size_t wl = strlen(word), nprefix = 0;
    const struct option *hit = NULL, *prefix_hit = NULL;
    tz_buf matches;
    tz_buf_init(&matches);
    cli_near near;
    cli_near_init(&near, word);
    for (const struct option *o = cli->opt_long; o && o->name; o++) {
        if (!strcmp(o->name, word)) {
            hit = o;
        } else if (wl && !strncmp(o->name, word, wl)) {
            prefix_hit = o;
            tz_buf_printf(&matches, "%s--%s", nprefix++ ? ", " : "", o->name);
        }
        cli_near_add(&near, o->name);
    }
    if (!hit && nprefix == 1)
        hit = prefix_hit;
    if (hit && strchr(a, '='))
        cli_usage_error(cmd, "option '--%s' takes no value", hit->name);
    else if (!hit && nprefix > 1)
        cli_usage_error(cmd, "ambiguous option '%s' (%s)", name, matches.s);
    else
        cli_unknown_option(cmd, name, &near);
    tz_buf_free(&matches);
}

int cli_tool_has_option(const char *cmd, const traza_tool *tool, const char *name)
{
    for (size_t k = 0; k < tool->noptions; k++)
        if (!strcmp(tool->options[k].name, name))
            return 1;
    static const char *const common[] = {"json", "help", "workspace", "quiet"};
    cli_near near;
    cli_near_init(&near, name);
    for (size_t k = 0; k < tool->noptions; k++)
        cli_near_add(&near, tool->options[k].name);
    for (size_t k = 0; k < sizeof common / sizeof common[0]; k++)
        cli_near_add(&near, common[k]);
    char arg[256];
    snprintf(arg, sizeof arg, "--%s", name);
    cli_unknown_option(cmd, arg, &near);
    return 0;
}

int cli_common_opt(traza_cli *cli, const char *cmd, int opt)
{
    switch (opt) {
    case OPT_JSON: cli->json = 1; return 1;
    case 'h': cli_print_usage(cmd); return -1;
    case 'w': cli->ws_path = optarg; return 1;
    case 'q': cli->quiet = 1; cli->progress_tty = 0; traza_ctx_set_progress(cli->ctx, NULL, NULL); return 1;
    case '?':
    case ':': option_error(cli, cmd, opt); return -2;
    }
    return 0;
}

int cli_no_json(const traza_cli *cli, const char *cmd, const char *what)
{
    return cli->json ? cli_usage_error(cmd, "--json: %s has no JSON output", what) : 0;
}

void cli_progress(void *user, const char *what, uint64_t done, uint64_t total)
{
    traza_cli *cli = user;
    if (!cli->progress_tty)
        return;
    if (total) {
        int pct = (int)(done * 100 / total);
        int bar = pct * 30 / 100;
        fprintf(stderr, "\r\033[K%s [%.*s%*s] %3d%%", what, bar, "==============================", 30 - bar, "", pct);
    } else {
        fprintf(stderr, "\r\033[K%s %llu", what, (unsigned long long)done);
    }
    cli->progress_shown = 1;
    if (total && done >= total)
        cli_progress_clear(cli);
    fflush(stderr);
}

void cli_progress_clear(traza_cli *cli)
{
    if (!cli->progress_shown)
        return;
    /* stdout first: what it holds was written before the progress line */
    fflush(stdout);
    fputs("\r\033[K", stderr);
    fflush(stderr);
    cli->progress_shown = 0;
}

void cli_tool_print(void *user, const char *text)
{
    cli_progress_clear(user);
    fputs(text, stdout);
}

int cli_write_file(const char *path, const char *data, size_t len)
{
    if (strcmp(path, "-") != 0) {
        traza_err err;
        return tz_outfile_write(path, data, len, &err) < 0 ? cli_fail(NULL, &err) : EXIT_OK;
    }
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
        fprintf(stderr, "traza: standard output: write error: %s\n", strerror(errno));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* ---- filters ----------------------------------------------------------------- */

void cli_filter_init(cli_filter *cf)
{
    memset(cf, 0, sizeof *cf);
    traza_filter_init(&cf->f);
}

void cli_filter_free(cli_filter *cf)
{
    for (size_t i = 0; i < cf->nconds; i++)
        free(cf->cond_bufs[i]);
    for (size_t i = 0; i < cf->nregexes; i++)
        free(cf->regex_bufs[i]);
    free(cf->types);
    free(cf->producers);
}

static int parse_cond(cli_filter *cf, const char *cmd, const char *arg)
{
    if (cf->nconds >= 32)
        return cli_usage_error(cmd, "too many --where conditions (at most 32)"), -1;
    traza_err err;
    if (traza_param_cond_parse(arg, &cf->conds[cf->nconds], &cf->cond_bufs[cf->nconds], &err) < 0) {
        if (err.code == TRAZA_E_USAGE)
            cli_usage_error(cmd, "--where: %s", err.msg);
        return -1;
    }
    cf->nconds++;
    return 1;
}

static int parse_regex(cli_filter *cf, const char *cmd, const char *arg)
{
    if (cf->nregexes >= 32)
        return cli_usage_error(cmd, "too many --regex conditions (at most 32)"), -1;
    traza_err err;
    if (traza_regex_cond_parse(arg, &cf->regexes[cf->nregexes], &cf->regex_bufs[cf->nregexes], &err) < 0) {
        if (err.code == TRAZA_E_USAGE)
            cli_usage_error(cmd, "--regex: %s", err.msg);
        return -1;
    }
    cf->nregexes++;
    return 1;
}

int cli_filter_opt(cli_filter *cf, const char *cmd, int opt, const char *arg)
{
    switch (opt) {
    case OPT_FROM: cf->from_s = arg; return 1;
    case OPT_TO: cf->to_s = arg; return 1;
    case OPT_OVERLAP: cf->f.overlap = 1; return 1;
    case OPT_ABSOLUTE: cf->absolute = 1; return 1;
    case OPT_SUBTREE: cf->subtree = 1; return 1;
    case OPT_SET: cf->set_s = arg; return 1;
    case OPT_DURING: cf->during_s = arg; return 1;
    case OPT_TYPE:
        if (cf->ntypes_s >= 64) return cli_usage_error(cmd, "too many --type"), -1;
        cf->types_s[cf->ntypes_s++] = arg;
        return 1;
    case OPT_PRODUCER:
        if (cf->nproducers_s >= 64) return cli_usage_error(cmd, "too many --producer"), -1;
        cf->producers_s[cf->nproducers_s++] = arg;
        return 1;
    case OPT_CATEGORY:
        if (cf->ncategories_s >= 8) return cli_usage_error(cmd, "too many --category"), -1;
        cf->categories_s[cf->ncategories_s++] = arg;
        return 1;
    case OPT_WHERE: return parse_cond(cf, cmd, arg);
    case OPT_REGEX: return parse_regex(cf, cmd, arg);
    }
    return 0;
}

int cli_filter_resolve(traza_cli *cli, cli_filter *cf, traza_trace *t)
{
    traza_err err;
    traza_err_clear(&err);
    const traza_trace_info *info = traza_trace_info_of(t);
    if (cf->from_s) {
        if (traza_time_parse_in(info, cf->from_s, cf->absolute, &cf->f.from, &err) < 0)
            return cli_fail(cli, &err);
        cf->f.has_from = 1;
    }
    if (cf->to_s) {
        if (traza_time_parse_in(info, cf->to_s, cf->absolute, &cf->f.to, &err) < 0)
            return cli_fail(cli, &err);
        cf->f.has_to = 1;
    }
    traza_filter_spec spec = {
        .type_names = cf->types_s, .ntype_names = cf->ntypes_s,
        .producer_names = cf->producers_s, .nproducer_names = cf->nproducers_s, .subtree = cf->subtree,
        .categories = cf->categories_s, .ncategories = cf->ncategories_s,
        .result = cf->set_s, .during = cf->during_s,
        .regexes = cf->regexes, .nregexes = cf->nregexes,
    };
    if (traza_filter_resolve(t, &spec, &cf->f, &cf->types, &cf->producers, &err) < 0)
        return cli_fail(cli, &err);
    cf->f.conds = cf->conds;
    cf->f.nconds = cf->nconds;
    if (cli->stop.fn) /* the first SIGINT (main.c) stops the reading */
        cf->f.stop = &cli->stop;
    return EXIT_OK;
}

int cli_parse_scaled(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    double mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1e3, end++;
    else if (*end == 'M' || *end == 'm') mul = 1e6, end++;
    else if (*end == 'G' || *end == 'g') mul = 1e9, end++;
    if (end == s || *end || v != v)
        return -1;
    *out = v * mul;
    return 0;
}

int cli_out_open(cli_out *o, const char *path)
{
    traza_err err;
    if (tz_outfile_open(o, path, &err) < 0) {
        fprintf(stderr, "traza: %s\n", err.msg);
        return -1;
    }
    return 0;
}

int cli_out_close(cli_out *o, int ok) { return tz_outfile_close(o, ok, NULL); }

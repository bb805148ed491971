/* /api/grammars and /api/grammar: the grammar views of .tzg files (cycle pie chart,
 * cycle-in-time strip, rules). The files are the --grammar options of `traza serve`
 * and the *.tzg files of the workspace directory; a request names one by index, so
 * no path ever comes from the client. */
#include "server/api_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TZ_API_MAX_GRAMMARS 256
#define TZ_API_MAX_RUNS 4000
#define TZ_API_MAX_BODY 64

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* All grammar paths, in a stable order: the --grammar files, then the workspace's. */
static size_t list_grammars(tz_api *api, char ***out)
{
    char **v = calloc(TZ_API_MAX_GRAMMARS, sizeof *v);
    size_t n = 0;
    *out = v;
    if (!v)
        return 0;
    for (size_t i = 0; i < api->ngrammars && n < TZ_API_MAX_GRAMMARS; i++)
        if ((v[n] = tz_strdup(api->grammars[i])))
            n++;
    const char *loc = traza_workspace_location(api->ws);
    DIR *d = loc ? opendir(loc) : NULL;
    size_t first = n;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && n < TZ_API_MAX_GRAMMARS) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".tzg") != 0)
                continue;
            if ((v[n] = tz_asprintf("%s/%s", loc, e->d_name)))
                n++;
        }
        closedir(d);
    }
    qsort(v + first, n - first, sizeof *v, cmp_str);
    return n;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int tz_api_grammars(tz_req *r)
{
    char **v;
    size_t n = list_grammars(r->api, &v);
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"grammars\":[");
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        tz_buf_printf(&b, "%s{\"id\":%zu,\"name\":", i ? "," : "", i);
        tz_json_str(&b, base(v[i]));
        tz_buf_printf(&b, ",\"bytes\":%lld}", stat(v[i], &st) == 0 ? (long long)st.st_size : -1LL);
    }
    tz_buf_puts(&b, "]}");
    free_list(v, n);
    return tz_send_json(r, &b);
}

static void sym_json(tz_buf *b, const traza_gsym *s)
{
    tz_buf_printf(b, "[%s,\"%s%llx\",%llu]", s->is_rule ? "1" : "0", s->is_rule ? "R" : "0x", (unsigned long long)s->value,
                  (unsigned long long)s->rep);
}

/* The cycle-in-time strip, bounded whatever the expansion: the exact runs of the
 * cycle sequence when it holds at most TZ_API_MAX_RUNS cycles (*sampled = 0), else
 * TZ_API_MAX_RUNS evenly spaced cycles read by random access in the cycle grammar
 * (traza_grammar_cycle_grammar, O(|G|)), equal neighbours merged, each run's `rep`
 * stretched to reach the next sample (*sampled = 1). Never one entry per cycle:
 * a grammar of 10^10 symbols answers in O(|G| + samples x depth). */
static int strip_runs(const traza_grammar *g, const traza_gcycle *tab, size_t nt, traza_gcrun **out, size_t *nout,
                      int *sampled, uint64_t *ncycles, traza_err *err)
{
    traza_grammar *cg = NULL;
    uint64_t *wlen = NULL;
    *out = NULL;
    *nout = 0;
    *sampled = 0;
    if (traza_grammar_cycle_grammar(g, g->loop_header, tab, nt, &cg, &wlen, err) < 0)
        return -1;
    uint64_t K = cg->len ? cg->len[0] : 0;
    *ncycles = K;
    if (K <= TZ_API_MAX_RUNS) {
        traza_grammar_free(cg);
        free(wlen);
        return traza_grammar_cycle_runs(g, g->loop_header, tab, nt, out, nout, err);
    }
    *sampled = 1;
    /* w offset of every body position: wcum[k] = w symbols before syms[k] in its rule */
    uint64_t total = cg->off[cg->nrules];
    uint64_t *wcum = malloc((total ? total : 1) * sizeof *wcum);
    traza_gcrun *runs = malloc(TZ_API_MAX_RUNS * sizeof *runs);
    int rc = 0;
    if (!wcum || !runs) {
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the cycle strip");
        goto out;
    }
    for (uint32_t r = 0; r < cg->nrules; r++) {
        uint64_t acc = 0;
        for (uint64_t k = cg->off[r]; k < cg->off[r + 1]; k++) {
            const traza_gsym *sy = &cg->syms[k];
            wcum[k] = acc;
            acc += (sy->is_rule ? wlen[sy->value] : tab[sy->value].length) * sy->rep;
        }
    }
    size_t n = 0;
    for (size_t j = 0; j < TZ_API_MAX_RUNS; j++) {
        uint64_t k = (uint64_t)((unsigned __int128)K * j / TZ_API_MAX_RUNS), pos = 0;
        uint32_t r = 0, cyc = 0;
        for (uint32_t depth = 0; depth <= cg->nrules; depth++) {
            /* the r-pair of rule r holding cycle k (cum: its offset in cycles) */
            uint64_t a = cg->off[r], e = cg->off[r + 1];
            while (e - a > 1) {
                uint64_t mid = a + (e - a) / 2;
                if (cg->cum[mid] <= k)
                    a = mid;
                else
                    e = mid;
            }
            const traza_gsym *sy = &cg->syms[a];
            uint64_t unit = sy->is_rule ? cg->len[sy->value] : 1;
            uint64_t wunit = sy->is_rule ? wlen[sy->value] : tab[sy->value].length;
            uint64_t q = (k - cg->cum[a]) / unit;
            k -= cg->cum[a] + q * unit;
            pos += wcum[a] + q * wunit;
            if (!sy->is_rule) {
                cyc = (uint32_t)sy->value;
                break;
            }
            r = (uint32_t)sy->value;
        }
        if (n && runs[n - 1].cycle == cyc)
            continue;
        runs[n].cycle = cyc;
        runs[n].pos = pos;
        runs[n].rep = 1;
        n++;
    }
    /* each run reaches the next one's start (the last one, the end of w) */
    for (size_t i = 0; i < n; i++) {
        uint64_t end = i + 1 < n ? runs[i + 1].pos : g->len[0], len = tab[runs[i].cycle].length;
        runs[i].rep = len && end > runs[i].pos ? (end - runs[i].pos + len - 1) / len : 1;
    }
    *out = runs;
    *nout = n;
    runs = NULL;
out:
    free(runs);
    free(wcum);
    free(wlen);
    traza_grammar_free(cg);
    return rc;
}

/* A grammar file that does not read: a corrupt file is the file's fault, not the
 * server's (422, the reader's message; other failures stay 500). The message names
 * the file by its base name, never by its path on the server. */
static int grammar_unreadable(tz_req *r, const char *path)
{
    const char *m = r->err.msg;
    size_t pl = strlen(path);
    if (strncmp(m, path, pl) == 0 && m[pl] == ':' && m[pl + 1] == ' ')
        m += pl + 2;
    return tz_fail(r, r->err.code == TRAZA_E_FORMAT ? 422 : 500, "%s: %s", base(path), m);
}

int tz_api_grammar(tz_req *r)
{
    int64_t id, maxrules;
    if (tz_arg_i64(r, "id", 0, TZ_API_MAX_GRAMMARS - 1, -1, &id) < 0 ||
        tz_arg_clamp(r, "rules", 0, TZ_API_MAX_LIST, 100, &maxrules) < 0)
        return -1;
    if (id < 0)
        return tz_fail(r, 400, "missing parameter 'id' (an index of /api/grammars)");
    char **v;
    size_t n = list_grammars(r->api, &v);
    if ((size_t)id >= n) {
        free_list(v, n);
        return tz_fail(r, 404, "no grammar %lld (there are %zu)", (long long)id, n);
    }
    traza_grammar *g = traza_tzg_read(v[id], &r->err);
    if (!g) {
        int rc = grammar_unreadable(r, v[id]);
        free_list(v, n);
        return rc;
    }
    traza_gstats st;
    memset(&st, 0, sizeof st);
    if (traza_grammar_stats(g, &st, &r->err) < 0) {
        traza_grammar_free(g);
        free_list(v, n);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"name\":");
    tz_json_str(&b, base(v[id]));
    free_list(v, n);
    tz_buf_printf(&b, ",\"algo\":\"%s\",\"size\":%llu,\"length\":%llu,\"rules\":%llu,\"depth\":%u,\"compression\":",
                  traza_galgo_name(g->algo), (unsigned long long)st.size, (unsigned long long)st.length,
                  (unsigned long long)st.rules, st.depth);
    tz_json_num(&b, st.comp);
    if (g->has_loop_header)
        tz_buf_printf(&b, ",\"loop_header\":\"0x%llx\"", (unsigned long long)g->loop_header);
    else
        tz_buf_puts(&b, ",\"loop_header\":null");
    tz_buf_puts(&b, ",\"rule_list\":[");
    for (uint32_t i = 0; i < g->nrules && i < (uint64_t)maxrules; i++) {
        uint64_t a = g->off[i], e = g->off[i + 1];
        tz_buf_printf(&b, "%s{\"id\":%u,\"len\":%llu,\"cycle\":%s,\"nbody\":%llu,\"body\":[", i ? "," : "", i,
                      (unsigned long long)g->len[i], g->is_cycle && g->is_cycle[i] ? "true" : "false",
                      (unsigned long long)(e - a));
        for (uint64_t k = a; k < e && k - a < TZ_API_MAX_BODY; k++) {
            if (k > a) tz_buf_putc(&b, ',');
            sym_json(&b, &g->syms[k]);
        }
        tz_buf_puts(&b, "]}");
    }
    tz_buf_puts(&b, "],\"cycles\":[");
    int rc = 0;
    size_t nruns_total = 0;
    if (g->has_loop_header) {
        traza_gcycle *tab = NULL;
        size_t nt = 0;
        traza_gcrun *runs = NULL;
        size_t nr = 0;
        int sampled = 0;
        uint64_t ncycles = 0;
        if (traza_grammar_cycles(g, g->loop_header, &tab, &nt, &r->err) < 0 ||
            strip_runs(g, tab, nt, &runs, &nr, &sampled, &ncycles, &r->err) < 0) {
            rc = -1;
        } else {
            for (size_t i = 0; i < nt && i < TZ_API_MAX_LIST; i++)
                tz_buf_printf(&b, "%s{\"id\":%zu,\"hash\":\"%016llx\",\"length\":%llu,\"count\":%llu,\"first\":%llu}", i ? "," : "",
                              i, (unsigned long long)tab[i].hash, (unsigned long long)tab[i].length,
                              (unsigned long long)tab[i].count, (unsigned long long)tab[i].first);
            tz_buf_printf(&b, "],\"distinct_cycles\":%zu,\"cycles_total\":%llu,\"runs_sampled\":%s,\"runs\":[", nt,
                          (unsigned long long)ncycles, sampled ? "true" : "false");
            nruns_total = nr;
            for (size_t i = 0; i < nr && i < TZ_API_MAX_RUNS; i++)
                tz_buf_printf(&b, "%s[%u,%llu,%llu]", i ? "," : "", runs[i].cycle, (unsigned long long)runs[i].rep,
                              (unsigned long long)runs[i].pos);
        }
        free(tab);
        free(runs);
    } else {
        tz_buf_puts(&b, "],\"distinct_cycles\":0,\"runs\":[");
    }
    tz_buf_printf(&b, "],\"runs_total\":%zu}", nruns_total);
    traza_grammar_free(g);
    if (rc < 0) {
        tz_buf_free(&b);
        return tz_fail_err(r, &r->err);
    }
    return tz_send_json(r, &b);
}

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
        free_list(v, n);
        return tz_fail_err(r, &r->err);
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
    if (g->has_lh)
        tz_buf_printf(&b, ",\"lh\":\"0x%llx\"", (unsigned long long)g->lh);
    else
        tz_buf_puts(&b, ",\"lh\":null");
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
    if (g->has_lh) {
        traza_gcycle *tab = NULL;
        size_t nt = 0;
        traza_gcrun *runs = NULL;
        size_t nr = 0;
        if (traza_grammar_cycles(g, g->lh, &tab, &nt, &r->err) < 0 ||
            traza_grammar_cycle_runs(g, g->lh, tab, nt, &runs, &nr, &r->err) < 0) {
            rc = -1;
        } else {
            for (size_t i = 0; i < nt && i < TZ_API_MAX_LIST; i++)
                tz_buf_printf(&b, "%s{\"id\":%zu,\"hash\":\"%016llx\",\"length\":%llu,\"count\":%llu,\"first\":%llu}", i ? "," : "",
                              i, (unsigned long long)tab[i].hash, (unsigned long long)tab[i].length,
                              (unsigned long long)tab[i].count, (unsigned long long)tab[i].first);
            tz_buf_printf(&b, "],\"distinct_cycles\":%zu,\"runs\":[", nt);
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

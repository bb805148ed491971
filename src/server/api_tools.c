/* The tools of the workspace over HTTP: /api/tools lists the analyses with their
 * typed options; POST /api/run queues a run of one (a job), which the tool worker
 * of the server (tz_api_tool_worker, on a lane of its own: a run never holds up a
 * view) executes with the library's registry, saving its result in the trace like
 * `traza run` does (the UI's selection, from= to= set= and its column filters re.X=
 * nre.X=, becomes the tool's options of the same meaning); /api/job reports a job and the selection it used, POST
 * /api/job/cancel cancels it and POST /api/results/delete deletes a saved result.
 *
 * Nothing in a request names a file: importers and exporters are not offered, and
 * the options that name a file (tz_tool_option_names_file) are refused. */
#include "server/api_internal.h"
#include "server/transport.h"
#include "server/tool_json.h"

#include <stdlib.h>
#include <string.h>

/* Jobs kept once finished (the oldest finished ones are dropped past this). */
#define TZ_RUNS_KEPT 64
/* Bytes of a tool's printed output kept for /api/job. */
#define TZ_RUN_OUTPUT 65536
/* Options a run carries. */
#define TZ_RUN_MAX_ARGS 32

typedef enum run_state { RUN_QUEUED, RUN_RUNNING, RUN_DONE, RUN_FAILED, RUN_CANCELLED } run_state;
static const char *const state_names[] = {"queued", "running", "done", "failed", "cancelled"};

typedef struct tz_run {
    int64_t id;
    char *tool, *trace;
    char *keys[TZ_RUN_MAX_ARGS], *vals[TZ_RUN_MAX_ARGS];
    size_t nargs;
    run_state state;
    double progress;          /* 0..1, never decreasing */
    double phase_base, last;  /* where the current phase starts on the bar; its last fraction */
    int cancel;               /* asked to stop */
    char *result;             /* the saved result's name (done) */
    int64_t result_id;
    char *error;              /* failed */
    tz_buf filter;            /* the options the UI's selection set ("from=... to=...") */
    tz_buf out;               /* the tool's printed text (json), at most TZ_RUN_OUTPUT */
    struct tz_run *next;      /* newest first */
} tz_run;

/* The jobs of a server (in tz_shared; under sh->mu). */
struct tz_runs {
    pthread_cond_t cv;        /* a job was queued, or the worker must quit */
    pthread_cond_t idle;      /* the worker finished a job */
    tz_run *list;
    int64_t next_id;
    int quit;
    int busy;                 /* a job is running */
};

static void run_free(tz_run *run)
{
    free(run->tool);
    free(run->trace);
    for (size_t i = 0; i < run->nargs; i++) {
        free(run->keys[i]);
        free(run->vals[i]);
    }
    free(run->result);
    free(run->error);
    tz_buf_free(&run->out);
    tz_buf_free(&run->filter);
    free(run);
}

tz_runs *tz_runs_new(void)
{
    tz_runs *rs = calloc(1, sizeof *rs);
    if (!rs)
        return NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&rs->cv, NULL);
    pthread_cond_init(&rs->idle, &ca);
    pthread_condattr_destroy(&ca);
    rs->next_id = 1;
    return rs;
}

void tz_runs_free(tz_runs *rs)
{
    if (!rs)
        return;
    for (tz_run *r = rs->list, *nx; r; r = nx) {
        nx = r->next;
        run_free(r);
    }
    pthread_cond_destroy(&rs->cv);
    pthread_cond_destroy(&rs->idle);
    free(rs);
}

int tz_api_tools_quit(tz_api *api, int wait_ms)
{
    tz_shared *sh = api->sh;
    struct timespec until;
    tz_mono_after(&until, wait_ms);
    pthread_mutex_lock(&sh->mu);
    sh->runs->quit = 1;
    for (tz_run *r = sh->runs->list; r; r = r->next)
        r->cancel = 1;
    pthread_cond_broadcast(&sh->runs->cv);
    int rc = 0;
    while (sh->runs->busy && rc == 0)
        rc = pthread_cond_timedwait(&sh->runs->idle, &sh->mu, &until);
    int left = sh->runs->busy;
    pthread_mutex_unlock(&sh->mu);
    return left ? -1 : 0;
}

/* ---- the worker ---- */

static void progress_cb(void *user, const char *what, uint64_t done, uint64_t total)
{
    (void)what;
    void **u = user;
    tz_shared *sh = u[0];
    tz_run *run = u[1];
    pthread_mutex_lock(&sh->mu);
    if (total > 0 && done <= total) {
        /* a tool may report several phases, each from 0 to 1 (correlate --rank loads
         * its series, then reads and ranks), and does not say how many: a phase fills
         * half of what is left of the bar, a fraction below the last one starts the
         * next, so the bar never moves back and reaches 1 when the job ends */
        double f = (double)done / (double)total;
        if (f < run->last)
            run->phase_base = run->progress;
        run->last = f;
        double p = run->phase_base + (1 - run->phase_base) * f / 2;
        if (p > run->progress)
            run->progress = p;
    }
    pthread_mutex_unlock(&sh->mu);
}

/* The job's stop: cancelled, or the server stops. */
static int job_stop(void *user, int stage)
{
    (void)stage;
    void **u = user;
    tz_shared *sh = u[0];
    tz_run *run = u[1];
    pthread_mutex_lock(&sh->mu);
    int stop = run->cancel || sh->runs->quit;
    pthread_mutex_unlock(&sh->mu);
    return stop || atomic_load(&sh->stopping);
}

static void out_print(void *user, const char *text)
{
    tz_run *run = user;
    size_t n = strlen(text);
    if (run->out.len + n > TZ_RUN_OUTPUT)
        n = run->out.len < TZ_RUN_OUTPUT ? TZ_RUN_OUTPUT - run->out.len : 0;
    tz_buf_put(&run->out, text, n);
}

static void out_warn(void *user, const char *text)
{
    out_print(user, "warning: ");
    out_print(user, text);
    out_print(user, "\n");
}

/* The results of the trace, from a handle of its own (the latest state). */
static int list_results(traza_workspace *ws, const char *trace, traza_result_info **res, size_t *n, traza_err *err)
{
    traza_trace *t = traza_trace_open(ws, trace, TRAZA_OPEN_READ, err);
    if (!t)
        return -1;
    int rc = traza_result_list(t, res, n, err);
    traza_trace_close(t);
    return rc;
}

/* The ids of the trace's results, or -1. */
static int result_ids(traza_workspace *ws, const char *trace, int64_t **ids, size_t *n, traza_err *err)
{
    *ids = NULL;
    *n = 0;
    traza_result_info *res = NULL;
    size_t nr = 0;
    if (list_results(ws, trace, &res, &nr, err) < 0)
        return -1;
    *ids = malloc((nr ? nr : 1) * sizeof **ids);
    if (!*ids) {
        traza_result_info_array_free(res, nr);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < nr; i++)
        (*ids)[i] = res[i].id;
    *n = nr;
    traza_result_info_array_free(res, nr);
    return 0;
}

/* The newest result of the trace not among `before` (*name malloc'd, NULL when
 * there is none), after a run: the tools save at most one result a run. */
static int find_new_result(traza_workspace *ws, const char *trace, const int64_t *before, size_t nbefore, char **name_out,
                           int64_t *id_out, traza_err *err)
{
    traza_result_info *res = NULL;
    size_t nr = 0;
    if (list_results(ws, trace, &res, &nr, err) < 0)
        return -1;
    int64_t best = 0;
    const char *name = NULL;
    for (size_t i = 0; i < nr; i++) {
        int old = 0;
        for (size_t j = 0; j < nbefore && !old; j++)
            old = before[j] == res[i].id;
        if (!old && res[i].id > best) {
            best = res[i].id;
            name = res[i].name;
        }
    }
    char *copy = name ? tz_strdup(name) : NULL;
    traza_result_info_array_free(res, nr);
    if (name && !copy)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    *name_out = copy;
    *id_out = best;
    return 0;
}

static void execute(tz_api *api, tz_run *run)
{
    tz_shared *sh = api->sh;
    traza_err err;
    traza_err_clear(&err);
    const traza_tool *tool = sh->reg ? traza_registry_find(sh->reg, run->tool) : NULL;
    int64_t *before = NULL;
    size_t nbefore = 0;
    int rc = -1;
    char *result = NULL;
    int64_t result_id = 0;
    if (!tool)
        traza_err_set(&err, TRAZA_E_NOTFOUND, "no tool named '%s'", run->tool);
    else if (result_ids(api->ws, run->trace, &before, &nbefore, &err) == 0) {
        void *user[2] = {sh, run};
        traza_stop stop = {job_stop, user};
        traza_ctx_set_progress(api->own_ctx, progress_cb, user);
        traza_ctx_set_stop(api->own_ctx, &stop);
        traza_tool_args args = {run->nargs, (const char *const *)run->keys, (const char *const *)run->vals};
        traza_tool_call call = {api->own_ctx, api->ws, run->trace, &args, 1, out_print, run, out_warn};
        rc = traza_tool_run(tool, &call, &err);
        traza_ctx_set_progress(api->own_ctx, NULL, NULL);
        traza_ctx_set_stop(api->own_ctx, NULL);
        if (rc == 0)
            rc = find_new_result(api->ws, run->trace, before, nbefore, &result, &result_id, &err);
    }
    free(before);
    char *msg = rc < 0 ? tz_strdup(err.msg[0] ? err.msg : traza_errcode_name(err.code)) : NULL;
    pthread_mutex_lock(&sh->mu);
    if (rc == 0) {
        run->state = RUN_DONE;
        run->progress = 1;
        run->result = result;
        run->result_id = result_id;
    } else {
        run->state = err.code == TRAZA_E_CANCELLED && run->cancel ? RUN_CANCELLED : RUN_FAILED;
        run->error = msg;
        msg = NULL;
    }
    pthread_mutex_unlock(&sh->mu);
    free(msg);
}

/* Drops the oldest finished jobs past TZ_RUNS_KEPT (under sh->mu). */
static void trim(tz_runs *rs)
{
    size_t kept = 0;
    for (tz_run **p = &rs->list; *p;) {
        tz_run *r = *p;
        if (r->state >= RUN_DONE && ++kept > TZ_RUNS_KEPT) {
            *p = r->next;
            run_free(r);
        } else {
            p = &r->next;
        }
    }
}

void tz_api_tool_worker(tz_api *api)
{
    tz_shared *sh = api->sh;
    tz_runs *rs = sh->runs;
    pthread_mutex_lock(&sh->mu);
    for (;;) {
        tz_run *pick = NULL;
        for (tz_run *r = rs->list; r; r = r->next)
            if (r->state == RUN_QUEUED)
                pick = r; /* the oldest queued (the list is newest first) */
        if (rs->quit || atomic_load(&sh->stopping))
            break;
        if (!pick) {
            pthread_cond_wait(&rs->cv, &sh->mu);
            continue;
        }
        pick->state = RUN_RUNNING;
        rs->busy = 1;
        pthread_mutex_unlock(&sh->mu);
        execute(api, pick);
        pthread_mutex_lock(&sh->mu);
        rs->busy = 0;
        trim(rs);
        pthread_cond_broadcast(&rs->idle);
    }
    pthread_mutex_unlock(&sh->mu);
}

/* ---- the endpoints ---- */

int tz_api_tools(tz_req *r)
{
    traza_registry *reg = r->api->sh->reg;
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"tools\":[");
    size_t shown = 0;
    for (size_t i = 0; reg && i < traza_registry_count(reg); i++) {
        const traza_tool *t = traza_registry_at(reg, i);
        if (t->kind != TRAZA_TOOL_ANALYSIS)
            continue; /* importers and exporters name files */
        if (shown++)
            tz_buf_putc(&b, ',');
        tz_tool_json(&b, t, 1);
    }
    tz_buf_puts(&b, "]}");
    return tz_send_json(r, &b);
}

/* Parameters of /api/run that are not the tool's options. */
/* A column filter of the selection: re.COLUMN=REGEX, or nre.COLUMN=REGEX (the
 * column does not match), as every view takes it (tz_req_filter_parse). */
static const char *column_filter(const char *key, int *negate)
{
    *negate = strncmp(key, "nre.", 4) == 0;
    if (!*negate && strncmp(key, "re.", 3) != 0)
        return NULL;
    return key + (*negate ? 4 : 3);
}

static int run_param(const char *key)
{
    static const char *const own[] = {"tool", "trace", "from", "to", "set", "budget", "ticks"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strcmp(key, own[i]) == 0)
            return 1;
    int neg;
    return column_filter(key, &neg) != NULL;
}

static const traza_tool_option *find_option(const traza_tool *t, const char *name)
{
    for (size_t i = 0; i < t->noptions; i++)
        if (strcmp(t->options[i].name, name) == 0)
            return &t->options[i];
    return NULL;
}

static int add_arg(tz_req *r, tz_run *run, const char *k, const char *v)
{
    if (run->nargs >= TZ_RUN_MAX_ARGS)
        return tz_fail(r, 400, "more than %d options", TZ_RUN_MAX_ARGS);
    char *kc = tz_strdup(k), *vc = tz_strdup(v);
    if (!kc || !vc) {
        free(kc);
        free(vc);
        return tz_fail(r, 500, "out of memory");
    }
    run->keys[run->nargs] = kc;
    run->vals[run->nargs] = vc;
    run->nargs++;
    return 0;
}

/* The option of the tool a saved set of the selection goes to (when it is not the
 * series, see selection()): the set of its event filter (tools/tool_filter.h), else
 * its saved-result option, else the series it analyses (an event set is a series). */
static const traza_tool_option *set_option(const traza_tool *t)
{
    const traza_tool_option *set = find_option(t, "set");
    if (set && set->type == TRAZA_OPT_RESULT)
        return set;
    for (size_t i = 0; i < t->noptions; i++)
        if (t->options[i].type == TRAZA_OPT_RESULT)
            return &t->options[i];
    const traza_tool_option *o = find_option(t, "series");
    return o && o->type == TRAZA_OPT_STRING ? o : NULL;
}

/* The UI's column filters (re.COLUMN=, nre.COLUMN=) become the tool's regex options
 * (COLUMN~REGEX, COLUMN!~REGEX), so the tool reads the events the table shows; a
 * tool without that option is refused rather than run on other events. */
static int column_filters(tz_req *r, const traza_tool *tool, tz_run *run)
{
    const traza_tool_option *o = find_option(tool, "regex");
    for (size_t i = 0; i < r->params->n; i++) {
        int neg;
        const char *col = column_filter(r->params->p[i].key, &neg), *re = r->params->p[i].value;
        if (!col || !*col || !*re)
            continue;
        if (!o || o->type != TRAZA_OPT_STRING || !o->multi)
            return tz_fail(r, 400, "tool '%s' takes no regular expression: the column filter on '%.64s' cannot apply to it",
                           tool->name, col);
        tz_buf v;
        tz_buf_init(&v);
        tz_buf_printf(&v, "%s%s~%s", col, neg ? "!" : "", re);
        int rc = v.oom ? tz_fail(r, 500, "out of memory") : add_arg(r, run, o->name, v.s);
        tz_buf_free(&v);
        if (rc < 0)
            return -1;
        tz_buf_printf(&run->filter, "%s%s=%s%s~%s", run->filter.len ? " " : "", o->name, col, neg ? "!" : "", re);
    }
    return run->filter.oom ? tz_fail(r, 500, "out of memory") : 0;
}

/* The UI's selection (from=, to=: its window; set=: the saved set every view is
 * filtered by; its column filters) becomes the tool's own options when it has them;
 * those used are kept in run->filter for /api/job. An option the request also sets
 * is left to it. */
/* Whether the run names the series its tool analyses (options series, type, anomalies-of). */
static int names_series(const tz_run *run)
{
    for (size_t j = 0; j < run->nargs; j++)
        if (!strcmp(run->keys[j], "series") || !strcmp(run->keys[j], "type") || !strcmp(run->keys[j], "anomalies-of"))
            return 1;
    return 0;
}

static int selection(tz_req *r, const traza_tool *tool, tz_run *run)
{
    static const char *const sel[] = {"from", "to", "set"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = tz_arg_str(r, sel[i]);
        /* the saved set of the selection: the series of a series analysis that is given
         * none, else the set of its filter */
        const traza_tool_option *series = find_option(tool, "series");
        const traza_tool_option *o = i < 2 ? find_option(tool, sel[i]) : series && !names_series(run) ? series : set_option(tool);
        if (!v || !*v || !o || (i < 2 && o->type != TRAZA_OPT_TIME))
            continue;
        int given = 0;
        for (size_t j = 0; j < run->nargs && !given; j++)
            given = strcmp(run->keys[j], o->name) == 0;
        if (given)
            continue;
        if (add_arg(r, run, o->name, v) < 0)
            return -1;
        tz_buf_printf(&run->filter, "%s%s=%s", run->filter.len ? " " : "", o->name, v);
    }
    return column_filters(r, tool, run);
}

int tz_api_run(tz_req *r)
{
    tz_shared *sh = r->api->sh;
    const char *name = tz_arg_str(r, "tool");
    if (!name || !*name)
        return tz_fail(r, 400, "missing parameter 'tool'");
    const traza_tool *tool = sh->reg ? traza_registry_find(sh->reg, name) : NULL;
    if (!tool)
        return tz_fail(r, 404, "no tool named '%.64s' (see /api/tools)", name);
    if (tool->kind != TRAZA_TOOL_ANALYSIS)
        return tz_fail(r, 400, "tool '%.64s' is an %s: only analyses run from the API", name, traza_tool_kind_name(tool->kind));
    traza_trace *t = tz_req_trace(r); /* checks the trace exists */
    if (!t)
        return -1;
    tz_run *run = calloc(1, sizeof *run);
    if (!run)
        return tz_fail(r, 500, "out of memory");
    tz_buf_init(&run->out);
    tz_buf_init(&run->filter);
    char idtext[32];
    snprintf(idtext, sizeof idtext, "%lld", (long long)traza_trace_info_of(t)->id);
    run->tool = tz_strdup(tool->name);
    run->trace = tz_strdup(idtext);
    if (!run->tool || !run->trace) {
        run_free(run);
        return tz_fail(r, 500, "out of memory");
    }
    for (size_t i = 0; i < r->params->n; i++) {
        const char *k = r->params->p[i].key, *v = r->params->p[i].value;
        if (run_param(k))
            continue;
        const traza_tool_option *o = find_option(tool, k);
        if (!o) {
            run_free(run);
            return tz_fail(r, 400, "tool '%s' has no option '%.64s'", tool->name, k);
        }
        if (tz_tool_option_names_file(o)) {
            run_free(run);
            return tz_fail(r, 400, "option '%s' names a file: not accepted over HTTP", o->name);
        }
        if (add_arg(r, run, k, v) < 0) {
            run_free(run);
            return -1;
        }
    }
    if (selection(r, tool, run) < 0) {
        run_free(run);
        return -1;
    }
    traza_tool_args args = {run->nargs, (const char *const *)run->keys, (const char *const *)run->vals};
    if (traza_tool_check_args(tool, &args, &r->err) < 0) {
        run_free(run);
        return tz_fail(r, 400, "%s", r->err.msg);
    }
    pthread_mutex_lock(&sh->mu);
    int quit = sh->runs->quit;
    if (!quit) {
        run->id = sh->runs->next_id++;
        run->next = sh->runs->list;
        sh->runs->list = run;
        pthread_cond_signal(&sh->runs->cv);
    }
    int64_t id = run->id;
    pthread_mutex_unlock(&sh->mu);
    if (quit) {
        run_free(run);
        return tz_fail(r, 503, "the server is stopping");
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_printf(&b, "{\"job\":%lld,\"state\":\"queued\"}", (long long)id);
    return tz_send_json(r, &b);
}

/* The job of the id= parameter (under sh->mu), or NULL after a 4xx (sh->mu released). */
static tz_run *job_locked(tz_req *r)
{
    int64_t id;
    int k = tz_arg_i64(r, "id", 1, INT64_MAX, 0, &id);
    if (k < 0)
        return NULL;
    if (k == 0)
        return tz_fail(r, 400, "missing parameter 'id'"), NULL;
    pthread_mutex_lock(&r->api->sh->mu);
    for (tz_run *run = r->api->sh->runs->list; run; run = run->next)
        if (run->id == id)
            return run;
    pthread_mutex_unlock(&r->api->sh->mu);
    return tz_fail(r, 404, "no job %lld", (long long)id), NULL;
}

int tz_api_job(tz_req *r)
{
    tz_run *run = job_locked(r);
    if (!run)
        return -1;
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_printf(&b, "{\"job\":%lld,\"tool\":", (long long)run->id);
    tz_json_str(&b, run->tool);
    tz_buf_printf(&b, ",\"trace\":%s,\"state\":\"%s\",\"progress\":%.4f,\"result\":", run->trace, state_names[run->state],
                  run->progress);
    tz_json_str(&b, run->result);
    tz_buf_printf(&b, ",\"result_id\":%lld,\"error\":", (long long)run->result_id);
    tz_json_str(&b, run->error);
    tz_buf_puts(&b, ",\"filter\":");
    tz_json_strn(&b, run->filter.s ? run->filter.s : "", run->filter.len);
    tz_buf_puts(&b, ",\"output\":");
    if (run->state >= RUN_DONE) {
        tz_json_strn(&b, run->out.s ? run->out.s : "", run->out.len);
    } else {
        tz_buf_puts(&b, "null");
    }
    tz_buf_putc(&b, '}');
    pthread_mutex_unlock(&r->api->sh->mu);
    return tz_send_json(r, &b);
}

int tz_api_job_cancel(tz_req *r)
{
    tz_run *run = job_locked(r);
    if (!run)
        return -1;
    run->cancel = 1;
    if (run->state == RUN_QUEUED)
        run->state = RUN_CANCELLED;
    /* a running tool stops at its next progress report; one that reports none ends
     * normally */
    const char *st = state_names[run->state];
    int64_t id = run->id;
    trim(r->api->sh->runs); /* (may free run) */
    pthread_mutex_unlock(&r->api->sh->mu);
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_printf(&b, "{\"job\":%lld,\"state\":\"%s\",\"cancel\":true}", (long long)id, st);
    return tz_send_json(r, &b);
}

int tz_api_result_delete(tz_req *r)
{
    traza_trace *rt = tz_req_trace(r);
    if (!rt)
        return -1;
    const char *name = tz_arg_str(r, "name");
    if (!name || !*name)
        return tz_fail(r, 400, "missing parameter 'name'");
    char idtext[32];
    snprintf(idtext, sizeof idtext, "%lld", (long long)traza_trace_info_of(rt)->id);
    traza_trace *t = traza_trace_open(r->api->ws, idtext, TRAZA_OPEN_WRITE, &r->err);
    if (!t)
        return tz_fail_err(r, &r->err);
    traza_result_info info;
    memset(&info, 0, sizeof info);
    int rc = traza_result_find(t, name, &info, &r->err);
    if (rc == 0)
        rc = traza_result_delete(t, info.id, &r->err);
    traza_trace_close(t);
    if (rc < 0) {
        traza_result_info_clear(&info);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_printf(&b, "{\"deleted\":%lld,\"name\":", (long long)info.id);
    tz_json_str(&b, info.name);
    tz_buf_putc(&b, '}');
    traza_result_info_clear(&info);
    return tz_send_json(r, &b);
}

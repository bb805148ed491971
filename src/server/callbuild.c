/* The call profiles of /api/callstack. The complete profile of the last trace asked
 * for is kept between requests, and that of the last filter asked for on it
 * (tz_shared's cp and cp_filtered). One not complete yet is built in the background
 * by the server's call-profile worker: one thread owned by tz_shared, started by the
 * first request that needs it, building one profile at a time (the last trace and
 * filter asked for: a request for another cancels the build under way), stopped with
 * the server (tz_api_cancel) and joined when the shared state is freed.
 *
 * Why a worker and not a build resumed by each request: a profile of tens of millions
 * of calls takes many times a request's budget to read, and a build that only advances
 * while requests come would advance by half a budget per request, make each request
 * of the polling page wait that long, and stall whenever the page stops asking. The
 * worker reads on between requests, on its own connection (tz_api_clone), and each
 * request answers at once with what is read so far.
 *
 * The worker reads the trace in chunks of its time span, each a library build
 * (traza_callprofile_build) of the calls that start in the chunk, merged into the
 * profile so far, which is then published: the requests answer with it (partial,
 * covered_to = the chunk's end) until the last chunk makes it complete. A chunk is
 * twice as long as the one before (the first 1/64 of the span), so the first part
 * shows early and the merges copy each call a bounded number of times. */
#include "server/callbuild.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The first chunk covers 1/TZ_CP_FIRST_CHUNK of the trace's span. */
#define TZ_CP_FIRST_CHUNK 64

typedef enum cpb_state { CPB_IDLE, CPB_RUNNING, CPB_FAILED } cpb_state;

/* The background build (in tz_shared; under sh->mu unless said). */
struct tz_cpb {
    pthread_t thread;
    pthread_cond_t job;    /* a job was posted, or the worker must quit */
    pthread_cond_t news;   /* a part was published, or the job ended */
    int quit;
    atomic_uint gen;       /* the job's number: a build of another one stops (read by its stop) */
    unsigned taken;        /* the job the worker took last */
    cpb_state state;       /* of the job gen */
    int64_t trace_id;
    char *key;
    tz_params params;      /* the filter's parameters, "trace" = the trace's id */
    struct tz_cp_entry *part; /* the part built so far (NULL: none yet) */
    int fail_status;       /* CPB_FAILED: the answer of the failure */
    char *fail_body;
    tz_api *api;           /* the worker's own (a clone: its own connections) */
};

/* ---- entries and the cache of complete profiles ---- */

static void cp_unref(struct tz_cp_entry *e)
{
    if (e && --e->refs == 0) {
        traza_callprofile_free(&e->cp);
        free(e->key);
        free(e);
    }
}

void tz_cp_release(tz_shared *sh, struct tz_cp_entry *e)
{
    pthread_mutex_lock(&sh->mu);
    cp_unref(e);
    pthread_mutex_unlock(&sh->mu);
}

/* The cache slot of a profile: the unfiltered one, or the last filtered one. */
static struct tz_cp_entry **cp_slot(tz_shared *sh, const char *key) { return *key ? &sh->cp_filtered : &sh->cp; }

/* The complete profile of the trace and filter with a reference for the caller, or
 * NULL (under sh->mu). */
static struct tz_cp_entry *cp_get_locked(tz_shared *sh, int64_t trace_id, const char *key)
{
    struct tz_cp_entry *e = *cp_slot(sh, key);
    if (e && (e->trace_id != trace_id || strcmp(e->key, key) != 0))
        return NULL;
    if (e)
        e->refs++;
    return e;
}

/* Makes e the complete profile of its slot (under sh->mu; the caller keeps its reference). */
static void cp_put_locked(tz_shared *sh, struct tz_cp_entry *e)
{
    struct tz_cp_entry **slot = cp_slot(sh, e->key);
    cp_unref(*slot);
    e->refs++;
    *slot = e;
}

/* The parameters of the view's filter. */
static int filter_param(const char *k)
{
    static const char *const names[] = {"types", "producers", "subtree", "set", "result", "categories"};
    if (!strncmp(k, "re.", 3) || !strncmp(k, "nre.", 4))
        return 1;
    for (size_t j = 0; j < sizeof names / sizeof *names; j++)
        if (!strcmp(k, names[j]))
            return 1;
    return 0;
}

int tz_cp_filter_key(tz_req *r, tz_buf *key)
{
    for (size_t i = 0; i < r->params->n; i++) {
        const char *k = r->params->p[i].key, *v = r->params->p[i].value;
        if (filter_param(k) && v && *v)
            tz_buf_printf(key, "%s=%s&", k, v);
    }
    tz_buf_putc(key, '\0');
    return key->oom ? tz_fail(r, 500, "out of memory") : 0;
}

/* ---- the worker ---- */

/* The job numbered gen no longer wanted: another was posted, or the server stops. */
static int cancelled(tz_shared *sh, unsigned gen)
{
    return atomic_load(&sh->stopping) || atomic_load(&sh->cpb->gen) != gen;
}

typedef struct job_stop {
    tz_shared *sh;
    unsigned gen;
} job_stop;

static int job_stop_fn(void *ctx, int stage)
{
    (void)stage;
    const job_stop *s = ctx;
    return cancelled(s->sh, s->gen);
}

static int call_cmp(const traza_cp_call *a, const traza_cp_call *b)
{
    if (a->producer != b->producer)
        return a->producer < b->producer ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->level > b->level) - (a->level < b->level);
}

/* The calls of a (those read so far, may be NULL) and of the chunk b, merged in the
 * library's order (producer, ts, level) into dst, with the profile's bounds as
 * traza_callprofile_build sets them. b's calls are taken (b is left empty). -1 when
 * out of memory. */
static int merge_calls(const traza_callprofile *a, traza_callprofile *b, traza_callprofile *dst)
{
    memset(dst, 0, sizeof *dst);
    size_t na = a ? a->ncalls : 0, nb = b->ncalls;
    if (na == 0) {
        dst->calls = b->calls;
        b->calls = NULL;
        b->ncalls = 0;
    } else {
        if (!(dst->calls = malloc((na + nb) * sizeof *dst->calls)))
            return -1;
        size_t i = 0, j = 0, k = 0;
        while (i < na && j < nb)
            dst->calls[k++] = call_cmp(&b->calls[j], &a->calls[i]) < 0 ? b->calls[j++] : a->calls[i++];
        if (na > i)
            memcpy(dst->calls + k, a->calls + i, (na - i) * sizeof *dst->calls);
        if (nb > j) /* b->calls is NULL for an empty chunk */
            memcpy(dst->calls + k + (na - i), b->calls + j, (nb - j) * sizeof *dst->calls);
    }
    dst->ncalls = na + nb;
    traza_callprofile_bounds(dst);
    return 0;
}

/* Ends job gen as failed with the answer in resp (when it is still the job). */
static void job_fail(tz_shared *sh, unsigned gen, const tz_resp *resp)
{
    struct tz_cpb *b = sh->cpb;
    char *body = resp->body ? tz_strndup(resp->body, resp->len) : NULL;
    pthread_mutex_lock(&sh->mu);
    if (atomic_load(&b->gen) == gen) {
        free(b->fail_body);
        b->fail_body = body;
        body = NULL;
        b->fail_status = resp->body ? resp->status : 500;
        b->state = CPB_FAILED;
        cp_unref(b->part);
        b->part = NULL;
        pthread_cond_broadcast(&b->news);
    }
    pthread_mutex_unlock(&sh->mu);
    free(body);
}

/* Publishes e as the part of job gen built so far, or as its complete profile: a
 * reference moves to the build or to the cache (the worker keeps its own). */
static void job_publish(tz_shared *sh, unsigned gen, struct tz_cp_entry *e)
{
    struct tz_cpb *b = sh->cpb;
    pthread_mutex_lock(&sh->mu);
    if (atomic_load(&b->gen) == gen) {
        cp_unref(b->part);
        b->part = NULL;
        if (e->partial) {
            e->refs++;
            b->part = e;
        } else {
            cp_put_locked(sh, e);
            b->state = CPB_IDLE;
        }
        pthread_cond_broadcast(&b->news);
    }
    pthread_mutex_unlock(&sh->mu);
}

/* Builds the profile of job gen, a chunk at a time (see the top of the file). */
static void run_job(tz_api *api, unsigned gen, int64_t trace_id, const char *key, const tz_params *params)
{
    tz_shared *sh = api->sh;
    tz_resp resp;
    memset(&resp, 0, sizeof resp);
    tz_req r;
    memset(&r, 0, sizeof r);
    r.api = api;
    r.params = params;
    r.resp = &resp;
    r.deadline = INT64_MAX / 4; /* none (the filter's regex deadline is computed past it) */
    r.budget_ms = TZ_API_MAX_BUDGET;
    traza_err_clear(&r.err);
    tz_req_filter rf;
    int have_rf = 0;
    struct tz_cp_entry *acc = NULL; /* the profile so far (the worker's reference) */
    traza_trace *t = tz_req_trace(&r);
    if (!t)
        goto failed;
    if (*key) {
        if (tz_req_filter_parse(&r, t, &rf) < 0)
            goto failed;
        have_rf = 1;
    }
    traza_filter f;
    if (have_rf) {
        f = rf.f;
    } else {
        traza_filter_init(&f);
    }
    f.has_from = f.has_to = f.overlap = 0;
    f.during = 0;
    const traza_trace_info *info = traza_trace_info_of(t);
    if (info->id != trace_id) { /* "trace" named another trace than the id */
        tz_fail(&r, 404, "trace %lld not found", (long long)trace_id);
        goto failed;
    }
    uint64_t span = (uint64_t)info->max_ts - (uint64_t)info->min_ts;
    uint64_t len = span / TZ_CP_FIRST_CHUNK + 1;
    /* the chunk's calls start in [from, to] (from INT64_MIN: the first; to INT64_MAX: the last) */
    for (int64_t from = INT64_MIN, to = INT64_MIN, last = 0; !last; from = last ? to : to + 1, len = len > UINT64_MAX / 2 ? UINT64_MAX : len * 2) {
        int64_t start = from == INT64_MIN ? info->min_ts : from;
        last = (uint64_t)info->max_ts - (uint64_t)start < len;
        to = last ? INT64_MAX : (int64_t)((uint64_t)start + len - 1);
        traza_filter fc = f;
        fc.has_from = from != INT64_MIN;
        fc.from = from;
        fc.has_to = !last;
        fc.to = to;
        job_stop js = {sh, gen};
        traza_stop stop = {.fn = job_stop_fn, .ctx = &js};
        traza_partial pi;
        traza_callprofile ch;
        if (traza_callprofile_build(t, &ch, &fc, &stop, &pi, &r.err) < 0) {
            tz_fail_err(&r, &r.err);
            goto failed;
        }
        if (pi.partial || cancelled(sh, gen)) {
            traza_callprofile_free(&ch);
            goto done;
        }
        if (ch.ncalls == 0 && !last && acc) { /* nothing new to show (a copy saved) */
            traza_callprofile_free(&ch);
            continue;
        }
        struct tz_cp_entry *e = calloc(1, sizeof *e);
        if (!e || !(e->key = tz_strdup(key)) || merge_calls(acc ? &acc->cp : NULL, &ch, &e->cp) < 0) {
            traza_callprofile_free(&ch);
            if (e)
                free(e->key);
            free(e);
            tz_fail(&r, 500, "out of memory");
            goto failed;
        }
        traza_callprofile_free(&ch);
        e->trace_id = trace_id;
        e->refs = 1;
        e->partial = !last;
        e->covered_to = to;
        job_publish(sh, gen, e);
        tz_cp_release(sh, acc);
        acc = e;
    }
    goto done;
failed:
    job_fail(sh, gen, &resp);
done:
    tz_cp_release(sh, acc);
    if (have_rf)
        tz_req_filter_free(&rf);
    tz_resp_free(&resp);
}

static void *worker(void *arg)
{
    tz_api *api = arg;
    tz_shared *sh = api->sh;
    struct tz_cpb *b = sh->cpb;
    tz_params params;
    tz_params_init(&params);
    pthread_mutex_lock(&sh->mu);
    while (!b->quit && !atomic_load(&sh->stopping)) {
        unsigned gen = atomic_load(&b->gen);
        if (b->state != CPB_RUNNING || b->taken == gen) {
            pthread_cond_wait(&b->job, &sh->mu);
            continue;
        }
        b->taken = gen;
        int64_t trace_id = b->trace_id;
        char *key = tz_strdup(b->key);
        int ok = key != NULL;
        for (size_t i = 0; ok && i < b->params.n; i++)
            ok = tz_params_add(&params, b->params.p[i].key, strlen(b->params.p[i].key), b->params.p[i].value,
                               strlen(b->params.p[i].value)) == 0;
        pthread_mutex_unlock(&sh->mu);
        if (ok) {
            run_job(api, gen, trace_id, key, &params);
        } else {
            tz_resp resp;
            tz_resp_static(&resp, 500, "{\"error\":\"out of memory\",\"status\":500}\n");
            job_fail(sh, gen, &resp);
        }
        free(key);
        tz_params_free(&params);
        pthread_mutex_lock(&sh->mu);
    }
    pthread_mutex_unlock(&sh->mu);
    return NULL;
}

/* The worker, started when it is not (outside sh->mu: a clone opens the workspace).
 * -1 after a 500 answer. */
static int worker_start(tz_req *r)
{
    tz_shared *sh = r->api->sh;
    pthread_mutex_lock(&sh->mu);
    int have = sh->cpb != NULL;
    pthread_mutex_unlock(&sh->mu);
    if (have)
        return 0;
    struct tz_cpb *b = calloc(1, sizeof *b);
    if (!b)
        return tz_fail(r, 500, "out of memory");
    tz_params_init(&b->params);
    atomic_init(&b->gen, 0);
    if (!(b->api = tz_api_clone(r->api, &r->err))) {
        free(b);
        return tz_fail_err(r, &r->err);
    }
    pthread_cond_init(&b->job, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->news, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_lock(&sh->mu);
    int rc = 0;
    if (!sh->cpb) { /* else another request started it meanwhile */
        sh->cpb = b;
        if (pthread_create(&b->thread, NULL, worker, b->api) != 0) {
            sh->cpb = NULL;
            rc = -1;
        } else {
            b = NULL;
        }
    }
    pthread_mutex_unlock(&sh->mu);
    if (b) {
        pthread_cond_destroy(&b->job);
        pthread_cond_destroy(&b->news);
        tz_api_free(b->api);
        free(b);
    }
    return rc < 0 ? tz_fail(r, 500, "cannot start the call-profile worker") : 0;
}

/* Posts the request's trace and filter as the job (under sh->mu): the build under way
 * stops. -1 when out of memory. */
static int job_post(tz_req *r, struct tz_cpb *b, int64_t trace_id, const char *key)
{
    char *k = tz_strdup(key), id[32];
    if (!k)
        return -1;
    tz_params_free(&b->params);
    tz_params_init(&b->params);
    snprintf(id, sizeof id, "%lld", (long long)trace_id);
    int rc = tz_params_add(&b->params, "trace", 5, id, strlen(id));
    for (size_t i = 0; rc == 0 && i < r->params->n; i++)
        if (filter_param(r->params->p[i].key))
            rc = tz_params_add(&b->params, r->params->p[i].key, strlen(r->params->p[i].key), r->params->p[i].value,
                               strlen(r->params->p[i].value));
    free(b->key);
    b->key = k;
    b->trace_id = trace_id;
    cp_unref(b->part);
    b->part = NULL;
    free(b->fail_body);
    b->fail_body = NULL;
    atomic_fetch_add(&b->gen, 1);
    if (rc < 0) {
        b->state = CPB_IDLE;
        return -1;
    }
    b->state = CPB_RUNNING;
    pthread_cond_signal(&b->job);
    return 0;
}

/* The failure's answer for the request (resp's body copied). */
static int answer_failure(tz_req *r, int status, const char *body)
{
    char *s = tz_strdup(body);
    if (!s)
        return tz_fail(r, 500, "out of memory");
    tz_resp_free(r->resp);
    r->resp->status = status;
    r->resp->ctype = "application/json";
    r->resp->body = s;
    r->resp->len = strlen(s);
    r->resp->is_static = 0;
    return -1;
}

int tz_cp_profile(tz_req *r, int64_t trace_id, const char *key, struct tz_cp_entry **out)
{
    tz_shared *sh = r->api->sh;
    *out = NULL;
    pthread_mutex_lock(&sh->mu);
    struct tz_cp_entry *e = cp_get_locked(sh, trace_id, key);
    pthread_mutex_unlock(&sh->mu);
    if (e) {
        *out = e;
        return 0;
    }
    if (worker_start(r) < 0)
        return -1;
    /* the whole profile when it gets complete within half of what is left of the
     * budget (the other half answers), as the library's budgeted work does */
    int64_t now = tz_now_ns(), until = r->deadline > now ? now + (r->deadline - now) / 2 : now;
    struct timespec ts = {.tv_sec = (time_t)(until / 1000000000), .tv_nsec = (long)(until % 1000000000)};
    struct tz_cpb *b = sh->cpb;
    int rc = 0;
    pthread_mutex_lock(&sh->mu);
    if ((e = cp_get_locked(sh, trace_id, key))) { /* completed meanwhile */
        pthread_mutex_unlock(&sh->mu);
        *out = e;
        return 0;
    }
    if (b->trace_id != trace_id || !b->key || strcmp(b->key, key) != 0 || b->state == CPB_IDLE)
        rc = job_post(r, b, trace_id, key);
    unsigned gen = atomic_load(&b->gen);
    while (rc == 0 && atomic_load(&b->gen) == gen && b->state == CPB_RUNNING && !atomic_load(&sh->stopping) &&
           tz_now_ns() < until && pthread_cond_timedwait(&b->news, &sh->mu, &ts) == 0)
        ;
    if (rc < 0) {
        pthread_mutex_unlock(&sh->mu);
        return tz_fail(r, 500, "out of memory");
    }
    if ((e = cp_get_locked(sh, trace_id, key))) {
        *out = e;
    } else if (atomic_load(&b->gen) == gen && b->state == CPB_FAILED) {
        /* answered once; the next request builds again (the failure may not last) */
        int st = b->fail_status;
        char *body = b->fail_body;
        b->fail_body = NULL;
        b->state = CPB_IDLE;
        pthread_mutex_unlock(&sh->mu);
        rc = body ? answer_failure(r, st, body) : tz_fail(r, 500, "the call profile could not be built");
        free(body);
        return rc;
    } else if (atomic_load(&b->gen) == gen && b->part) {
        b->part->refs++;
        *out = b->part;
    }
    pthread_mutex_unlock(&sh->mu);
    return 0;
}

void tz_api_callstack_free(tz_shared *sh)
{
    struct tz_cpb *b = sh->cpb;
    if (b) {
        pthread_mutex_lock(&sh->mu);
        b->quit = 1;
        atomic_fetch_add(&b->gen, 1); /* the build under way stops */
        pthread_cond_broadcast(&b->job);
        pthread_mutex_unlock(&sh->mu);
        pthread_join(b->thread, NULL);
        tz_api_free(b->api);
        pthread_cond_destroy(&b->job);
        pthread_cond_destroy(&b->news);
        cp_unref(b->part);
        free(b->key);
        free(b->fail_body);
        tz_params_free(&b->params);
        free(b);
        sh->cpb = NULL;
    }
    cp_unref(sh->cp);
    cp_unref(sh->cp_filtered);
    sh->cp = sh->cp_filtered = NULL;
}

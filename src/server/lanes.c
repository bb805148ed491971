/* The worker lanes of `traza serve`: API requests are answered by worker threads,
 * not by the thread that reads the sockets, so a slow client or a slow analysis
 * never holds up another request. Views (tables, density, timeline) and analyses
 * have separate workers: every analysis worker may be busy with a request that
 * runs to its budget while the views still answer at once. Each worker has its own
 * API (tz_api_clone: its own SQLite connections); the connection's thread waits for
 * the answer (tz_lanes_wait). A lane of one more thread runs the tool jobs
 * (POST /api/run), which nobody waits for. */
#include "server/transport.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct worker_arg {
    tz_lanes *l;
    tz_lane_pool *p;
    tz_api *api;
} worker_arg;

/* Marks the job answered and wakes its connection's thread, which may free the job
 * as soon as the mutex is released. */
static void finish(tz_lanes *l, tz_job *job)
{
    pthread_mutex_lock(&l->mu);
    job->answered = 1;
    pthread_cond_broadcast(&l->done);
    if (--l->outstanding == 0)
        pthread_cond_broadcast(&l->idle);
    pthread_mutex_unlock(&l->mu);
}

static tz_job *pop(tz_lane_pool *p)
{
    tz_job *job = p->head;
    if (job) {
        p->head = job->next;
        if (!p->head)
            p->tail = NULL;
        job->next = NULL;
    }
    return job;
}

static void *worker(void *arg)
{
    worker_arg *w = arg;
    tz_lanes *l = w->l;
    tz_lane_pool *p = w->p;
    tz_api *api = w->api;
    free(w);
    for (;;) {
        pthread_mutex_lock(&l->mu);
        while (!l->quit && !p->head)
            pthread_cond_wait(&p->cv, &l->mu);
        tz_job *job = pop(p);
        int stopping = l->stopping;
        pthread_mutex_unlock(&l->mu);
        if (!job)
            return NULL; /* quit with an empty queue */
        if (stopping)
            tz_resp_static(&job->resp, 503, TZ_STOPPING_JSON);
        else
            tz_api_handle(api, job->method, job->url, &job->ps, &job->resp);
        finish(l, job);
    }
}

static void *tool_worker(void *arg)
{
    tz_api_tool_worker(arg);
    return NULL;
}

int tz_lanes_start(tz_lanes *l, tz_api *base, size_t nview, size_t nanalysis, traza_err *err)
{
    memset(l, 0, sizeof *l);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->idle, &ca);
    pthread_cond_init(&l->done, NULL);
    pthread_condattr_destroy(&ca);
    size_t counts[2] = {nview ? nview : 1, nanalysis ? nanalysis : 1};
    for (int k = 0; k < 2; k++) {
        tz_lane_pool *p = &l->pool[k];
        pthread_cond_init(&p->cv, NULL);
        p->threads = calloc(counts[k], sizeof *p->threads);
        p->apis = calloc(counts[k], sizeof *p->apis);
        if (!p->threads || !p->apis) {
            tz_lanes_stop(l);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < counts[k]; i++) {
            tz_api *api = tz_api_clone(base, err);
            worker_arg *w = api ? malloc(sizeof *w) : NULL;
            if (!w) {
                tz_api_free(api);
                tz_lanes_stop(l);
                return api ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : -1;
            }
            w->l = l;
            w->p = p;
            w->api = api;
            p->apis[p->nworkers] = api;
            int rc = pthread_create(&p->threads[p->nworkers], NULL, worker, w);
            if (rc != 0) {
                free(w);
                tz_api_free(api);
                p->apis[p->nworkers] = NULL;
                tz_lanes_stop(l);
                return traza_err_set(err, TRAZA_E_IO, "cannot start a server thread: %s", strerror(rc));
            }
            p->nworkers++;
        }
    }
    if (!(l->tool_api = tz_api_clone(base, err))) {
        tz_lanes_stop(l);
        return -1;
    }
    int rc = pthread_create(&l->tool_thread, NULL, tool_worker, l->tool_api);
    if (rc != 0) {
        tz_api_free(l->tool_api);
        l->tool_api = NULL;
        tz_lanes_stop(l);
        return traza_err_set(err, TRAZA_E_IO, "cannot start a server thread: %s", strerror(rc));
    }
    return 0;
}

int tz_lanes_reserve(tz_lanes *l)
{
    pthread_mutex_lock(&l->mu);
    int ok = !l->stopping;
    if (ok)
        l->outstanding++;
    pthread_mutex_unlock(&l->mu);
    return ok ? 0 : -1;
}

void tz_lanes_push(tz_lanes *l, tz_lane lane, tz_job *job)
{
    tz_lane_pool *p = &l->pool[lane == TZ_LANE_ANALYSIS ? 1 : 0];
    pthread_mutex_lock(&l->mu);
    job->next = NULL;
    if (p->tail)
        p->tail->next = job;
    else
        p->head = job;
    p->tail = job;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&l->mu);
}

void tz_lanes_wait(tz_lanes *l, tz_job *job)
{
    pthread_mutex_lock(&l->mu);
    while (!job->answered)
        pthread_cond_wait(&l->done, &l->mu);
    pthread_mutex_unlock(&l->mu);
}

int tz_lanes_drain(tz_lanes *l, int wait_ms)
{
    struct timespec until;
    tz_mono_after(&until, wait_ms);
    pthread_mutex_lock(&l->mu);
    l->stopping = 1;
    for (int k = 0; k < 2; k++) {
        tz_job *job;
        while ((job = pop(&l->pool[k]))) {
            pthread_mutex_unlock(&l->mu);
            tz_resp_static(&job->resp, 503, TZ_STOPPING_JSON);
            finish(l, job);
            pthread_mutex_lock(&l->mu);
        }
    }
    int rc = 0;
    while (l->outstanding > 0 && rc == 0)
        rc = pthread_cond_timedwait(&l->idle, &l->mu, &until);
    int left = l->outstanding > 0;
    pthread_mutex_unlock(&l->mu);
    return left ? -1 : 0;
}

void tz_lanes_stop(tz_lanes *l)
{
    pthread_mutex_lock(&l->mu);
    l->quit = 1;
    for (int k = 0; k < 2; k++)
        pthread_cond_broadcast(&l->pool[k].cv);
    pthread_mutex_unlock(&l->mu);
    if (l->tool_api) {
        tz_api_tools_quit(l->tool_api, 0);
        pthread_join(l->tool_thread, NULL);
        tz_api_free(l->tool_api);
    }
    for (int k = 0; k < 2; k++) {
        tz_lane_pool *p = &l->pool[k];
        for (size_t i = 0; i < p->nworkers; i++) {
            pthread_join(p->threads[i], NULL);
            tz_api_free(p->apis[i]);
        }
        free(p->threads);
        free(p->apis);
        pthread_cond_destroy(&p->cv);
    }
    pthread_cond_destroy(&l->idle);
    pthread_cond_destroy(&l->done);
    pthread_mutex_destroy(&l->mu);
    memset(l, 0, sizeof *l);
}

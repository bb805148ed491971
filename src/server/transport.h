/* Internal to src/server: the parts of the HTTP transport (server.c) -- the worker
 * lanes that answer API requests (lanes.c) and the watch that closes connections
 * whose request does not arrive in time (headwatch.c). */
#ifndef TZ_TRANSPORT_H
#define TZ_TRANSPORT_H

#include "server/server.h"

#include <pthread.h>
#include <time.h>

#define TZ_STOPPING_JSON "{\"error\":\"the server is stopping\",\"status\":503}\n"

/* CLOCK_MONOTONIC time ms from now (the clock of the condition variables here). */
void tz_mono_after(struct timespec *ts, int ms);

/* One request of a connection, from its headers to its answer. */
typedef struct tz_job {
    size_t body;         /* request body bytes (refused) */
    const char *method, *url; /* libmicrohttpd's, valid while the request is */
    tz_params ps;
    tz_resp resp;
    int answered;        /* resp is filled (under the lanes' mutex) */
    struct tz_job *next; /* in a lane's queue */
} tz_job;

/* Worker threads answering the requests of one lane, each with its own API. */
typedef struct tz_lane_pool {
    pthread_cond_t cv;
    tz_job *head, *tail;
    size_t nworkers;
    pthread_t *threads;
    tz_api **apis;
} tz_lane_pool;

typedef struct tz_lanes {
    pthread_mutex_t mu;
    pthread_cond_t idle;  /* signalled when no job is left */
    pthread_cond_t done;  /* signalled when a job is answered */
    tz_lane_pool pool[2]; /* TZ_LANE_VIEW - 1, TZ_LANE_ANALYSIS - 1 */
    size_t outstanding;   /* jobs queued or being answered */
    int stopping;         /* jobs are answered 503 at once */
    int quit;             /* workers return */
    pthread_t tool_thread; /* runs the tool jobs (tz_api_tool_worker) */
    tz_api *tool_api;     /* its API; NULL when it did not start */
} tz_lanes;

/* Starts the workers (nview and nanalysis threads, each with a clone of base). */
int tz_lanes_start(tz_lanes *l, tz_api *base, size_t nview, size_t nanalysis, traza_err *err);
/* Counts one more job: 0, or -1 once the lanes are stopping (the request is then
 * answered 503 at once). */
int tz_lanes_reserve(tz_lanes *l);
/* Queues a reserved job on its lane for a worker to answer. */
void tz_lanes_push(tz_lanes *l, tz_lane lane, tz_job *job);
/* Waits until the job is answered (job->resp). */
void tz_lanes_wait(tz_lanes *l, tz_job *job);
/* Answers every queued job 503 and waits until none is left or wait_ms passes:
 * 0 when none is left, -1 otherwise. */
int tz_lanes_drain(tz_lanes *l, int wait_ms);
/* Ends and joins the workers (after a drain that returned 0, or before any job) and
 * the tool thread (after tz_api_tools_quit returned 0, or before any run). */
void tz_lanes_stop(tz_lanes *l);

/* The open connections and when each one's current request must have arrived. */
typedef struct tz_headwatch_conn {
    int fd;
    int64_t deadline; /* CLOCK_MONOTONIC ns; 0 while a request is being answered */
    struct tz_headwatch_conn *prev, *next;
} tz_headwatch_conn;

typedef struct tz_headwatch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    tz_headwatch_conn *head;
    int64_t limit_ns;
    int quit;
    int running;
    pthread_t thread;
} tz_headwatch;

/* Starts the watch: a connection whose request (headers and body) is not received
 * within limit_s seconds of its start, or of its previous answer, is shut down. */
int tz_headwatch_start(tz_headwatch *w, int limit_s, traza_err *err);
void tz_headwatch_stop(tz_headwatch *w);
/* A connection opened (returns its record, or NULL when memory is short: it is then
 * not watched) and closed. */
tz_headwatch_conn *tz_headwatch_open(tz_headwatch *w, int fd);
void tz_headwatch_close(tz_headwatch *w, tz_headwatch_conn *c);
/* Its request arrived (deadline off) / was answered (the next one's deadline on). */
void tz_headwatch_arrived(tz_headwatch *w, tz_headwatch_conn *c);
void tz_headwatch_answered(tz_headwatch *w, tz_headwatch_conn *c);

#endif

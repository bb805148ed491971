/* The deadline of request heads and bodies: libmicrohttpd's connection timeout
 * counts inactivity only, so a client sending one header line every few seconds
 * would hold its connection for ever. Every open connection is listed here with
 * the time by which its request must have arrived; a thread shuts down the socket
 * of each one past it, and libmicrohttpd then closes the connection. The list is
 * under a mutex that the close notification also takes, and libmicrohttpd closes
 * a socket only after that notification, so a shut-down descriptor is always the
 * connection's own. */
#include "server/api_internal.h"
#include "server/transport.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define TZ_HEADWATCH_TICK_MS 200

void tz_mono_after(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void *watch(void *arg)
{
    tz_headwatch *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->quit) {
        int64_t now = tz_now_ns();
        for (tz_headwatch_conn *c = w->head; c; c = c->next)
            if (c->deadline && now >= c->deadline) {
                shutdown(c->fd, SHUT_RDWR);
                c->deadline = 0;
            }
        struct timespec until;
        tz_mono_after(&until, TZ_HEADWATCH_TICK_MS);
        pthread_cond_timedwait(&w->cv, &w->mu, &until);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int tz_headwatch_start(tz_headwatch *w, int limit_s, traza_err *err)
{
    memset(w, 0, sizeof *w);
    w->limit_ns = (int64_t)limit_s * 1000000000;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&w->thread, NULL, watch, w);
    if (rc != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return traza_err_set(err, TRAZA_E_IO, "cannot start a server thread: %s", strerror(rc));
    }
    w->running = 1;
    return 0;
}

void tz_headwatch_stop(tz_headwatch *w)
{
    if (!w->running)
        return;
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    while (w->head) {
        tz_headwatch_conn *c = w->head;
        w->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->running = 0;
}

tz_headwatch_conn *tz_headwatch_open(tz_headwatch *w, int fd)
{
    tz_headwatch_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->fd = fd;
    pthread_mutex_lock(&w->mu);
    c->deadline = tz_now_ns() + w->limit_ns;
    c->next = w->head;
    if (w->head)
        w->head->prev = c;
    w->head = c;
    pthread_mutex_unlock(&w->mu);
    return c;
}

void tz_headwatch_close(tz_headwatch *w, tz_headwatch_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&w->mu);
    if (c->prev)
        c->prev->next = c->next;
    else
        w->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&w->mu);
    free(c);
}

void tz_headwatch_arrived(tz_headwatch *w, tz_headwatch_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&w->mu);
    c->deadline = 0;
    pthread_mutex_unlock(&w->mu);
}

void tz_headwatch_answered(tz_headwatch *w, tz_headwatch_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&w->mu);
    c->deadline = tz_now_ns() + w->limit_ns;
    pthread_mutex_unlock(&w->mu);
}

/* The line model's text rendered on a second thread.
 *
 * Decoding a line-model chunk is a chain: skeleton id, number prediction, text. The
 * first two are one sequential dependency (every number updates the predictors of
 * the next), the text is not: a Tarmac decompression spends about a sixth of its time
 * rendering skeletons and writing the result. So the decoding thread hands batches of
 * decoded lines (skeleton id, numbers, newline or not) to a render thread, which
 * renders and writes them in order while the next batch is decoded. A small ring of
 * batches bounds the memory. When the renderer is a whole ring behind, the decoder
 * renders the oldest batch itself instead of waiting: on a shared VM the renderer
 * falls a whole ring behind in 10-30 % of the runs of a noisy half hour, for
 * milliseconds at a time. Batches are rendered one at a time, in order, by whichever
 * thread takes the next one (`rendering` under the mutex).
 *
 * Before it waits for batches, the thread runs a job given at its start (unpacking the
 * chunk's streams in steps while the caller reads them), which renders the batches
 * filled so far between its steps (itf_rthread_poll): the decoder then never waits for
 * a free batch while the job runs. A second thread for the job alone would cost its
 * start again.
 *
 * Both threads wait through util/cvwait.h, which polls briefly before it sleeps: a
 * batch comes every 50-100 us, and a sleeping renderer would cost the decoder a futex
 * wake per batch and, at the end, a wake-up and a join of about 0.1 ms.
 *
 * The renderer never stops early: after a write error it keeps taking batches (and
 * drops them) so that the decoder, which checks the error at each hand-off, is never
 * left waiting. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"
#include "util/cvwait.h"

#define RT_LINES 256                    /* lines per batch: the text lags at most a few */
#define RT_NUMS (1024 + ITF_MAX_NUMS)   /* numbers per batch: room for one more line always */
#define RT_RING 4                       /* batches in flight */
#define RT_FLUSH (64u << 10)            /* write the text in pieces of this size */
#define RT_SPIN_NS 200000               /* a waiter polls this long before it sleeps (a
                                         * batch comes every 50-100 us) */

typedef struct rt_batch {
    uint32_t n, nnum;
    uint32_t id[RT_LINES];
    uint8_t nl[RT_LINES];
    uint64_t num[RT_NUMS];
} rt_batch;

struct itf_rthread {
    const uint8_t *prog;       /* the compiled skeletons (itf_skel_compile) */
    const uint32_t *prog_off, *prog_room;
    const size_t *skel_nn;
    FILE *out;
    tz_buf *ob;
    rt_batch *ring;
    pthread_t th;
    pthread_mutex_t mu;
    tz_cv cv;
    uint64_t filled, rendered; /* batches handed over, batches rendered */
    int rendering;             /* a thread is rendering batch `rendered` */
    int closing;               /* no more batches */
    int (*job)(itf_rthread *, void *); /* run first; it may render as it goes (itf_rthread_poll) */
    void *job_arg;
    int job_state;             /* 0 running, 1 done, -1 failed */
    int werr;                  /* errno of a failed write, -1 out of memory */
    rt_batch *cur;             /* the decoder's batch */
};

/* 0, or errno of a failed write, or -1 when the text buffer is out of memory */
static int render_batch(itf_rthread *t, const rt_batch *b)
{
    const uint64_t *num = b->num;
    for (uint32_t i = 0; i < b->n; i++) {
        uint32_t id = b->id[i];
        if (itf_prog_append(t->ob, t->prog + t->prog_off[id], t->prog_room[id], num) < 0)
            return -1;
        num += t->skel_nn[id];
        if (b->nl[i])
            tz_buf_putc(t->ob, '\n');
        if (t->ob->len >= RT_FLUSH) {
            if (t->ob->oom)
                return -1;
            if (t->out && tz_fwrite_all(t->out, t->ob->s, t->ob->len) < 0)
                return errno ? errno : EIO;
            tz_buf_reset(t->ob);
        }
    }
    return t->ob->oom ? -1 : 0;
}

/* Renders the next batch: called with the mutex held, a batch filled and no thread
 * rendering; returns with the mutex held. */
static void render_next(itf_rthread *t)
{
    rt_batch *b = &t->ring[t->rendered % RT_RING];
    int skip = t->werr != 0, rc = 0;
    t->rendering = 1;
    pthread_mutex_unlock(&t->mu);
    if (!skip)
        rc = render_batch(t, b);
    pthread_mutex_lock(&t->mu);
    if (rc)
        t->werr = rc;
    t->rendered++;
    t->rendering = 0;
    tz_cv_wake(&t->cv);
}

void itf_rthread_poll(itf_rthread *t)
{
    pthread_mutex_lock(&t->mu);
    while (t->rendered < t->filled && !t->rendering)
        render_next(t);
    pthread_mutex_unlock(&t->mu);
}

static void *rt_main(void *arg)
{
    itf_rthread *t = arg;
    int jrc = t->job ? t->job(t, t->job_arg) : 0;
    pthread_mutex_lock(&t->mu);
    t->job_state = jrc < 0 ? -1 : 1;
    tz_cv_wake(&t->cv);
    for (;;) {
        while ((t->rendered == t->filled || t->rendering) && !(t->closing && t->rendered == t->filled))
            tz_cv_wait(&t->cv, &t->mu);
        if (t->rendered == t->filled)
            break;
        render_next(t);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

itf_rthread *itf_rthread_start(FILE *out, tz_buf *ob, int (*job)(itf_rthread *, void *), void *job_arg)
{
    itf_rthread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ring = malloc(RT_RING * sizeof *t->ring);
    if (!t->ring || pthread_mutex_init(&t->mu, NULL) != 0) {
        free(t->ring);
        free(t);
        return NULL;
    }
    if (tz_cv_init(&t->cv, RT_SPIN_NS) != 0) {
        pthread_mutex_destroy(&t->mu);
        free(t->ring);
        free(t);
        return NULL;
    }
    t->out = out, t->ob = ob;
    t->job = job, t->job_arg = job_arg;
    t->cur = &t->ring[0];
    t->cur->n = t->cur->nnum = 0;
    if (pthread_create(&t->th, NULL, rt_main, t) != 0) {
        tz_cv_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        free(t->ring);
        free(t);
        return NULL;
    }
    return t;
}

void itf_rthread_skels(itf_rthread *t, const uint8_t *prog, const uint32_t *prog_off, const uint32_t *prog_room,
                       const size_t *skel_nn)
{
    t->prog = prog, t->prog_off = prog_off, t->prog_room = prog_room, t->skel_nn = skel_nn;
}

int itf_rthread_job(itf_rthread *t)
{
    pthread_mutex_lock(&t->mu);
    while (t->job_state == 0)
        tz_cv_wait(&t->cv, &t->mu);
    int rc = t->job_state < 0 ? -1 : 0;
    pthread_mutex_unlock(&t->mu);
    return rc;
}

uint64_t *itf_rthread_nums(itf_rthread *t) { return t->cur->num + t->cur->nnum; }

/* Hands the current batch over and, with the ring full, renders the oldest batch
 * itself (or waits for the thread that is rendering it); -1 after a failed write. */
static int hand_over(itf_rthread *t)
{
    pthread_mutex_lock(&t->mu);
    t->filled++;
    tz_cv_wake(&t->cv);
    while (t->filled - t->rendered >= RT_RING) {
        if (t->rendering)
            tz_cv_wait(&t->cv, &t->mu);
        else
            render_next(t);
    }
    int bad = t->werr != 0;
    pthread_mutex_unlock(&t->mu);
    t->cur = &t->ring[t->filled % RT_RING];
    t->cur->n = t->cur->nnum = 0;
    return bad ? -1 : 0;
}

int itf_rthread_line(itf_rthread *t, uint32_t id, size_t nn, int newline)
{
    rt_batch *b = t->cur;
    b->id[b->n] = id;
    b->nl[b->n] = (uint8_t)(newline != 0);
    b->n++;
    b->nnum += (uint32_t)nn;
    if (b->n == RT_LINES || b->nnum > RT_NUMS - ITF_MAX_NUMS)
        return hand_over(t);
    return 0;
}

int itf_rthread_finish(itf_rthread *t, traza_err *err)
{
    pthread_mutex_lock(&t->mu);
    if (t->cur->n)
        t->filled++;
    t->closing = 1;
    tz_cv_wake(&t->cv);
    pthread_mutex_unlock(&t->mu);
    tz_thread_join(t->th, RT_SPIN_NS);
    int werr = t->werr;
    tz_cv_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t->ring);
    free(t);
    if (werr == -1)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    if (werr)
        return traza_err_set(err, TRAZA_E_IO, "itf: write failed: %s", strerror(werr));
    return 0;
}

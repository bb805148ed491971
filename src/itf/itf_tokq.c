/* The line model's tokenizer on a thread of its own.
 *
 * Compressing a Tarmac trace is, before the back end, a chain of two halves: cutting
 * each line into its skeleton and numbers (itf_tokenize: every byte of the text) and
 * modelling them (the skeleton's id, the predictors; every number). The first needs
 * nothing of the second, so a thread tokenizes the lines ahead, in batches, while the
 * caller models them: on the Tarmac samples each half is about half of the parse,
 * which the second core otherwise spends idle (the back end runs after it).
 *
 * Batches go through a small ring: the tokenizer waits when the caller is a whole ring
 * behind, the caller when the tokenizer has nothing new. A line's skeleton and numbers
 * stay valid until the caller asks for the next line. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"

#define TQ_LINES 64                     /* lines per batch */
#define TQ_NUMS (512 + ITF_MAX_NUMS)    /* numbers per batch: room for one more line always */
#define TQ_RING 4                       /* batches in flight */

typedef struct tq_batch {
    size_t n, nnum;
    tz_buf skel;                 /* the lines' skeletons, one after the other */
    size_t sk_end[TQ_LINES];     /* end of line i's skeleton in skel */
    size_t len[TQ_LINES];        /* line i's length, its newline not counted */
    uint16_t nn[TQ_LINES];       /* its numbers */
    uint8_t nl[TQ_LINES];        /* 1 when a newline ended it */
    uint64_t num[TQ_NUMS];
} tq_batch;

struct itf_tokq {
    const char *p, *end;         /* the text not tokenized yet (the thread's) */
    tq_batch *ring;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t filled, taken;      /* batches tokenized, batches the caller let go */
    int done, stop, oom;
    /* the caller's place: a batch it holds (have), its next line and offsets */
    int have;
    size_t line, sk, nu;
};

static void *tq_main(void *arg)
{
    itf_tokq *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (q->filled - q->taken >= TQ_RING && !q->stop)
            pthread_cond_wait(&q->cv, &q->mu);
        int stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop)
            return NULL;
        tq_batch *b = &q->ring[q->filled % TQ_RING];
        b->n = b->nnum = 0;
        tz_buf_reset(&b->skel);
        int oom = 0;
        while (b->n < TQ_LINES && b->nnum + ITF_MAX_NUMS <= TQ_NUMS && q->p < q->end) {
            const char *nl = memchr(q->p, '\n', (size_t)(q->end - q->p));
            size_t n = nl ? (size_t)(nl - q->p) : (size_t)(q->end - q->p);
            size_t k = itf_tokenize_append(q->p, n, &b->skel, b->num + b->nnum);
            if (b->skel.oom) {
                oom = 1;
                break;
            }
            b->sk_end[b->n] = b->skel.len;
            b->len[b->n] = n;
            b->nn[b->n] = (uint16_t)k;
            b->nl[b->n] = nl != NULL;
            b->n++;
            b->nnum += k;
            q->p += n + (nl != NULL);
        }
        pthread_mutex_lock(&q->mu);
        if (b->n && !oom)
            q->filled++;
        q->oom = oom;
        q->done = oom || q->p == q->end;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        if (q->done)
            return NULL;
    }
}

static void tq_free(itf_tokq *q)
{
    for (int i = 0; i < TQ_RING; i++)
        tz_buf_free(&q->ring[i].skel);
    free(q->ring);
    free(q);
}

itf_tokq *itf_tokq_start(const char *text, size_t n)
{
    itf_tokq *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->p = text, q->end = text + n;
    if (!(q->ring = malloc(TQ_RING * sizeof *q->ring))) {
        free(q);
        return NULL;
    }
    for (int i = 0; i < TQ_RING; i++)
        tz_buf_init(&q->ring[i].skel);
    if (pthread_mutex_init(&q->mu, NULL) != 0) {
        tq_free(q);
        return NULL;
    }
    if (pthread_cond_init(&q->cv, NULL) != 0) {
        pthread_mutex_destroy(&q->mu);
        tq_free(q);
        return NULL;
    }
    if (pthread_create(&q->th, NULL, tq_main, q) != 0) {
        pthread_cond_destroy(&q->cv);
        pthread_mutex_destroy(&q->mu);
        tq_free(q);
        return NULL;
    }
    return q;
}

int itf_tokq_next(itf_tokq *q, itf_tokline *l)
{
    if (q->have && q->line == q->ring[q->taken % TQ_RING].n) { /* this batch is done: back to the ring */
        pthread_mutex_lock(&q->mu);
        q->taken++;
        q->have = 0;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
    if (!q->have) {
        pthread_mutex_lock(&q->mu);
        while (q->filled == q->taken && !q->done)
            pthread_cond_wait(&q->cv, &q->mu);
        int more = q->filled > q->taken, oom = q->oom;
        pthread_mutex_unlock(&q->mu);
        if (!more)
            return oom ? -1 : 0;
        q->have = 1;
        q->line = q->sk = q->nu = 0;
    }
    const tq_batch *b = &q->ring[q->taken % TQ_RING];
    size_t i = q->line++;
    l->skel = (const uint8_t *)b->skel.s + q->sk;
    l->skel_len = b->sk_end[i] - q->sk;
    l->nums = b->num + q->nu;
    l->nn = b->nn[i];
    l->len = b->len[i];
    l->newline = b->nl[i];
    q->sk = b->sk_end[i];
    q->nu += b->nn[i];
    return 1;
}

void itf_tokq_stop(itf_tokq *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->th, NULL);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    tq_free(q);
}

/* A chunk handed over to the worker thread, which models, packs and writes it while
 * the parser reads the next one. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "itf/itf_writer.h"

static int flush_chunk(wr *w)
{
    if (w->fk->nlines == 0)
        return 0;
    if (w->model == 0 && itf_wr_flush_gen(w) < 0)
        return -1;
    tz_buf payload;
    tz_buf_init(&payload);
    /* Chunk 0 keeps its streams' packed forms; a later chunk's stream is coded with
     * chunk 0's as preset dictionary (format version 5): a chunk still needs only the
     * dictionary frame and chunk 0, and the per-chunk cost of learning the
     * statistics again is mostly gone (dijkstra -11 %, sha -18 %, qsort -40 %). */
    itf_pre pre[S_NSTREAMS];
    for (int k = 0; k < S_NSTREAMS; k++)
        pre[k] = (itf_pre){(const uint8_t *)w->pre[k].s, w->pre[k].len};
    int first = !w->have_pre;
    int rc = itf_wr_pack_all(w, w->fk->s, S_NSTREAMS, itf_stream_comp, 0, first ? NULL : pre, first ? w->pre : NULL, &payload);
    w->have_pre = 1;
    uint64_t off = w->off;
    if (rc == 0)
        rc = itf_wr_write_frame(w, &payload, S_NSTREAMS);
    if (rc == 0)
        rc = itf_wr_ix_add(w, off, payload.len + 8, w->fk->chunk_rec, w->fk->nlines);
    tz_buf_free(&payload);
    for (int k = 0; k < S_NSTREAMS; k++)
        tz_buf_reset(&w->fk->s[k]);
    w->fk->nlines = 0;
    w->fk->nmems = 0;
    w->fk->chunk_rec = 0;
    return rc;
}

/* The pages of the next 2 * EARLY_STEP lines of the chunk being parsed are made
 * here, on the worker (idle most of the parse), ahead of the parser, which otherwise
 * takes their first-touch faults one by one (3,000 for a chunk of 1 Mi lines). Only
 * the page tables change: the parser may be writing the lines meanwhile. */
static void populate_ahead(wr *w, size_t avail)
{
#ifdef MADV_POPULATE_WRITE
    size_t to = avail + 2 * EARLY_STEP;
    if (to > w->fk->lcap)
        to = w->fk->lcap;
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t pg = ps > 0 && !(ps & (ps - 1)) ? (uintptr_t)ps : 0;
    uintptr_t a = (uintptr_t)(w->fk->lines + avail) & ~(pg - 1), b = (uintptr_t)(w->fk->lines + to);
    if (pg && b > a)
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE); /* a hint: errors change nothing */
#else
    (void)w, (void)avail;
#endif
}

/* Worker thread: models and writes the chunk handed over in fk while the calling
 * thread parses the next one into pk; while it has no complete chunk, it builds the
 * block instances of the lines published so far (early modelling). Chunks are written
 * in order, by the same code as without the thread, so the output does not depend on
 * the thread count. */
static void *worker_main(void *arg)
{
    wr *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->busy && !w->quit && w->epub <= w->edone)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->busy) { /* a complete chunk first: the chunks are modelled in order */
            pthread_mutex_unlock(&w->mu);
            int rc = w->failed ? 0 : flush_chunk(w);
            pthread_mutex_lock(&w->mu);
            if (rc < 0)
                w->failed = 1;
            w->busy = 0;
            pthread_cond_broadcast(&w->cv);
        } else if (w->epub > w->edone) {
            size_t avail = w->edone = w->epub;
            w->fk = w->ek;
            pthread_mutex_unlock(&w->mu);
            populate_ahead(w, avail);
            int rc = w->failed ? 0 : itf_wr_build_nodes(w, avail, 0);
            pthread_mutex_lock(&w->mu);
            if (rc < 0)
                w->failed = 1;
        } else
            break;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Waits until the worker is idle; -1 (with its error) if it failed. */
int itf_wr_worker_wait(wr *w)
{
    if (!w->started)
        return 0;
    pthread_mutex_lock(&w->mu);
    while (w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    int failed = w->failed;
    pthread_mutex_unlock(&w->mu);
    if (failed) {
        *w->err = w->werr;
        return -1;
    }
    return 0;
}

void itf_wr_worker_stop(wr *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    while (w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->started = 0;
}

static int worker_start(wr *w)
{
    if (w->started)
        return 0;
    w->ferr = &w->werr;
    traza_err_clear(&w->werr);
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        return traza_err_set(w->err, TRAZA_E_IO, "itf: cannot create a mutex");
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        return traza_err_set(w->err, TRAZA_E_IO, "itf: cannot create a condition variable");
    }
    if (pthread_create(&w->th, NULL, worker_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return traza_err_set(w->err, TRAZA_E_IO, "itf: cannot start the worker thread");
    }
    w->started = 1;
    return 0;
}

/* Every EARLY_STEP lines of a block-model chunk: the lines so far go to the worker.
 * FreeRTOS (one chunk of 1 M lines) takes 29 ms to parse and 17 ms to model: this
 * way most of the modelling runs beside the parse, not after it. */
int itf_wr_publish(wr *w)
{
    if (!w->threaded || w->model != 0 || w->o.chunk > EARLY_MAX_CHUNK)
        return 0;
    if (w->epub == 0 && GROW(w->pk->lines, w->pk->lcap, w->o.chunk) < 0) /* not read yet */
        return oom(w);
    if (worker_start(w) < 0)
        return -1;
    pthread_mutex_lock(&w->mu);
    w->ek = w->pk;
    w->epub = w->pk->nlines;
    int failed = w->failed;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (failed) {
        *w->err = w->werr;
        return -1;
    }
    return 0;
}

/* The parsed chunk is complete: model and write it (on the worker when threaded). */
int itf_wr_handoff(wr *w)
{
    if (w->pk->nlines == 0)
        return 0;
    if (GROW(w->pk->am, w->pk->amcap, w->npc + 1) < 0)
        return oom(w);
    if (w->npc)
        memcpy(w->pk->am, w->am, w->npc * sizeof *w->am);
    if (!w->threaded) {
        w->fk = w->pk;
        w->fk->npc = w->npc;
        int rc = flush_chunk(w);
        w->pk->chunkno = ++w->pchunk;
        return rc;
    }
    itf_wr_warm_join(w);
    if (worker_start(w) < 0 || itf_wr_worker_wait(w) < 0)
        return -1;
    pthread_mutex_lock(&w->mu);
    /* the free buffer: fk is the chunk written last, or pk if the worker has begun
     * to model it early */
    wck *t = w->fk == w->pk ? &w->ck[w->pk == &w->ck[0]] : w->fk;
    if (w->fk != w->pk) /* (not written while the worker may read it) */
        w->fk = w->pk;
    w->fk->npc = w->npc;
    w->busy = 1;
    w->epub = w->edone = 0;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    w->pk = t;
    w->pk->chunkno = ++w->pchunk;
    return 0;
}

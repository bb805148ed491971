/* Decoding a line-model chunk: the skeletons prepared for the predictor and the
 * renderer, the streams unpacked (on a second thread when worth it, with the preset
 * dictionaries of chunk 0) and the lines predicted and rendered. */
#include <stdlib.h>
#include "itf/itf_reader.h"
#include "itf/itf_internal.h"

/* A one-thread line-model decode writes its text in pieces of this size: the buffer
 * touches 9 pages, not 17 (16, 32 and 64 KiB pieces are within 1 % of each other on
 * ES). */
#define LM_FLUSH (32u << 10)

/* The skeletons given to the predictor (each one's record start, classes, slots), on
 * the first line-model decode: opening a file for its statistics does not need them,
 * and a decompression does it while its second thread starts unpacking. Out of
 * memory half way leaves the reader failed for good. */
static int np_skels(traza_itf_reader *r, traza_err *err)
{
    if (!r->np_failed && r->np.nskel == 0) {
        size_t ns = 0;
        for (size_t i = 0; i < r->nskel; i++)
            ns += r->skel_nn[i];
        if (itf_np_reserve(&r->np, r->nskel, ns) < 0)
            r->np_failed = 1;
    }
    tz_buf b;
    tz_buf_init(&b);
    while (!r->np_failed && r->np.nskel < r->nskel) {
        size_t i = r->np.nskel;
        int srs = r->np.v4 ? itf_skel_is_record_start_b(&b, r->dialect, r->skel[i], r->skel_len[i], r->skel_nn[i]) : 0;
        if (srs < 0 || itf_np_add_skel(&r->np, r->skel[i], r->skel_len[i], r->skel_nn[i], srs) != (long)i)
            r->np_failed = 1;
    }
    tz_buf_free(&b);
    return r->np_failed ? traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory") : 0;
}

/* The skeletons compiled for rendering, on the first line-model decode (opening a
 * file for its statistics does not need them); the arena padded for the renderer's
 * 32-byte copies. Line-model chunks are decoded by one thread at a time. */
static int compile_skels(traza_itf_reader *r, traza_err *err)
{
    if (r->prog_off)
        return 0;
    tz_buf prog;
    tz_buf_init(&prog);
    uint32_t *off = malloc((r->nskel + 1) * sizeof *off), *room = malloc((r->nskel + 1) * sizeof *room);
    int bad = !off || !room;
    for (size_t i = 0; i < r->nskel && !bad; i++) {
        size_t need;
        off[i] = (uint32_t)prog.len;
        bad = itf_skel_compile(&prog, r->skel[i], r->skel_len[i], &need) < 0 || need > UINT32_MAX / 2;
        if (!bad)
            room[i] = (uint32_t)(need + ITF_PROG_PAD + 1);
    }
    static const char pad[ITF_PROG_PAD] = {0};
    tz_buf_put(&prog, pad, sizeof pad);
    if (bad || prog.oom || prog.len > UINT32_MAX) { /* nothing kept: a later call fails the same way */
        int oom = !off || !room || prog.oom;
        free(off), free(room), tz_buf_free(&prog);
        if (oom)
            return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt dictionary: skeleton placeholder");
    }
    r->prog = prog, r->prog_off = off, r->prog_room = room;
    return 0;
}



/* Version 5: stream k of chunk 0 in packed form, the preset dictionary of stream k of
 * the other chunks, decoded the first time a stream names it (an extract decodes only
 * what its chunk uses). The chunk 0 frame is read once and kept. */
static int pre_get(traza_itf_reader *r, int k, traza_err *err)
{
    if (r->pre_state[k])
        return r->pre_state[k] < 0 ? traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk 0: corrupt stream %d", k) : 0;
    if (!r->pre_frame) {
        if (r->nix < 2)
            return traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk 0 names a preset dictionary");
        if (itf_read_frame(r, r->ix[0].off, r->dict_off, S_NSTREAMS, &r->pre_frame, &r->pre_flen, err) < 0)
            return -1;
    }
    itf_rd d = {r->pre_frame, r->pre_frame + r->pre_flen, 0};
    for (int j = 0; j < k; j++) /* skip to stream k */
        if (itf_skip_stream(&d) < 0) {
            r->pre_state[k] = -1;
            return traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk 0: stream %d truncated", j);
        }
    if (itf_unpack_stream(&r->zp, &d, r->info.version, NULL, NULL, NULL, NULL, &r->pre[k], &r->prelen[k],
                          err) < 0) {
        r->pre_state[k] = -1;
        return -1;
    }
    r->pre_state[k] = 1;
    return 0;
}

/* All of chunk 0's streams that any chunk may name, before threads share the reader. */
int itf_pre_all(traza_itf_reader *r, traza_err *err)
{
    if (!itf_has_presets(r->info.version) || r->nix < 2)
        return 0;
    for (int k = 0; k < S_NSTREAMS; k++)
        if (pre_get(r, k, err) < 0)
            return -1;
    return 0;
}

/* The line model's streams: skeleton ids and the four number streams. */
enum { LM_NSTREAMS = 5 };
static const int lm_stream[LM_NSTREAMS] = {S_SKL, S_NUM, S_NUM1, S_NUM2, S_NUM3};

/* The line model's streams of a chunk, unpacked in steps (itf_sunpack) and read in
 * place by the decoder (itf_zrun_reader). With a render thread, that thread unpacks them
 * while the decoder reads what is there: LZMA decoding is a quarter of a Tarmac
 * decompression (1.5 ms of ES's 6), and this way it overlaps the predictor instead of
 * coming before it. avail[] is what the decoder may read, published under the mutex.
 * A stream is unpacked by whichever thread needs it first: the decoder does not wait
 * for the render thread to start (on this VM a thread's first run came 0.3-3 ms after
 * its creation) or to come back from rendering; it unpacks the next piece itself. */
struct lm_feed {
    itf_sunpack su[LM_NSTREAMS];
    int kf[LM_NSTREAMS];        /* keep the stream as a preset dictionary for later chunks */
    size_t avail[LM_NSTREAMS];
    uint8_t busy[LM_NSTREAMS];  /* a thread is unpacking stream j, outside the mutex */
    int threaded, failed, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    traza_err err;              /* the unpacking thread's error */
};

/* Unpacks the streams of chunk ci's payload p[0..n) into sb/sl, one after the other,
 * except the line model's (feed != NULL), whose headers are read into the feed. */
int itf_unpack_chunk(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, uint8_t **sb, size_t *sl,
                      lm_feed *feed, traza_err *err)
{
    itf_rd d = {p, p + n, 0};
    int nstreams = itf_has_interrupts(r->info.version) ? S_NSTREAMS : S_INT; /* version 2: no interrupt stream */
    /* decoding chunk 0 of a version 5 file keeps its streams' packed forms for the
     * other chunks, so that pre_get does not read and decode them a second time */
    int keep = ci == 0 && itf_has_presets(r->info.version) && r->nix > 1;
    for (int k = 0; k < nstreams; k++) {
        itf_pre pre = {NULL, 0};
        if (ci > 0 && itf_stream_wants_pre(&d, r->info.version)) {
            if (pre_get(r, k, err) < 0)
                return -1;
            pre = (itf_pre){r->pre[k], r->prelen[k]};
        }
        int kf = keep && r->pre_state[k] == 0, j = 0;
        while (feed && j < LM_NSTREAMS && lm_stream[j] != k)
            j++;
        if (feed && j < LM_NSTREAMS) {
            feed->kf[j] = kf;
            if (itf_sunpack_init(&feed->su[j], &r->zp, &d, r->info.version, &pre, err) < 0)
                return -1;
            continue;
        }
        if (itf_unpack_stream(&r->zp, &d, r->info.version, &pre, &sb[k], &sl[k], NULL, kf ? &r->pre[k] : NULL,
                              kf ? &r->prelen[k] : NULL, err) < 0)
            return -1;
        if (kf)
            r->pre_state[k] = 1;
    }
    return 0;
}

/* Unpacks stream j up to `upto` bytes and publishes them. Called with the mutex held
 * and the stream not busy; returns with the mutex held. */
static int feed_step(lm_feed *f, int j, size_t upto)
{
    f->busy[j] = 1;
    pthread_mutex_unlock(&f->mu);
    traza_err e;
    int rc = itf_sunpack_step(&f->su[j], upto, &e);
    pthread_mutex_lock(&f->mu);
    f->busy[j] = 0;
    if (rc < 0 && !f->failed) {
        f->failed = 1;
        f->err = e;
    } else if (rc >= 0) {
        f->avail[j] = f->su[j].done;
    }
    pthread_cond_broadcast(&f->cv);
    return rc;
}

/* The render thread's job: every stream 1/32 at a time, each share published as soon
 * as it is there, and the lines decoded meanwhile rendered between rounds. A stream
 * the decoder is unpacking itself is left to it for that round. */
#define FEED_STEPS 32
#define FEED_FIRST 512 /* bytes: the decoder's first lines need a few of each stream */
static size_t feed_want(const itf_sunpack *su, size_t step)
{
    return step + 1 >= FEED_STEPS ? su->raw : su->raw / FEED_STEPS * (step + 1) + 512;
}

static int feed_main(itf_rthread *t, void *arg)
{
    lm_feed *f = arg;
    int rc = 0, stop = 0;
    /* a first round of what the decoder reads first (FEED_FIRST), then the shares */
    for (size_t step = 0; step <= FEED_STEPS && !stop; step++) {
        if (step)
            itf_rthread_poll(t);
        for (int j = 0; j < LM_NSTREAMS && !stop; j++) {
            size_t want = step ? feed_want(&f->su[j], step - 1) : FEED_FIRST;
            pthread_mutex_lock(&f->mu);
            if (!f->busy[j] && f->avail[j] < want)
                rc = feed_step(f, j, want);
            stop = f->stop || f->failed;
            pthread_mutex_unlock(&f->mu);
        }
    }
    /* (a stream the decoder was unpacking at the last round is left to it: it unpacks
     * every stream to its end before it stops this thread, and sees any failure) */
    return rc < 0 ? -1 : 0;
}

/* The feed's mutex and condition variable, for a threaded decode; -1 when the system
 * has none to give (the decode then runs on one thread). */
static int feed_sync_init(lm_feed *f)
{
    if (pthread_mutex_init(&f->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&f->cv, NULL) != 0) {
        pthread_mutex_destroy(&f->mu);
        return -1;
    }
    f->threaded = 1;
    return 0;
}

static void feed_sync_destroy(lm_feed *f)
{
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    f->threaded = 0;
}

/* Waits until stream j has `need` bytes (at most all) for the decoder; *lim is then
 * where it may read up to. -1 with err when the unpacking failed. */
static int feed_wait(lm_feed *f, int j, size_t need, const uint8_t **lim, traza_err *err)
{
    itf_sunpack *su = &f->su[j];
    if (need > su->raw)
        need = su->raw;
    pthread_mutex_lock(&f->mu);
    while (f->avail[j] < need && !f->failed) {
        if (f->busy[j]) { /* the render thread is on it: a share is a few microseconds */
            pthread_cond_wait(&f->cv, &f->mu);
        } else { /* what is needed and 512 bytes more, here and now (LZMA gives 20-60
                  * bytes per microsecond of these streams) */
            size_t upto = need + 512;
            (void)feed_step(f, j, upto < su->raw ? upto : su->raw);
        }
    }
    int failed = f->failed;
    if (failed && err)
        *err = f->err;
    *lim = su->out + f->avail[j];
    pthread_mutex_unlock(&f->mu);
    return failed ? -1 : 0;
}

/* Room for the next `bytes` of line-model stream j: waits for the unpacking thread
 * when the reader could pass what it has published. */
static inline int lm_ensure(lm_feed *f, itf_zrun_reader *zr, const uint8_t **lim, int j, size_t bytes, traza_err *err)
{
    if (zr[j].p + bytes <= lim[j] || lim[j] == f->su[j].out + f->su[j].raw)
        return 0;
    return feed_wait(f, j, (size_t)(zr[j].p - f->su[j].out) + bytes, &lim[j], err);
}

/* Decodes line-model chunk ci (payload p[0..n)) into es. */
int itf_decode_lines(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, emit_state *es,
                        traza_err *err)
{
    const itf_chunk_entry *e = &r->ix[ci];
    uint64_t nl = e->nlines;
    uint8_t *sb[S_NSTREAMS] = {0}; /* the other streams: empty in a line-model chunk */
    size_t sl[S_NSTREAMS] = {0};
    lm_feed f;
    memset(&f, 0, sizeof f);
    itf_rthread *rt = NULL;
    int rc = -1, bad = 0, v4 = r->np.v4;
    if (itf_unpack_chunk(r, ci, p, n, sb, sl, &f, err) < 0)
        goto out;
    /* A version 4 chunk of some size is rendered on a second thread (itf_rthread.c):
     * the record starts come from the skeletons, so this loop needs no text. That
     * thread first unpacks the streams (their decoders are set up by their first
     * step), while this one compiles the skeletons and gives them to the predictor,
     * then reads the streams.
     * Only from rt_min lines on (TRAZA_ITF_RENDER_MIN_LINES by default): on a shared
     * VM a new thread can wait 0.4-2 ms for its first run, and handing the batches
     * between the cores costs about what the rendering saves. One thread is 14-22 %
     * faster on the four Tarmac samples (12k-30k lines), 15 % on 185k lines, even on
     * 370k, and 10 % slower on chunks of 630k lines. */
    if (v4 && es->rthread && !es->hold && nl >= es->rt_min) {
        if (feed_sync_init(&f) == 0 && !(rt = itf_rthread_start(es->out, &es->ob, feed_main, &f)))
            feed_sync_destroy(&f);
    }
    if (compile_skels(r, err) < 0 || np_skels(r, err) < 0)
        goto out;
    if (!rt && !es->hold) /* the text is written from 64 KiB on: room once, not a dozen copies */
        (void)tz_buf_reserve(&es->ob, LM_FLUSH + 4096);
    if (rt) /* (before the first line is handed over: the hand-over orders it) */
        itf_rthread_skels(rt, (const uint8_t *)r->prog.s, r->prog_off, r->prog_room, r->skel_nn);
    itf_np_chunk(&r->np, ci); /* (still before the first stream bytes: more time for the thread) */
    if (itf_np_hint(&r->np, nl) < 0) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        goto out;
    }
    itf_zrun_reader zr[LM_NSTREAMS];
    const uint8_t *lim[LM_NSTREAMS];
    for (int j = LM_NSTREAMS - 1; j >= 0; j--) {
        /* the first run itf_zrun_reader_start reads (in the other order than the render
         * thread's first round: each takes its half and neither waits for the other) */
        if (rt ? feed_wait(&f, j, 20, &lim[j], err) < 0 : itf_sunpack_step(&f.su[j], SIZE_MAX, err) < 0)
            goto out;
        if (!rt)
            lim[j] = f.su[j].out + f.su[j].raw;
        itf_zrun_reader_start(&zr[j], f.su[j].out, f.su[j].raw, f.su[j].zrun);
    }
    uint64_t numbuf[ITF_MAX_NUMS], *nums = numbuf;
    uint64_t nrec = 0;
    size_t mark = 0;
    for (uint64_t i = 0; i < nl && !es->done && !bad; i++) {
        /* a varint and a run per value read: at most 20 bytes */
        if (rt && lm_ensure(&f, zr, lim, 0, 20, err) < 0) {
            bad = 5;
            break;
        }
        uint64_t id = itf_zrun_reader_get(&zr[0]);
        if (v4) { /* 0: the predicted skeleton, else id + 1 */
            long pred = itf_np_skel_predict(&r->np);
            if (pred < 0) {
                bad = 4;
                break;
            }
            id = id == 0 ? (uint64_t)pred : id - 1;
        }
        if (zr[0].bad || id >= r->nskel) {
            bad = 2;
            break;
        }
        if (rt) {
            size_t nn = r->skel_nn[id];
            if (lm_ensure(&f, zr, lim, 1, 20, err) < 0 || lm_ensure(&f, zr, lim, 2, 20, err) < 0 ||
                lm_ensure(&f, zr, lim, 3, 20, err) < 0 || lm_ensure(&f, zr, lim, 4, 20 * nn, err) < 0) {
                bad = 5;
                break;
            }
        }
        if (rt)
            nums = itf_rthread_nums(rt);
        int dl = itf_np_decode_line(&r->np, (uint32_t)id, nums, &zr[1]);
        if (dl < 0) {
            bad = dl == -1 ? 4 : 3;
            break;
        }
        if (rt) {
            int rs = r->np.sk[id].rs;
            nrec += rs;
            int want = want_line(es, rs);
            es->line_no++;
            if (want && itf_rthread_line(rt, (uint32_t)id, r->skel_nn[id],
                                         !no_newline(r, es)) < 0)
                break; /* the write error comes from itf_rthread_finish */
            continue;
        }
        /* the line and its newline rendered in place (one room check, no NUL per line:
         * the text is terminated after the loop) */
        mark = es->ob.len;
        if (tz_buf_reserve(&es->ob, r->prog_room[id] + 1) < 0) {
            bad = 4;
            break;
        }
        es->ob.len += itf_prog_render(es->ob.s + mark, (const uint8_t *)r->prog.s + r->prog_off[id], nums);
        int rs = v4 ? r->np.sk[id].rs : itf_is_record_start(r->dialect, es->ob.s + mark, es->ob.len - mark);
        nrec += rs;
        es->line_no++;
        if (!want_line(es, rs)) {
            es->ob.len = mark;
        } else {
            if (!no_newline(r, es))
                es->ob.s[es->ob.len++] = '\n';
            /* Written as it grows: the text stays in cache, its pages are reused. */
            if (!es->hold && es->ob.len >= LM_FLUSH) {
                if (es->out && tz_fwrite_all(es->out, es->ob.s, es->ob.len) < 0) {
                    traza_err_set(err, TRAZA_E_IO, "itf: write failed: %s", strerror(errno));
                    goto out;
                }
                tz_buf_reset(&es->ob);
            }
        }
    }
    if (!rt && es->ob.s) /* (with a render thread, the text is that thread's) */
        es->ob.s[es->ob.len] = '\0';
    if (rt) { /* the streams stay until the unpacking is over; the text until it is written */
        /* every stream to its end before the thread stops (the decoder may have left a
         * last piece to it): a damaged tail fails here, and chunk 0's streams are kept
         * whole as presets */
        for (int j = 0; j < LM_NSTREAMS && !bad; j++)
            if (feed_wait(&f, j, f.su[j].raw, &lim[j], err) < 0)
                bad = 5;
        pthread_mutex_lock(&f.mu);
        f.stop = 1;
        pthread_mutex_unlock(&f.mu);
        int jrc = itf_rthread_job(rt);
        int frc = itf_rthread_finish(rt, bad ? NULL : err);
        rt = NULL;
        if (jrc < 0 && !bad) { /* a stream that failed only after it was read to the end */
            *err = f.err;
            goto out;
        }
        if (frc < 0 && !bad)
            goto out;
    }
    if (bad == 5) /* err holds the unpacking thread's error */
        goto out;
    if (bad == 4) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        goto out;
    }
    if (bad) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk %zu: corrupt %s stream", ci, bad == 2 ? "skeleton" : "numbers");
        goto out;
    }
    if (!es->done && nrec != e->nrec) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk %zu: %llu records decoded, index says %llu", ci,
                      (unsigned long long)nrec, (unsigned long long)e->nrec);
        goto out;
    }
    /* chunk 0 of a version 5 file: its streams as preset dictionaries of the others */
    for (int j = 0; j < LM_NSTREAMS; j++) {
        int k = lm_stream[j];
        if (!f.kf[j] || r->pre_state[k])
            continue;
        if (!(r->pre[k] = malloc(f.su[j].raw + 1))) {
            traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
            goto out;
        }
        memcpy(r->pre[k], f.su[j].out, f.su[j].raw + 1);
        r->prelen[k] = f.su[j].raw;
        r->pre_state[k] = 1;
    }
    rc = 0;
out:
    if (rt) {
        pthread_mutex_lock(&f.mu);
        f.stop = 1;
        pthread_mutex_unlock(&f.mu);
        (void)itf_rthread_job(rt);
        (void)itf_rthread_finish(rt, NULL);
    }
    if (f.threaded)
        feed_sync_destroy(&f);
    for (int j = 0; j < LM_NSTREAMS; j++) {
        itf_sunpack_end(&f.su[j]);
        free(f.su[j].out);
    }
    for (int k = 0; k < S_NSTREAMS; k++)
        free(sb[k]);
    return rc;
}

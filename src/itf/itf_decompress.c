/* Full decompression (on worker threads for block-model files) and extraction of a
 * record range through the chunk index. */
#include <stdlib.h>
#include "itf/itf_reader.h"


/* Decodes chunk ci from its frame payload p[0..n) into es (written to es->out unless
 * es->hold). */
static int decode_payload(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, emit_state *es,
                          traza_err *err)
{
    uint8_t *sb[S_NSTREAMS] = {0};
    size_t sl[S_NSTREAMS] = {0};
    int rc = -1;
    size_t from = es->ob.len;
    es->paper = r->model == 0 && r->dialect == TRAZA_ITF_PAPER;
    if (r->model == 1) {
        if (itf_decode_lines(r, ci, p, n, es, err) < 0)
            goto out;
    } else if (itf_unpack_chunk(r, ci, p, n, sb, sl, NULL, err) < 0 ||
               /* version 8: the blocks come with the texts, read meanwhile */
               (itf_has_text_predictions(r->info.version) && itf_need_texts(r, err) < 0) ||
               itf_decode_blocks(r, ci, sb, sl, r->ix[ci].nlines, es, err) < 0) {
        goto out;
    }
    if (es->hold ? paper_lines(es, from, err) < 0 : flush_out(es, err) < 0)
        goto out;
    rc = 0;
out:
    for (int k = 0; k < S_NSTREAMS; k++)
        free(sb[k]);
    return rc;
}

static int decode_chunk(traza_itf_reader *r, size_t ci, emit_state *es, traza_err *err)
{
    uint8_t *p = NULL;
    size_t n = 0;
    if (itf_read_frame(r, r->ix[ci].off, r->dict_off, S_NSTREAMS, &p, &n, err) < 0)
        return -1;
    int rc = decode_payload(r, ci, p, n, es, err);
    free(p);
    return rc;
}

static int run(traza_itf_reader *r, emit_state *es, size_t first, traza_err *err)
{
    int rc = 0;
    for (size_t c = first; c < r->nix && !es->done && rc == 0; c++)
        rc = decode_chunk(r, c, es, err);
    tz_buf_free(&es->ob);
    tz_buf_free(&es->ptmp);
    return rc;
}

/* ---------------- threaded full decompression ----------------
 * Worker threads take chunks in order and decode each into a slot buffer; the calling
 * thread writes the slots in chunk order. A chunk is taken only when its slot is free
 * (at most nslots chunks decoded ahead of the writer), so memory stays bounded by
 * nslots chunk texts. Frame reads share the reader's FILE under the mutex. */
enum { SL_FREE = 0, SL_BUSY, SL_DONE, SL_FAIL };
typedef struct mt_slot {
    tz_buf ob;
    size_t chunk;
    int state;
    traza_err err;
} mt_slot;
typedef struct mt_ctx {
    traza_itf_reader *r;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next, written, nslots;
    mt_slot *slots;
    const uint64_t *line_base;
    int stop;
} mt_ctx;

static void *mt_worker(void *arg)
{
    mt_ctx *m = arg;
    traza_itf_reader *r = m->r;
    pthread_mutex_lock(&m->mu);
    for (;;) {
        while (!m->stop && m->next < r->nix && m->next >= m->written + m->nslots)
            pthread_cond_wait(&m->cv, &m->mu);
        if (m->stop || m->next >= r->nix)
            break;
        size_t c = m->next++;
        mt_slot *s = &m->slots[c % m->nslots];
        s->chunk = c;
        s->state = SL_BUSY;
        uint8_t *p = NULL;
        size_t n = 0;
        int rc = itf_read_frame(r, r->ix[c].off, r->dict_off, S_NSTREAMS, &p, &n, &s->err);
        pthread_mutex_unlock(&m->mu);
        if (rc == 0) {
            emit_state es;
            memset(&es, 0, sizeof es);
            es.all = 1;
            es.hold = 1;
            es.rec = (int64_t)r->ix[c].rec_before - 1;
            es.line_no = m->line_base[c];
            es.ob = s->ob;
            /* the chunk's text, estimated from the average line length, in one piece */
            if (r->info.lines) {
                double want = (double)r->info.original_size / (double)r->info.lines * (double)r->ix[c].nlines;
                if (want < (double)(1u << 30)) {
                    size_t need = (size_t)(want * 1.05) + 4096;
                    if (!es.ob.s && need >= ((size_t)4 << 20)) {
                        /* a fresh slot: 2 MiB aligned, transparent huge pages if the
                         * kernel has them (fewer page faults on the chunk's text) */
                        size_t hp = (size_t)2 << 20, sz = (need + hp - 1) / hp * hp;
                        void *hpbuf = NULL;
                        if (posix_memalign(&hpbuf, hp, sz) == 0) {
#ifdef MADV_HUGEPAGE
                            (void)madvise(hpbuf, sz, MADV_HUGEPAGE);
#endif
                            es.ob.s = hpbuf;
                            es.ob.cap = sz;
                        }
                    }
                    (void)tz_grow((void **)&es.ob.s, &es.ob.cap, need, 1);
                }
            }
            rc = decode_payload(r, c, p, n, &es, &s->err);
            s->ob = es.ob;
            tz_buf_free(&es.ptmp);
            free(p);
        }
        pthread_mutex_lock(&m->mu);
        s->state = rc == 0 ? SL_DONE : SL_FAIL;
        pthread_cond_broadcast(&m->cv);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

static int decompress_mt(traza_itf_reader *r, FILE *out, int threads, traza_err *err)
{
    mt_ctx m;
    memset(&m, 0, sizeof m);
    m.r = r;
    m.nslots = (size_t)threads;
    m.slots = calloc(m.nslots, sizeof *m.slots);
    uint64_t *lb = malloc((r->nix + 1) * sizeof *lb);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    if (!m.slots || !lb || !th) {
        free(m.slots);
        free(lb);
        free(th);
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    }
    lb[0] = 0;
    for (size_t c = 0; c < r->nix; c++)
        lb[c + 1] = lb[c] + r->ix[c].nlines;
    m.line_base = lb;
    for (size_t k = 0; k < m.nslots; k++)
        tz_buf_init(&m.slots[k].ob);
    int rc = 0, nth = 0;
    if (pthread_mutex_init(&m.mu, NULL) != 0 || pthread_cond_init(&m.cv, NULL) != 0) {
        free(m.slots);
        free(lb);
        free(th);
        return traza_err_set(err, TRAZA_E_IO, "itf: cannot create a mutex");
    }
    for (; nth < threads; nth++)
        if (pthread_create(&th[nth], NULL, mt_worker, &m) != 0)
            break;
    if (nth == 0)
        rc = traza_err_set(err, TRAZA_E_IO, "itf: cannot start a decoding thread");
    for (size_t c = 0; c < r->nix && rc == 0; c++) {
        mt_slot *s = &m.slots[c % m.nslots];
        pthread_mutex_lock(&m.mu);
        while (!(s->chunk == c && (s->state == SL_DONE || s->state == SL_FAIL)))
            pthread_cond_wait(&m.cv, &m.mu);
        pthread_mutex_unlock(&m.mu);
        if (s->state == SL_FAIL) {
            *err = s->err;
            rc = -1;
        } else if (s->ob.oom) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        } else if (out && s->ob.len && tz_fwrite_all(out, s->ob.s, s->ob.len) < 0) {
            rc = traza_err_set(err, TRAZA_E_IO, "itf: write failed: %s", strerror(errno));
        }
        pthread_mutex_lock(&m.mu);
        tz_buf_reset(&s->ob);
        s->state = SL_FREE;
        m.written++;
        if (rc < 0)
            m.stop = 1;
        pthread_cond_broadcast(&m.cv);
        pthread_mutex_unlock(&m.mu);
    }
    pthread_mutex_lock(&m.mu);
    m.stop = 1;
    pthread_cond_broadcast(&m.cv);
    pthread_mutex_unlock(&m.mu);
    for (int k = 0; k < nth; k++)
        pthread_join(th[k], NULL);
    pthread_cond_destroy(&m.cv);
    pthread_mutex_destroy(&m.mu);
    for (size_t k = 0; k < m.nslots; k++)
        tz_buf_free(&m.slots[k].ob);
    free(m.slots);
    free(lb);
    free(th);
    return rc;
}

int traza_itf_decompress_mt(traza_itf_reader *r, FILE *out, int threads, traza_err *err)
{
    if (itf_need_texts(r, err) < 0 || itf_build_templates(r, err) < 0)
        return -1;
    /* the line model's predictor state lives in the reader: one thread; chunks whose
     * text would average over 256 MiB (a huge --chunk) are streamed by one thread too,
     * so that memory stays small */
    if (threads > 1 && r->model == 0 && r->nix > 1 && r->info.original_size / r->nix <= ((uint64_t)256 << 20))
        return itf_pre_all(r, err) < 0 ? -1 : decompress_mt(r, out, threads < 64 ? threads : 64, err);
    emit_state es;
    memset(&es, 0, sizeof es);
    es.out = out;
    es.all = 1;
    es.rec = -1;
    es.rthread = threads > 1;
    es.rt_min = r->rt_min;
    tz_buf_init(&es.ob);
    return run(r, &es, 0, err);
}

void traza_itf_set_render_min_lines(traza_itf_reader *r, uint64_t lines) { r->rt_min = lines; }

int traza_itf_decompress(traza_itf_reader *r, FILE *out, traza_err *err)
{
    return traza_itf_decompress_mt(r, out, 1, err);
}

int traza_itf_verify(traza_itf_reader *r, traza_err *err) { return traza_itf_decompress(r, NULL, err); }

int traza_itf_check_frames(traza_itf_reader *r, traza_err *err)
{
    for (size_t i = 0; i < r->nix; i++) {
        const itf_chunk_entry *e = &r->ix[i];
        uint8_t *p;
        size_t n;
        if (itf_read_frame(r, e->off, e->off + e->len, 0, &p, &n, err) < 0)
            return -1; /* the message names the frame's offset */
        free(p);
    }
    return 0;
}

int traza_itf_extract(traza_itf_reader *r, uint64_t from, uint64_t count, FILE *out, traza_err *err)
{
    if (count == 0)
        return 0;
    if (from >= r->info.instructions)
        return traza_err_set(err, TRAZA_E_USAGE, "itf: the first instruction to extract, %llu, is beyond the end (%llu instructions)",
                             (unsigned long long)from, (unsigned long long)r->info.instructions);
    /* the chunk holding record `from`: binary search on rec_before */
    size_t lo = 0, hi = r->nix;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (r->ix[mid].rec_before <= from)
            lo = mid;
        else
            hi = mid;
    }
    /* step back over chunks without record starts that share the same rec_before */
    while (lo > 0 && r->ix[lo].rec_before == r->ix[lo - 1].rec_before + r->ix[lo - 1].nrec &&
           r->ix[lo - 1].nrec == 0)
        lo--;
    while (lo + 1 < r->nix && r->ix[lo].rec_before + r->ix[lo].nrec <= from)
        lo++;
    emit_state es;
    memset(&es, 0, sizeof es);
    es.out = out;
    es.from = from;
    es.count = count;
    es.rec = (int64_t)r->ix[lo].rec_before - 1;
    uint64_t ln = 0;
    for (size_t c = 0; c < lo; c++)
        ln += r->ix[c].nlines;
    es.line_no = ln;
    tz_buf_init(&es.ob);
    return run(r, &es, lo, err);
}

/* Writing a .tzi: frames, the streams packed by a pool of two threads (their packers
 * warmed while the parse runs), the chunk index and the footer. */
#include <stdatomic.h>
#include <stdlib.h>
#include <zlib.h>
#include "itf/itf_writer.h"


/* Line model, threads > 1, xz: the two packers that will pack the chunks and the
 * dictionary are warmed (itf_packer_warm) on a thread of their own while the trace is
 * parsed: Tarmac compression 5-10 % faster (paired runs, bench/itf_cpaired.sh). Joined
 * before the packers' first use. */
static void *warm_main(void *arg)
{
    wr *w = arg;
    itf_packer_warm(w->pkr[0]);
    itf_packer_warm(w->pkr[1]);
    return NULL;
}

/* (Warming them on the tokenizer thread once its lines are done, instead of on a
 * thread of their own from the start, makes the compression of the Tarmac samples
 * 7-10 % slower: that thread is not far enough ahead of the model.) */
void itf_wr_warm_start(wr *w)
{
    if (!w->threaded || w->model != 1 || w->o.backend != TRAZA_ITF_XZ)
        return;
    w->pkr[0] = itf_packer_new();
    w->pkr[1] = itf_packer_new();
    if (w->pkr[0] && w->pkr[1] && pthread_create(&w->warm_th, NULL, warm_main, w) == 0)
        w->warming = 1;
}

void itf_wr_warm_join(wr *w)
{
    if (w->warming)
        pthread_join(w->warm_th, NULL);
    w->warming = 0;
}


int itf_wr_write_bytes(wr *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->out) != n)
        return traza_err_set(w->ferr, TRAZA_E_IO, "itf: write failed: %s", strerror(errno));
    w->off += n;
    return 0;
}

/* Frame: u32 length, u32 crc32, payload. A frame of nstreams streams (0: the index)
 * leaves its empty streams out (itf_frame_compact, format version 7); its stream mask
 * is counted with the index. */
int itf_wr_write_frame(wr *w, tz_buf *payload, int nstreams)
{
    if (nstreams) {
        int m = itf_frame_compact(payload, nstreams);
        if (m < 0)
            return m == -2 ? oomf(w) : traza_err_set(w->ferr, TRAZA_E_INTERNAL, "itf: a frame lost its streams");
        w->info.comp_bytes[TRAZA_ITF_C_INDEX] += (uint64_t)m;
    }
    tz_buf h;
    tz_buf_init(&h);
    itf_put_u32le(&h, (uint32_t)payload->len);
    itf_put_u32le(&h, (uint32_t)crc32(0, (const Bytef *)payload->s, (uInt)payload->len));
    int rc = h.oom ? oomf(w) : itf_wr_write_bytes(w, h.s, h.len);
    tz_buf_free(&h);
    if (rc == 0)
        rc = itf_wr_write_bytes(w, payload->s, payload->len);
    w->info.comp_bytes[TRAZA_ITF_C_INDEX] += 8;
    return rc;
}

/* the component of traza_itf_info.comp_bytes of each chunk and dictionary stream */
const int itf_stream_comp[S_NSTREAMS] = {
    TRAZA_ITF_C_SEQUENCE,         TRAZA_ITF_C_FLAGS,         TRAZA_ITF_C_ADDR_HEADERS, TRAZA_ITF_C_ADDR_RAW,
    TRAZA_ITF_C_ADDR_PERIODIC,    TRAZA_ITF_C_ADDR_PATTERN,  TRAZA_ITF_C_ADDR_DISTRIBUTION,
    TRAZA_ITF_C_ADDR_SEQUITUR,    TRAZA_ITF_C_EXCEPTIONS,    TRAZA_ITF_C_SEQUENCE,     TRAZA_ITF_C_NUMBERS,
    TRAZA_ITF_C_ADDR_HEADERS,     TRAZA_ITF_C_ADDR_HEADERS,  TRAZA_ITF_C_ADDR_RAW,     TRAZA_ITF_C_NUMBERS,
    TRAZA_ITF_C_NUMBERS,          TRAZA_ITF_C_NUMBERS,       TRAZA_ITF_C_SEQUENCE};
const int itf_dict_comp[D_NSTREAMS] = {TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_FLAGS,
                                       TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_TEMPLATES};

/* The packer of one packing thread, made on first use; NULL (one-shot encoders, the
 * same bytes) if there is no memory for it. */
itf_packer *itf_wr_packer(wr *w, int k)
{
    if (!w->pkr[k])
        w->pkr[k] = itf_packer_new();
    return w->pkr[k];
}

/* ---- packing a list of streams ---- */
/* A frame's streams are packed by this thread and, with threads, one helper, which
 * take them from one list, costliest first (estimated by their bytes that are not zero
 * values: the size of the zero-run form), each with its own encoder. The bytes are
 * those of packing them one after another: each stream is packed by the same call
 * with the same inputs, and they are assembled in stream order. (Splitting the list
 * in two halves by raw size would leave one thread idle while the other packs the
 * stream that costs most.) */
typedef struct pool {
    pool_item *it;
    size_t n;
    size_t order[S_NSTREAMS + D_NSTREAMS];
    atomic_size_t next;
    itf_packer *pk[2];
} pool;


static void pool_run(pool *p, int side)
{
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return;
        pool_item *t = &p->it[p->order[i]];
        traza_err_clear(&t->err);
        if (t->in->oom) /* the stream lost bytes while it was written */
            t->k = traza_err_set(&t->err, TRAZA_E_NOMEM, "itf: out of memory");
        else
            t->k = itf_pack_stream(p->pk[side], t->backend, (const uint8_t *)t->in->s, t->in->len, t->pre, t->form,
                                   &t->out, &t->err);
    }
}

static void *pool_helper(void *arg)
{
    pool_run(arg, 1);
    return NULL;
}

#define PACK_PAR_MIN 16384 /* raw bytes from which the streams are packed on two threads */

/* Packs it[0..n) (n <= S_NSTREAMS + D_NSTREAMS) with packer a here and, when there is
 * enough to share, with packer b (NULL: none) on a helper thread. */
void itf_wr_pack_items(wr *w, pool_item *it, size_t n, itf_packer *a, itf_packer *b)
{
    pool p = {.it = it, .n = n, .pk = {a, b}};
    atomic_init(&p.next, 0);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        tz_buf_init(&it[i].out);
        const tz_buf *in = it[i].in;
        size_t z = 0;
        for (size_t j = 0; j < in->len; j++)
            z += in->s[j] == 0;
        it[i].cost = in->len - z;
        total += in->len;
        size_t at = i; /* insertion by cost, costliest first */
        while (at > 0 && it[p.order[at - 1]].cost < it[i].cost) {
            p.order[at] = p.order[at - 1];
            at--;
        }
        p.order[at] = i;
    }
    pthread_t th;
    int helper = b && n > 1 && w->o.threads > 1 && w->o.backend != TRAZA_ITF_NONE && total >= PACK_PAR_MIN &&
                 pthread_create(&th, NULL, pool_helper, &p) == 0;
    pool_run(&p, 0);
    if (helper)
        pthread_join(th, NULL);
}

/* Appends the packed streams it[0..n) to payload in order, counting them, and frees
 * their buffers; -1 with the first stream's error (in *w->ferr). */
int itf_wr_pool_collect(wr *w, pool_item *it, size_t n, tz_buf *payload)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && it[i].k < 0) {
            *w->ferr = it[i].err;
            rc = -1;
        } else if (rc == 0) {
            tz_buf_put(payload, it[i].out.s, it[i].out.len);
            /* (an empty stream is left out of its frame: write_frame) */
            if (!itf_stream_empty((const uint8_t *)it[i].out.s, it[i].out.len))
                w->info.comp_bytes[it[i].comp] += (uint64_t)it[i].k;
            w->info.raw_bytes[it[i].comp] += it[i].in->len;
        }
        tz_buf_free(&it[i].out);
    }
    return rc == 0 && payload->oom ? oomf(w) : rc;
}

/* The items for streams bufs[0..n): the back end (bit i of bzmask: bzip2 tried too),
 * the preset dictionaries pre[i] and the forms kept in forms[i] (NULL: none). */
void itf_wr_set_items(wr *w, pool_item *it, const tz_buf *bufs, size_t n, const int *comp, uint32_t bzmask,
                      const itf_pre *pre, tz_buf *forms)
{
    for (size_t i = 0; i < n; i++) {
        int backend = w->o.backend | ((bzmask >> i) & 1 ? ITF_PACK_BZIP2 : 0) | (w->zfast ? ITF_PACK_ZFAST : 0);
        /* Exceptions are whole lines; megabytes of them repeat in a chunk of the paper
         * ITF (itf_paper.c), where LZMA2's match finder spent 76 % of the compression on
         * them. From 1 MiB, the default back end codes them with zstd at level 7: 20x
         * faster, a few hundred bytes more per chunk. */
        if (w->exc_zstd && comp[i] == TRAZA_ITF_C_EXCEPTIONS && bufs[i].len >= ((size_t)1 << 20))
            backend = TRAZA_ITF_ZSTD | ITF_PACK_ZFAST;
        it[i] = (pool_item){.in = &bufs[i], .comp = comp[i], .backend = backend,
                            .pre = pre ? &pre[i] : NULL, .form = forms ? &forms[i] : NULL};
    }
}

/* Appends the packed streams to payload, in stream order. */
int itf_wr_pack_all(wr *w, const tz_buf *bufs, size_t n, const int *comp, uint32_t bzmask, const itf_pre *pre,
                    tz_buf *forms, tz_buf *payload)
{
    pool_item it[S_NSTREAMS + D_NSTREAMS];
    itf_wr_set_items(w, it, bufs, n, comp, bzmask, pre, forms);
    itf_wr_pack_items(w, it, n, itf_wr_packer(w, 0), itf_wr_packer(w, 1));
    return itf_wr_pool_collect(w, it, n, payload);
}

int itf_wr_ix_add(wr *w, uint64_t off, uint64_t len, uint64_t nrec, uint64_t nl)
{
    if (GROW(w->ix, w->ixcap, w->nix + 1) < 0)
        return oomf(w);
    w->ix[w->nix] = (itf_chunk_entry){off, len, nrec, nl, 0};
    w->nix++;
    return 0;
}

/* The index frame (chunk offsets, statistics) and the footer. */
int itf_wr_write_index(wr *w, int nl_missing)
{
    int rc;
    tz_buf payload;
    tz_buf_init(&payload);
    w->info.blocks = w->blocks.count;
    w->info.templates = w->model == 0 ? w->npc : w->skels.count;
    w->info.chunks = w->nix;
    w->info.cache_accesses = w->c_orig.accesses;
    w->info.cache_hits_orig = w->c_orig.hits;
    w->info.cache_hits_lossy = w->c_lossy.hits;
    uint64_t index_off = w->off;
    itf_put_uv(&payload, w->nix);
    for (size_t i = 0; i < w->nix; i++) {
        const itf_chunk_entry *e = &w->ix[i];
        itf_put_uv(&payload, e->off);
        itf_put_uv(&payload, e->len);
        itf_put_uv(&payload, e->nrec);
        itf_put_uv(&payload, e->nlines);
    }
    /* (an estimate: the index holds its own size; readers since this one take the
     * component as the rest of the file, itf_info_index_rest) */
    w->info.comp_bytes[TRAZA_ITF_C_INDEX] += ITF_HEADER_SIZE + ITF_FOOTER_SIZE + payload.len + 8 + 200;
    const traza_itf_info *f = &w->info;
    uint64_t g[] = {f->instructions, f->lines, f->original_size, (uint64_t)nl_missing, f->exceptions, f->blocks,
                    f->block_instances, f->templates, f->addresses, f->altered, f->cache_accesses,
                    f->cache_hits_orig, f->cache_hits_lossy};
    for (size_t k = 0; k < sizeof g / sizeof g[0]; k++)
        itf_put_uv(&payload, g[k]);
    for (int k = 0; k < TRAZA_ITF_MEM_NCODECS; k++)
        itf_put_uv(&payload, f->codec_insns[k]);
    for (int k = 0; k < TRAZA_ITF_NCOMP; k++) {
        itf_put_uv(&payload, f->comp_bytes[k]);
        itf_put_uv(&payload, f->raw_bytes[k]);
    }
    if (payload.oom) {
        rc = oom(w);
        goto out;
    }
    rc = itf_wr_write_frame(w, &payload, 0);
    if (rc < 0)
        goto out;
    tz_buf_reset(&payload);
    itf_put_u64le(&payload, index_off);
    itf_put_u64le(&payload, w->dict_off);
    itf_put_u32le(&payload, (uint32_t)crc32(0, (const Bytef *)payload.s, 16));
    tz_buf_put(&payload, ITF_FOOT_MAGIC, 4);
    rc = payload.oom ? oom(w) : itf_wr_write_bytes(w, payload.s, payload.len);
    w->info.file_size = w->off;
    itf_info_index_rest(&w->info);
out:
    tz_buf_free(&payload);
    return rc;
}

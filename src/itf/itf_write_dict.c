/* The dictionaries written at the end: the instruction texts (with their branch
 * targets and literal offsets apart), the blocks and variants, the line model's last
 * chunk and skeletons packed with them. */
#include <stdlib.h>
#include "itf/itf_writer.h"

static int pc_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Version 3: a direct branch's target "#0x<hex>" at the end of the text is stored as
 * the byte 0x01 in the text and its target in TLEN; any other text holding a 0x01 byte
 * gets a 0 in TLEN (kept as is). Version 8 codes a target that is an instruction of
 * the trace as 1 + 2 zigzag(its rank - this rank), fewer bits than its address (ARM
 * instructions are 4 bytes apart), another one as 2 + 2 zigzag(target - pc); before,
 * every target was 1 + zigzag(target - pc). pcs[0..npc) are the addresses in rank order. */
static void put_text(wr *w, const char *t, size_t n, uint32_t k, const uint32_t *pcs, size_t npc, uint32_t *lit)
{
    uint64_t v;
    size_t at, end;
    int has1 = memchr(t, 1, n) != NULL, has2 = memchr(t, 2, n) != NULL;
    if (!has1 && !has2 && itf_text_target(t, n, &v, &at)) { /* (8 digits: v fits 32 bits) */
        tz_buf_put(&w->d[D_TEXT], t, at);
        tz_buf_putc(&w->d[D_TEXT], 1);
        uint32_t tr = itf_rank_of(pcs, npc, v);
        itf_put_uv(&w->d[D_TLEN], tr != ITF_NORANK ? 1 + 2 * itf_zz((int64_t)tr - (int64_t)k)
                                                   : 2 + 2 * itf_zz((int64_t)v - (int64_t)pcs[k]));
        return;
    }
    /* version 8: a pc-relative load's offset as the byte 0x02, and in TLEN 1 +
     * zigzag(offset - the one that reads the word after the last such literal) */
    if (!has1 && !has2 && itf_text_literal(t, n, &v, &at, &end)) {
        uint32_t base = pcs[k] & ~3u;
        tz_buf_put(&w->d[D_TEXT], t, at);
        tz_buf_putc(&w->d[D_TEXT], 2);
        tz_buf_put(&w->d[D_TEXT], t + end, n - end);
        itf_put_uv(&w->d[D_TLEN], 1 + itf_zz((int32_t)((uint32_t)v - (*lit + 4 - base))));
        *lit = base + (uint32_t)v;
        return;
    }
    if (has1)
        itf_put_uv(&w->d[D_TLEN], 0);
    if (has2)
        itf_put_uv(&w->d[D_TLEN], 0);
    tz_buf_put(&w->d[D_TEXT], t, n);
}

/* Block model dictionary, part 1 (the parse is complete): the instruction texts in
 * address order ('\n' separated) with the address gaps. *rank (address-order rank of
 * each instruction, for part 2) is allocated here. */
static int write_gen_texts(wr *w, uint32_t **rankp)
{
    uint64_t *o = malloc((w->npc + 1) * sizeof *o);
    uint32_t *rank = malloc((w->npc + 1) * sizeof *rank);
    const uint8_t **tx = malloc((w->npc + 1) * sizeof *tx);
    uint32_t *txl = malloc((w->npc + 1) * sizeof *txl), *pcs = malloc((w->npc + 1) * sizeof *pcs);
    if (!o || !rank || !tx || !txl || !pcs) {
        free(o);
        free(rank);
        free(tx);
        free(txl);
        free(pcs);
        return oom(w);
    }
    for (size_t i = 0; i < w->npc; i++)
        o[i] = (uint64_t)w->pcs[i] << 32 | i;
    qsort(o, w->npc, sizeof *o, pc_cmp);
    for (size_t k = 0; k < w->npc; k++)
        pcs[k] = (uint32_t)(o[k] >> 32);
    uint8_t arm = 0;
    uint32_t lit = 0; /* the last literal's address */
    for (size_t k = 0; k < w->npc; k++) {
        uint32_t i = (uint32_t)o[k];
        rank[i] = (uint32_t)k;
        if (k) { /* version 8: the gap against the previous instruction's predicted size */
            uint64_t gap = pcs[k] - pcs[k - 1];
            const char *pt = (const char *)tx[k - 1];
            int64_t d = (int64_t)gap - (int64_t)itf_isize_pred(arm, pt, txl[k - 1]);
            itf_put_uv(&w->d[D_TPC], itf_zz(d));
            itf_isize_update(&arm, pt, txl[k - 1], gap);
        } else
            itf_put_uv(&w->d[D_TPC], pcs[k]);
        if (k)
            tz_buf_putc(&w->d[D_TEXT], '\n');
        put_text(w, w->texts + w->toff[i], w->tl[i], (uint32_t)k, pcs, w->npc, &lit);
        tx[k] = (const uint8_t *)w->texts + w->toff[i], txl[k] = w->tl[i];
    }
    int rc = itf_iclass_build(&w->icls, tx, txl, pcs, w->npc);
    free(o);
    free(tx);
    free(txl);
    free(pcs);
    *rankp = rank;
    return rc < 0 ? oom(w) : 0;
}

/* The ranks of block b's instructions (ITF_NORANK for a verbatim line) into rk. */
static size_t block_ranks(wr *w, const uint32_t *rank, size_t b, uint32_t *rk)
{
    size_t len;
    const uint8_t *key = itf_kmap_key(&w->blocks, b, &len);
    size_t n = len / sizeof(uint32_t);
    for (size_t k = 0; k < n; k++) {
        uint32_t x;
        memcpy(&x, key + k * sizeof x, sizeof x);
        rk[k] = x == NOPC ? ITF_NORANK : rank[x];
    }
    return n;
}

/* Part 2 (every chunk modelled): the blocks, and the variants recoded, against the
 * texts' predictions (itf_blockdict.c). The variants were kept in the form they were
 * interned in (uv block id, then per line u8 flags + uv address count). */
static int write_gen_blocks(wr *w, const uint32_t *rank)
{
    uint32_t rk[ITF_MAX_BLOCK], prev = ITF_NORANK;
    for (size_t b = 0; b < w->blocks.count; b++) {
        size_t n = block_ranks(w, rank, b, rk);
        itf_block_put(&w->d[D_BLOCK], &w->icls, rk, n, prev);
        prev = rk[n - 1];
    }
    if (w->d[D_VAR].oom) /* variants were lost: recoding the rest would hide it */
        return oom(w);
    tz_buf v;
    tz_buf_init(&v);
    itf_rd d = {(const uint8_t *)w->d[D_VAR].s, (const uint8_t *)w->d[D_VAR].s + w->d[D_VAR].len, 0};
    while (d.p < d.end && !d.bad) {
        uint64_t b = itf_get_uv(&d);
        if (b >= w->blocks.count)
            break;
        size_t n = block_ranks(w, rank, (size_t)b, rk);
        itf_var_put_block(&v, &w->icls, (uint32_t)b);
        for (size_t k = 0; k < n && d.p < d.end; k++) {
            uint8_t fl = *d.p++;
            itf_var_put_line(&v, &w->icls, rk[k], fl, (uint32_t)itf_get_uv(&d));
        }
    }
    if (d.p != d.end || d.bad) {
        tz_buf_free(&v);
        return traza_err_set(w->ferr, TRAZA_E_INTERNAL, "itf: the variants do not parse");
    }
    if (v.oom || w->d[D_BLOCK].oom) {
        tz_buf_free(&v);
        return oom(w);
    }
    tz_buf_free(&w->d[D_VAR]);
    w->d[D_VAR] = v;
    return 0;
}

/* The parse's counts, once the worker is done. */
static void take_counts(wr *w)
{
    w->info.lines = w->ps.lines;
    w->info.original_size = w->ps.original_size;
    w->info.instructions = w->ps.instructions;
    w->info.exceptions = w->ps.exceptions;
}

/* The line model's last chunk and dictionary, packed as one list (pack_items). Packing
 * the chunk on the worker, split with a helper thread, while this thread packs the
 * dictionary would run three threads on two cores, each with a fresh encoder (1-1.5
 * ms of page faults each). */
static int finish_lines(wr *w, int nl_missing)
{
    itf_wr_warm_join(w);
    if (itf_wr_worker_wait(w) < 0) /* the chunks before the last one are written */
        return -1;
    itf_wr_worker_stop(w);
    w->ferr = w->err;
    take_counts(w);
    if (itf_skels_front(&w->d[D_SKEL], &w->skels) < 0)
        return oom(w);
    wck *ck = w->pk;
    int first = !w->have_pre;
    size_t nck = ck->nlines ? S_NSTREAMS : 0;
    itf_pre pre[S_NSTREAMS];
    for (size_t k = 0; k < S_NSTREAMS; k++)
        pre[k] = (itf_pre){(const uint8_t *)w->pre[k].s, w->pre[k].len};
    pool_item it[S_NSTREAMS + D_NSTREAMS];
    itf_wr_set_items(w, it, ck->s, nck, itf_stream_comp, 0, first ? NULL : pre, first ? w->pre : NULL);
    itf_wr_set_items(w, it + nck, w->d, D_NSTREAMS, itf_dict_comp, 1u << D_TEXT, NULL, NULL);
    itf_wr_pack_items(w, it, nck + D_NSTREAMS, itf_wr_packer(w, 0), itf_wr_packer(w, 1));
    tz_buf payload;
    tz_buf_init(&payload);
    int rc = 0;
    if (nck) {
        uint64_t off = w->off;
        rc = itf_wr_pool_collect(w, it, nck, &payload);
        w->have_pre = 1;
        if (rc == 0)
            rc = itf_wr_write_frame(w, &payload, S_NSTREAMS);
        if (rc == 0)
            rc = itf_wr_ix_add(w, off, payload.len + 8, ck->chunk_rec, ck->nlines);
        tz_buf_reset(&payload);
    }
    w->dict_off = w->off;
    if (itf_wr_pool_collect(w, it + nck, D_NSTREAMS, &payload) < 0) /* (frees them either way) */
        rc = -1;
    if (rc == 0)
        rc = itf_wr_write_frame(w, &payload, D_NSTREAMS);
    tz_buf_free(&payload);
    return rc < 0 ? -1 : itf_wr_write_index(w, nl_missing);
}

int itf_wr_finish(wr *w, int nl_missing)
{
    if (w->model == 1 && w->threaded)
        return finish_lines(w, nl_missing);
    if (itf_wr_handoff(w) < 0)
        return -1;
    if (w->model == 1 && itf_skels_front(&w->d[D_SKEL], &w->skels) < 0)
        return oom(w);
    /* Block model: with the worker modelling and packing the last chunk, this thread
     * packs the instruction texts (stream 0, the largest, tried with both LZMA and
     * bzip2), which the parse completed. (A threaded line model took finish_lines.) */
    pool_item dj[D_NSTREAMS];
    size_t early = 0; /* streams packed here while the worker runs */
    uint32_t *rank = NULL;
    int rc = 0;
    if (w->model == 0 && (rc = write_gen_texts(w, &rank)) == 0 && w->started)
        early = D_TEXT + 1;
    itf_wr_set_items(w, dj, w->d, early, itf_dict_comp, 1u << D_TEXT, NULL, NULL);
    itf_wr_pack_items(w, dj, early, itf_wr_packer(w, 2), NULL);
    if (itf_wr_worker_wait(w) < 0 || rc < 0) {
        for (size_t i = 0; i < early; i++)
            tz_buf_free(&dj[i].out);
        free(rank);
        return -1;
    }
    itf_wr_worker_stop(w);
    w->ferr = w->err;
    take_counts(w);
    if (w->model == 0 && write_gen_blocks(w, rank) < 0) {
        for (size_t i = 0; i < early; i++)
            tz_buf_free(&dj[i].out);
        free(rank);
        return -1;
    }
    free(rank);
    /* dictionaries */
    tz_buf payload;
    tz_buf_init(&payload);
    w->dict_off = w->off;
    rc = itf_wr_pool_collect(w, dj, early, &payload);
    if (rc == 0 && early < D_NSTREAMS) /* the rest, after the texts */
        rc = itf_wr_pack_all(w, w->d + early, D_NSTREAMS - early, itf_dict_comp + early, early ? 0 : 1u << D_TEXT, NULL, NULL,
                      &payload);
    if (rc == 0)
        rc = itf_wr_write_frame(w, &payload, D_NSTREAMS);
    tz_buf_free(&payload);
    return rc < 0 ? -1 : itf_wr_write_index(w, nl_missing);
}

/* The block model's chunks: the lines cut into block instances (nodes) with their
 * interrupts, the variant sequence and the address groups and codecs, one chunk at a time. */
#include <stdlib.h>
#include "itf/itf_writer.h"

static int succ_code(wr *w, succ_list *sl, uint32_t id, tz_buf *out)
{
    if (sl->gen != w->fk->chunkno + 1) {
        sl->gen = w->fk->chunkno + 1;
        sl->n = 0;
    }
    for (uint32_t i = 0; i < sl->n; i++)
        if (sl->v[i] == id) {
            itf_put_uv(out, i);
            return 0;
        }
    itf_put_uv(out, (uint64_t)sl->n + id);
    size_t cap = sl->cap;
    if (GROW(sl->v, cap, (size_t)sl->n + 1) < 0)
        return oomf(w);
    sl->cap = (uint32_t)cap;
    sl->v[sl->n++] = id;
    return 0;
}

static void cache_pair(wr *w, uint32_t a, uint32_t b)
{
    itf_cache_access(&w->c_orig, a);
    itf_cache_access(&w->c_lossy, b);
}

static int add_piece(wr *w, inode *N, size_t start, size_t len)
{
    if (GROW(w->pieces, w->piececap, w->npieces + 1) < 0)
        return oomf(w);
    w->pieces[w->npieces] = (ipiece){(uint32_t)start, (uint32_t)len, NONE};
    if (N->piece == NONE)
        N->piece = (uint32_t)w->npieces;
    else
        w->pieces[N->lastpiece].next = (uint32_t)w->npieces;
    N->lastpiece = (uint32_t)w->npieces++;
    N->total += (uint32_t)len;
    return 0;
}

static int model_nodes(wr *w, size_t from);

/* Splits the chunk's lines into dynamic basic blocks and finds interrupts: a block
 * whose last instruction is not a branch but is followed by another address was cut
 * into; when, later, execution comes back to the instruction after the cut (pc + 2
 * or + 4), the block continues there. Interrupted blocks form a stack (nesting);
 * returning to a deeper one closes those above (their handler ran to the end of
 * their block). Whatever the guess, the records rebuild the exact line order. */
int itf_wr_build_nodes(wr *w, size_t avail, int final)
{
    nodes_state *b = &w->bn;
    if (b->chunk != w->fk->chunkno + 1) { /* the chunk's first lines */
        *b = (nodes_state){.chunk = w->fk->chunkno + 1};
        b->last_at[0] = PREV_START;
        w->nnodes = w->npieces = w->ncuts = 0;
        w->nbase = w->lastint = 0;
    }
    uint32_t *stack = b->stack, *last_at = b->last_at;
    size_t depth = b->depth, done = b->done, i = b->i;
    const wline *L = w->fk->lines;
    while (i < avail) {
        if (depth > 0 && w->nnodes - stack[0] >= NODE_BATCH) { /* (stack[0] >= done) */
            /* the oldest open cut was not resumed for NODE_BATCH blocks: taken for
             * good (a task switch rather than an interrupt; FreeRTOS keeps three
             * such cuts from its start on). The open blocks end at their cuts, the
             * reader's handler lists keep the blocks counted so far, and the next
             * block follows the outermost one. */
            last_at[0] = stack[0];
            depth = 0;
        }
        if (depth == 0 && w->nnodes - done >= NODE_BATCH) {
            /* no interrupted block is open: every node is complete. Model them and
             * start the arrays again, keeping only the last top-level node (the next
             * one's predecessor, as node 0): a chunk's nodes and pieces were 26 MB
             * for FreeRTOS, 6,000 first-touch page faults */
            if (model_nodes(w, done) < 0)
                return -1;
            if (last_at[0] != PREV_START) {
                w->nodes[0] = w->nodes[last_at[0]];
                w->nbase += w->nnodes - 1;
                w->nnodes = 1;
                last_at[0] = 0;
            } else {
                w->nbase += w->nnodes;
                w->nnodes = 0;
            }
            done = w->nnodes;
            w->npieces = w->ncuts = 0;
        }
        size_t j = i + 1;
        int exc = (L[i].flags & LF_EXC) != 0;
        if (!exc) {
            while (j < avail && j - i < ITF_MAX_BLOCK && !(L[j].flags & LF_EXC) &&
                   (L[j].pc == L[j - 1].pc + 4 || L[j].pc == L[j - 1].pc + 2))
                j++;
        }
        if (j == avail && !final)
            break; /* the block, or whether a line follows it, is not known yet */
        size_t n = j - i;
        uint32_t pc = L[i].pc;
        /* resumes an interrupted block? */
        size_t d = depth;
        if (!exc && (depth == 0 || w->cuts[w->nodes[stack[depth - 1]].lastcut].m > 0))
            for (d = depth; d-- > 0;) {
                inode *S = &w->nodes[stack[d]];
                if ((pc == S->cont + 2 || pc == S->cont + 4) && S->total + n <= ITF_MAX_BLOCK &&
                    w->cuts[S->lastcut].m > 0)
                    break;
            }
        uint32_t nid;
        if (!exc && d < depth) {
            depth = d; /* entries above are closed: their handler ran to their end */
            nid = stack[d];
            if (add_piece(w, &w->nodes[nid], i, n) < 0)
                return -1;
        } else {
            if (GROW(w->nodes, w->nodecap, w->nnodes + 1) < 0)
                return oomf(w);
            nid = (uint32_t)w->nnodes++;
            inode *N = &w->nodes[nid];
            *N = (inode){NONE, NONE, NONE, NONE, 0, last_at[depth], 0, 0};
            if (depth > 0)
                w->cuts[w->nodes[stack[depth - 1]].lastcut].m++;
            if (add_piece(w, N, i, n) < 0)
                return -1;
        }
        inode *N = &w->nodes[nid];
        const wline *l = &L[j - 1];
        if (!exc && j < avail && N->total < ITF_MAX_BLOCK && depth < ITF_MAX_NEST &&
            !(l->flags & LF_BR)) {
            if (GROW(w->cuts, w->cutcap, w->ncuts + 1) < 0)
                return oomf(w);
            w->cuts[w->ncuts] = (icut){N->total, 0, NONE};
            if (N->cut == NONE)
                N->cut = (uint32_t)w->ncuts;
            else
                w->cuts[N->lastcut].next = (uint32_t)w->ncuts;
            N->lastcut = (uint32_t)w->ncuts++;
            N->cont = l->pc;
            stack[depth++] = nid;
            last_at[depth] = PREV_INTR;
        } else
            last_at[depth] = nid;
        i = j;
    }
    b->depth = depth, b->done = done, b->i = i;
    return final ? model_nodes(w, done) : 0;
}

/* The successor list a node's variant is coded in: that of the previous block at
 * the same nesting level, or "start" / "interrupt entry". */
static succ_list *succ_ctx(wr *w, const inode *N)
{
    return N->prev == PREV_START ? &w->start : N->prev == PREV_INTR ? &w->intr : &w->succ[w->nodes[N->prev].var];
}

/* Phase 1 for nodes [from, nnodes), all complete: each gets its variant (block, flag
 * set), coded in the sequence stream, and its interrupt record. */
static int model_nodes(wr *w, size_t from)
{
    const wline *L = w->fk->lines;
    uint32_t key[ITF_MAX_BLOCK + 1];
    uint64_t fk[ITF_MAX_BLOCK + 1];
    for (size_t nd = from; nd < w->nnodes; nd++) {
        inode *N = &w->nodes[nd];
        /* the full variant key (instruction id, flags, address count per line) finds
         * known variants with one lookup; blocks are interned for new variants only */
        size_t n = 0;
        for (uint32_t p = N->piece; p != NONE; p = w->pieces[p].next) {
            const wline *l = &L[w->pieces[p].start];
            for (uint32_t q = 0; q < w->pieces[p].len; q++, l++)
                fk[n++] = (uint64_t)l->pcidx | (uint64_t)l->flags << 32 | (uint64_t)l->nmem << 40;
        }
        /* most instances repeat the variant that followed the same predecessor last
         * time: compared directly, that skips the hash lookup (9 % of the modelling) */
        succ_list *ctx = succ_ctx(w, N);
        int isnew = 0;
        long vid = -1;
        if (ctx->last) {
            size_t kl;
            const uint8_t *k = itf_kmap_key(&w->fvars, ctx->last - 1, &kl);
            if (kl == n * sizeof fk[0] && itf_eq(k, fk, kl))
                vid = (long)ctx->last - 1;
        }
        if (vid < 0 && (vid = itf_kmap_intern(&w->fvars, fk, n * sizeof fk[0], &isnew)) < 0)
            return oomf(w);
        if (isnew) {
            for (size_t q = 0; q < n; q++)
                key[q] = (uint32_t)fk[q];
            long bid = itf_kmap_intern(&w->blocks, key, n * sizeof key[0], &isnew);
            if (bid < 0)
                return oomf(w);
            if (isnew) {
                if (GROW(w->nvar, w->nvar_cap, (size_t)bid + 1) < 0)
                    return oomf(w);
                w->nvar[bid] = 0;
            }
            /* variant key: uv block id, then per line u8 flags + uv address count */
            uint8_t vk[10 + ITF_MAX_BLOCK * 11];
            size_t vn = itf_put_uv_at(vk, (uint64_t)bid);
            for (size_t q = 0; q < n; q++) {
                vk[vn++] = (uint8_t)(fk[q] >> 32) & (LF_CCFAIL | LF_EXC);
                vn += itf_put_uv_at(vk + vn, fk[q] >> 40);
            }
            long v2 = itf_kmap_intern(&w->vars, vk, vn, &isnew);
            if (v2 != vid || !isnew) /* one-to-one with the full keys */
                return v2 < 0 ? oomf(w) : traza_err_set(w->ferr, TRAZA_E_INTERNAL, "itf: variant tables disagree");
            tz_buf_put(&w->d[D_VAR], vk, vn);
            if (GROW(w->varlocal, w->varlocal_cap, (size_t)vid + 1) < 0 ||
                GROW(w->succ, w->succ_cap, (size_t)vid + 1) < 0)
                return oomf(w);
            w->varlocal[vid] = w->nvar[bid]++;
            memset(&w->succ[vid], 0, sizeof w->succ[vid]);
        }
        N->var = (uint32_t)vid;
        /* one symbol per block instance (in the order the blocks start): the (block,
         * flag set) variant, coded as its rank in the successor list of the previous
         * block at the same nesting level (or of "start" / "interrupt entry") */
        ctx = succ_ctx(w, N); /* again: w->succ may have moved */
        ctx->last = (uint32_t)vid + 1;
        if (succ_code(w, ctx, (uint32_t)vid, &w->fk->s[S_SEQ]) < 0)
            return -1;
        if (N->cut != NONE) { /* interrupt record */
            size_t nc = 0;
            for (uint32_t c = N->cut; c != NONE; c = w->cuts[c].next)
                nc++;
            itf_put_uv(&w->fk->s[S_INT], w->nbase + nd - w->lastint);
            itf_put_uv(&w->fk->s[S_INT], nc);
            uint32_t pk = 0;
            for (uint32_t c = N->cut; c != NONE; c = w->cuts[c].next) {
                itf_put_uv(&w->fk->s[S_INT], w->cuts[c].k - pk);
                itf_put_uv(&w->fk->s[S_INT], w->cuts[c].m - 1);
                pk = w->cuts[c].k;
            }
            w->lastint = w->nbase + nd;
            w->info_interrupts += nc;
        }
        w->info.block_instances++;
    }
    return 0;
}

int itf_wr_flush_gen(wr *w)
{
    /* 1. dynamic basic blocks with interrupt records, variants (flag sets) */
    if (itf_wr_build_nodes(w, w->fk->nlines, 1) < 0)
        return -1;
    size_t i;
    /* 2. addresses, grouped per instruction */
    if (GROW(w->pc_gen, w->pcg_cap1, w->fk->npc + 1) < 0 || GROW(w->pc_grp, w->pcg_cap2, w->fk->npc + 1) < 0)
        return oomf(w);
    if (w->pcg_init < w->pcg_cap1) {
        memset(w->pc_gen + w->pcg_init, 0, (w->pcg_cap1 - w->pcg_init) * sizeof *w->pc_gen);
        w->pcg_init = w->pcg_cap1;
    }
    uint32_t *gpc = NULL, *gcnt = NULL;
    uint64_t *gstart = NULL;
    size_t ng = 0, gc1 = 0, gc2 = 0, gc3 = 0;
    int rc = -1;
    uint32_t *addr = NULL, *dec = NULL;
    int64_t *dd = NULL;
    size_t *fail = NULL;
    size_t *cur = NULL;
    const uint32_t *mpc = w->fk->mpc;
    for (i = 0; i < w->fk->nmems; i++) {
        uint32_t p = mpc[i];
        if (w->pc_gen[p] != w->fk->chunkno + 1) {
            w->pc_gen[p] = w->fk->chunkno + 1;
            if (GROW(gpc, gc1, ng + 1) < 0 || GROW(gcnt, gc2, ng + 1) < 0 || GROW(gstart, gc3, ng + 1) < 0)
                goto nomem;
            w->pc_grp[p] = (uint32_t)ng;
            gpc[ng] = p;
            gcnt[ng] = 0;
            ng++;
        }
        gcnt[w->pc_grp[p]]++;
    }
    size_t tot = 0, maxn = 0;
    for (size_t g = 0; g < ng; g++) {
        gstart[g] = tot;
        tot += gcnt[g];
        if (gcnt[g] > maxn)
            maxn = gcnt[g];
    }
    addr = malloc((tot + 1) * sizeof *addr);
    dec = malloc((tot + 1) * sizeof *dec);
    dd = malloc((maxn + 1) * sizeof *dd);
    fail = malloc((maxn + 1) * sizeof *fail);
    cur = calloc(ng + 1, sizeof *cur);
    if (!addr || !dec || !dd || !fail || !cur)
        goto nomem;
    for (i = 0; i < w->fk->nmems; i++) {
        size_t g = w->pc_grp[mpc[i]];
        addr[gstart[g] + cur[g]++] = w->fk->mems[i];
    }
    itf_enc_streams es = {&w->fk->s[S_MEMH], &w->fk->s[S_ARAW], &w->fk->s[S_APER], &w->fk->s[S_APAT], &w->fk->s[S_ADIST], &w->fk->s[S_ASEQ], &w->fk->s[S_AOFF]};
    itf_ma0 m0;
    memset(&m0, 0, sizeof m0);
    /* groups in order of first execution in the chunk: the reader derives them from
     * the decoded lines, so neither the instruction nor the count is stored */
    for (size_t gi = 0; gi < ng; gi++) {
        size_t g = gi;
        const uint32_t *a = addr + gstart[g];
        size_t n = gcnt[g];
        dd[0] = a[0];
        for (size_t k = 1; k < n; k++)
            dd[k] = (int64_t)(int32_t)(a[k] - a[k - 1]);
        /* (version 8: from what the address mode predicts; itf_blockdict.c) */
        const itf_am *am = &w->fk->am[gpc[g]];
        itf_put_uv(&w->fk->s[S_MA0], itf_ma0_code(&m0, am, a[0]));
        uint64_t seed = w->fk->chunkno * 1000003u + g;
        static const int CS[7] = {S_MEMH, S_ARAW, S_APER, S_APAT, S_ADIST, S_ASEQ, S_AOFF};
        size_t st0[7];
        for (int k = 0; k < 7; k++)
            st0[k] = w->fk->s[CS[k]].len;
        int codec = itf_mem_encode(dd, n, w->o.mem, w->o.lossy, &es, fail, seed);
        if (codec < 0)
            goto nomem;
        w->info.codec_insns[codec]++;
        w->info.addresses += n;
        if (w->o.lossy) {
            /* decode what was just written: the lossy codecs' real output */
            itf_rd rd[7];
            for (int k = 0; k < 7; k++)
                rd[k] = w->fk->s[CS[k]].s ? (itf_rd){(const uint8_t *)w->fk->s[CS[k]].s + st0[k],
                                                 (const uint8_t *)w->fk->s[CS[k]].s + w->fk->s[CS[k]].len, 0}
                                      : (itf_rd){NULL, NULL, 0};
            itf_dec_streams ds = {&rd[1], &rd[2], &rd[3], &rd[4], &rd[5], &rd[6]};
            uint32_t *o = dec + gstart[g];
            uint64_t hc = itf_get_uv(&rd[0]);
            if (itf_mem_decode((int)hc, &rd[0], &ds, a[0], o, n, seed) < 0) {
                traza_err_set(w->ferr, TRAZA_E_INTERNAL, "itf: lossy self-check failed");
                goto out;
            }
            for (size_t k = 0; k < n; k++)
                w->info.altered += o[k] != a[k];
        }
    }
    if (w->o.lossy) {
        memset(cur, 0, (ng + 1) * sizeof *cur);
        for (i = 0; i < w->fk->nmems; i++) {
            size_t g = w->pc_grp[mpc[i]];
            cache_pair(w, addr[gstart[g] + cur[g]], dec[gstart[g] + cur[g]]);
            cur[g]++;
        }
    }
    rc = 0;
    goto out;
nomem:
    rc = oomf(w);
out:
    free(gpc);
    free(gcnt);
    free(gstart);
    free(addr);
    free(dec);
    free(dd);
    free(fail);
    free(cur);
    return rc;
}

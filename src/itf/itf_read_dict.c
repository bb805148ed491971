/* The .tzi dictionaries: instruction addresses and texts (on the text thread), the
 * block model's blocks and variants, the line model's skeletons. */
#include <stdlib.h>
#include "itf/itf_reader.h"

#define BAD(msg) do { traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt dictionary: %s", msg); return -1; } while (0)
#define GROWX(arr, cap, need) do { if (TZ_GROW(arr, cap, need) < 0) return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory"); } while (0)

/* Version 3: a 0x01 byte in a text with a non-zero TLEN entry e stands for the branch
 * target "0x<hex>" = pc + unzigzag(e - 1) (see put_text in the writer; version 8
 * codes it otherwise). Version 8: a 0x02 byte with a non-zero entry e (after the
 * text's 0x01 entry, if any) stands for the offset of a pc-relative load, the one that
 * reads the word after the last such literal, + unzigzag(e - 1), mod 2^32. */
static int restore_targets(traza_itf_reader *r, traza_err *err)
{
    itf_rd tl = {r->dbuf[D_TLEN], r->dbuf[D_TLEN] + r->dlen[D_TLEN], 0};
    tz_buf a;
    tz_buf_init(&a);
    size_t nmod = 0, cap = 0;
    uint64_t *mod = NULL; /* text index, arena offset, length */
    uint32_t lit = 0;     /* version 8: the last literal's address */
    for (size_t i = 0; i < r->npc; i++) {
        const uint8_t *x = r->tlen[i] ? memchr(r->text[i], 1, r->tlen[i]) : NULL;
        const uint8_t *x2 = r->tlen[i] && itf_has_text_predictions(r->info.version) ? memchr(r->text[i], 2, r->tlen[i]) : NULL;
        if (!x && !x2)
            continue;
        uint64_t e = x ? itf_get_uv(&tl) : 0, e2 = x2 ? itf_get_uv(&tl) : 0;
        if (tl.bad) {
            free(mod);
            tz_buf_free(&a);
            return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt dictionary (branch targets truncated)");
        }
        char lx[16], hx[16]; /* the literal's offset and the target, as text */
        int ln = 0, hn = 0;
        if (e2) {
            uint32_t base = r->pc[i] & ~3u, v = lit + 4 - base + (uint32_t)itf_unzz(e2 - 1);
            ln = snprintf(lx, sizeof lx, "0x%x", (unsigned)v);
            lit = base + v;
        }
        if (e) {
            int64_t tg;
            if (!itf_has_text_predictions(r->info.version) || !(e & 1)) { /* an address: before version 8 1 + zz, then 2 + 2 zz */
                tg = (int64_t)r->pc[i] + itf_unzz(!itf_has_text_predictions(r->info.version) ? e - 1 : (e - 2) >> 1);
            } else { /* version 8: a rank, 1 + 2 zz(rank - this rank) */
                int64_t k = (int64_t)i + itf_unzz(e >> 1);
                tg = k >= 0 && (uint64_t)k < r->npc ? (int64_t)r->pc[k] : -1;
            }
            if (tg < 0 || tg > (int64_t)UINT32_MAX) {
                free(mod);
                tz_buf_free(&a);
                return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt dictionary (branch target out of range)");
            }
            hn = snprintf(hx, sizeof hx, "0x%llx", (unsigned long long)tg);
        }
        if (e == 0 && e2 == 0)
            continue;
        if (TZ_GROW(mod, cap, 3 * nmod + 3) < 0) {
            free(mod);
            tz_buf_free(&a);
            return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        }
        size_t at = a.len;
        for (size_t q = 0; q < r->tlen[i]; q++) { /* the text with what its placeholders stand for */
            if (e && r->text[i] + q == x)
                tz_buf_put(&a, hx, (size_t)hn);
            else if (e2 && r->text[i] + q == x2)
                tz_buf_put(&a, lx, (size_t)ln);
            else
                tz_buf_putc(&a, (char)r->text[i][q]);
        }
        mod[3 * nmod] = i, mod[3 * nmod + 1] = at, mod[3 * nmod + 2] = a.len - at;
        nmod++;
    }
    if (a.oom || (tl.p != tl.end)) {
        free(mod);
        tz_buf_free(&a);
        return a.oom ? traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory")
                     : traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt dictionary (extra branch targets)");
    }
    r->tarena = (uint8_t *)a.s; /* owned by the reader now */
    for (size_t k = 0; k < nmod; k++) {
        r->text[mod[3 * k]] = r->tarena + mod[3 * k + 1];
        r->tlen[mod[3 * k]] = (uint32_t)mod[3 * k + 2];
    }
    free(mod);
    return 0;
}

/* Version 8: the addresses, each gap against the size the previous text predicts
 * (itf_isize_pred); the texts are split, their branch targets not yet restored (the
 * prediction reads only what both forms share). */
static int load_pcs_v8(traza_itf_reader *r, traza_err *err)
{
    itf_rd d = {r->dbuf[D_TPC], r->dbuf[D_TPC] + r->dlen[D_TPC], 0};
    r->pc = malloc((r->npc + 1) * sizeof *r->pc);
    if (!r->pc)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    uint8_t arm = 0;
    uint64_t pc = 0;
    for (size_t k = 0; k < r->npc; k++) {
        uint64_t v = itf_get_uv(&d);
        if (d.bad || v > UINT32_MAX * 2ull + 1)
            BAD("instruction address");
        int64_t gap = (int64_t)v; /* the first: the address itself */
        if (k) {
            const char *t = (const char *)r->text[k - 1];
            gap = itf_unzz(v) + itf_isize_pred(arm, t, r->tlen[k - 1]);
            if (gap <= 0)
                BAD("instruction address");
            itf_isize_update(&arm, t, r->tlen[k - 1], (uint64_t)gap);
        }
        if (pc + (uint64_t)gap > UINT32_MAX)
            BAD("instruction address");
        pc += (uint64_t)gap;
        r->pc[k] = (uint32_t)pc;
    }
    return 0;
}

/* The instruction texts: TEXT split at '\n', one per address of TPC (r->npc, counted
 * before), then version 8's addresses and the version 3 branch targets put back. Runs
 * on the text thread. */
static int load_texts(traza_itf_reader *r, traza_err *err)
{
    itf_rd d = {r->dbuf[D_TEXT], r->dbuf[D_TEXT] + r->dlen[D_TEXT], 0};
    r->text = malloc((r->npc + 1) * sizeof *r->text);
    r->tlen = malloc((r->npc + 1) * sizeof *r->tlen);
    if (!r->text || !r->tlen)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    for (size_t i = 0; i < r->npc; i++) {
        const uint8_t *nl = i ? memchr(d.p, '\n', (size_t)(d.end - d.p)) : d.p;
        if (i && !nl)
            BAD("instruction texts: fewer than addresses");
        if (i) {
            r->tlen[i - 1] = (uint32_t)(nl - r->text[i - 1]);
            d.p = nl + 1;
        }
        r->text[i] = d.p;
    }
    if (r->npc) {
        if (memchr(d.p, '\n', (size_t)(d.end - d.p)))
            BAD("instruction texts: more than addresses");
        r->tlen[r->npc - 1] = (uint32_t)(d.end - d.p);
    } else if (d.p != d.end)
        BAD("instruction texts without addresses");
    if (itf_has_text_predictions(r->info.version) && load_pcs_v8(r, err) < 0)
        return -1;
    if (itf_has_branch_targets(r->info.version) && restore_targets(r, err) < 0)
        return -1;
    return 0;
}

static int load_blocks(traza_itf_reader *r, itf_iclass *ic, traza_err *err);
static int load_blocks_v8(traza_itf_reader *r, traza_err *err);

/* The text thread: unpacks the TEXT stream (bzip2 or LZMA, ~1 ms for 50 KB) and
 * splits it while the caller goes on with the other dictionaries and, for an
 * extract, with decoding the chunk; itf_need_texts() joins before the first text is used.
 * From version 8 it also reads the addresses and then the blocks, which need the
 * texts: a reader joins it before it decodes a chunk. */
static void *text_main(void *arg)
{
    traza_itf_reader *r = arg;
    itf_rd d = {r->tframe, r->tframe + r->tframe_len, 0};
    r->text_rc = itf_unpack_stream(&r->zp, &d, r->info.version, NULL, &r->dbuf[D_TEXT], &r->dlen[D_TEXT], NULL,
                                   NULL, NULL, &r->text_err);
    if (r->text_rc < 0)
        traza_err_prefix(&r->text_err, "dictionary: ");
    else
        r->text_rc = load_texts(r, &r->text_err);
    if (r->text_rc == 0 && itf_has_text_predictions(r->info.version) && r->model == 0)
        r->text_rc = load_blocks_v8(r, &r->text_err);
    return NULL;
}

/* The texts are ready (or their error is in err). */
int itf_need_texts(traza_itf_reader *r, traza_err *err)
{
    if (r->text_state == 1) {
        pthread_join(r->text_th, NULL);
        r->text_state = 2;
    }
    if (r->text_rc < 0) {
        if (err)
            *err = r->text_err;
        return -1;
    }
    return 0;
}

int itf_load_dicts(traza_itf_reader *r, traza_err *err)
{
    /* addresses: gaps (the first is the address); the texts follow on their thread */
    itf_rd dp = {r->dbuf[D_TPC], r->dbuf[D_TPC] + r->dlen[D_TPC], 0};
    size_t c1 = 0;
    uint64_t pc = 0;
    /* version 8: the gaps are coded against the texts (read on the text thread,
     * load_texts); here only their number */
    while (itf_has_text_predictions(r->info.version) && r->model == 0 && dp.p < dp.end) {
        (void)itf_get_uv(&dp);
        if (dp.bad)
            BAD("instruction address");
        r->npc++;
    }
    while (dp.p < dp.end) {
        uint64_t g = itf_get_uv(&dp);
        if (dp.bad || (r->npc && g == 0) || pc + g > UINT32_MAX)
            BAD("instruction address");
        pc += g;
        GROWX(r->pc, c1, r->npc + 1);
        r->pc[r->npc++] = (uint32_t)pc;
    }
    /* a thread only for texts worth it (the line model has none; a thread costs
     * about 50 us, a 4 KiB dictionary decodes in about 0.1 ms); from version 8 it also
     * reads the blocks, which need the texts (need_texts before any use of them) */
    if (r->model == 0 && r->tframe_len >= 4096 && pthread_create(&r->text_th, NULL, text_main, r) == 0)
        r->text_state = 1;
    else { /* no thread: here and now */
        text_main(r);
        r->text_state = 2;
    }
    return itf_has_text_predictions(r->info.version) && r->model == 0 ? 0 : load_blocks(r, NULL, err);
}

/* Version 8: the blocks and variants, coded against the texts' predictions (on the
 * text thread, after the texts). */
static int load_blocks_v8(traza_itf_reader *r, traza_err *err)
{
    itf_iclass ic;
    if (itf_iclass_build(&ic, r->text, r->tlen, r->pc, r->npc) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    int rc = load_blocks(r, &ic, err);
    itf_iclass_free(&ic);
    return rc;
}

/* The blocks and variants of the dictionary (ic: version 8's predictions). */
static int load_blocks(traza_itf_reader *r, itf_iclass *ic, traza_err *err)
{
    itf_rd d = {r->dbuf[D_BLOCK], r->dbuf[D_BLOCK] + r->dlen[D_BLOCK], 0};
    size_t c1 = 0, c2 = 0, c3 = 0;
    size_t np = 0;
    GROWX(r->blk_off, c1, 1);
    r->blk_off[0] = 0;
    uint32_t prev = ITF_NORANK;
    while (ic && d.p < d.end) {
        uint32_t rk[ITF_MAX_BLOCK];
        size_t n;
        if (itf_block_get(&d, ic, prev, rk, &n) < 0)
            BAD("block");
        GROWX(r->blk_pcs, c2, np + n);
        for (size_t k = 0; k < n; k++)
            r->blk_pcs[np++] = rk[k] == ITF_NORANK ? NOPC : rk[k];
        prev = rk[n - 1];
        GROWX(r->blk_off, c1, r->nblk + 2);
        r->blk_off[++r->nblk] = np;
    }
    while (!ic && d.p < d.end) {
        uint64_t n = itf_get_uv(&d);
        if (d.bad || n == 0 || n > ITF_MAX_BLOCK)
            BAD("block length");
        GROWX(r->blk_pcs, c2, np + n);
        uint64_t v = itf_get_uv(&d);
        if (d.bad || v > r->npc || (v == 0 && n != 1))
            BAD("block instruction");
        r->blk_pcs[np++] = v == 0 ? NOPC : (uint32_t)(v - 1);
        for (uint64_t k = 1; k < n; k++) {
            int64_t x = (int64_t)r->blk_pcs[np - 1] + 1 + itf_get_sv(&d);
            if (d.bad || x < 0 || (uint64_t)x >= r->npc)
                BAD("block instruction");
            r->blk_pcs[np++] = (uint32_t)x;
        }
        GROWX(r->blk_off, c1, r->nblk + 2);
        r->blk_off[++r->nblk] = np;
    }
    /* variants */
    d = (itf_rd){r->dbuf[D_VAR], r->dbuf[D_VAR] + r->dlen[D_VAR], 0};
    size_t c4 = 0, nl = 0;
    uint32_t *vb = NULL;
    size_t vbcap = 0;
    c1 = c2 = c3 = 0;
    GROWX(r->var_off, c1, 1);
    r->var_off[0] = 0;
    while (d.p < d.end) {
        long bl = ic ? itf_var_get_block(&d, ic, r->nblk) : 0;
        uint64_t b = ic ? (uint64_t)bl : itf_get_uv(&d);
        if (bl < 0 || d.bad || b >= r->nblk) {
            free(vb);
            BAD("variant block id");
        }
        uint64_t n = r->blk_off[b + 1] - r->blk_off[b];
        if (TZ_GROW(r->var_flags, c2, nl + n) < 0 || TZ_GROW(r->var_nmem, c3, nl + n) < 0 ||
            TZ_GROW(vb, vbcap, r->nvar + 1) < 0 || TZ_GROW(r->var_off, c1, r->nvar + 2) < 0) {
            free(vb);
            return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        }
        for (uint64_t k = 0; k < n; k++) {
            if (d.p >= d.end) {
                free(vb);
                BAD("variant truncated");
            }
            uint32_t pcx = r->blk_pcs[r->blk_off[b] + k];
            uint8_t fl = 0;
            uint32_t nm32 = 0;
            if (ic && itf_var_get_line(&d, ic, pcx == NOPC ? ITF_NORANK : pcx, &fl, &nm32) < 0) {
                free(vb);
                BAD("variant entry");
            }
            if (!ic)
                fl = *d.p++;
            uint64_t nm = ic ? nm32 : itf_get_uv(&d);
            if (d.bad || nm > 64 || (fl & ~3) || ((fl & LF_EXC) && (nm || pcx != NOPC)) ||
                (!(fl & LF_EXC) && pcx == NOPC)) {
                free(vb);
                BAD("variant entry");
            }
            r->var_flags[nl] = fl;
            r->var_nmem[nl] = (uint32_t)nm;
            nl++;
        }
        vb[r->nvar] = (uint32_t)b;
        r->var_off[++r->nvar] = nl;
    }
    (void)c4;
    /* per-block variant lists (CSR) */
    r->bv_off = calloc(r->nblk + 1, sizeof *r->bv_off);
    r->bv_ids = malloc((r->nvar + 1) * sizeof *r->bv_ids);
    if (!r->bv_off || !r->bv_ids) {
        free(vb);
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    }
    for (size_t v = 0; v < r->nvar; v++)
        r->bv_off[vb[v] + 1]++;
    for (size_t b = 0; b < r->nblk; b++)
        r->bv_off[b + 1] += r->bv_off[b];
    uint64_t *fill = calloc(r->nblk + 1, sizeof *fill);
    if (!fill) {
        free(vb);
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    }
    for (size_t v = 0; v < r->nvar; v++)
        r->bv_ids[r->bv_off[vb[v]] + fill[vb[v]]++] = (uint32_t)v;
    free(fill);
    r->var_blk = vb;
    /* per variant: the lines with data addresses, and the verbatim line count */
    r->vm_off = malloc((r->nvar + 1) * sizeof *r->vm_off);
    r->var_nexc = calloc(r->nvar + 1, sizeof *r->var_nexc);
    size_t nvm = 0;
    for (size_t i = 0; i < nl; i++)
        nvm += r->var_nmem[i] != 0;
    r->vm_pc = malloc((nvm + 1) * sizeof *r->vm_pc);
    r->vm_n = malloc((nvm + 1) * sizeof *r->vm_n);
    r->vm_q = malloc((nvm + 1) * sizeof *r->vm_q);
    if (!r->vm_off || !r->var_nexc || !r->vm_pc || !r->vm_n || !r->vm_q)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    nvm = 0;
    for (size_t v = 0; v < r->nvar; v++) {
        r->vm_off[v] = nvm;
        uint32_t b = vb[v];
        for (uint64_t q = r->var_off[v]; q < r->var_off[v + 1]; q++) {
            if (r->var_flags[q] & LF_EXC)
                r->var_nexc[v]++;
            if (r->var_nmem[q]) {
                r->vm_pc[nvm] = r->blk_pcs[r->blk_off[b] + (q - r->var_off[v])];
                r->vm_q[nvm] = (uint32_t)(q - r->var_off[v]);
                r->vm_n[nvm++] = r->var_nmem[q];
            }
        }
    }
    r->vm_off[r->nvar] = nvm;
    /* skeletons (version 6: front-coded; back to the plain layout first) */
    if (itf_has_front_coded_skeletons(r->info.version) && r->dlen[D_SKEL]) {
        tz_buf plain;
        tz_buf_init(&plain);
        const char *why;
        if (itf_skels_unfront(r->dbuf[D_SKEL], r->dlen[D_SKEL], &plain, &why) < 0) {
            tz_buf_free(&plain);
            if (why)
                BAD(why);
            return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        }
        free(r->dbuf[D_SKEL]);
        r->dlen[D_SKEL] = plain.len;
        r->dbuf[D_SKEL] = (uint8_t *)plain.s;
    }
    d = (itf_rd){r->dbuf[D_SKEL], r->dbuf[D_SKEL] + r->dlen[D_SKEL], 0};
    c1 = c2 = c3 = c4 = 0;
    while (d.p < d.end) {
        uint64_t n = itf_get_uv(&d);
        if (d.bad || n > (uint64_t)(d.end - d.p))
            BAD("skeleton length");
        size_t nn;
        if (itf_skel_count(d.p, (size_t)n, &nn) < 0 || nn > ITF_MAX_NUMS)
            BAD("skeleton placeholder");
        GROWX(r->skel, c1, r->nskel + 1);
        GROWX(r->skel_len, c2, r->nskel + 1);
        GROWX(r->skel_nn, c3, r->nskel + 1);
        GROWX(r->skel_base, c4, r->nskel + 1);
        r->skel[r->nskel] = d.p;
        r->skel_len[r->nskel] = (size_t)n;
        r->skel_nn[r->nskel] = nn;
        r->skel_base[r->nskel] = r->nslots;
        r->nskel++;
        d.p += n;
    }
    return 0;
}

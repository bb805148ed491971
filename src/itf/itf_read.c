/* ITFComp reader: validates a .tzi, decodes chunks, full decompression and random
 * access through the chunk index. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>
#include "itf/itf_internal.h"
#include "itf/itf_npline.h"

#define NOPC 0xFFFFFFFFu
/* A one-thread line-model decode writes its text in pieces of this size: the buffer
 * touches 9 pages, not 17 (16, 32 and 64 KiB pieces are within 1 % of each other on
 * ES). */
#define LM_FLUSH (32u << 10)
/* A file up to this size is read whole when it is opened: one read instead of a seek
 * and a read per header, footer, index and frame, 17 calls for ES (with the other
 * calls a short run saves, e.g. tune_malloc's, 9 % of its decompression time); larger
 * ones are read frame by frame as needed (extract). */
#define WHOLE_MAX (256u << 10)

struct traza_itf_reader {
    FILE *f;
    uint8_t *mem;   /* the whole file when it is small (WHOLE_MAX), else NULL */
    uint64_t mlen;
    itf_zpool zp; /* zstd contexts of all its threads */
    int own;
    traza_itf_info info;
    int model, dialect, nl_missing;
    uint64_t dict_off, index_off;
    uint64_t rt_min;          /* traza_itf_set_render_min_lines */
    /* index */
    uint64_t *ix;   /* off, len, nrec, nlines, rec_before */
    size_t nix;
    /* dictionaries */
    uint8_t *dbuf[D_NSTREAMS];
    size_t dlen[D_NSTREAMS];
    size_t npc;
    uint32_t *pc, *tlen;
    const uint8_t **text;
    uint8_t *tarena;        /* version 3: texts with their branch target restored */
    size_t nblk;
    uint64_t *blk_off;      /* into blk_pcs, nblk+1 */
    uint32_t *blk_pcs;
    size_t nvar;
    uint64_t *var_off;      /* into var_flags/var_nmem, by global variant id, nvar+1 */
    uint8_t *var_flags;
    uint32_t *var_nmem;
    uint64_t *bv_off;       /* per block: range in bv_ids */
    uint32_t *bv_ids;
    uint32_t *var_blk;      /* block id of each variant */
    uint64_t *vm_off;       /* per variant: range in vm_pc/vm_n of its lines with addresses */
    uint32_t *vm_pc, *vm_n, *vm_q, *var_nexc; /* vm_q: the line's offset in its variant */
    itf_np np;              /* line model predictor state (np_skels fills it) */
    int np_failed;          /* np_skels ran out of memory */
    size_t nskel;
    const uint8_t **skel;
    size_t *skel_len, *skel_nn, *skel_base;
    size_t nslots;
    /* the skeletons compiled for rendering (itf_skel_compile): each one's program at
     * prog_off[id] in prog, and the room its line needs (with ITF_PROG_PAD) */
    tz_buf prog;
    uint32_t *prog_off, *prog_room;
    /* full decompression, block model: each variant rendered once ("0x<pc> text" with
     * zeroed address fields, " CCFAIL", '\n' per line); vt_lo[q] = start of global
     * variant line q in vt (var_off[nvar] + 1 entries). Built before any thread runs. */
    char *vt;
    uint64_t *vt_lo;
    /* version 5: chunk 0's frame and its streams in packed form, the preset
     * dictionaries of the other chunks' streams (pre_get decodes one when a stream
     * first names it) */
    uint8_t *pre_frame;
    size_t pre_flen;
    uint8_t *pre[S_NSTREAMS];
    size_t prelen[S_NSTREAMS];
    int pre_state[S_NSTREAMS]; /* 0 not decoded, 1 decoded, -1 corrupt */
    /* the text thread (text_main), state 0 none, 1 running, 2 joined; the dictionary
     * frame it reads TEXT from */
    pthread_t text_th;
    int text_state, text_rc;
    traza_err text_err;
    uint8_t *tframe;
    size_t tframe_len;
    int vt_state;           /* 0 not built, 1 built, -1 not used (too large) */
};

static int ferr(traza_err *err, const char *fmt, uint64_t a, uint64_t b)
{
    return traza_err_set(err, TRAZA_E_FORMAT, fmt, (unsigned long long)a, (unsigned long long)b);
}

static int read_at(traza_itf_reader *r, uint64_t off, void *buf, size_t n, traza_err *err)
{
    if (r->mem) {
        if (off <= r->mlen && n <= r->mlen - off) {
            memcpy(buf, r->mem + off, n);
            return 0;
        }
    } else if (fseeko(r->f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, n, r->f) == n) {
        return 0;
    }
    return traza_err_set(err, TRAZA_E_FORMAT, "tzi: truncated file: cannot read %zu bytes at offset %llu", n,
                         (unsigned long long)off);
}

/* Reads a frame at off whose end must not pass limit; *payload malloc'd. A frame of
 * nstreams streams (0: the index) of version 7 or later comes back in the full form,
 * its empty streams' headers put back (itf_frame_expand). */
static int read_frame(traza_itf_reader *r, uint64_t off, uint64_t limit, int nstreams, uint8_t **payload, size_t *len,
                      traza_err *err)
{
    uint8_t h[8];
    *payload = NULL;
    if (off + 8 > limit)
        return ferr(err, "tzi: truncated file: frame at offset %llu passes the end (%llu)", off, limit);
    if (read_at(r, off, h, 8, err) < 0)
        return -1;
    uint32_t n = itf_rd_u32le(h), crc = itf_rd_u32le(h + 4);
    if (off + 8 + n > limit)
        return ferr(err, "tzi: truncated or corrupt file: frame at offset %llu claims %llu bytes", off, n);
    uint8_t *p = malloc((size_t)n + 1);
    if (!p)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    if (read_at(r, off + 8, p, n, err) < 0) {
        free(p);
        return -1;
    }
    uint32_t c = (uint32_t)crc32(0, p, (uInt)n);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    c = crc; /* the fuzzer's mutations reach the stream decoders behind the checksum */
#endif
    if (c != crc) {
        free(p);
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: checksum mismatch in frame at offset %llu (crc32 %08x, expected %08x)",
                             (unsigned long long)off, c, crc);
    }
    size_t pn = n;
    if (nstreams && r->info.version >= 7 && itf_frame_expand(&p, &pn, nstreams, err) < 0) {
        free(p);
        return traza_err_prefix(err, "frame at offset %llu: ", (unsigned long long)off);
    }
    *payload = p;
    *len = pn;
    return 0;
}

void traza_itf_close(traza_itf_reader *r)
{
    if (!r)
        return;
    if (r->text_state == 1)
        pthread_join(r->text_th, NULL);
    free(r->tframe);
    free(r->mem);
    if (r->own && r->f)
        fclose(r->f);
    free(r->ix);
    for (int k = 0; k < D_NSTREAMS; k++)
        free(r->dbuf[k]);
    free(r->tarena);
    free(r->pc);
    free(r->tlen);
    free(r->text);
    free(r->blk_off);
    free(r->blk_pcs);
    free(r->var_off);
    free(r->var_flags);
    free(r->var_nmem);
    free(r->bv_off);
    free(r->bv_ids);
    free(r->var_blk);
    free(r->vm_off);
    free(r->vm_pc);
    free(r->vm_n);
    free(r->vm_q);
    free(r->var_nexc);
    itf_np_free(&r->np);
    free(r->skel);
    tz_buf_free(&r->prog);
    free(r->prog_off);
    free(r->prog_room);
    free(r->skel_len);
    free(r->skel_nn);
    free(r->skel_base);
    free(r->vt);
    free(r->vt_lo);
    for (int k = 0; k < S_NSTREAMS; k++)
        free(r->pre[k]);
    free(r->pre_frame);
    itf_zpool_free(&r->zp);
    free(r);
}

const traza_itf_info *traza_itf_get_info(const traza_itf_reader *r) { return &r->info; }

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
        const uint8_t *x2 = r->tlen[i] && r->info.version >= 8 ? memchr(r->text[i], 2, r->tlen[i]) : NULL;
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
            if (r->info.version < 8 || !(e & 1)) { /* an address: before version 8 1 + zz, then 2 + 2 zz */
                tg = (int64_t)r->pc[i] + itf_unzz(r->info.version < 8 ? e - 1 : (e - 2) >> 1);
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
    if (r->info.version >= 8 && load_pcs_v8(r, err) < 0)
        return -1;
    if (r->info.version >= 3 && restore_targets(r, err) < 0)
        return -1;
    return 0;
}

static int load_blocks(traza_itf_reader *r, itf_iclass *ic, traza_err *err);
static int load_blocks_v8(traza_itf_reader *r, traza_err *err);

/* The text thread: unpacks the TEXT stream (bzip2 or LZMA, ~1 ms for 50 KB) and
 * splits it while the caller goes on with the other dictionaries and, for an
 * extract, with decoding the chunk; need_texts() joins before the first text is used.
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
    if (r->text_rc == 0 && r->info.version >= 8 && r->model == 0)
        r->text_rc = load_blocks_v8(r, &r->text_err);
    return NULL;
}

/* The texts are ready (or their error is in err). */
static int need_texts(traza_itf_reader *r, traza_err *err)
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

static int load_dicts(traza_itf_reader *r, traza_err *err)
{
    /* addresses: gaps (the first is the address); the texts follow on their thread */
    itf_rd dp = {r->dbuf[D_TPC], r->dbuf[D_TPC] + r->dlen[D_TPC], 0};
    size_t c1 = 0;
    uint64_t pc = 0;
    /* version 8: the gaps are coded against the texts (read on the text thread,
     * load_texts); here only their number */
    while (r->info.version >= 8 && r->model == 0 && dp.p < dp.end) {
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
    return r->info.version >= 8 && r->model == 0 ? 0 : load_blocks(r, NULL, err);
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
    if (r->info.version >= 6 && r->dlen[D_SKEL]) {
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
        BAD("skeleton placeholder");
    }
    r->prog = prog, r->prog_off = off, r->prog_room = room;
    return 0;
}

/* Where a file that does not end with a footer would end if bytes were appended to
 * it: the end of the last valid footer (magic and CRC) in its last MiB, 0 if none. */
static uint64_t footer_before(traza_itf_reader *r, uint64_t sz)
{
    uint64_t from = sz > ((uint64_t)1 << 20) ? sz - ((uint64_t)1 << 20) : 0;
    if (from < ITF_HEADER_SIZE)
        from = ITF_HEADER_SIZE;
    if (sz < from + ITF_FOOTER_SIZE)
        return 0;
    size_t n = (size_t)(sz - from);
    uint8_t *buf = malloc(n);
    traza_err e;
    traza_err_clear(&e);
    uint64_t end = 0;
    if (buf && read_at(r, from, buf, n, &e) == 0)
        for (size_t i = n - ITF_FOOTER_SIZE; !end; i--) {
            const uint8_t *ft = buf + i;
            if (memcmp(ft + 20, ITF_FOOT_MAGIC, 4) == 0 && (uint32_t)crc32(0, ft, 16) == itf_rd_u32le(ft + 16))
                end = from + i + ITF_FOOTER_SIZE;
            if (i == 0)
                break;
        }
    free(buf);
    return end;
}

static traza_itf_reader *open_common(traza_itf_reader *r, traza_err *err)
{
    r->rt_min = TRAZA_ITF_RENDER_MIN_LINES;
    itf_zpool_init(&r->zp); /* (should its mutex fail, each stream makes its own context) */
    uint8_t h[ITF_HEADER_SIZE], ft[ITF_FOOTER_SIZE];
    struct stat st;
    int fd = fileno(r->f);
    off_t sz;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (off_t)WHOLE_MAX) {
        sz = st.st_size;
        if (!(r->mem = malloc(sz ? (size_t)sz : 1))) {
            traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
            goto fail;
        }
        if (tz_pread_all(fd, r->mem, (size_t)sz, 0) < 0) {
            traza_err_set(err, TRAZA_E_IO, "tzi: cannot read %lld bytes: %s", (long long)sz,
                          errno ? strerror(errno) : "the file got shorter");
            goto fail;
        }
        r->mlen = (uint64_t)sz;
    } else {
        if (fseeko(r->f, 0, SEEK_END) != 0) {
            traza_err_set(err, TRAZA_E_IO, "tzi: cannot seek: %s", strerror(errno));
            goto fail;
        }
        if ((sz = ftello(r->f)) < 0) {
            traza_err_set(err, TRAZA_E_IO, "tzi: cannot tell size: %s", strerror(errno));
            goto fail;
        }
    }
    r->info.file_size = (uint64_t)sz;
    if ((uint64_t)sz < 4 || read_at(r, 0, h, 4, err) < 0 || memcmp(h, ITF_MAGIC, 4) != 0) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: not a .tzi file (bad magic; expected 'TZI\\x1a')");
        goto fail;
    }
    if ((uint64_t)sz < ITF_HEADER_SIZE + ITF_FOOTER_SIZE) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: truncated file: %lld bytes, smaller than header and footer",
                      (long long)sz);
        goto fail;
    }
    if (read_at(r, 0, h, sizeof h, err) < 0 || read_at(r, (uint64_t)sz - ITF_FOOTER_SIZE, ft, sizeof ft, err) < 0)
        goto fail;
    if (h[4] < ITF_VERSION_MIN || h[4] > ITF_VERSION || h[5] != 0) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: unsupported version %u (this reader knows %u..%u)",
                      h[4] | h[5] << 8, ITF_VERSION_MIN, ITF_VERSION);
        goto fail;
    }
    if (memcmp(ft + 20, ITF_FOOT_MAGIC, 4) != 0) {
        uint64_t fend = footer_before(r, (uint64_t)sz);
        if (fend)
            traza_err_set(err, TRAZA_E_FORMAT, "tzi: %llu bytes after the end of the file (its footer ends at byte %llu)",
                          (unsigned long long)((uint64_t)sz - fend), (unsigned long long)fend);
        else
            traza_err_set(err, TRAZA_E_FORMAT, "tzi: truncated file: footer magic 'TZIE' missing at the end");
        goto fail;
    }
    int footer_ok = (uint32_t)crc32(0, ft, 16) == itf_rd_u32le(ft + 16);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    footer_ok = 1;
#endif
    if (!footer_ok) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: footer checksum mismatch");
        goto fail;
    }
    /* a header without a check (0) was written before the check existed */
    int header_ok = (h[10] | h[11]) == 0 || itf_header_check(h) == (h[10] | h[11] << 8);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    header_ok = 1;
#endif
    if (!header_ok) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: header checksum mismatch (corrupted header)");
        goto fail;
    }
    r->model = h[6];
    r->dialect = h[7];
    if (r->model > 1 || r->dialect > TRAZA_ITF_TEXT || h[8] > TRAZA_ITF_NONE || h[9] > 1) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: bad header fields (model %u, dialect %u, backend %u)", h[6], h[7],
                      h[8]);
        goto fail;
    }
    r->info.version = h[4];
    itf_np_init(&r->np, h[4]);
    if (itf_np_dialect(&r->np, r->dialect) < 0) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        goto fail;
    }
    r->info.model = r->model;
    r->info.dialect = r->dialect;
    r->info.backend = h[8];
    r->info.lossy = h[9];
    r->index_off = itf_rd_u64le(ft);
    r->dict_off = itf_rd_u64le(ft + 8);
    uint64_t end = (uint64_t)sz - ITF_FOOTER_SIZE;
    if (r->dict_off < ITF_HEADER_SIZE || r->dict_off > r->index_off || r->index_off > end) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt footer: section offsets %llu/%llu outside the file",
                      (unsigned long long)r->dict_off, (unsigned long long)r->index_off);
        goto fail;
    }
    /* index */
    uint8_t *p = NULL;
    size_t n = 0;
    if (read_frame(r, r->index_off, end, 0, &p, &n, err) < 0)
        goto fail;
    itf_rd d = {p, p + n, 0};
    uint64_t nix = itf_get_uv(&d);
    if (d.bad || nix > n / 4) {
        free(p);
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt index (chunk count)");
        goto fail;
    }
    r->ix = malloc((nix + 1) * 5 * sizeof *r->ix);
    if (!r->ix) {
        free(p);
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        goto fail;
    }
    r->nix = (size_t)nix;
    uint64_t recs = 0, lines = 0, prev_end = ITF_HEADER_SIZE;
    for (size_t i = 0; i < r->nix; i++) {
        uint64_t *e = r->ix + i * 5;
        for (int k = 0; k < 4; k++)
            e[k] = itf_get_uv(&d);
        e[4] = recs;
        if (d.bad || e[0] != prev_end || e[1] < 8 || e[1] > r->dict_off - e[0] || e[3] == 0 || e[3] > (1u << 30) ||
            e[2] > e[3]) {
            free(p);
            traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt index entry for chunk %zu", i);
            goto fail;
        }
        prev_end = e[0] + e[1];
        recs += e[2];
        lines += e[3];
    }
    uint64_t g[13];
    for (int k = 0; k < 13; k++)
        g[k] = itf_get_uv(&d);
    traza_itf_info *f = &r->info;
    f->instructions = g[0], f->lines = g[1], f->original_size = g[2];
    r->nl_missing = g[3] != 0;
    f->exceptions = g[4], f->blocks = g[5], f->block_instances = g[6], f->templates = g[7];
    f->addresses = g[8], f->altered = g[9], f->cache_accesses = g[10], f->cache_hits_orig = g[11];
    f->cache_hits_lossy = g[12];
    for (int k = 0; k < TRAZA_ITF_MEM_NCODECS; k++)
        f->codec_insns[k] = itf_get_uv(&d);
    for (int k = 0; k < TRAZA_ITF_NCOMP; k++) {
        f->comp_bytes[k] = itf_get_uv(&d);
        f->raw_bytes[k] = itf_get_uv(&d);
    }
    free(p);
    if (d.bad || prev_end != r->dict_off || recs != f->instructions || lines != f->lines) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt index (totals do not match the chunks)");
        goto fail;
    }
    f->chunks = r->nix;
    itf_info_index_rest(f);
    /* dictionaries */
    if (read_frame(r, r->dict_off, r->index_off, D_NSTREAMS, &p, &n, err) < 0)
        goto fail;
    d = (itf_rd){p, p + n, 0};
    r->tframe = p, r->tframe_len = n; /* TEXT (stream 0) is unpacked on the text thread */
    if (itf_skip_stream(&d) < 0) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: dictionary: stream header truncated");
        goto fail;
    }
    for (int k = 1; k < D_NSTREAMS; k++)
        if (itf_unpack_stream(&r->zp, &d, r->info.version, NULL, &r->dbuf[k], &r->dlen[k], NULL, NULL, NULL,
                              err) < 0) {
            traza_err_prefix(err, "dictionary: ");
            goto fail;
        }
    if (load_dicts(r, err) < 0)
        goto fail;
    if (r->model == 1 && need_texts(r, err) < 0) /* no thread ran: report its error now */
        goto fail;
    return r;
fail:
    traza_itf_close(r);
    return NULL;
}

traza_itf_reader *traza_itf_open(FILE *f, traza_err *err)
{
    traza_itf_reader *r = calloc(1, sizeof *r);
    if (!r) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        return NULL;
    }
    r->f = f;
    return open_common(r, err);
}

traza_itf_reader *traza_itf_open_path(const char *path, traza_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    traza_itf_reader *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(f);
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        return NULL;
    }
    r->f = f;
    r->own = 1;
    r = open_common(r, err);
    if (r == NULL)
        traza_err_prefix(err, "%s: ", path);
    return r;
}

/* ---------------- chunk decoding ---------------- */
typedef struct emit_state {
    FILE *out;
    uint64_t from, count;   /* records wanted */
    int64_t rec;            /* record index of the current line (-1 = preamble) */
    uint64_t line_no;       /* global line number of the current line */
    int all, done;
    int hold;               /* keep the whole chunk's text in ob (threaded decompression) */
    int rthread;            /* the line model may render on a second thread */
    uint64_t rt_min;        /* from chunks of this many lines (traza_itf_set_render_min_lines) */
    tz_buf ob;
} emit_state;

/* Called with each line's record-start status; returns whether to emit it. */
static int want_line(emit_state *es, int rstart)
{
    if (rstart)
        es->rec++;
    if (es->all)
        return 1;
    if (es->rec >= (int64_t)(es->from + es->count)) {
        es->done = 1;
        return 0;
    }
    if (es->rec < 0)
        return es->from == 0;
    return (uint64_t)es->rec >= es->from;
}

/* Line es->line_no (counted already) is the file's last and had no newline. */
static int no_newline(const traza_itf_reader *r, const emit_state *es)
{
    return r->nl_missing && es->line_no == r->info.lines;
}

static void end_line(traza_itf_reader *r, emit_state *es)
{
    es->line_no++;
    if (!no_newline(r, es))
        tz_buf_putc(&es->ob, '\n');
}

static int chunk_err(traza_err *err, size_t ci, const char *what)
{
    return traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk %zu: %s", ci, what);
}

static int flush_out(emit_state *es, traza_err *err)
{
    if (es->ob.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    if (es->out && es->ob.len && tz_fwrite_all(es->out, es->ob.s, es->ob.len) < 0)
        return traza_err_set(err, TRAZA_E_IO, "itf: write failed: %s", strerror(errno));
    tz_buf_reset(&es->ob);
    return 0;
}

/* Two hex digits per byte value, lower case. */
static const char HEX2[513] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                              "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                              "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                              "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                              "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                              "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                              "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                              "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static inline void hex8(char *o, uint32_t v)
{
    memcpy(o, HEX2 + 2 * (v >> 24), 2);
    memcpy(o + 2, HEX2 + 2 * ((v >> 16) & 255), 2);
    memcpy(o + 4, HEX2 + 2 * ((v >> 8) & 255), 2);
    memcpy(o + 6, HEX2 + 2 * (v & 255), 2);
}

#define VT_MAX ((uint64_t)256 << 20) /* largest rendered variant table */

/* Renders every variant once (see vt in the reader). Verbatim lines render empty
 * (variants holding them take the per-line path). Leaves vt_state -1 when the table
 * would pass VT_MAX; returns -1 only when out of memory. */
static int build_templates(traza_itf_reader *r, traza_err *err)
{
    if (r->vt_state)
        return 0;
    r->vt_state = -1;
    if (r->model != 0)
        return 0;
    size_t nl = (size_t)r->var_off[r->nvar];
    uint64_t tot = 0;
    for (size_t v = 0; v < r->nvar; v++) {
        const uint32_t *bp = r->blk_pcs + r->blk_off[r->var_blk[v]];
        for (uint64_t q = r->var_off[v]; q < r->var_off[v + 1]; q++) {
            if (r->var_flags[q] & LF_EXC)
                continue;
            uint32_t px = bp[q - r->var_off[v]];
            tot += 12 + (uint64_t)r->tlen[px] + 15 * (uint64_t)r->var_nmem[q] + ((r->var_flags[q] & LF_CCFAIL) ? 7 : 0);
        }
        if (tot > VT_MAX)
            return 0;
    }
    r->vt = malloc((size_t)tot + 1);
    r->vt_lo = malloc((nl + 1) * sizeof *r->vt_lo);
    if (!r->vt || !r->vt_lo) {
        free(r->vt);
        free(r->vt_lo);
        r->vt = NULL;
        r->vt_lo = NULL;
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    }
    char *o = r->vt;
    for (size_t v = 0; v < r->nvar; v++) {
        const uint32_t *bp = r->blk_pcs + r->blk_off[r->var_blk[v]];
        for (uint64_t q = r->var_off[v]; q < r->var_off[v + 1]; q++) {
            r->vt_lo[q] = (uint64_t)(o - r->vt);
            if (r->var_flags[q] & LF_EXC)
                continue;
            uint32_t px = bp[q - r->var_off[v]];
            o[0] = '0';
            o[1] = 'x';
            hex8(o + 2, r->pc[px]);
            o[10] = ' ';
            memcpy(o + 11, r->text[px], r->tlen[px]);
            o += 11 + r->tlen[px];
            for (uint32_t i = 0; i < r->var_nmem[q]; i++, o += 15)
                memcpy(o, " mem=0x00000000", 15);
            if (r->var_flags[q] & LF_CCFAIL) {
                memcpy(o, " CCFAIL", 7);
                o += 7;
            }
            *o++ = '\n';
        }
    }
    r->vt_lo[nl] = (uint64_t)(o - r->vt);
    r->vt_state = 1;
    return 0;
}

/* Variant sequence decoder state: successor lists per variant, the sequence and
 * interrupt streams, and the pieces (variant, first line, end line) produced in
 * execution order. */
typedef struct dstate {
    traza_itf_reader *r;
    uint32_t **succ, *scnt, *scap;
    itf_rd *sq, *it;
    uint64_t node, nextint, lines;
    uint32_t *pv, *p0, *p1;
    size_t np, pcap;
    uint64_t nl;
    int pad;
    const char *what;
    /* address groups (one per instruction): whole-block instances are counted per
     * variant (vcnt, first line vline, variants in vseen) and expanded once per chunk;
     * cut pieces are counted per line. gfirst[px]: first line using px (UINT64_MAX:
     * none yet); gpx: the instructions with addresses, in discovery order. */
    uint64_t *gend, *gfirst, totmem;
    uint32_t *gpx;
    size_t ngrp;
    uint32_t *vcnt, *vseen;
    uint64_t *vline;
    size_t nseen;
    /* The wanted lines [s0, s1): only the pieces that reach into them are kept. Those
     * before are counted instead (an extract from late in a chunk then costs a count
     * per block instance before it, not a stored piece and a second pass): the
     * whole-block instances per variant (bcnt), the cut pieces' addresses per
     * instruction (gpre) and exception lines (nexc), the lines (skipped). */
    uint64_t s0, s1, skipped, nexc;
    uint32_t *bcnt;
    uint64_t *gpre;
} dstate;

static int dfail(dstate *st, const char *what)
{
    st->what = what;
    return -1;
}

/* Doubles the room of the piece arrays (-2 when out of memory). */
static int grow_pieces(dstate *st)
{
    size_t nc = st->pcap ? st->pcap * 2 : 1024;
    uint32_t *a = realloc(st->pv, nc * sizeof *a);
    if (!a)
        return -2;
    st->pv = a;
    if (!(a = realloc(st->p0, nc * sizeof *a)))
        return -2;
    st->p0 = a;
    if (!(a = realloc(st->p1, nc * sizeof *a)))
        return -2;
    st->p1 = a;
    st->pcap = nc;
    return 0;
}

/* Keeps the piece (var, [q0, q1)) starting at line li when it reaches into the wanted
 * lines; -2 when out of memory. */
static inline int keep_piece(dstate *st, uint64_t li, uint32_t var, uint32_t q0, uint32_t q1)
{
    if (li + (q1 - q0) <= st->s0 || li >= st->s1)
        return 0;
    if (__builtin_expect(st->np == st->pcap, 0) && grow_pieces(st) < 0)
        return -2;
    st->pv[st->np] = var, st->p0[st->np] = q0, st->p1[st->np] = q1;
    st->np++;
    return 0;
}

/* A whole instance of variant var (bn instructions, bn >= 1): counted per variant (its
 * address groups are expanded once per chunk), kept only inside the wanted lines. */
static inline int add_whole(dstate *st, uint32_t var, uint64_t bn)
{
    uint64_t li = st->lines;
    if (bn > st->nl - li)
        return dfail(st, "corrupt block sequence (more lines than the index says)");
    if (keep_piece(st, li, var, 0, (uint32_t)bn) < 0)
        return -2;
    if (st->vcnt[var]++ == 0) {
        st->vline[var] = li;
        st->vseen[st->nseen++] = var;
    }
    if (li + bn <= st->s0) {
        st->bcnt[var]++;
        st->skipped += bn;
    }
    st->lines += bn;
    return 0;
}

/* The instance of variant var running its instructions [q0, q1). */
static inline int add_piece(dstate *st, uint32_t var, uint32_t q0, uint32_t q1)
{
    if (q0 == q1)
        return 0;
    const traza_itf_reader *r = st->r;
    if (q0 == 0 && q1 == r->var_off[var + 1] - r->var_off[var])
        return add_whole(st, var, q1);
    if (q1 - q0 > st->nl - st->lines)
        return dfail(st, "corrupt block sequence (more lines than the index says)");
    uint64_t li = st->lines;
    int before = li + (q1 - q0) <= st->s0;
    if (keep_piece(st, li, var, q0, q1) < 0)
        return -2;
    const uint32_t *bp = r->blk_pcs + r->blk_off[r->var_blk[var]];
    const uint32_t *nmv = r->var_nmem + r->var_off[var];
    for (uint32_t q = q0; q < q1; q++)
        if (nmv[q]) {
            uint32_t px = bp[q];
            uint64_t l = li + (q - q0);
            if (st->gfirst[px] == UINT64_MAX)
                st->gpx[st->ngrp++] = px;
            if (l < st->gfirst[px])
                st->gfirst[px] = l;
            st->gend[px] += nmv[q];
            st->totmem += nmv[q];
            if (before)
                st->gpre[px] += nmv[q];
        }
    if (before) {
        const uint8_t *fl = r->var_flags + r->var_off[var];
        for (uint32_t q = q0; q < q1; q++)
            st->nexc += (fl[q] & LF_EXC) != 0;
        st->skipped += q1 - q0;
    }
    st->lines += q1 - q0;
    return 0;
}

/* Decodes count blocks (or up to the chunk's line count) starting in successor
 * context prev (nvar = start, nvar + 1 = interrupt entry), with their interrupts. */
static int decode_list(dstate *st, size_t prev, uint64_t count, int depth)
{
    traza_itf_reader *r = st->r;
    if (depth > 64)
        return dfail(st, "corrupt interrupt records (nesting deeper than 64)");
    for (uint64_t c = 0; c < count && st->lines < st->nl; c++) {
        uint64_t v, var;
        if (st->sq->p < st->sq->end && *st->sq->p < 0x80) /* (most are one byte) */
            v = *st->sq->p++;
        else if (v = itf_get_uv(st->sq), st->sq->bad)
            return dfail(st, "block sequence truncated");
        if (v < st->scnt[prev])
            var = st->succ[prev][v];
        else {
            var = v - st->scnt[prev];
            if (var >= r->nvar)
                return dfail(st, "corrupt block sequence (variant id out of range)");
            if (st->scnt[prev] == st->scap[prev]) {
                uint32_t nc = st->scap[prev] ? st->scap[prev] * 2 : 4;
                uint32_t *t = realloc(st->succ[prev], nc * sizeof *t);
                if (!t)
                    return -2;
                st->succ[prev] = t;
                st->scap[prev] = nc;
            }
            st->succ[prev][st->scnt[prev]++] = (uint32_t)var;
        }
        uint32_t bn = (uint32_t)(r->var_off[var + 1] - r->var_off[var]);
        int rc;
        if (st->node++ == st->nextint) { /* interrupt record of this block */
            uint64_t nc = itf_get_uv(st->it), q = 0;
            if (st->it->bad || nc == 0 || nc > bn)
                return dfail(st, "corrupt interrupt records");
            uint64_t *cm = malloc(2 * nc * sizeof *cm);
            if (!cm)
                return -2;
            for (uint64_t i = 0; i < nc; i++) {
                uint64_t dk = itf_get_uv(st->it), m = itf_get_uv(st->it) + 1;
                if (st->it->bad || dk == 0 || dk > bn - q || m == 0) {
                    free(cm);
                    return dfail(st, "corrupt interrupt records");
                }
                q += dk;
                cm[2 * i] = q, cm[2 * i + 1] = m;
            }
            /* the next record's distance follows (records are in block start order) */
            if (st->it->p < st->it->end) {
                uint64_t gap = itf_get_uv(st->it);
                if (st->it->bad || gap == 0 || gap > UINT64_MAX - st->node) {
                    free(cm);
                    return dfail(st, "corrupt interrupt records");
                }
                st->nextint = st->node - 1 + gap;
            } else
                st->nextint = UINT64_MAX;
            q = 0;
            rc = 0;
            for (uint64_t i = 0; i < nc && rc == 0; i++) {
                rc = add_piece(st, (uint32_t)var, (uint32_t)q, (uint32_t)cm[2 * i]);
                q = cm[2 * i];
                if (rc == 0)
                    rc = decode_list(st, r->nvar + 1, cm[2 * i + 1], depth + 1);
            }
            free(cm);
            if (rc == 0)
                rc = add_piece(st, (uint32_t)var, (uint32_t)q, bn);
            if (rc < 0)
                return rc;
        } else if (bn && (rc = add_whole(st, (uint32_t)var, bn)) < 0)
            return rc;
        prev = (size_t)var;
    }
    return 0;
}

typedef struct grp_first {
    uint64_t first;
    uint32_t px;
} grp_first;

static int cmp_first(const void *a, const void *b)
{
    const grp_first *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->px < y->px ? -1 : x->px > y->px;
}

/* Block model chunk: decodes the variant sequence, then only the address groups
 * first used before the end of the wanted records, skips the instances before the
 * first wanted record (cost per memory access, not per line) and renders the rest. */
static int decode_blocks(traza_itf_reader *r, size_t ci, uint8_t **sb, const size_t *sl, uint64_t nl,
                         emit_state *es, traza_err *err)
{
    int rc = -1;
    uint32_t *iv = NULL, *addr = NULL, *gpx = NULL;
    uint64_t *gcur = NULL, *gend = NULL, *gfirst = NULL, *vline = NULL;
    uint32_t *vcnt = NULL, *vseen = NULL, *bcnt = NULL;
    grp_first *order = NULL;
    uint32_t **succ = NULL, *scnt = NULL, *scap = NULL;
    size_t ni = 0;
    uint32_t *iq0 = NULL, *iq1 = NULL;
    itf_rd sq = {sb[S_SEQ], sb[S_SEQ] + sl[S_SEQ], 0};
    succ = calloc(r->nvar + 2, sizeof *succ);
    scnt = calloc(r->nvar + 2, sizeof *scnt);
    scap = calloc(r->nvar + 2, sizeof *scap);
    if (!succ || !scnt || !scap)
        goto nomem;
    /* 1. the variant sequence (blocks in the order they start) with the interrupt
     * records, flattened into pieces in execution order */
    itf_rd it = {sb[S_INT], sb[S_INT] ? sb[S_INT] + sl[S_INT] : NULL, 0}; /* absent in version 2 */
    gcur = calloc(r->npc + 1, sizeof *gcur);
    gend = calloc(r->npc + 1, sizeof *gend);
    gfirst = malloc((r->npc + 1) * sizeof *gfirst);
    gpx = malloc((r->npc + 1) * sizeof *gpx);
    vcnt = calloc(r->nvar + 1, sizeof *vcnt);
    vseen = malloc((r->nvar + 1) * sizeof *vseen);
    vline = malloc((r->nvar + 1) * sizeof *vline);
    bcnt = calloc(r->nvar + 1, sizeof *bcnt);
    if (!gcur || !gend || !gfirst || !gpx || !vcnt || !vseen || !vline || !bcnt)
        goto nomem;
    memset(gfirst, 0xff, (r->npc + 1) * sizeof *gfirst);
    /* wanted lines of this chunk: [s0, s1) */
    uint64_t cstart = (uint64_t)(es->rec + 1), s0 = 0, s1 = nl;
    if (!es->all) {
        s0 = es->from > cstart ? es->from - cstart : 0;
        if (s0 > nl)
            s0 = nl;
        uint64_t end = es->from + es->count;
        s1 = end > cstart ? (end - cstart < nl ? end - cstart : nl) : 0;
    }
    /* (gcur counts the cut pieces' addresses before s0 until step 2 adds the groups'
     * starts) */
    dstate st = {r, succ, scnt, scap, &sq, &it, 0, 0, 0, NULL, NULL, NULL, 0, 0, nl, 0, NULL,
                 gend, gfirst, 0, gpx, 0, vcnt, vseen, vline, 0, s0, s1, 0, 0, bcnt, gcur};
    /* pieces: about one per block instance, and an instance takes at least one byte
     * of SEQ (plus the interrupt cuts); add_piece grows the arrays when needed. An
     * extract keeps only the pieces of its lines. */
    {
        uint64_t guess = (uint64_t)sl[S_SEQ] + 2 * (uint64_t)sl[S_INT] + 64;
        size_t pc = (size_t)(guess < nl + 1 ? guess : nl + 1);
        if (!es->all && s1 >= s0 && pc > s1 - s0 + 64) /* (grown if cut pieces need more) */
            pc = (size_t)(s1 - s0 + 64);
        iv = st.pv = malloc(pc * sizeof *st.pv); /* freed at `out`, as grown by decode_list */
        iq0 = st.p0 = malloc(pc * sizeof *st.p0);
        iq1 = st.p1 = malloc(pc * sizeof *st.p1);
        if (!st.pv || !st.p0 || !st.p1)
            goto nomem;
        st.pcap = pc;
    }
    st.nextint = it.p < it.end ? itf_get_uv(&it) : UINT64_MAX;
    if (it.bad) {
        chunk_err(err, ci, "interrupt records truncated");
        goto out;
    }
    uint64_t li = 0;
    int drc = decode_list(&st, r->nvar, UINT64_MAX, 0);
    iv = st.pv;
    iq0 = st.p0;
    iq1 = st.p1;
    ni = st.np;
    if (drc == 0 && st.lines != nl)
        drc = dfail(&st, "block sequence truncated");
    if (drc < 0) {
        if (drc == -2)
            goto nomem;
        chunk_err(err, ci, st.what);
        goto out;
    }
    /* 2. address groups: the whole-block instances' counts expanded per variant, then
     * the groups in order of first use */
    for (size_t v = 0; v < st.nseen; v++) {
        uint32_t var = vseen[v];
        uint64_t c = vcnt[var];
        for (uint64_t m = r->vm_off[var]; m < r->vm_off[var + 1]; m++) {
            uint32_t px = r->vm_pc[m];
            uint64_t l = vline[var] + r->vm_q[m];
            if (gfirst[px] == UINT64_MAX)
                gpx[st.ngrp++] = px;
            if (l < gfirst[px])
                gfirst[px] = l;
            gend[px] += c * r->vm_n[m];
            st.totmem += c * r->vm_n[m];
        }
    }
    size_t ngrp = st.ngrp;
    uint64_t totmem = st.totmem;
    if (ngrp > 1) {
        order = malloc(ngrp * sizeof *order);
        if (!order)
            goto nomem;
        for (size_t g = 0; g < ngrp; g++)
            order[g] = (grp_first){gfirst[gpx[g]], gpx[g]};
        qsort(order, ngrp, sizeof *order, cmp_first);
        for (size_t g = 0; g < ngrp; g++)
            gpx[g] = order[g].px;
    }
    addr = malloc((totmem + 1) * sizeof *addr);
    if (!addr)
        goto nomem;
    itf_rd mh = {sb[S_MEMH], sb[S_MEMH] + sl[S_MEMH], 0};
    itf_rd ma = {sb[S_MA0], sb[S_MA0] + sl[S_MA0], 0};
    itf_rd ra = {sb[S_ARAW], sb[S_ARAW] + sl[S_ARAW], 0}, pe = {sb[S_APER], sb[S_APER] + sl[S_APER], 0},
           pa = {sb[S_APAT], sb[S_APAT] + sl[S_APAT], 0}, di = {sb[S_ADIST], sb[S_ADIST] + sl[S_ADIST], 0},
           se = {sb[S_ASEQ], sb[S_ASEQ] + sl[S_ASEQ], 0}, of = {sb[S_AOFF], sb[S_AOFF] + sl[S_AOFF], 0};
    itf_dec_streams ds = {&ra, &pe, &pa, &di, &se, &of};
    uint32_t a0 = 0;
    itf_ma0 m0; /* version 8: the first addresses predicted from the texts (the texts are read) */
    memset(&m0, 0, sizeof m0);
    uint64_t used = 0;
    for (size_t g = 0; g < ngrp; g++) {
        uint32_t px = gpx[g];
        uint64_t cnt = gend[px];
        if (gfirst[px] >= s1) { /* later groups are not needed: mark them absent */
            for (size_t h = g; h < ngrp; h++)
                gend[gpx[h]] = gcur[gpx[h]] = 0;
            break;
        }
        uint64_t codec = itf_get_uv(&mh);
        if (r->info.version >= 8) {
            itf_am am;
            itf_amode((const char *)r->text[px], r->tlen[px], r->pc[px], &am);
            a0 = itf_ma0_decode(&m0, &am, itf_get_uv(&ma));
        } else
            a0 = (uint32_t)(a0 + (uint64_t)itf_get_sv(&ma));
        if (mh.bad || ma.bad || codec < 1 || codec > ITF_CODEC_NOISY || (codec == ITF_CODEC_NOISY && !r->info.lossy) ||
            itf_mem_decode((int)codec, &mh, &ds, a0, addr + used, (size_t)cnt, ci * 1000003u + g) < 0 || mh.bad) {
            chunk_err(err, ci, "corrupt address codec data");
            goto out;
        }
        gcur[px] += used;
        used += cnt;
        gend[px] = used;
    }
    /* 3. skip to the instance holding line s0 (the texts are needed from here on) */
    if (need_texts(r, err) < 0)
        goto out;
    itf_rd ex = {sb[S_EXC], sb[S_EXC] + sl[S_EXC], 0};
    size_t k = 0;
    uint64_t nexc = st.nexc;
    for (size_t v = 0; v < st.nseen; v++) {
        uint32_t var = vseen[v], c = bcnt[var];
        if (!c)
            continue;
        for (uint64_t m = r->vm_off[var]; m < r->vm_off[var + 1]; m++)
            gcur[r->vm_pc[m]] += (uint64_t)c * r->vm_n[m];
        nexc += (uint64_t)c * r->var_nexc[var];
    }
    for (; nexc; nexc--) {
        uint64_t xl = itf_get_uv(&ex);
        if (ex.bad || xl > (uint64_t)(ex.end - ex.p)) {
            chunk_err(err, ci, "exception stream truncated");
            goto out;
        }
        ex.p += xl;
    }
    li = st.skipped;
    es->rec += (int64_t)li;
    es->line_no += li;
    /* 4. render */
    for (; k < ni && !es->done; k++) {
        uint32_t var = iv[k];
        uint32_t b = r->var_blk[var];
        uint64_t bn = r->var_off[var + 1] - r->var_off[var];
        const uint32_t *bp = r->blk_pcs + r->blk_off[b];
        const uint8_t *fl = r->var_flags + r->var_off[var];
        const uint32_t *nmv = r->var_nmem + r->var_off[var];
        (void)bn;
        if (es->all && r->vt_state == 1 && r->var_nexc[var] == 0) {
            /* the variant's rendered lines, then the addresses written into them */
            uint64_t base = r->var_off[var], a = r->vt_lo[base + iq0[k]], z = r->vt_lo[base + iq1[k]];
            tz_buf *ob = &es->ob;
            if (ob->oom || (ob->len + (size_t)(z - a) + 1 > ob->cap &&
                            TZ_GROW(ob->s, ob->cap, ob->len + (size_t)(z - a) + 1 + (ob->len >> 1)) < 0)) {
                ob->oom = 1;
                goto nomem;
            }
            char *o = ob->s + ob->len;
            memcpy(o, r->vt + a, (size_t)(z - a));
            for (uint64_t q = iq0[k]; q < iq1[k]; q++) {
                uint32_t nm = nmv[q];
                if (!nm)
                    continue;
                uint32_t px = bp[q];
                if (gcur[px] + nm > gend[px]) {
                    chunk_err(err, ci, "addresses missing");
                    goto out;
                }
                char *h = o + (r->vt_lo[base + q] - a) + 18 + r->tlen[px];
                const uint32_t *ad = addr + gcur[px];
                for (uint32_t i = 0; i < nm; i++, h += 15)
                    hex8(h, ad[i]);
                gcur[px] += nm;
            }
            ob->len += (size_t)(z - a);
            es->line_no += iq1[k] - iq0[k];
            es->rec += (int64_t)(iq1[k] - iq0[k]);
            if (no_newline(r, es))
                ob->len--; /* the text did not end with a newline */
            ob->s[ob->len] = 0;
            if (!es->hold && ob->len > (1u << 19) && flush_out(es, err) < 0)
                goto out;
            continue;
        }
        for (uint64_t q = iq0[k]; q < iq1[k] && !es->done; q++) {
            int emit = want_line(es, 1);
            if (es->done)
                break;
            if (fl[q] & LF_EXC) {
                uint64_t xl = itf_get_uv(&ex);
                if (ex.bad || xl > (uint64_t)(ex.end - ex.p)) {
                    chunk_err(err, ci, "exception stream truncated");
                    goto out;
                }
                if (emit)
                    tz_buf_put(&es->ob, ex.p, (size_t)xl);
                ex.p += xl;
            } else {
                uint32_t px = bp[q], nm = nmv[q];
                if (nm && gcur[px] + nm > gend[px]) {
                    chunk_err(err, ci, "addresses missing");
                    goto out;
                }
                if (emit)
                    itf_gen_render(&es->ob, r->pc[px], (const char *)r->text[px], r->tlen[px],
                                   nm ? addr + gcur[px] : addr, nm, fl[q] & LF_CCFAIL);
                gcur[px] += nm;
            }
            if (emit)
                end_line(r, es);
            else
                es->line_no++;
        }
        if (!es->hold && es->ob.len > (1u << 19) && flush_out(es, err) < 0)
            goto out;
    }
    /* (the pieces after the wanted lines were not kept: no line past them says so) */
    if (!es->all && es->from + es->count <= cstart + nl)
        es->done = 1;
    rc = 0;
    goto out;
nomem:
    traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
out:
    for (size_t v = 0; succ && v <= r->nvar + 1; v++)
        free(succ[v]);
    free(succ);
    free(scnt);
    free(scap);
    free(iv);
    free(iq0);
    free(iq1);
    free(addr);
    free(gpx);
    free(gcur);
    free(gend);
    free(gfirst);
    free(vline);
    free(vcnt);
    free(vseen);
    free(bcnt);
    free(order);
    return rc;
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
        if (read_frame(r, r->ix[0], r->dict_off, S_NSTREAMS, &r->pre_frame, &r->pre_flen, err) < 0)
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
static int pre_all(traza_itf_reader *r, traza_err *err)
{
    if (r->info.version < 5 || r->nix < 2)
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
typedef struct lm_feed {
    itf_sunpack su[LM_NSTREAMS];
    int kf[LM_NSTREAMS];        /* keep the stream as a preset dictionary for later chunks */
    size_t avail[LM_NSTREAMS];
    uint8_t busy[LM_NSTREAMS];  /* a thread is unpacking stream j, outside the mutex */
    int threaded, failed, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    traza_err err;              /* the unpacking thread's error */
} lm_feed;

/* Unpacks the streams of chunk ci's payload p[0..n) into sb/sl, one after the other,
 * except the line model's (feed != NULL), whose headers are read into the feed. */
static int unpack_all(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, uint8_t **sb, size_t *sl,
                      lm_feed *feed, traza_err *err)
{
    itf_rd d = {p, p + n, 0};
    int nstreams = r->info.version >= 3 ? S_NSTREAMS : S_INT; /* version 2: no interrupt stream */
    /* decoding chunk 0 of a version 5 file keeps its streams' packed forms for the
     * other chunks, so that pre_get does not read and decode them a second time */
    int keep = ci == 0 && r->info.version >= 5 && r->nix > 1;
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
static int decode_lines(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, emit_state *es,
                        traza_err *err)
{
    const uint64_t *e = r->ix + ci * 5;
    uint64_t nl = e[3];
    uint8_t *sb[S_NSTREAMS] = {0}; /* the other streams: empty in a line-model chunk */
    size_t sl[S_NSTREAMS] = {0};
    lm_feed f;
    memset(&f, 0, sizeof f);
    itf_rthread *rt = NULL;
    int rc = -1, bad = 0, v4 = r->np.v4;
    if (unpack_all(r, ci, p, n, sb, sl, &f, err) < 0)
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
            long pred = np_skel_predict(&r->np);
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
        if (np_begin(&r->np, (uint32_t)id) < 0) {
            bad = 4;
            break;
        }
        if (rt)
            nums = itf_rthread_nums(rt);
        if (np_decode_line(&r->np, (uint32_t)id, nums, &zr[1]) < 0) {
            bad = 3;
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
    if (!es->done && nrec != e[2]) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk %zu: %llu records decoded, index says %llu", ci,
                      (unsigned long long)nrec, (unsigned long long)e[2]);
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

/* Decodes chunk ci from its frame payload p[0..n) into es (written to es->out unless
 * es->hold). */
static int decode_payload(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, emit_state *es,
                          traza_err *err)
{
    uint8_t *sb[S_NSTREAMS] = {0};
    size_t sl[S_NSTREAMS] = {0};
    int rc = -1;
    if (r->model == 1) {
        if (decode_lines(r, ci, p, n, es, err) < 0)
            goto out;
    } else if (unpack_all(r, ci, p, n, sb, sl, NULL, err) < 0 ||
               /* version 8: the blocks come with the texts, read meanwhile */
               (r->info.version >= 8 && need_texts(r, err) < 0) ||
               decode_blocks(r, ci, sb, sl, r->ix[ci * 5 + 3], es, err) < 0) {
        goto out;
    }
    if (es->ob.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        goto out;
    }
    if (!es->hold) {
        if (es->out && es->ob.len && tz_fwrite_all(es->out, es->ob.s, es->ob.len) < 0) {
            traza_err_set(err, TRAZA_E_IO, "itf: write failed: %s", strerror(errno));
            goto out;
        }
        tz_buf_reset(&es->ob);
    }
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
    if (read_frame(r, r->ix[ci * 5], r->dict_off, S_NSTREAMS, &p, &n, err) < 0)
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
        int rc = read_frame(r, r->ix[c * 5], r->dict_off, S_NSTREAMS, &p, &n, &s->err);
        pthread_mutex_unlock(&m->mu);
        if (rc == 0) {
            emit_state es;
            memset(&es, 0, sizeof es);
            es.all = 1;
            es.hold = 1;
            es.rec = (int64_t)r->ix[c * 5 + 4] - 1;
            es.line_no = m->line_base[c];
            es.ob = s->ob;
            /* the chunk's text, estimated from the average line length, in one piece */
            if (r->info.lines) {
                double want = (double)r->info.original_size / (double)r->info.lines * (double)r->ix[c * 5 + 3];
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
        lb[c + 1] = lb[c] + r->ix[c * 5 + 3];
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
    if (need_texts(r, err) < 0 || build_templates(r, err) < 0)
        return -1;
    /* the line model's predictor state lives in the reader: one thread; chunks whose
     * text would average over 256 MiB (a huge --chunk) are streamed by one thread too,
     * so that memory stays small */
    if (threads > 1 && r->model == 0 && r->nix > 1 && r->info.original_size / r->nix <= ((uint64_t)256 << 20))
        return pre_all(r, err) < 0 ? -1 : decompress_mt(r, out, threads < 64 ? threads : 64, err);
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
        const uint64_t *e = r->ix + i * 5;
        uint8_t *p;
        size_t n;
        if (read_frame(r, e[0], e[0] + e[1], 0, &p, &n, err) < 0)
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
        if (r->ix[mid * 5 + 4] <= from)
            lo = mid;
        else
            hi = mid;
    }
    /* step back over chunks without record starts that share the same rec_before */
    while (lo > 0 && r->ix[lo * 5 + 4] == r->ix[(lo - 1) * 5 + 4] + r->ix[(lo - 1) * 5 + 2] &&
           r->ix[(lo - 1) * 5 + 2] == 0)
        lo--;
    while (lo + 1 < r->nix && r->ix[lo * 5 + 4] + r->ix[lo * 5 + 2] <= from)
        lo++;
    emit_state es;
    memset(&es, 0, sizeof es);
    es.out = out;
    es.from = from;
    es.count = count;
    es.rec = (int64_t)r->ix[lo * 5 + 4] - 1;
    uint64_t ln = 0;
    for (size_t c = 0; c < lo; c++)
        ln += r->ix[c * 5 + 3];
    es.line_no = ln;
    tz_buf_init(&es.ob);
    return run(r, &es, lo, err);
}

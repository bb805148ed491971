/* ITFComp writer: traza_itf_compress reads and parses the text line by line into
 * chunks (the generated ITF's lines, or the tokens of the other dialects for the line
 * model) and hands each full chunk over (itf_write_thread.c); the other parts of the
 * writer are named in itf_writer.h. */
#include <stdlib.h>
#include "itf/itf_paper.h"
#include "itf/itf_writer.h"
#include "util/hex8.h"
#include "util/input.h"

/* Appends a line record to the chunk being parsed; hands the chunk over when full.
 * The fields are stored one by one: a record built on the stack and copied as one
 * 16-byte load stalled on store forwarding (14 % of the parse thread). */
static inline int put_wline(wr *w, uint32_t pc, uint32_t idx, uint32_t nmem, uint8_t flags)
{
    if (GROW(w->pk->lines, w->pk->lcap, w->pk->nlines + 1) < 0)
        return oom(w);
    wline *l = &w->pk->lines[w->pk->nlines++];
    l->pc = pc;
    l->pcidx = idx;
    l->nmem = (uint8_t)nmem;
    l->flags = flags;
    w->pk->chunk_rec++;
    w->ps.instructions++;
    if (w->pk->nlines >= w->o.chunk)
        return itf_wr_handoff(w);
    if ((w->pk->nlines & (EARLY_STEP - 1)) == 0)
        return itf_wr_publish(w);
    return 0;
}

/* A parsed line of a known instruction, with its addresses. */
static int put_line(wr *w, uint32_t pc, uint32_t idx, int ccfail, const uint32_t *mem, size_t nmem)
{
    if (GROW(w->pk->mems, w->pk->mcap, w->pk->nmems + nmem) < 0 ||
        GROW(w->pk->mpc, w->pk->mpccap, w->pk->nmems + nmem) < 0)
        return oom(w);
    for (size_t k = 0; k < nmem; k++) {
        w->pk->mems[w->pk->nmems + k] = mem[k];
        w->pk->mpc[w->pk->nmems + k] = idx;
    }
    w->pk->nmems += nmem;
    return put_wline(w, pc, idx, (uint32_t)nmem, (uint8_t)((ccfail ? LF_CCFAIL : 0) | (w->pcflags[idx] & LF_BR)));
}

/* The parser's direct-mapped cache of recent instructions: the slot of pc, and the
 * instruction index there (-1: not cached). */
static inline uint32_t pcc_slot(uint32_t pc) { return (pc >> 1 ^ pc >> 13) & 4095; }
static inline int64_t pcc_get(const wr *w, uint32_t pc)
{
    uint32_t cs = pcc_slot(pc);
    return w->pcc_id[cs] && w->pcc_pc[cs] == pc ? (int64_t)w->pcc_id[cs] - 1 : -1;
}

static int add_line_gen(wr *w, const char *s, size_t n)
{
    uint32_t mem[MAXMEM];
    itf_genline g;
    int ok = itf_gen_parse(s, n, &g, mem, MAXMEM);
    if (ok) {
        int64_t idx = pcc_get(w, g.pc);
        int hit = idx >= 0;
        if (hit || tz_imap_get(&w->pcmap, g.pc, &idx)) {
            if (!hit) {
                w->pcc_pc[pcc_slot(g.pc)] = g.pc;
                w->pcc_id[pcc_slot(g.pc)] = (uint32_t)idx + 1;
            }
            if (w->tl[idx] != g.textlen || !itf_eq(w->texts + w->toff[idx], g.text, g.textlen))
                ok = 0;
        } else {
            idx = (int64_t)w->npc;
            if (tz_imap_put(&w->pcmap, g.pc, idx) < 0 || GROW(w->toff, w->toffcap, w->npc + 1) < 0 ||
                GROW(w->tl, w->tlcap, w->npc + 1) < 0 || GROW(w->texts, w->tcap, w->tlen + g.textlen + 1) < 0)
                return oom(w);
            memcpy(w->texts + w->tlen, g.text, g.textlen);
            w->toff[w->npc] = w->tlen;
            w->tl[w->npc] = (uint32_t)g.textlen;
            w->tlen += g.textlen;
            if (GROW(w->pcs, w->pcscap, w->npc + 1) < 0 || GROW(w->pcflags, w->pcflagscap, w->npc + 1) < 0)
                return oom(w);
            w->pcs[w->npc] = g.pc;
            /* a text ending in " CCFAIL" (the general parser strips one more) takes
             * the general path every time */
            int nofast = g.textlen >= 7 && !memcmp(g.text + g.textlen - 7, " CCFAIL", 7);
            w->pcflags[w->npc] = (uint8_t)((itf_text_is_branch(g.text, g.textlen) ? LF_BR : 0) | (nofast ? LF_NOFAST : 0));
            if (GROW(w->am, w->amcap, w->npc + 1) < 0)
                return oom(w);
            itf_amode(g.text, g.textlen, g.pc, &w->am[w->npc]);
            w->npc++;
        }
        if (ok)
            return put_line(w, g.pc, (uint32_t)idx, g.ccfail, mem, g.nmem);
    }
    itf_put_uv(&w->pk->s[S_EXC], n);
    tz_buf_put(&w->pk->s[S_EXC], s, n);
    w->ps.exceptions++;
    return put_wline(w, NOPC, NOPC, 0, LF_EXC);
}

/* A line of the paper's ITF: its coded form (itf_paper.c) as a generated-ITF line. */
static int add_line_paper(wr *w, const char *s, size_t n)
{
    tz_buf *c = &w->paper;
    itf_paper_to_gen(s, n, c);
    /* a condition failure without values, "0x.. TEXT CCFAIL", at a pc known with values:
     * coded with the pc's text when the reader gets TEXT back from it (itf_paper.c) */
    int64_t idx;
    uint32_t pc;
    if (!c->oom && c->len > 18 && !memcmp(c->s + c->len - 7, " CCFAIL", 7) && itf_gen_pc(c->s, c->len, &pc) == 0 &&
        tz_imap_get(&w->pcmap, pc, &idx)) {
        const char *known = w->texts + w->toff[idx], *text = c->s + 11;
        size_t kl = w->tl[idx], tl = c->len - 18;
        if ((kl != tl || memcmp(known, text, tl) != 0) && memchr(known, ITF_PAPER_SLOT, kl) && !memchr(text, ITF_PAPER_SLOT, tl)) {
            tz_buf_reset(&w->scratch);
            itf_paper_drop_values(known, kl, &w->scratch);
            if (w->scratch.len == tl && !memcmp(w->scratch.s, text, tl)) {
                c->len = 11;
                tz_buf_put(c, known, kl);
                tz_buf_put(c, " CCFAIL", 7);
            }
        }
    }
    if (c->oom || w->scratch.oom)
        return oom(w);
    return add_line_gen(w, c->s, c->len);
}

/* A line of the block model's dialects. */
static int add_line_block(wr *w, const char *s, size_t n)
{
    return w->dialect == TRAZA_ITF_PAPER ? add_line_paper(w, s, n) : add_line_gen(w, s, n);
}

/* The fast path of a gen line whose instruction is in the parser's small cache and
 * whose text is not one the general parser treats specially (LF_NOFAST): the text is
 * compared where it must be, then " mem=0x<8 hex>" groups, an optional " CCFAIL" and
 * the newline are read forwards, without searching for the end of the line first.
 * Returns the bytes used including the newline, or 0 when the general parser must
 * decide (anything unexpected, or no newline within avail); it then gets the same
 * line, so the result never depends on this path. -1 on error. */
static long add_line_gen_fast(wr *w, const char *s, size_t avail)
{
#ifdef TZ_HAVE_HEX8_WORD
    uint32_t pc;
    if (avail < 12 || s[0] != '0' || s[1] != 'x' || s[10] != ' ' || tz_hex8_word(s + 2, 0, &pc) < 0)
        return 0;
    int64_t ci = pcc_get(w, pc);
    if (ci < 0)
        return 0;
    uint32_t idx = (uint32_t)ci;
    size_t tl = w->tl[idx];
    if ((w->pcflags[idx] & LF_NOFAST) || 11 + tl >= avail || !itf_eq(w->texts + w->toff[idx], s + 11, tl))
        return 0;
    const char *p = s + 11 + tl, *e = s + avail;
    uint32_t mem[MAXMEM];
    size_t nm = 0;
    int cc = 0;
    for (;;) {
        if (p >= e)
            return 0;
        if (*p == '\n')
            break;
        if (e - p >= 16 && nm < MAXMEM && !memcmp(p, " mem=0x", 7) && tz_hex8_word(p + 7, 0, &mem[nm]) == 0) {
            nm++;
            p += 15;
        } else if (e - p >= 8 && !memcmp(p, " CCFAIL\n", 8)) {
            cc = 1;
            p += 7;
            break;
        } else
            return 0;
    }
    return put_line(w, pc, idx, cc, mem, nm) < 0 ? -1 : (long)(p - s) + 1;
#else
    (void)w, (void)s, (void)avail;
    return 0;
#endif
}

/* A line of the line model, tokenized: skeleton k[0..klen), numbers nums[0..nn). */
static int add_tokens(wr *w, const uint8_t *k, size_t klen, const uint64_t *nums, size_t nn)
{
    int isnew;
    long id = itf_kmap_intern(&w->skels, k, klen, &isnew);
    if (id < 0)
        return oom(w);
    if (isnew) { /* (the dictionary's SKEL stream is written at the end: itf_skels_front) */
        int srs = itf_skel_is_record_start(w->dialect, k, klen, nn);
        if (srs < 0 || itf_np_add_skel(&w->np, k, klen, nn, srs) != id)
            return oom(w);
    }
    /* A record starts where its skeleton says so: the reader knows only the skeleton. */
    int rs = w->np.sk[id].rs;
    if (rs && (w->pk->chunk_rec >= w->o.chunk || w->pk->nlines >= 4 * (size_t)w->o.chunk) && itf_wr_handoff(w) < 0)
        return -1;
    if (!rs && w->pk->nlines >= 16 * (size_t)w->o.chunk && itf_wr_handoff(w) < 0)
        return -1;
    if (w->pk->nlines == 0)
        itf_np_chunk(&w->np, w->pk->chunkno);
    long pred = itf_np_skel_predict(&w->np);
    if (pred < 0 || itf_np_begin(&w->np, (uint32_t)id) < 0)
        return oom(w);
    itf_put_uv(&w->pk->s[S_SKL], pred == id ? 0 : (uint64_t)id + 1);
    tz_buf *const out[4] = {&w->pk->s[S_NUM], &w->pk->s[S_NUM1], &w->pk->s[S_NUM2], &w->pk->s[S_NUM3]};
    itf_np_encode_line(&w->np, (uint32_t)id, nums, out);
    w->pk->nlines++;
    if (rs) {
        w->pk->chunk_rec++;
        w->ps.instructions++;
    }
    return 0;
}

static int add_line_text(wr *w, const char *s, size_t n)
{
    uint64_t nums[ITF_MAX_NUMS];
    size_t nn = itf_tokenize(s, n, &w->skel, nums);
    if (w->skel.oom)
        return oom(w);
    return add_tokens(w, (const uint8_t *)w->skel.s, w->skel.len, nums, nn);
}

/* The line model over a whole text in memory, tokenized on a second thread
 * (itf_tokq.c); 1 when no thread could be had (the caller then goes line by line). */
static int add_lines_tokq(wr *w, const char *text, size_t n, int *nl_missing)
{
    itf_tokq *q = itf_tokq_start(text, n);
    if (!q)
        return 1;
    itf_tokline l;
    int k;
    while ((k = itf_tokq_next(q, &l)) > 0) {
        w->ps.lines++;
        w->ps.original_size += l.len + (size_t)l.newline;
        *nl_missing = !l.newline;
        if (add_tokens(w, l.skel, l.skel_len, l.nums, l.nn) < 0)
            break;
    }
    itf_tokq_stop(q);
    return k < 0 ? oom(w) : k > 0 ? -1 : 0;
}

static void wr_free(wr *w)
{
    itf_wr_warm_join(w);
    for (int k = 0; k < 3; k++)
        itf_packer_free(w->pkr[k]);
    tz_imap_free(&w->pcmap);
    free(w->texts);
    free(w->pcs);
    free(w->toff);
    free(w->tl);
    for (size_t i = 0; i < w->vars.count && w->succ; i++)
        free(w->succ[i].v);
    itf_kmap_free(&w->blocks);
    itf_kmap_free(&w->vars);
    itf_kmap_free(&w->fvars);
    itf_kmap_free(&w->skels);
    free(w->varlocal);
    free(w->nvar);
    free(w->succ);
    free(w->start.v);
    free(w->intr.v);
    free(w->nodes);
    free(w->pieces);
    free(w->cuts);
    for (int k = 0; k < D_NSTREAMS; k++)
        tz_buf_free(&w->d[k]);
    for (int k = 0; k < S_NSTREAMS; k++)
        tz_buf_free(&w->pre[k]);
    for (int c = 0; c < 2; c++) {
        for (int k = 0; k < S_NSTREAMS; k++)
            tz_buf_free(&w->ck[c].s[k]);
        free(w->ck[c].lines);
        free(w->ck[c].mems);
        free(w->ck[c].mpc);
        free(w->ck[c].am);
    }
    free(w->pcflags);
    free(w->am);
    itf_np_free(&w->np);
    itf_iclass_free(&w->icls);
    free(w->pc_gen);
    free(w->pc_grp);
    free(w->ix);
    tz_buf_free(&w->scratch);
    tz_buf_free(&w->skel);
    tz_buf_free(&w->paper);
}


int traza_itf_compress(const char *inpath, const char *outpath, const traza_itf_opts *opts, traza_itf_info *info,
                       traza_err *err)
{
    wr *w = aligned_alloc(_Alignof(wr), sizeof *w);
    if (!w)
        return traza_err_set(err, TRAZA_E_NOMEM, "itf: out of memory");
    memset(w, 0, sizeof *w);
    w->err = err;
    traza_itf_opts_init(&w->o);
    if (opts)
        w->o = *opts;
    if (w->o.mem == TRAZA_ITF_MEM_DISTRIBUTION && !w->o.lossy) {
        free(w);
        return traza_err_set(err, TRAZA_E_USAGE, "itf: the distribution codec is lossy: allow a lossy encoding");
    }
    if (w->o.backend < 0 || w->o.backend > TRAZA_ITF_AUTO || w->o.mem < 0 || w->o.mem >= TRAZA_ITF_MEM_NCODECS) {
        free(w);
        return traza_err_set(err, TRAZA_E_USAGE, "itf: bad backend or codec option");
    }
    tz_imap_init(&w->pcmap);
    itf_kmap_init(&w->blocks);
    itf_kmap_init(&w->vars);
    itf_kmap_init(&w->fvars);
    itf_kmap_init(&w->skels);
    itf_np_init(&w->np, ITF_VERSION);
    for (int k = 0; k < D_NSTREAMS; k++)
        tz_buf_init(&w->d[k]);
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < S_NSTREAMS; k++)
            tz_buf_init(&w->ck[c].s[k]);
    w->pk = w->fk = &w->ck[0];
    w->ferr = err;
    w->threaded = w->o.threads > 1;
    tz_buf_init(&w->scratch);
    tz_buf_init(&w->skel);
    tz_buf_init(&w->paper);
    itf_cache_init(&w->c_orig);
    itf_cache_init(&w->c_lossy);
    int rc = -1;
    char *buf = NULL;
    const char *map = NULL;
    size_t maplen = 0;
    tz_input *in = tz_input_open(inpath, err);
    if (!in)
        goto done;
    size_t cap = 1 << 20, start = 0, end = 0;
    int eof = 0;
    map = tz_input_map(in, &maplen); /* a plain file is parsed in place: no copy */
    if (map) {
        buf = (char *)map; /* never written: with eof set the loop below neither reads nor moves */
        cap = end = maplen;
        eof = 1;
    } else if (!(buf = malloc(cap))) {
        oom(w);
        goto done;
    }
    /* prime for dialect detection */
    while (!eof && end < 65536) {
        long k = tz_input_read(in, buf + end, cap - end, err);
        if (k < 0)
            goto done;
        if (k == 0)
            eof = 1;
        end += (size_t)k;
    }
    w->dialect = w->o.dialect ? w->o.dialect : (int)traza_itf_detect(buf, end);
    /* the paper's ITF is coded as generated-ITF lines (itf_paper.c) */
    w->model = w->dialect == TRAZA_ITF_GEN || w->dialect == TRAZA_ITF_PAPER ? 0 : 1;
    if (itf_np_dialect(&w->np, w->dialect) < 0) {
        oom(w);
        goto done;
    }
    if (w->o.chunk == 0)
        w->o.chunk = w->model == 0 ? ITF_DEFAULT_CHUNK_BLOCKS : ITF_DEFAULT_CHUNK_LINES;
    /* The default back end. The line model's streams are short (1-6 KB on the Tarmac
     * samples) and mostly literals to LZMA, which then codes and decodes bit by bit:
     * zstd at level 7 is 6 % larger there, but 7-10x faster to code and 10x faster to
     * decode (bench/RESULTS.md, row "ITF back ends"). The block model keeps xz. */
    if (w->o.backend == TRAZA_ITF_AUTO) {
        w->o.backend = w->model == 1 ? TRAZA_ITF_ZSTD : TRAZA_ITF_XZ;
        w->zfast = w->model == 1;
        w->exc_zstd = w->model == 0;
    }
    itf_wr_warm_start(w);
    /* a temporary renamed at the end: a failure leaves no partial file, an old file
     * intact, and a device (never removed) alone */
    if (tz_outfile_open(&w->of, outpath, err) < 0)
        goto done;
    w->out = w->of.f;
    {
        char h[ITF_HEADER_SIZE] = {0};
        memcpy(h, ITF_MAGIC, 4);
        h[4] = ITF_VERSION;
        h[6] = (char)w->model;
        h[7] = (char)w->dialect;
        h[8] = (char)w->o.backend;
        h[9] = (char)(w->o.lossy ? 1 : 0);
        h[12] = (char)w->o.chunk, h[13] = (char)(w->o.chunk >> 8), h[14] = (char)(w->o.chunk >> 16),
        h[15] = (char)(w->o.chunk >> 24);
        uint16_t hc = itf_header_check((const uint8_t *)h);
        h[10] = (char)hc, h[11] = (char)(hc >> 8);
        if (itf_wr_write_bytes(w, h, sizeof h) < 0)
            goto done;
    }
    int nl_missing = 0;
    if (map && w->model == 1 && w->threaded) { /* tokenized on a second thread */
        int k = add_lines_tokq(w, buf, end, &nl_missing);
        if (k < 0)
            goto done;
        if (k == 0)
            start = end; /* all of it: the loop below finds nothing more */
    }
    for (;;) {
        if (w->model == 0 && w->dialect == TRAZA_ITF_GEN) {
            long k = add_line_gen_fast(w, buf + start, end - start);
            if (k < 0)
                goto done;
            if (k > 0) { /* a line and its newline, as counted below for the others */
                w->ps.lines++;
                w->ps.original_size += (uint64_t)k;
                start += (size_t)k;
                continue;
            }
        }
        char *nl = memchr(buf + start, '\n', end - start);
        if (!nl) {
            if (eof) {
                if (end > start) {
                    nl_missing = 1;
                    w->ps.lines++;
                    w->ps.original_size += end - start;
                    if ((w->model == 0 ? add_line_block(w, buf + start, end - start)
                                       : add_line_text(w, buf + start, end - start)) < 0)
                        goto done;
                }
                break;
            }
            if (start > 0) {
                memmove(buf, buf + start, end - start);
                end -= start;
                start = 0;
            }
            if (end == cap) {
                if (cap >= ((size_t)1 << 30)) {
                    traza_err_set(err, TRAZA_E_PARSE, "%s: line %llu is longer than 1 GiB", inpath,
                                  (unsigned long long)w->ps.lines + 1);
                    goto done;
                }
                char *nb = realloc(buf, cap * 2);
                if (!nb) {
                    oom(w);
                    goto done;
                }
                buf = nb;
                cap *= 2;
            }
            long k = tz_input_read(in, buf + end, cap - end, err);
            if (k < 0)
                goto done;
            if (k == 0)
                eof = 1;
            end += (size_t)k;
            continue;
        }
        size_t n = (size_t)(nl - (buf + start));
        w->ps.lines++;
        w->ps.original_size += n + 1;
        if ((w->model == 0 ? add_line_block(w, buf + start, n) : add_line_text(w, buf + start, n)) < 0)
            goto done;
        start += n + 1;
    }
    if (itf_wr_finish(w, nl_missing) < 0)
        goto done;
    w->out = NULL;
    if (tz_outfile_close(&w->of, 1, err) < 0)
        goto done;
    w->info.version = ITF_VERSION;
    w->info.dialect = w->dialect;
    w->info.backend = w->o.backend;
    w->info.lossy = w->o.lossy;
    w->info.model = w->model;
    if (info)
        *info = w->info;
    rc = 0;
done:
    itf_wr_worker_stop(w);
    if (w->out)
        tz_outfile_close(&w->of, 0, NULL);
    tz_input_close(in);
    if (map)
        tz_input_unmap(map, maplen);
    else
        free(buf);
    wr_free(w);
    free(w);
    return rc;
}

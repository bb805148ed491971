/* Decoding a block-model chunk: the variant sequence with its interrupt records, the
 * address groups, and the lines rendered from the variant templates. */
#include <stdlib.h>
#include "itf/itf_reader.h"

/* Renders every variant once (see vt in the reader). Verbatim lines render empty
 * (variants holding them take the per-line path). Leaves vt_state -1 when the table
 * would pass VT_MAX; returns -1 only when out of memory. */
int itf_build_templates(traza_itf_reader *r, traza_err *err)
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
int itf_decode_blocks(traza_itf_reader *r, size_t ci, uint8_t **sb, const size_t *sl, uint64_t nl,
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
        if (itf_has_text_predictions(r->info.version)) {
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
    if (itf_need_texts(r, err) < 0)
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

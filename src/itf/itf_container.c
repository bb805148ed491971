/* The .tzi container: header, footer, chunk index and frames; opening and closing a
 * reader. */
#include <stdlib.h>
#include <sys/stat.h>
#include <zlib.h>
#include "itf/itf_reader.h"

/* A file up to this size is read whole when it is opened: one read instead of a seek
 * and a read per header, footer, index and frame, 17 calls for ES (with the other
 * calls a short run saves, e.g. tune_malloc's, 9 % of its decompression time); larger
 * ones are read frame by frame as needed (extract). */
#define WHOLE_MAX (256u << 10)

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
int itf_read_frame(traza_itf_reader *r, uint64_t off, uint64_t limit, int nstreams, uint8_t **payload, size_t *len,
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
    if (nstreams && itf_has_compact_frames(r->info.version) && itf_frame_expand(&p, &pn, nstreams, err) < 0) {
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
    /* a block-model file is of the generated ITF, or from version 11 of the paper's */
    int block_dialect = r->dialect == TRAZA_ITF_GEN || (r->dialect == TRAZA_ITF_PAPER && itf_has_paper_blocks(h[4]));
    if (r->model > 1 || r->dialect > TRAZA_ITF_TEXT || h[8] > TRAZA_ITF_NONE || h[9] > 1 || (r->model == 0 && !block_dialect)) {
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
    if (itf_read_frame(r, r->index_off, end, 0, &p, &n, err) < 0)
        goto fail;
    itf_rd d = {p, p + n, 0};
    uint64_t nix = itf_get_uv(&d);
    if (d.bad || nix > n / 4) {
        free(p);
        traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt index (chunk count)");
        goto fail;
    }
    r->ix = malloc((nix + 1) * sizeof *r->ix);
    if (!r->ix) {
        free(p);
        traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        goto fail;
    }
    r->nix = (size_t)nix;
    uint64_t recs = 0, lines = 0, prev_end = ITF_HEADER_SIZE;
    for (size_t i = 0; i < r->nix; i++) {
        itf_chunk_entry *e = &r->ix[i];
        e->off = itf_get_uv(&d);
        e->len = itf_get_uv(&d);
        e->nrec = itf_get_uv(&d);
        e->nlines = itf_get_uv(&d);
        e->rec_before = recs;
        if (d.bad || e->off != prev_end || e->len < 8 || e->len > r->dict_off - e->off || e->nlines == 0 ||
            e->nlines > (1u << 30) || e->nrec > e->nlines) {
            free(p);
            traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt index entry for chunk %zu", i);
            goto fail;
        }
        prev_end = e->off + e->len;
        recs += e->nrec;
        lines += e->nlines;
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
    if (itf_read_frame(r, r->dict_off, r->index_off, D_NSTREAMS, &p, &n, err) < 0)
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
    if (itf_load_dicts(r, err) < 0)
        goto fail;
    if (r->model == 1 && itf_need_texts(r, err) < 0) /* no thread ran: report its error now */
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

/* The .tzi reader's state and what its parts share: the container (itf_container.c),
 * the dictionaries (itf_read_dict.c), the block model (itf_read_block.c), the line
 * model (itf_read_line.c) and the chunk decoding with its threads (itf_decompress.c). */
#ifndef TRAZA_ITF_READER_H
#define TRAZA_ITF_READER_H
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "itf/itf_internal.h"
#include "itf/itf_paper.h"

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
    itf_chunk_entry *ix;
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

typedef struct emit_state {
    FILE *out;
    uint64_t from, count;   /* records wanted */
    int64_t rec;            /* record index of the current line (-1 = preamble) */
    uint64_t line_no;       /* global line number of the current line */
    int all, done;
    int hold;               /* keep the whole chunk's text in ob (threaded decompression) */
    int rthread;            /* the line model may render on a second thread */
    uint64_t rt_min;        /* from chunks of this many lines (traza_itf_set_render_min_lines) */
    int paper;              /* ob holds the paper ITF's coded lines (itf_paper.c) */
    tz_buf ob;
    tz_buf ptmp;            /* itf_paper_rewrite's scratch */
} emit_state;

/* Called with each line's record-start status; returns whether to emit it. */
static inline int want_line(emit_state *es, int rstart)
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
static inline int no_newline(const traza_itf_reader *r, const emit_state *es)
{
    return r->nl_missing && es->line_no == r->info.lines;
}

static inline void end_line(traza_itf_reader *r, emit_state *es)
{
    es->line_no++;
    if (!no_newline(r, es))
        tz_buf_putc(&es->ob, '\n');
}

static inline int chunk_err(traza_err *err, size_t ci, const char *what)
{
    return traza_err_set(err, TRAZA_E_FORMAT, "tzi: chunk %zu: %s", ci, what);
}

/* Turns the coded lines of es->ob from `from` on into the paper ITF's, when it holds them. */
static inline int paper_lines(emit_state *es, size_t from, traza_err *err)
{
    if (es->paper && !es->ob.oom && itf_paper_rewrite(&es->ob, from, &es->ptmp) < 0)
        es->ob.oom = 1;
    if (es->ob.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    return 0;
}

static inline int flush_out(emit_state *es, traza_err *err)
{
    if (paper_lines(es, 0, err) < 0)
        return -1;
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

/* itf_container.c */
int itf_read_frame(traza_itf_reader *r, uint64_t off, uint64_t limit, int nstreams, uint8_t **payload, size_t *len,
                   traza_err *err);
/* itf_read_dict.c */
int itf_load_dicts(traza_itf_reader *r, traza_err *err);
int itf_need_texts(traza_itf_reader *r, traza_err *err);
/* itf_read_block.c */
int itf_build_templates(traza_itf_reader *r, traza_err *err);
int itf_decode_blocks(traza_itf_reader *r, size_t ci, uint8_t **sb, const size_t *sl, uint64_t nl, emit_state *es,
                      traza_err *err);
/* itf_read_line.c */
int itf_pre_all(traza_itf_reader *r, traza_err *err);
typedef struct lm_feed lm_feed;
int itf_unpack_chunk(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, uint8_t **sb, size_t *sl,
                     lm_feed *feed, traza_err *err);
int itf_decode_lines(traza_itf_reader *r, size_t ci, const uint8_t *p, size_t n, emit_state *es, traza_err *err);

#endif

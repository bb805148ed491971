/* The .tzi writer's state and what its parts share: the parse and the entry point
 * (itf_write.c), frames, packing and the index (itf_write_frames.c), the block model's
 * chunks (itf_write_block.c), the chunk hand-over to the worker thread
 * (itf_write_thread.c) and the dictionaries (itf_write_dict.c). */
#ifndef TRAZA_ITF_WRITER_H
#define TRAZA_ITF_WRITER_H
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "itf/itf_internal.h"

#define MAXMEM 64 /* data addresses a line may have (wline.nmem is one byte) */
/* TZ_GROW with the common case (enough room) checked inline */
#define GROW(arr, cap, need) ((size_t)(need) <= (cap) ? 0 : TZ_GROW(arr, cap, need))

typedef struct wline {
    uint32_t pc, pcidx;
    uint8_t nmem; /* <= MAXMEM */
    uint8_t flags;
} wline; /* 12 bytes: 12 MB for a chunk of 1 Mi lines, not 16 */

/* One chunk's lines, addresses and streams. */
typedef struct wck {
    /* written by the parser, line by line (the worker modelling the chunk early reads
     * only `lines`, once per pass: this cache line changes with every line) */
    _Alignas(64) wline *lines;
    size_t nlines, lcap;
    uint64_t chunk_rec;
    uint32_t *mems;
    uint32_t *mpc; /* per address: its instruction's pcidx (the grouping passes read
                    * these instead of the whole line array) */
    size_t nmems, mcap, mpccap;
    /* the worker codes the sequence and interrupt streams early, while the parser may
     * add to S_EXC: away from the fields above (sharing a cache line with chunk_rec
     * made the parse 40 % slower) */
    _Alignas(64) tz_buf s[S_NSTREAMS];
    _Alignas(64) uint64_t chunkno;
    size_t npc;             /* instructions known when the chunk was complete */
    itf_am *am;             /* their address modes, copied at the hand-over (the parser's array moves as it grows) */
    size_t amcap;
} wck;

/* wline flag: the instruction's text is a branch (never stored: a function of pcidx) */
#define LF_BR 4
/* pcflags only: lines of this instruction always take the general parser */
#define LF_NOFAST 0x80

typedef struct succ_list {
    uint32_t *v;
    uint32_t n, cap;
    uint32_t last; /* 1 + the variant that followed last time, 0: none (a lookup cache) */
    uint64_t gen;
} succ_list;

/* Interrupt model: a block instance (node) is a list of pieces of consecutive lines;
 * between two pieces (at a cut) other blocks ran: an interrupt. */
#define NONE 0xFFFFFFFFu
#define PREV_START 0xFFFFFFFFu
#define PREV_INTR 0xFFFFFFFEu
/* lines between two publications of the chunk being parsed, and the largest chunk
 * (in lines) whose line array is made whole at its start so that it can be
 * published (it must not move while the worker reads it) */
#define EARLY_STEP 32768
#define EARLY_MAX_CHUNK ((size_t)1 << 24)
/* nodes modelled at a time (build_nodes) */
#define NODE_BATCH 4096
typedef struct ipiece {
    uint32_t start, len, next;
} ipiece;
typedef struct icut {
    uint32_t k, m, next; /* cut after instruction k; m top-level blocks in the handler */
} icut;
typedef struct inode {
    uint32_t piece, lastpiece, cut, lastcut, total, prev, var;
    uint32_t cont; /* pc of the last instruction before the open cut */
} inode;

/* build_nodes' place in the chunk it models (which can be given its lines in parts) */
typedef struct nodes_state {
    uint64_t chunk; /* 1 + the chunk's number; 0: none */
    uint32_t stack[ITF_MAX_NEST];
    uint32_t last_at[ITF_MAX_NEST + 1];
    size_t depth, done, i; /* nodes [0, done) are modelled; lines [0, i) are in nodes */
} nodes_state;

typedef struct wr {
    traza_itf_opts o;
    int dialect, model;
    FILE *out;
    tz_outfile of; /* out's file */
    uint64_t off;
    traza_err *err;
    traza_itf_info info;
    /* parser side (the fields from here to `blocks`, np, pk's chunk, pcflags, skel and ps
     * are written by the parsing thread; _Alignas keeps the two threads' hot fields in
     * different cache lines) */
    _Alignas(64) struct {
        uint64_t lines, original_size, instructions, exceptions;
    } ps;
    /* global dictionaries */
    _Alignas(64) tz_imap pcmap;
    uint32_t pcc_pc[4096], pcc_id[4096]; /* direct-mapped cache in front of pcmap (id + 1) */
    uint32_t *pcs;          /* pc per instruction index (first appearance) */
    size_t pcscap;
    char *texts;
    size_t tlen, tcap;
    uint64_t *toff;
    uint32_t *tl;
    size_t npc, toffcap, tlcap;
    _Alignas(64) itf_kmap blocks, vars, skels, fvars;
    uint32_t *varlocal, *nvar;
    size_t varlocal_cap, nvar_cap;
    succ_list *succ;
    size_t succ_cap;
    succ_list start, intr;
    inode *nodes;
    size_t nnodes, nodecap;
    nodes_state bn;
    uint64_t nbase, lastint; /* node numbers in the chunk: nodes[k] is node nbase + k;
                              * the last one with an interrupt record */
    ipiece *pieces;
    size_t npieces, piececap;
    icut *cuts;
    size_t ncuts, cutcap;
    uint64_t info_interrupts;
    tz_buf d[D_NSTREAMS];
    itf_iclass icls; /* block model: what the texts say, by rank (version 8 dictionary) */
    /* line model */
    _Alignas(64) itf_np np;
    /* chunks: pk is filled by the parser, fk is modelled and written (by the worker
     * thread when compressing with threads > 1; then pk != fk) */
    wck ck[2];
    _Alignas(64) wck *pk, *fk;
    uint64_t pchunk;        /* number of the chunk being parsed */
    itf_am *am;             /* per instruction: how its first data address follows from its text */
    size_t amcap;
    uint8_t *pcflags;       /* per instruction: LF_BR (its text is a branch), LF_NOFAST
                             * (parser side) */
    size_t pcflagscap;
    traza_err *ferr;        /* errors of the modelling/writing side */
    traza_err werr;
    /* worker thread */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int threaded, started, busy, quit, failed;
    int zfast; /* the default back end chose zstd at ITF_ZSTD_FAST (line model) */
    /* early modelling (block model, threads > 1): the parser publishes the lines of
     * the chunk it fills (ek) every EARLY_STEP lines; while it has no complete chunk to
     * write, the worker builds their block instances (build_nodes) */
    wck *ek;
    size_t epub, edone; /* lines published, and those the worker has taken */
    /* per-pc grouping scratch */
    _Alignas(64) uint64_t *pc_gen;
    uint32_t *pc_grp;
    size_t pcg_cap1, pcg_cap2, pcg_init;
    /* index */
    itf_chunk_entry *ix;
    size_t nix, ixcap;
    itf_cache c_orig, c_lossy;
    tz_buf scratch, skel;
    tz_buf paper; /* a paper ITF line in its coded form (itf_paper.c) */
    int exc_zstd; /* the default back end: large exception streams with zstd (itf_write_frames.c) */
    /* chunk 0's streams in packed form: the preset dictionaries of the later chunks */
    tz_buf pre[S_NSTREAMS];
    int have_pre;
    /* encoder state per packing thread: pack_all's two sides (also the two of the
     * line model's final pool), and the block model's dictionary packed in finish()
     * while the worker packs the last chunk */
    itf_packer *pkr[3];
    uint64_t dict_off; /* where the dictionary frame starts */
    pthread_t warm_th; /* warming pkr[0] and pkr[1] while the parse runs */
    int warming;
} wr;

static inline int oom(wr *w) { return traza_err_set(w->err, TRAZA_E_NOMEM, "itf: out of memory"); }
static inline int oomf(wr *w) { return traza_err_set(w->ferr, TRAZA_E_NOMEM, "itf: out of memory"); }

/* A stream to pack (itf_wr_pack_items). */
typedef struct pool_item {
    const tz_buf *in;
    int comp, backend;
    const itf_pre *pre; /* NULL: none */
    tz_buf *form;       /* NULL: not kept */
    tz_buf out;
    size_t cost;
    long k;
    traza_err err;
} pool_item;

/* itf_write_frames.c */
extern const int itf_stream_comp[S_NSTREAMS], itf_dict_comp[D_NSTREAMS];
void itf_wr_warm_start(wr *w);
void itf_wr_warm_join(wr *w);
int itf_wr_write_bytes(wr *w, const void *p, size_t n);
int itf_wr_write_frame(wr *w, tz_buf *payload, int nstreams);
itf_packer *itf_wr_packer(wr *w, int k);
void itf_wr_pack_items(wr *w, pool_item *it, size_t n, itf_packer *a, itf_packer *b);
int itf_wr_pool_collect(wr *w, pool_item *it, size_t n, tz_buf *payload);
void itf_wr_set_items(wr *w, pool_item *it, const tz_buf *bufs, size_t n, const int *comp, uint32_t bzmask,
                      const itf_pre *pre, tz_buf *forms);
int itf_wr_pack_all(wr *w, const tz_buf *bufs, size_t n, const int *comp, uint32_t bzmask, const itf_pre *pre,
                    tz_buf *forms, tz_buf *payload);
int itf_wr_ix_add(wr *w, uint64_t off, uint64_t len, uint64_t nrec, uint64_t nl);
int itf_wr_write_index(wr *w, int nl_missing);

/* itf_write_block.c */
int itf_wr_build_nodes(wr *w, size_t avail, int final);
int itf_wr_flush_gen(wr *w);

/* itf_write_thread.c */
int itf_wr_worker_wait(wr *w);
void itf_wr_worker_stop(wr *w);
int itf_wr_publish(wr *w);
int itf_wr_handoff(wr *w);

/* itf_write_dict.c */
int itf_wr_finish(wr *w, int nl_missing);

#endif

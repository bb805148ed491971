/* ITFComp writer: parses the text, builds dynamic basic blocks, templates, flag sets
 * and per-instruction address codecs chunk by chunk (streaming), writes .tzi. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "itf/itf_internal.h"
#include "util/hex8.h"
#include "util/input.h"

#define MAXMEM 64 /* data addresses a line may have (wline.nmem is one byte) */
/* TZ_GROW with the common case (enough room) checked inline */
#define GROW(arr, cap, need) ((size_t)(need) <= (cap) ? 0 : TZ_GROW(arr, cap, need))
#define NOPC 0xFFFFFFFFu

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
static void warm_start(wr *w)
{
    if (!w->threaded || w->model != 1 || w->o.backend != TRAZA_ITF_XZ)
        return;
    w->pkr[0] = itf_packer_new();
    w->pkr[1] = itf_packer_new();
    if (w->pkr[0] && w->pkr[1] && pthread_create(&w->warm_th, NULL, warm_main, w) == 0)
        w->warming = 1;
}

static void warm_join(wr *w)
{
    if (w->warming)
        pthread_join(w->warm_th, NULL);
    w->warming = 0;
}

static int oom(wr *w) { return traza_err_set(w->err, TRAZA_E_NOMEM, "itf: out of memory"); }
static int oomf(wr *w) { return traza_err_set(w->ferr, TRAZA_E_NOMEM, "itf: out of memory"); }

static int write_bytes(wr *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->out) != n)
        return traza_err_set(w->ferr, TRAZA_E_IO, "itf: write failed: %s", strerror(errno));
    w->off += n;
    return 0;
}

/* Frame: u32 length, u32 crc32, payload. A frame of nstreams streams (0: the index)
 * leaves its empty streams out (itf_frame_compact, format version 7); its stream mask
 * is counted with the index. */
static int write_frame(wr *w, tz_buf *payload, int nstreams)
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
    int rc = h.oom ? oomf(w) : write_bytes(w, h.s, h.len);
    tz_buf_free(&h);
    if (rc == 0)
        rc = write_bytes(w, payload->s, payload->len);
    w->info.comp_bytes[TRAZA_ITF_C_INDEX] += 8;
    return rc;
}

static const int STREAM_COMP[S_NSTREAMS] = {
    TRAZA_ITF_C_SEQUENCE,         TRAZA_ITF_C_FLAGS,         TRAZA_ITF_C_ADDR_HEADERS, TRAZA_ITF_C_ADDR_RAW,
    TRAZA_ITF_C_ADDR_PERIODIC,    TRAZA_ITF_C_ADDR_PATTERN,  TRAZA_ITF_C_ADDR_DISTRIBUTION,
    TRAZA_ITF_C_ADDR_SEQUITUR,    TRAZA_ITF_C_EXCEPTIONS,    TRAZA_ITF_C_SEQUENCE,     TRAZA_ITF_C_NUMBERS,
    TRAZA_ITF_C_ADDR_HEADERS,     TRAZA_ITF_C_ADDR_HEADERS,  TRAZA_ITF_C_ADDR_RAW,     TRAZA_ITF_C_NUMBERS,
    TRAZA_ITF_C_NUMBERS,          TRAZA_ITF_C_NUMBERS,       TRAZA_ITF_C_SEQUENCE};
static const int DICT_COMP[D_NSTREAMS] = {TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_FLAGS,
                                          TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_TEMPLATES, TRAZA_ITF_C_TEMPLATES};

/* The packer of one packing thread, made on first use; NULL (one-shot encoders, the
 * same bytes) if there is no memory for it. */
static itf_packer *packer(wr *w, int k)
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
static void pack_items(wr *w, pool_item *it, size_t n, itf_packer *a, itf_packer *b)
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
static int pool_collect(wr *w, pool_item *it, size_t n, tz_buf *payload)
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
static void set_items(wr *w, pool_item *it, const tz_buf *bufs, size_t n, const int *comp, uint32_t bzmask,
                      const itf_pre *pre, tz_buf *forms)
{
    for (size_t i = 0; i < n; i++)
        it[i] = (pool_item){.in = &bufs[i], .comp = comp[i],
                            .backend = w->o.backend | ((bzmask >> i) & 1 ? ITF_PACK_BZIP2 : 0) |
                                       (w->zfast ? ITF_PACK_ZFAST : 0),
                            .pre = pre ? &pre[i] : NULL, .form = forms ? &forms[i] : NULL};
}

/* Appends the packed streams to payload, in stream order. */
static int pack_all(wr *w, const tz_buf *bufs, size_t n, const int *comp, uint32_t bzmask, const itf_pre *pre,
                    tz_buf *forms, tz_buf *payload)
{
    pool_item it[S_NSTREAMS + D_NSTREAMS];
    set_items(w, it, bufs, n, comp, bzmask, pre, forms);
    pack_items(w, it, n, packer(w, 0), packer(w, 1));
    return pool_collect(w, it, n, payload);
}

static int ix_add(wr *w, uint64_t off, uint64_t len, uint64_t nrec, uint64_t nl)
{
    if (GROW(w->ix, w->ixcap, w->nix + 1) < 0)
        return oomf(w);
    w->ix[w->nix] = (itf_chunk_entry){off, len, nrec, nl, 0};
    w->nix++;
    return 0;
}

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
static int build_nodes(wr *w, size_t avail, int final)
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

static int flush_gen(wr *w)
{
    /* 1. dynamic basic blocks with interrupt records, variants (flag sets) */
    if (build_nodes(w, w->fk->nlines, 1) < 0)
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

static int flush_chunk(wr *w)
{
    if (w->fk->nlines == 0)
        return 0;
    if (w->model == 0 && flush_gen(w) < 0)
        return -1;
    tz_buf payload;
    tz_buf_init(&payload);
    /* Chunk 0 keeps its streams' packed forms; a later chunk's stream is coded with
     * chunk 0's as preset dictionary (format version 5): a chunk still needs only the
     * dictionary frame and chunk 0, and the per-chunk cost of learning the
     * statistics again is mostly gone (dijkstra -11 %, sha -18 %, qsort -40 %). */
    itf_pre pre[S_NSTREAMS];
    for (int k = 0; k < S_NSTREAMS; k++)
        pre[k] = (itf_pre){(const uint8_t *)w->pre[k].s, w->pre[k].len};
    int first = !w->have_pre;
    int rc = pack_all(w, w->fk->s, S_NSTREAMS, STREAM_COMP, 0, first ? NULL : pre, first ? w->pre : NULL, &payload);
    w->have_pre = 1;
    uint64_t off = w->off;
    if (rc == 0)
        rc = write_frame(w, &payload, S_NSTREAMS);
    if (rc == 0)
        rc = ix_add(w, off, payload.len + 8, w->fk->chunk_rec, w->fk->nlines);
    tz_buf_free(&payload);
    for (int k = 0; k < S_NSTREAMS; k++)
        tz_buf_reset(&w->fk->s[k]);
    w->fk->nlines = 0;
    w->fk->nmems = 0;
    w->fk->chunk_rec = 0;
    return rc;
}

/* The pages of the next 2 * EARLY_STEP lines of the chunk being parsed are made
 * here, on the worker (idle most of the parse), ahead of the parser, which otherwise
 * takes their first-touch faults one by one (3,000 for a chunk of 1 Mi lines). Only
 * the page tables change: the parser may be writing the lines meanwhile. */
static void populate_ahead(wr *w, size_t avail)
{
#ifdef MADV_POPULATE_WRITE
    size_t to = avail + 2 * EARLY_STEP;
    if (to > w->fk->lcap)
        to = w->fk->lcap;
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t pg = ps > 0 && !(ps & (ps - 1)) ? (uintptr_t)ps : 0;
    uintptr_t a = (uintptr_t)(w->fk->lines + avail) & ~(pg - 1), b = (uintptr_t)(w->fk->lines + to);
    if (pg && b > a)
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE); /* a hint: errors change nothing */
#else
    (void)w, (void)avail;
#endif
}

/* Worker thread: models and writes the chunk handed over in fk while the calling
 * thread parses the next one into pk; while it has no complete chunk, it builds the
 * block instances of the lines published so far (early modelling). Chunks are written
 * in order, by the same code as without the thread, so the output does not depend on
 * the thread count. */
static void *worker_main(void *arg)
{
    wr *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->busy && !w->quit && w->epub <= w->edone)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->busy) { /* a complete chunk first: the chunks are modelled in order */
            pthread_mutex_unlock(&w->mu);
            int rc = w->failed ? 0 : flush_chunk(w);
            pthread_mutex_lock(&w->mu);
            if (rc < 0)
                w->failed = 1;
            w->busy = 0;
            pthread_cond_broadcast(&w->cv);
        } else if (w->epub > w->edone) {
            size_t avail = w->edone = w->epub;
            w->fk = w->ek;
            pthread_mutex_unlock(&w->mu);
            populate_ahead(w, avail);
            int rc = w->failed ? 0 : build_nodes(w, avail, 0);
            pthread_mutex_lock(&w->mu);
            if (rc < 0)
                w->failed = 1;
        } else
            break;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Waits until the worker is idle; -1 (with its error) if it failed. */
static int worker_wait(wr *w)
{
    if (!w->started)
        return 0;
    pthread_mutex_lock(&w->mu);
    while (w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    int failed = w->failed;
    pthread_mutex_unlock(&w->mu);
    if (failed) {
        *w->err = w->werr;
        return -1;
    }
    return 0;
}

static void worker_stop(wr *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    while (w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->started = 0;
}

static int worker_start(wr *w)
{
    if (w->started)
        return 0;
    w->ferr = &w->werr;
    traza_err_clear(&w->werr);
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        return traza_err_set(w->err, TRAZA_E_IO, "itf: cannot create a mutex");
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        return traza_err_set(w->err, TRAZA_E_IO, "itf: cannot create a condition variable");
    }
    if (pthread_create(&w->th, NULL, worker_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return traza_err_set(w->err, TRAZA_E_IO, "itf: cannot start the worker thread");
    }
    w->started = 1;
    return 0;
}

/* Every EARLY_STEP lines of a block-model chunk: the lines so far go to the worker.
 * FreeRTOS (one chunk of 1 M lines) takes 29 ms to parse and 17 ms to model: this
 * way most of the modelling runs beside the parse, not after it. */
static int publish(wr *w)
{
    if (!w->threaded || w->model != 0 || w->o.chunk > EARLY_MAX_CHUNK)
        return 0;
    if (w->epub == 0 && GROW(w->pk->lines, w->pk->lcap, w->o.chunk) < 0) /* not read yet */
        return oom(w);
    if (worker_start(w) < 0)
        return -1;
    pthread_mutex_lock(&w->mu);
    w->ek = w->pk;
    w->epub = w->pk->nlines;
    int failed = w->failed;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (failed) {
        *w->err = w->werr;
        return -1;
    }
    return 0;
}

/* The parsed chunk is complete: model and write it (on the worker when threaded). */
static int handoff(wr *w)
{
    if (w->pk->nlines == 0)
        return 0;
    if (GROW(w->pk->am, w->pk->amcap, w->npc + 1) < 0)
        return oom(w);
    if (w->npc)
        memcpy(w->pk->am, w->am, w->npc * sizeof *w->am);
    if (!w->threaded) {
        w->fk = w->pk;
        w->fk->npc = w->npc;
        int rc = flush_chunk(w);
        w->pk->chunkno = ++w->pchunk;
        return rc;
    }
    warm_join(w);
    if (worker_start(w) < 0 || worker_wait(w) < 0)
        return -1;
    pthread_mutex_lock(&w->mu);
    /* the free buffer: fk is the chunk written last, or pk if the worker has begun
     * to model it early */
    wck *t = w->fk == w->pk ? &w->ck[w->pk == &w->ck[0]] : w->fk;
    if (w->fk != w->pk) /* (not written while the worker may read it) */
        w->fk = w->pk;
    w->fk->npc = w->npc;
    w->busy = 1;
    w->epub = w->edone = 0;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    w->pk = t;
    w->pk->chunkno = ++w->pchunk;
    return 0;
}

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
        return handoff(w);
    if ((w->pk->nlines & (EARLY_STEP - 1)) == 0)
        return publish(w);
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
    if (rs && (w->pk->chunk_rec >= w->o.chunk || w->pk->nlines >= 4 * (size_t)w->o.chunk) && handoff(w) < 0)
        return -1;
    if (!rs && w->pk->nlines >= 16 * (size_t)w->o.chunk && handoff(w) < 0)
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
    warm_join(w);
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
}

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

static int write_index(wr *w, int nl_missing);

/* The line model's last chunk and dictionary, packed as one list (pack_items). Packing
 * the chunk on the worker, split with a helper thread, while this thread packs the
 * dictionary would run three threads on two cores, each with a fresh encoder (1-1.5
 * ms of page faults each). */
static int finish_lines(wr *w, int nl_missing)
{
    warm_join(w);
    if (worker_wait(w) < 0) /* the chunks before the last one are written */
        return -1;
    worker_stop(w);
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
    set_items(w, it, ck->s, nck, STREAM_COMP, 0, first ? NULL : pre, first ? w->pre : NULL);
    set_items(w, it + nck, w->d, D_NSTREAMS, DICT_COMP, 1u << D_TEXT, NULL, NULL);
    pack_items(w, it, nck + D_NSTREAMS, packer(w, 0), packer(w, 1));
    tz_buf payload;
    tz_buf_init(&payload);
    int rc = 0;
    if (nck) {
        uint64_t off = w->off;
        rc = pool_collect(w, it, nck, &payload);
        w->have_pre = 1;
        if (rc == 0)
            rc = write_frame(w, &payload, S_NSTREAMS);
        if (rc == 0)
            rc = ix_add(w, off, payload.len + 8, ck->chunk_rec, ck->nlines);
        tz_buf_reset(&payload);
    }
    w->dict_off = w->off;
    if (pool_collect(w, it + nck, D_NSTREAMS, &payload) < 0) /* (frees them either way) */
        rc = -1;
    if (rc == 0)
        rc = write_frame(w, &payload, D_NSTREAMS);
    tz_buf_free(&payload);
    return rc < 0 ? -1 : write_index(w, nl_missing);
}

static int finish(wr *w, int nl_missing)
{
    if (w->model == 1 && w->threaded)
        return finish_lines(w, nl_missing);
    if (handoff(w) < 0)
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
    set_items(w, dj, w->d, early, DICT_COMP, 1u << D_TEXT, NULL, NULL);
    pack_items(w, dj, early, packer(w, 2), NULL);
    if (worker_wait(w) < 0 || rc < 0) {
        for (size_t i = 0; i < early; i++)
            tz_buf_free(&dj[i].out);
        free(rank);
        return -1;
    }
    worker_stop(w);
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
    rc = pool_collect(w, dj, early, &payload);
    if (rc == 0 && early < D_NSTREAMS) /* the rest, after the texts */
        rc = pack_all(w, w->d + early, D_NSTREAMS - early, DICT_COMP + early, early ? 0 : 1u << D_TEXT, NULL, NULL,
                      &payload);
    if (rc == 0)
        rc = write_frame(w, &payload, D_NSTREAMS);
    tz_buf_free(&payload);
    return rc < 0 ? -1 : write_index(w, nl_missing);
}

/* The index frame (chunk offsets, statistics) and the footer. */
static int write_index(wr *w, int nl_missing)
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
    rc = write_frame(w, &payload, 0);
    if (rc < 0)
        goto out;
    tz_buf_reset(&payload);
    itf_put_u64le(&payload, index_off);
    itf_put_u64le(&payload, w->dict_off);
    itf_put_u32le(&payload, (uint32_t)crc32(0, (const Bytef *)payload.s, 16));
    tz_buf_put(&payload, ITF_FOOT_MAGIC, 4);
    rc = payload.oom ? oom(w) : write_bytes(w, payload.s, payload.len);
    w->info.file_size = w->off;
    itf_info_index_rest(&w->info);
out:
    tz_buf_free(&payload);
    return rc;
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
    w->model = w->dialect == TRAZA_ITF_GEN ? 0 : 1;
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
    }
    warm_start(w);
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
        if (write_bytes(w, h, sizeof h) < 0)
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
        if (w->model == 0) {
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
                    if ((w->model == 0 ? add_line_gen(w, buf + start, end - start)
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
        if ((w->model == 0 ? add_line_gen(w, buf + start, n) : add_line_text(w, buf + start, n)) < 0)
            goto done;
        start += n + 1;
    }
    if (finish(w, nl_missing) < 0)
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
    worker_stop(w);
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

/* ITFComp internals shared by the writer, the reader and the fuzz harnesses. */
#ifndef TZ_ITF_INTERNAL_H
#define TZ_ITF_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "traza/itf.h"
#include "util/util.h"
#include "itf/itf_sem.h"
#include "itf/itf_version.h"

#define ITF_MAGIC "TZI\x1a"
#define ITF_FOOT_MAGIC "TZIE"
#define ITF_MAX_NEST 32            /* interrupt nesting depth (writer); reader accepts 64 */
#define ITF_HEADER_SIZE 16
#define ITF_FOOTER_SIZE 24
#define NOPC 0xFFFFFFFFu /* the instruction of a verbatim (exception) line: none */

/* A chunk in the index: its frame's offset and length (header included), its records
 * (instructions) and lines as written in the file, and the records of the chunks
 * before it (the reader's sum, which extract searches). */
typedef struct itf_chunk_entry {
    uint64_t off, len, nrec, nlines;
    uint64_t rec_before;
} itf_chunk_entry;
/* The header check (bytes 10..11): the low 16 bits of the CRC-32 of the header with
 * those two bytes as zero, a 0 written as 0xffff (0 is a header without a check). */
uint16_t itf_header_check(const uint8_t *h);
#define ITF_MAX_RAW (256u << 20)     /* largest decoded stream accepted */
#define ITF_MAX_BLOCK 512            /* instructions per dynamic basic block (cap) */
/* Default instructions per chunk, by model. The block model's adaptive state (the
 * successor lists, the address groups and their first addresses and codecs) starts
 * afresh in every chunk: 1 Mi instructions instead of 256 Ki make the generated traces
 * 2-56 % smaller, and an extract there counts the block instances before its lines
 * instead of decoding them (about 1 ms per million instructions). The line model's extract decodes every line before the wanted one,
 * and its chunks stay at 256 Ki records. */
#define ITF_DEFAULT_CHUNK_BLOCKS 1048576
#define ITF_DEFAULT_CHUNK_LINES 262144

/* Per-chunk streams. */
enum {
    S_SEQ = 0, S_FLG, S_MEMH, S_ARAW, S_APER, S_APAT, S_ADIST, S_ASEQ, S_EXC, S_SKL, S_NUM, S_MPC, S_MA0, S_AOFF, S_NUM1, S_NUM2, S_NUM3, S_INT,
    S_NSTREAMS
};
/* Dictionary streams. */
enum { D_TEXT = 0, D_BLOCK, D_VAR, D_SKEL, D_TPC, D_TLEN, D_NSTREAMS };

/* Line flags in a block variant. */
enum { LF_CCFAIL = 1, LF_EXC = 2 };

/* Equality of two short byte strings, 8 bytes at a time (no library call). */
static inline int itf_eq(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    while (n >= 8) {
        uint64_t u, v;
        memcpy(&u, x, 8);
        memcpy(&v, y, 8);
        if (u != v)
            return 0;
        x += 8, y += 8, n -= 8;
    }
    while (n--)
        if (*x++ != *y++)
            return 0;
    return 1;
}

/* Character classes of the line tokenizer (ASCII letters and digits; hex digits). */
static inline int itf_alnum(unsigned c) { return (c - '0' < 10u) | ((c | 0x20) - 'a' < 26u); }
/* Walking a skeleton: at k[i] a number placeholder (0x01 KIND WIDTH) takes 3 bytes, an
 * escaped 0x01 (0x01 0x00) 2, any other byte 1. */
static inline int itf_skel_isnum(const uint8_t *k, size_t len, size_t i)
{
    return k[i] == 1 && i + 2 < len && k[i + 1] != 0;
}
static inline size_t itf_skel_step(const uint8_t *k, size_t len, size_t i)
{
    return k[i] != 1 || i + 1 >= len ? 1 : k[i + 1] == 0 ? 2 : 3;
}
static inline int itf_hexdigit(unsigned c) { return (c - '0' < 10u) | ((c | 0x20) - 'a' < 6u); }

/* ---- varints ---- */
void itf_put_uv(tz_buf *b, uint64_t v);
void itf_put_sv(tz_buf *b, int64_t v);
/* LEB128 of v into o (at most 10 bytes); returns the length. */
size_t itf_put_uv_at(uint8_t *o, uint64_t v);
void itf_put_u32le(tz_buf *b, uint32_t v);
void itf_put_u64le(tz_buf *b, uint64_t v);
typedef struct itf_rd {
    const uint8_t *p, *end;
    int bad;
} itf_rd;
uint64_t itf_get_uv(itf_rd *r);
/* An open-addressed index over n entries `stride` bytes apart whose first field is a
 * uint64_t key: cap (a power of two above n) slots holding positions + 1 (0: empty),
 * each entry probed from slot (key >> shift) on. NULL when out of memory. */
uint32_t *itf_oaix_build(const void *ents, size_t n, size_t stride, int shift, size_t cap);
/* Zig-zag: signed values as unsigned, small magnitudes small (sv is uv of itf_zz). */
static inline uint64_t itf_zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t itf_unzz(uint64_t z) { return (int64_t)(z >> 1) ^ -(int64_t)(z & 1); }
int64_t itf_get_sv(itf_rd *r);
uint32_t itf_rd_u32le(const uint8_t *p);
uint64_t itf_rd_u64le(const uint8_t *p);

/* ---- entropy back end ---- */
/* The same stream of chunk 0, in the form that was packed (the bytes the back end
 * coded: the stream itself or its zero-run form): from version 5 on, the back end
 * codes the stream of every later chunk with it as a preset dictionary. */
typedef struct itf_pre {
    const uint8_t *p;
    size_t n;
} itf_pre;
/* Encoder state reused from one packed stream to the next (one thread at a time). */
typedef struct itf_packer itf_packer;
itf_packer *itf_packer_new(void);
void itf_packer_free(itf_packer *pk);
/* Touches the memory of the packer's LZMA encoder (for streams of up to 128 KiB)
 * before its first real stream; the bytes it packs later do not change. */
void itf_packer_warm(itf_packer *pk);
/* Appends method byte, raw length, packed length, data. Falls back to stored when
 * packing does not help. pre (NULL or empty: none) is the preset dictionary; form
 * (NULL: not wanted) receives a copy of the packed form. Returns the packed size
 * written (incl. header) or -1. pk (NULL: none) keeps encoder memory between calls
 * on one thread; the bytes do not depend on it. */
long itf_pack_stream(itf_packer *pk, int backend, const uint8_t *in, size_t n, const itf_pre *pre, tz_buf *form, tz_buf *out,
                     traza_err *err);
/* Or'ed into itf_pack_stream's backend (the dictionary's instruction texts): with the
 * xz back end, bzip2 is tried too and kept when smaller (version 5, method 3). */
#define ITF_PACK_BZIP2 0x100
/* Or'ed into a zstd backend: level ITF_ZSTD_FAST instead of 19 (the line model's
 * default back end, TRAZA_ITF_AUTO). */
#define ITF_PACK_ZFAST 0x200
#define ITF_ZSTD_FAST 7
/* zstd decoding contexts kept for a reader's next streams, shared by its threads.
 * Making a ZSTD_DCtx runs cpuid (zstd looks for BMI2 every time), which traps to the
 * hypervisor on a VM: 3 x 5 us per stream, 2 % of a Tarmac decompression. A zeroed pool is valid (and empty); NULL: no pool. */
#define ITF_ZPOOL 4
typedef struct itf_zpool {
    pthread_mutex_t mu;
    int ok;             /* mu initialised */
    int n;              /* idle contexts in d */
    void *d[ITF_ZPOOL];
} itf_zpool;
void itf_zpool_init(itf_zpool *p);
void itf_zpool_free(itf_zpool *p);
/* Reads one stream from r; *out is malloc'd (n bytes, +1 NUL). version: the file's
 * (4: zero-run forms, method bit 0x80; 5: preset dictionaries, bit 0x40, taken from
 * pre). form (NULL: not wanted): the packed form, malloc'd (nform bytes); with out NULL
 * only the form is made. zp: see itf_zpool. */
int itf_unpack_stream(itf_zpool *zp, itf_rd *r, int version, const itf_pre *pre, uint8_t **out, size_t *n,
                      size_t *packed,
                      uint8_t **form, size_t *nform, traza_err *err);
/* The stream at r is coded with a preset dictionary (version 5, method bit 0x40). */
int itf_stream_wants_pre(const itf_rd *r, int version);
/* Moves r past one stream without decoding it; -1 when its header or data is cut. */
int itf_skip_stream(itf_rd *r);
/* Version 7 stream frames (chunks, dictionary) leave their empty streams out: the
 * payload starts with a uv mask whose bit k says that stream k follows; a stream whose
 * bit is clear is empty (stored, no byte). itf_frame_compact turns the writer's payload
 * of nstreams streams into that form (the mask's length in bytes; -2 when out of
 * memory, -1 when the payload does not hold nstreams streams); itf_frame_expand turns a read
 * one back into the full form, every stream with its header (-1 with err when
 * corrupt). */
int itf_frame_compact(tz_buf *payload, int nstreams);
/* p[0..n) is a packed empty stream (stored, 0 bytes: 00 00 00), left out of a frame. */
int itf_stream_empty(const uint8_t *p, size_t n);
int itf_frame_expand(uint8_t **payload, size_t *n, int nstreams, traza_err *err);

/* ---- byte-key hash map (key -> dense id) ---- */
typedef struct itf_kmap {
    uint32_t *slots;      /* id+1, 0 = empty */
    size_t cap;
    uint8_t *keys;        /* arena */
    size_t klen, kcap;
    uint64_t *koff;       /* offset of key id in arena; koff[id+1]-koff[id] = length */
    uint64_t *khash;
    size_t count, offcap, hcap;
} itf_kmap;
void itf_kmap_init(itf_kmap *m);
void itf_kmap_free(itf_kmap *m);
/* Returns the id (existing or new; *isnew set) or -1 on out of memory. */
long itf_kmap_intern(itf_kmap *m, const void *key, size_t len, int *isnew);
const uint8_t *itf_kmap_key(const itf_kmap *m, size_t id, size_t *len);

/* ---- dialects ---- */
/* Strict parse of a generated-ITF line. Returns 1 and fills the fields when the line
 * re-renders byte-exact from them; 0 otherwise. mems receives up to maxmem addresses. */
typedef struct itf_genline {
    uint32_t pc;
    const char *text;
    size_t textlen;
    int ccfail;
    size_t nmem;
} itf_genline;
int itf_gen_parse(const char *line, size_t len, itf_genline *g, uint32_t *mems, size_t maxmem);
/* s[0..8) as 8 lower-case hex digits (the only form that comes back byte for byte):
 * 0 with *v set, -1 otherwise. */
int itf_hex8(const char *s, uint32_t *v);
/* v as 8 lower-case hex digits at o[0..8). */
void itf_put_hex8(char *o, uint32_t v);
/* Just the leading 0x<8 hex> pc, or -1. */
int itf_gen_pc(const char *line, size_t len, uint32_t *pc);
/* Renders a gen line into b. */
void itf_gen_render(tz_buf *b, uint32_t pc, const char *text, size_t textlen, const uint32_t *mems,
                    size_t nmem, int ccfail);

/* The length of a text's mnemonic: up to the first space or '.' (a .w/.n width). */
size_t itf_mnemonic_len(const char *text, size_t len);
/* Does the instruction text (gen dialect disassembly) change the flow (branch, call,
 * return, write to pc)? Used only to guess interrupt cut-in points. */
int itf_text_is_branch(const char *text, size_t len);
/* A direct branch (itf_text_is_branch, not svc) whose text ends in " #0x<hex>" (lower
 * case, no leading zeros, 1-8 digits): 1 with the target in *v and the offset of the
 * "0x" in *at, else 0. (Version 3 stores such targets apart, version 8 predicts blocks
 * with them.) */
int itf_text_target(const char *text, size_t len, uint64_t *v, size_t *at);
/* A pc-relative load's offset "[pc, #0x<hex>]" (lower case, no leading zeros, 1-8
 * digits): 1 with its value in *v, the offset of the "0x" in *at and of the "]" in
 * *end, else 0. (Version 8 stores such offsets apart, as the literal's address.) */
int itf_text_literal(const char *text, size_t len, uint64_t *v, size_t *at, size_t *end);

/* ---- version 8 block dictionary (itf_blockdict.c) ---- */
#define ITF_NORANK 0xFFFFFFFFu
/* What the texts (in address order) say of each instruction, and the coders' state. */
typedef struct itf_iclass {
    size_t n;
    uint8_t *br;      /* may end a block (itf_text_is_branch) */
    uint32_t *tgt;    /* rank of a direct branch's target, or ITF_NORANK */
    uint8_t *na;      /* data addresses its text suggests */
    uint32_t *nbr;    /* branches among ranks [0, r) (n + 1 entries) */
    uint32_t *blist;  /* the ranks of the branches, ascending */
    uint32_t nblist;
    uint8_t *lastna;  /* address count of its last variant (0xFF: none yet) */
    uint32_t nextb;   /* 1 + the largest block id a variant named */
} itf_iclass;
/* Rank of address a in the ascending pc[0..n), or ITF_NORANK. */
uint32_t itf_rank_of(const uint32_t *pc, size_t n, uint64_t a);
int itf_iclass_build(itf_iclass *c, const uint8_t *const *text, const uint32_t *len, const uint32_t *pc, size_t n);
void itf_iclass_free(itf_iclass *c);
/* One block of ranks rk[0..n) (rk[0] == ITF_NORANK: a verbatim line), after the block
 * whose last rank was prev (ITF_NORANK for none); get: -1 when corrupt, rk has room
 * for ITF_MAX_BLOCK. */
void itf_block_put(tz_buf *b, const itf_iclass *c, const uint32_t *rk, size_t n, uint32_t prev);
int itf_block_get(itf_rd *d, const itf_iclass *c, uint32_t prev, uint32_t *rk, size_t *n);
/* How an instruction's first data address follows from its text and pc (MA0). */
typedef struct itf_am {
    uint32_t pc;
    int32_t off;   /* the address: base register + off (kind 1), literal pool pc + off (kind 2) */
    int32_t after; /* wb 2: the base register becomes the address + after */
    uint8_t kind;  /* 0 unknown, 1 a base register, 2 pc-relative */
    uint8_t reg;   /* 0-15 (sb 9, sl 10, fp 11, ip 12, sp 13, lr 14) */
    uint8_t wb;    /* 0 the base stays, 1 becomes the address, 2 the address + after */
} itf_am;
void itf_amode(const char *text, size_t len, uint32_t pc, itf_am *am);
/* The registers' values as the first addresses of a chunk's address groups tell them,
 * in the groups' order; zeroed at a chunk's start. */
typedef struct itf_ma0 {
    uint32_t base[16];
    uint32_t prev;   /* the previous group's first address */
    uint16_t known;  /* base[k] is set */
    uint8_t thumb;   /* pc-relative loads were Thumb's (pc + 4 aligned down to 4) */
} itf_ma0;
uint32_t itf_ma0_pred(const itf_ma0 *m, const itf_am *am);
void itf_ma0_update(itf_ma0 *m, const itf_am *am, uint32_t a0);
/* The MA0 entry of a0 (uv), and a0 back from one (then updated both ways). */
uint64_t itf_ma0_code(itf_ma0 *m, const itf_am *am, uint32_t a0);
uint32_t itf_ma0_decode(itf_ma0 *m, const itf_am *am, uint64_t v);
/* Version 8 TPC: the predicted size (2 or 4) of the instruction of text t, and the
 * ARM/Thumb state after a gap that followed it; the entry is zigzag(gap - size). */
uint32_t itf_isize_pred(uint8_t arm, const char *t, size_t n);
void itf_isize_update(uint8_t *arm, const char *t, size_t n, uint64_t gap);
/* One variant: its block id, then per line its flags and address count. */
void itf_var_put_block(tz_buf *b, itf_iclass *c, uint32_t bid);
long itf_var_get_block(itf_rd *d, itf_iclass *c, size_t nblk);
void itf_var_put_line(tz_buf *b, itf_iclass *c, uint32_t rank, uint8_t flags, uint32_t naddr);
int itf_var_get_line(itf_rd *d, itf_iclass *c, uint32_t rank, uint8_t *flags, uint32_t *naddr);

/* Is this line the start of a record (an instruction) for the dialect? */
int itf_is_record_start(int dialect, const char *line, size_t len);

/* Generic line model: skeleton (literal bytes with 0x01 KIND WIDTH placeholders;
 * a literal 0x01 is 0x01 0x00) and numbers. Returns the number of numbers. */
enum {
    NK_DEC = 1, NK_DECW, NK_HEXL, NK_HEXU,
    /* version 4: width-free kinds (the width byte is the field width for NK_DECR, 1
     * for the others) */
    NK_DECR, /* decimal right-aligned in a field of spaces */
    NK_HEXV, /* 0x number without leading zeros, lower case */
    NK_HEXVU /* the same, upper case */
};
#define ITF_MAX_NUMS 256
size_t itf_tokenize(const char *line, size_t len, tz_buf *skel, uint64_t *nums);
/* The same, the skeleton appended to skel (its length grows by the line's skeleton's). */
size_t itf_tokenize_append(const char *line, size_t len, tz_buf *skel, uint64_t *nums);

/* ---- the line tokenizer on a thread of its own (itf_tokq.c) ---- */
typedef struct itf_tokq itf_tokq;
typedef struct itf_tokline {
    const uint8_t *skel;   /* the line's skeleton (valid until the next call) */
    size_t skel_len;
    const uint64_t *nums;  /* its numbers */
    size_t nn;
    size_t len;            /* the line's length, its newline not counted */
    int newline;           /* 1 when a newline ended it (0: the text's last line) */
} itf_tokline;
/* Starts tokenizing the lines of text[0..n) (which stays readable until
 * itf_tokq_stop); NULL when no thread or memory is to be had. */
itf_tokq *itf_tokq_start(const char *text, size_t n);
/* The next line: 1, 0 after the last one, -1 when the tokenizer ran out of memory. */
int itf_tokq_next(itf_tokq *q, itf_tokline *l);
/* Stops the thread (at any point) and frees everything; q may be NULL. */
void itf_tokq_stop(itf_tokq *q);
/* Renders a skeleton with numbers; returns 0, or -1 if the skeleton is malformed or
 * needs more than nnums numbers. *used = numbers consumed. */
int itf_skel_count(const uint8_t *skel, size_t len, size_t *nnums);
/* The first place of printable literal text z in a skeleton, or -1; *slot (when not
 * NULL): the numbers before it. */
long itf_skel_find(const uint8_t *skel, size_t len, const char *z, int *slot);
int itf_skel_render(tz_buf *b, const uint8_t *skel, size_t len, const uint64_t *nums, size_t nnums);
/* The skeleton dictionary, front-coded (version 6; itf_skeldict.c): appends the
 * skeletons of m (in id order) to out; -1 on out of memory. */
int itf_skels_front(tz_buf *out, const itf_kmap *m);
/* Back to the layout of version 5 (uv length, bytes) appended to out; -1 with *why
 * (NULL: out of memory) on a corrupt entry. */
int itf_skels_unfront(const uint8_t *in, size_t n, tz_buf *out, const char **why);

/* Skeletons compiled for rendering: see itf_render.c. */
#define ITF_PROG_PAD 32
int itf_skel_compile(tz_buf *prog, const uint8_t *skel, size_t len, size_t *maxout);
/* Renders a compiled skeleton at o (room for its maxout + ITF_PROG_PAD bytes); the
 * number of bytes of the line. */
size_t itf_prog_render(char *o, const uint8_t *prog, const uint64_t *nums);
/* The same at the end of b, with room (maxout + ITF_PROG_PAD + 1) reserved first; -1
 * when out of memory (b->oom then). */
int itf_prog_append(tz_buf *b, const uint8_t *prog, size_t room, const uint64_t *nums);

/* ---- a stream unpacked in steps (itf_pack.c) ---- */
typedef struct itf_sunpack {
    int method, zrun;      /* zrun: out holds the zero-run form (itf_zrun_reader reads it) */
    const uint8_t *in;     /* the packed bytes */
    size_t len, raw, done; /* packed length, stored length, bytes of out decoded so far */
    int finished;          /* all of it decoded and its end checked */
    uint8_t *out;          /* raw + 1 bytes (malloc'd, the caller frees it) */
    void *xz;              /* lzma_stream of an xz stream, from its first step on */
    itf_pre pre;           /* the preset dictionary */
    itf_zpool *zp;         /* where a zstd stream takes its context (NULL: a new one) */
} itf_sunpack;
/* Reads the stream header at r (r then follows the stream) and allocates out; stored
 * streams are complete at once, the decoder of the others is set up by their first
 * step (on whichever thread takes it). -1 with err on a bad header or out of memory (out may
 * then need freeing). */
int itf_sunpack_init(itf_sunpack *s, itf_zpool *zp, itf_rd *r, int version, const itf_pre *pre, traza_err *err);
/* Decodes until done >= upto (the whole stream when upto >= raw, which also checks its
 * end); -1 with err when the stream is corrupt. */
int itf_sunpack_step(itf_sunpack *s, size_t upto, traza_err *err);
/* Frees the decoder state (not out). */
void itf_sunpack_end(itf_sunpack *s);

/* A reader of varints that are either plain or in zero-run form ((run of zeros, next
 * nonzero value)*, then the last run): the zero runs are counted down, never
 * expanded. itf_zrun_reader_start reads the first run. */
typedef struct itf_zrun_reader {
    const uint8_t *p, *end;
    uint64_t zeros; /* zero values due before the next stored one */
    int zrun, bad;
} itf_zrun_reader;
static inline void itf_zrun_reader_start(itf_zrun_reader *r, const uint8_t *p, size_t n, int zrun)
{
    itf_rd d = {p, p + n, 0};
    r->zeros = zrun && n ? itf_get_uv(&d) : 0;
    r->p = d.p, r->end = d.end, r->zrun = zrun, r->bad = d.bad;
}
/* The rare cases of itf_zrun_reader_get: a value or run of more than one byte, the end. */
uint64_t itf_zrun_reader_slow(itf_zrun_reader *r);
static inline uint64_t itf_zrun_reader_get(itf_zrun_reader *r)
{
    /* (the common cases touch only what they need: a value of a run is one decrement) */
    if (r->zrun) {
        if (r->zeros) {
            r->zeros--;
            return 0;
        }
        const uint8_t *p = r->p;
        if (p + 1 < r->end && (p[0] | p[1]) < 0x80 && p[0]) { /* both one byte */
            r->zeros = p[1];
            r->p = p + 2;
            return p[0];
        }
    } else {
        const uint8_t *p = r->p;
        if (p < r->end && *p < 0x80) /* most values are one byte (most are 0) */
            return r->p = p + 1, *p;
    }
    return itf_zrun_reader_slow(r);
}

/* Sets the index component to the file's bytes the others do not account for. */
void itf_info_index_rest(traza_itf_info *f);

/* ---- line model number prediction (itf_npred.c) ---- */
#define ITF_NP_COLS 32
#define ITF_NP_PRED 8   /* candidates of version 4; versions 2-3 use the first 4 */
#define ITF_NP_HITK 512 /* version 7: the charge of a candidate that missed a hit (32 bits) */
#ifndef ITF_NP_SEMB
#define ITF_NP_SEMB 600 /* version 9: the head start of a semantic prediction over the others */
#endif
/* Version 4 contexts: a line context per (record pc, line of the record) holds the
 * skeleton last seen there and a range of slot entries (one per number) in an arena. */
typedef struct itf_npx {
    uint64_t last;       /* the slot's last value in this context */
    uint16_t cost[ITF_NP_PRED]; /* running costs stay below 8200 */
    uint8_t seen;        /* 1 once a value was seen */
} itf_npx;
typedef struct itf_npl {
    uint64_t key;        /* never 0 */
    uint32_t off;        /* first slot entry in the arena */
    uint32_t skel;       /* skeleton last seen here */
    uint16_t nslot;      /* slot entries in the range */
    uint8_t skseen;      /* 1 once a skeleton was seen */
    uint32_t next;       /* the context entered after this one last time, + 1 (0: none) */
} itf_npl;
/* A skeleton's place in the model, one entry per skeleton: every line reads most of
 * these fields, which eight arrays would spread over eight cache lines. */
typedef struct itf_npk {
    uint64_t gen;           /* chunk stamp of its slots' state (older: reset at first use) */
    uint32_t base, nn;      /* its first slot in last/cost, its number of slots */
    uint32_t cls;           /* its class (cls_last, cls_gen) */
    uint32_t memcls;        /* v4: its access class (LD = ST, MR<n> = MW<n>), else 0 */
    int16_t pcslot;         /* slot of the record's pc in a record-start skeleton, or -1 */
    int16_t memslot;        /* v4: address slot of a memory access line, or -1 */
    uint8_t rs;             /* the skeleton starts a record */
} itf_npk;
typedef struct itf_np {
    int version;
    int v4;                 /* version 4 model: record contexts, skeleton prediction */
    int v10;                /* version 10: a right semantic prediction is coded 0, the costs left as they were */
    uint16_t hitk;          /* version 7: what a hit charges each candidate that missed (0: the
                             * exact count always, versions 2-6) */
    int dc;                 /* the skeleton slot costs' decay, c -= c >> dc per number (3;
                             * version 7: 2; the context's is always >> 3) */
    size_t nskel, nslots;
    itf_npk *sk;            /* per skeleton */
    itf_kmap memclasses;
    uint64_t *last;         /* per slot */
    uint16_t *cost;         /* ITF_NP_PRED running costs per slot (below 8200) */
    uint64_t *cls_last, *cls_gen;
    size_t c1, c5, c6, c7, c8;
    itf_kmap classes;
    uint64_t prev[ITF_NP_COLS];
    size_t prevn;
    uint64_t chunk;         /* stamp of the current chunk start (per-skeleton state older than it is reset) */
    /* v4 context table, cleared per chunk: the contexts in the order they were
     * created, found through an open-addressing index of their positions + 1 */
    itf_npl *tab;
    uint32_t *tix;
    size_t tcap, tcount, dcap; /* index slots, contexts, room in tab */
    itf_npx *slots;         /* arena of slot entries */
    size_t nslot, scap;
    uint64_t rpc, rpch;     /* pc of the current record (0 before the first), its hash */
    uint32_t rline;         /* lines since the record started */
    itf_npl *curl;          /* line context of the numbers being coded */
    /* v4 memory map: hash of (access class, slot, address) -> last value, open
     * addressing on the hash itself (key 0 = empty), cleared per chunk */
    struct itf_npm { uint64_t key, val; } *mtab;
    size_t mcap, mcount;
    /* itf_np_predict's state for itf_np_update (the line functions keep theirs) */
    struct itf_npst {
        uint64_t p[ITF_NP_PRED]; /* candidates of the number being coded */
        uint64_t mkey;           /* its key in the memory map, or 0 */
        size_t mslot;            /* its entry in mtab, found by the prediction */
        uint64_t mhash;          /* the line's address, mixed (for the keys of its numbers) */
        uint64_t pred;           /* the prediction chosen (version 7: a hit is charged apart) */
        int sem;                 /* candidate 7 is a semantic prediction (version 9) */
    } st;
    itf_sem sem;            /* version 9, Tarmac: the semantic predictor (candidate 7) */
} itf_np;
/* A predictor for files of format `version` (the model changed at 3, 4 and 7). */
/* the line model's cold paths (itf_npred.c), for its line steps (itf_npline.c) */
itf_npl *itf_np_ctx_find(itf_np *np, uint64_t key);
int itf_np_ctx_grow(itf_np *np, size_t need);
int itf_np_mem_grow(itf_np *np, size_t more);
int itf_np_slot_grow(itf_np *np, size_t need);
/* The line model's small helpers, for its state (itf_npred.c) and its line steps
 * (itf_npline.c). */
static inline void itf_np_set_rpc(itf_np *np, uint64_t pc)
{
    np->rpc = pc;
    np->rpch = tz_hash_u64(pc + 0x9E3779B97F4A7C15ull);
}

/* Room for `more` new line contexts, the index at a load of at most one half
 * (itf_npl pointers do not survive it). Checked every line: the test inline. */
static inline int itf_np_ctx_reserve(itf_np *np, size_t more)
{
    size_t need = np->tcount + more;
    return need <= np->dcap && need * 2 <= np->tcap ? 0 : itf_np_ctx_grow(np, need);
}

/* Room for `more` slot entries in the arena (its offsets stay valid). */
static inline int itf_np_slot_reserve(itf_np *np, size_t more)
{
    return np->nslot + more <= np->scap ? 0 : itf_np_slot_grow(np, np->nslot + more);
}

/* The entry of key (never 0): its own or the empty one where it would go. The keys
 * are hashes already, so their bits place them. */
static inline size_t itf_np_mem_find(const itf_np *np, uint64_t key)
{
    size_t m = np->mcap - 1, i = (size_t)(key >> 7) & m;
    while (np->mtab[i].key && np->mtab[i].key != key)
        i = (i + 1) & m;
    return i;
}

void itf_np_init(itf_np *np, int version);
/* The file's dialect, before the first skeleton: version 9 predicts Tarmac semantics.
 * -1 when out of memory. */
int itf_np_dialect(itf_np *np, int dialect);
void itf_np_free(itf_np *np);
/* Registers skeleton number nskel; returns its id or -1 (out of memory). rs: the
 * skeleton starts a record (itf_skel_is_record_start). */
long itf_np_add_skel(itf_np *np, const uint8_t *skel, size_t len, size_t nn, int rs);
/* Room for nskel skeletons of nslots numbers in all, before they are added one by one
 * (a reader knows them all: their tables then grow once, not a dozen times each); -1
 * on out of memory. */
int itf_np_reserve(itf_np *np, size_t nskel, size_t nslots);
void itf_np_chunk(itf_np *np, uint64_t chunkno);
/* v4: room for the contexts of a chunk of `lines` lines, so that the tables are not
 * rebuilt while they grow; -1 on out of memory. */
int itf_np_hint(itf_np *np, uint64_t lines);
/* v4: the skeleton predicted for the next line (UINT32_MAX: none); -1 on out of
 * memory. itf_np_begin then records the actual one. */
long itf_np_skel_predict(itf_np *np);
/* Starts a line of skeleton id; -1 on out of memory (v4 reserves its entries here, so
 * predict/update cannot fail). */
int itf_np_begin(itf_np *np, uint32_t id);
/* Prediction of number k of a line of skeleton id, cur[0..k) being its numbers so far. */
uint64_t itf_np_predict(itf_np *np, uint32_t id, size_t k, const uint64_t *cur);
void itf_np_update(itf_np *np, uint32_t id, size_t k, const uint64_t *cur);
void itf_np_end(itf_np *np, uint32_t id, const uint64_t *cur);
/* The numbers of a whole line, itf_np_end included: residuals written to out[min(k, 3)]
 * (after itf_np_begin), or read from nu[min(k, 3)] into nums (the line begun first: -1
 * when out of memory, -2 when a stream ran out). */
void itf_np_encode_line(itf_np *np, uint32_t id, const uint64_t *nums, tz_buf *const out[4]);
int itf_np_decode_line(itf_np *np, uint32_t id, uint64_t *nums, itf_zrun_reader *nu);
/* Does the skeleton, rendered, start a record? (Numbers are digits only, so the
 * answer does not depend on them.) -1 on out of memory. */
int itf_skel_is_record_start(int dialect, const uint8_t *skel, size_t len, size_t nn);
/* The same, rendering in b (scratch room kept by the caller; its oom flag is sticky). */
int itf_skel_is_record_start_b(tz_buf *b, int dialect, const uint8_t *skel, size_t len, size_t nn);

/* ---- the line model's text on its own thread (itf_rthread.c) ---- */
typedef struct itf_rthread itf_rthread;
/* Starts a render thread writing to out (NULL: render only) through ob, which the
 * caller leaves alone until itf_rthread_finish; NULL when no thread could start. The
 * thread first runs job(thread, job_arg) if job is not NULL (itf_rthread_job waits
 * for it). */
itf_rthread *itf_rthread_start(FILE *out, tz_buf *ob, int (*job)(itf_rthread *, void *), void *job_arg);
/* The skeletons, given before the first line (the thread starts before they are
 * compiled): a line of skeleton id is rendered from prog + prog_off[id]
 * (itf_skel_compile) with prog_room[id] bytes of room and takes skel_nn[id] numbers. */
void itf_rthread_skels(itf_rthread *t, const uint8_t *prog, const uint32_t *prog_off, const uint32_t *prog_room,
                       const size_t *skel_nn);
/* From the job only (it runs on the render thread): renders the batches queued so far. */
void itf_rthread_poll(itf_rthread *t);
/* Waits for the job; its result (0, or -1 when it returned a negative value). */
int itf_rthread_job(itf_rthread *t);
/* Where the next line's numbers go (room for ITF_MAX_NUMS). */
uint64_t *itf_rthread_nums(itf_rthread *t);
/* Queues that line: skeleton id with nn numbers, then a newline or not. -1 once a
 * write has failed (itf_rthread_finish reports it). */
int itf_rthread_line(itf_rthread *t, uint32_t id, size_t nn, int newline);
/* Renders what is queued, stops the thread, frees it; -1 with err on a failed write
 * or out of memory. The text not yet written is left in ob. */
int itf_rthread_finish(itf_rthread *t, traza_err *err);

/* ---- address codecs ---- */
/* Codec number 6 in the header: raw values as offsets from the group's smallest
 * address, divided by their gcd (reported as raw in the statistics). */
#define ITF_CODEC_OFFSET 6
/* Codec number 7: noisy periodic (lossy; reported as pattern). */
#define ITF_CODEC_NOISY 7
size_t itf_period(const int64_t *d, size_t n, size_t *fail_scratch);
/* Encodes one instruction's delta sequence d[0..n) (d[0] is the first address).
 * Writes the header into hdr and the data into the stream picked; returns the codec. */
typedef struct itf_enc_streams {
    tz_buf *hdr, *raw, *per, *pat, *dist, *seq, *off;
} itf_enc_streams;
int itf_mem_encode(const int64_t *d, size_t n, int want, int lossy, itf_enc_streams *s, size_t *scratch,
                   uint64_t seed);
/* Decodes codec data for one instruction from the stream readers into out[0..n). */
typedef struct itf_dec_streams {
    itf_rd *raw, *per, *pat, *dist, *seq, *off;
} itf_dec_streams;
int itf_mem_decode(int codec, itf_rd *hdr, itf_dec_streams *s, uint32_t a0, uint32_t *out, size_t n, uint64_t seed);

/* ---- cache model (32 KiB, 4-way, 64-byte lines, LRU) ---- */
typedef struct itf_cache {
    uint64_t tag[128][4];
    uint32_t age[128][4];
    uint32_t clock;
    uint64_t hits, accesses;
} itf_cache;
void itf_cache_init(itf_cache *c);
void itf_cache_access(itf_cache *c, uint64_t addr);

#endif

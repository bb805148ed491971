/* traza — ITFComp: compression of ARM instruction trace files (.tzi) with random access.
 *
 * Input dialects (detected from content): the generated annotated ITF
 * (`0x000103c0 pop {r1} mem=0x40800910 ... CCFAIL`), the ITFComp paper's text ITF
 * (`0x10001014 ldr -res r3 -par r0:0xbe8f3940`), and Arm Tarmac text traces (Fast
 * Models, ES/LD/ST "Rev 3t", gem5). Any input file may be xz/zstd/gzip compressed.
 * Lossless is the default and round-trips byte-exact. Format: doc/formats/tzi.md. */
#ifndef TRAZA_ITF_H
#define TRAZA_ITF_H

#include <stdint.h>
#include <stdio.h>
#include "traza/error.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef enum traza_itf_dialect {
    TRAZA_ITF_UNKNOWN = 0,
    TRAZA_ITF_GEN,          /* 0x<addr> <disasm>[ mem=0x..]*[ CCFAIL] */
    TRAZA_ITF_PAPER,        /* 0x<addr> <mnemonic> -res .. -par r0:0x.. -target .. -noexec */
    TRAZA_ITF_TARMAC_FM,    /* Fast Models: "<t> clk IT (<n>) <pc> <op> ..." */
    TRAZA_ITF_TARMAC_ES,    /* "Tarmac Text Rev 3t": "<t> tic ES (<pc>:<op>) ..." */
    TRAZA_ITF_TARMAC_GEM5,  /* gem5: "<t> clk cpu0 IT (<n>) <pc> <op> ..." */
    TRAZA_ITF_TEXT          /* any other text: generic line model */
} traza_itf_dialect;

const char *traza_itf_dialect_name(traza_itf_dialect d);
/* Detects the dialect from the first lines of a text (len bytes). */
traza_itf_dialect traza_itf_detect(const char *text, size_t len);

typedef enum traza_itf_memcodec {
    TRAZA_ITF_MEM_AUTO = 0,
    TRAZA_ITF_MEM_RAW,
    TRAZA_ITF_MEM_PERIODIC,
    TRAZA_ITF_MEM_PATTERN,
    TRAZA_ITF_MEM_DISTRIBUTION, /* lossy */
    TRAZA_ITF_MEM_SEQUITUR,
    TRAZA_ITF_MEM_NCODECS
} traza_itf_memcodec;

const char *traza_itf_memcodec_name(int codec);

/* AUTO (traza_itf_opts_init's default): xz for the block model, zstd at a fast level
 * for the line model (Tarmac); see doc/formats/tzi.md, "Back ends". */
typedef enum traza_itf_backend {
    TRAZA_ITF_XZ = 0,
    TRAZA_ITF_ZSTD = 1,
    TRAZA_ITF_NONE = 2,
    TRAZA_ITF_AUTO = 3
} traza_itf_backend;

typedef struct traza_itf_opts {
    int mem;            /* traza_itf_memcodec; AUTO picks per instruction */
    int backend;        /* traza_itf_backend, AUTO by default (a file's traza_itf_info
                         * names the one AUTO chose) */
    int lossy;          /* allow lossy codecs (distribution, noisy periodic) */
    uint32_t chunk;     /* instructions per independently decodable chunk (0 = default:
                         * 1048576 for the generated ITF, 262144 for the others) */
    int dialect;        /* force a dialect (0 = detect) */
    int threads;        /* compress: > 1 models and writes each chunk on a second thread
                         * while the next is parsed (same output for any value) */
} traza_itf_opts;

void traza_itf_opts_init(traza_itf_opts *o);

/* Component identifiers for the size breakdown. */
enum {
    TRAZA_ITF_C_SEQUENCE = 0,  /* block (or line-skeleton) sequence */
    TRAZA_ITF_C_TEMPLATES,     /* block definitions, instruction texts, skeletons */
    TRAZA_ITF_C_FLAGS,         /* flag sets (CCFAIL, access counts) per block instance */
    TRAZA_ITF_C_ADDR_RAW,
    TRAZA_ITF_C_ADDR_PERIODIC,
    TRAZA_ITF_C_ADDR_PATTERN,
    TRAZA_ITF_C_ADDR_DISTRIBUTION,
    TRAZA_ITF_C_ADDR_SEQUITUR,
    TRAZA_ITF_C_ADDR_HEADERS,  /* per-instruction codec headers */
    TRAZA_ITF_C_NUMBERS,       /* numeric fields of the generic line model */
    TRAZA_ITF_C_EXCEPTIONS,    /* lines kept verbatim */
    TRAZA_ITF_C_INDEX,         /* header, chunk framing, index, footer */
    TRAZA_ITF_NCOMP
};
const char *traza_itf_component_name(int c);

typedef struct traza_itf_info {
    uint32_t version;
    int dialect, backend, lossy, model;  /* model 0 = block model, 1 = line model */
    uint64_t file_size;
    uint64_t original_size;    /* bytes of the text */
    uint64_t instructions;     /* records */
    uint64_t lines;
    uint64_t chunks;
    uint64_t blocks;           /* distinct dynamic basic blocks (block model) */
    uint64_t block_instances;
    uint64_t templates;        /* distinct instruction texts / line skeletons */
    uint64_t exceptions;       /* lines stored verbatim */
    uint64_t comp_bytes[TRAZA_ITF_NCOMP];   /* compressed bytes per component */
    uint64_t raw_bytes[TRAZA_ITF_NCOMP];    /* bytes before the entropy coder */
    uint64_t codec_insns[TRAZA_ITF_MEM_NCODECS]; /* (instruction, chunk) pairs per codec */
    uint64_t addresses;
    uint64_t altered;          /* lossy: addresses that differ from the original */
    uint64_t cache_accesses, cache_hits_orig, cache_hits_lossy; /* 32 KiB 4-way 64 B LRU */
} traza_itf_info;

/* Compresses IN (path, "-" = stdin; xz/zstd/gzip transparently) to OUT (path).
 * info (may be NULL) receives the statistics. */
int traza_itf_compress(const char *in, const char *out, const traza_itf_opts *o,
                       traza_itf_info *info, traza_err *err);

/* Readers take a seekable FILE (a file or fmemopen). */
typedef struct traza_itf_reader traza_itf_reader;
traza_itf_reader *traza_itf_open(FILE *f, traza_err *err);
traza_itf_reader *traza_itf_open_path(const char *path, traza_err *err);
void traza_itf_close(traza_itf_reader *r);
const traza_itf_info *traza_itf_get_info(const traza_itf_reader *r);
/* Writes the whole original text to out. */
int traza_itf_decompress(traza_itf_reader *r, FILE *out, traza_err *err);
/* The same with up to `threads` decoding threads (1 = in the calling thread); the
 * output is identical whatever the count. Memory: about `threads` chunk texts. */
int traza_itf_decompress_mt(traza_itf_reader *r, FILE *out, int threads, traza_err *err);
/* With threads > 1, a line-model (Tarmac) chunk of at least `lines` lines is decoded
 * on one thread and rendered on a second (default TRAZA_ITF_RENDER_MIN_LINES: below
 * it the second thread costs more than it saves). The output is the same. */
#define TRAZA_ITF_RENDER_MIN_LINES 262144
void traza_itf_set_render_min_lines(traza_itf_reader *r, uint64_t lines);
/* Writes records [from, from+count) (instructions; for Tarmac an instruction line with
 * the lines that follow it) to out, decoding only the chunks that hold them. */
int traza_itf_extract(traza_itf_reader *r, uint64_t from, uint64_t count, FILE *out, traza_err *err);
/* Decodes every chunk and verifies checksums without writing. */
int traza_itf_verify(traza_itf_reader *r, traza_err *err);
/* Checks the CRC-32 of every chunk frame, decoding nothing (open checks the header,
 * the footer, the index and the dictionary frame). */
int traza_itf_check_frames(traza_itf_reader *r, traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif

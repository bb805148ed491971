/* ITFComp line model, format version 9: the semantic predictor of Tarmac traces.
 *
 * A Tarmac trace writes every register an instruction changes ("R X8 0000...01"),
 * every memory access ("MW8 000fffe0:..."), and the next record starts at the next
 * pc. All of it follows from the instruction's text and the registers before it:
 * this model keeps the register file (from the trace's own R lines, so that it
 * never drifts), reads each record's disassembly (A64 of Fast Models and gem5, A32
 * of the ES/LD/ST style), and predicts the next pc, the register values written, the
 * flags, and the access addresses. The prediction is one more candidate of the
 * line model (it takes candidate 7's lane where the memory map has nothing): a
 * wrong or missing prediction costs the bits it always did, so an instruction the
 * model does not know is never an error. Writer and reader run the same code on the
 * same decoded lines. */
#ifndef ITF_SEM_H
#define ITF_SEM_H

#include <stddef.h>
#include <stdint.h>
#include "util/util.h"

enum { ITF_SEM_OFF, ITF_SEM_A64, ITF_SEM_A32 };

/* What the model knows of a skeleton. */
typedef struct itf_sem_sk {
    uint8_t kind;        /* SK_* (itf_sem.c) */
    uint8_t skip;        /* instruction line of a skipped (condition failed) one */
    int8_t reg;          /* register line: the register, ITF_SEM_FLAGS for the flags, -1 none */
    uint8_t w32;         /* register line: its 32-bit view (W<n>) */
    int16_t slot;        /* the slot predicted: value, address, pc or branch target */
    uint16_t tnum;       /* instruction line: numbers before its text */
    uint8_t store;       /* memory line of a write */
    int16_t dslot;       /* A64 memory line: its first data slot ("addr:phys data"), -1 none */
    uint8_t dn;          /* and their number: 1, or 2 for hi_lo */
    uint32_t toff, tlen; /* instruction line: its text (the skeleton after ": ") in text[] */
    uint8_t pcdep;       /* the text has "{pc}": what it decodes to depends on the pc */
    uint8_t ck[2];       /* the kinds of prediction (for the hold-back) of its slots: */
    uint32_t cm[2];      /* kind ck[i] for the slots in mask cm[i] */
} itf_sem_sk;
#define ITF_SEM_FLAGS 40

/* An instruction, decoded from its text once and kept in the cache: its kind, its
 * function (F_* for K_ALU, B_* for K_BR; K_MULTI: 1 increment after, 2 decrement
 * before), registers (A64: 31 sp, ITF_SEM_ZR the zero register), shift (SH_*). */
enum { K_NONE, K_ALU, K_BR, K_MEM, K_MULTI };
enum { /* ALU functions */
    F_ADD = 1, F_ADC, F_SUB, F_SBC, F_RSB, F_AND, F_ORR, F_EOR, F_BIC, F_ORN, F_EON, F_MOV, F_MVN, F_MOVZ,
    F_MOVN, F_MOVK, F_MOVW, F_MOVT, F_MUL, F_MADD, F_MSUB, F_MNEG, F_MLA, F_MLS, F_UDIV, F_SDIV, F_LSL, F_LSR,
    F_ASR, F_ROR, F_CLZ, F_CSEL, F_CSINC, F_CSINV, F_CSNEG, F_CSET, F_CSETM, F_CINC, F_CNEG, F_NEG, F_SXTW,
    F_SXTB, F_SXTH, F_UXTB, F_UXTH, F_SBFM, F_UBFM, F_SBFX, F_UBFX, F_ADR, F_ADRP
};
enum { /* branches */
    B_B = 1, B_BL, B_BR, B_BLR, B_RET, B_CBZ, B_CBNZ, B_TBZ, B_TBNZ, B_SVC
};
enum { SH_NONE, SH_LSL, SH_LSR, SH_ASR, SH_ROR, SH_UXTB, SH_UXTH, SH_UXTW, SH_UXTX, SH_SXTB, SH_SXTH, SH_SXTW, SH_SXTX };
#define ITF_SEM_AL 14 /* the condition "always" */
#define ITF_SEM_ZR 32 /* A64: the zero register */

typedef struct itf_sem_op {
    uint8_t kind, fn, cond, setf, nodest, w32, failed;
    int8_t rd, rn, rm, ra, shreg;
    uint8_t sh, shamt;
    uint8_t hasimm, hastgt, load, size, pair, wb, post, nlist;
    uint8_t notext;      /* A64, cached by its text: the text did not decode (see record) */
    uint16_t list;       /* A32 register list */
    int64_t imm, imm2;
    uint64_t tgt;
} itf_sem_op;

#define ITF_SEM_CIDX 2048 /* first index of the cache (grows at half full) */
typedef struct itf_sem {
    int isa;             /* ITF_SEM_*; OFF: no prediction at all */
    int gem5;            /* gem5's A64 syntax (MADD's operand order, TBZ's bit mask) */
    itf_sem_sk *sk;
    size_t nsk, csk;
    uint8_t *text;       /* the instruction texts of the skeletons */
    size_t tlen, tcap;
    /* decoded instructions, in the order first seen, found through an open-addressing
     * index of their positions + 1 (0: empty) probed by their key's hash; a pure
     * function of the key, so a cache that could not grow only costs time */
    struct itf_sem_ent {
        uint64_t key;
        itf_sem_op op;
    } *cent;
    size_t ncent, ccent;
    uint32_t *cidx;
    size_t cicap;
    itf_sem_op scratch;  /* an instruction decoded when the cache is full */
    tz_buf rb;           /* rendering room, reserved once */
    uint64_t r[33];      /* A64: x0-x30, sp; A32: r0-r15 */
    uint64_t cpsr;
    /* the predictions of the current record */
    uint64_t npc;
    int npc_ok;
    int8_t wreg[4];
    uint64_t wval[4];
    int nw;
    uint64_t ma, mmask;  /* memory line i of the record: (ma + i * mstep) & mmask */
    int64_t mstep;
    int mok, mi;
    uint64_t sdata[2];   /* A64 stores: the data of access 0 and 1 */
    int sok;
    uint64_t opc;        /* the record's opcode (gem5 leaves out the operands of LDP/STP) */
    /* counters before the pc (tick, instruction count): their values in the last
     * record, and the step seen after each pc (direct-mapped by it) */
    uint64_t clast[2], cpc;
    size_t cslot;        /* ctab's entry of cpc (hashed once per record) */
    int64_t cd[2];
    struct itf_sem_cnt { uint64_t pc; int64_t d[2]; } *ctab;
    /* per kind of prediction (counters, pc, registers, addresses, store data), its
     * recent hit rate in 1/256: below one half the kind is not offered (a text whose
     * semantics the trace does not follow costs what it did before version 9) */
    uint16_t conf[5];
} itf_sem;
#define ITF_SEM_CTAB 1024

/* For a dialect (TRAZA_ITF_*): 0 (the tables come with the first skeleton:
 * itf_sem_reserve, itf_sem_add_skel). A dialect other than Tarmac's makes every call
 * a no-op. */
int itf_sem_init(itf_sem *s, int dialect);
void itf_sem_free(itf_sem *s);
/* Skeleton nsk (the next id); pcslot: its record pc slot or -1, memslot: its address
 * slot or -1 (store: it is a write). -1 when out of memory. */
int itf_sem_add_skel(itf_sem *s, const uint8_t *k, size_t len, size_t nn, int pcslot, int memslot, int store);
/* Room for nskel skeletons; -1 when out of memory. */
int itf_sem_reserve(itf_sem *s, size_t nskel);
/* A chunk starts: nothing is known. */
void itf_sem_chunk(itf_sem *s);
/* The slots (below 32) of a line of skeleton id that have a prediction offered, as a
 * mask; the value of slot k in v[k]. *all: the slots predicted, held back or not. */
uint32_t itf_sem_line(const itf_sem *s, uint32_t id, uint64_t *v, uint32_t *all);
/* The line's numbers are known: the state moves on (all and v: itf_sem_line's). */
void itf_sem_end(itf_sem *s, uint32_t id, const uint64_t *nums, size_t nn, uint32_t all, const uint64_t *v);

/* itf_sem_parse.c: an instruction's text (pc: its address) into op; 0 when the text
 * is not read (op is then of kind K_NONE). */
int itf_sem_decode(const itf_sem *s, const char *t, size_t n, uint64_t pc, itf_sem_op *op);
/* Case-insensitive: s[0..n) is z (upper case). */
int itf_sem_word(const char *s, size_t n, const char *z);
/* A register name: its index, *w set for a 32-bit view (W<n>); -1 for no register. */
int itf_sem_reg(int isa, const char *s, size_t n, int *w);
/* An A64 LDP/STP of general registers from its opcode; 0 when x is none. */
int itf_sem_decode_ldstp(uint32_t x, itf_sem_op *op);

/* Sign-extends v from bit (0..63). */
static inline uint64_t itf_sem_sext(uint64_t v, int bit)
{
    uint64_t m = 1ull << bit;
    v &= bit == 63 ? ~0ull : (m << 1) - 1;
    return (v ^ m) - m;
}

/* The kinds of skeleton (itf_sem_sk.kind) and of prediction, each with its hit rate
 * (conf); the record-start line's step (itf_sem.c), the other lines' are in itf_npline.c. */
enum { SK_NONE, SK_INSN, SK_REG, SK_MEM, SK_BR };
/* the kinds of prediction, each with its hit rate (conf) */
enum { C_CNT, C_PC, C_REG, C_ADDR, C_DATA };
#define CONF_MIN 170 /* two thirds */

/* The record-start line of skeleton k, its numbers known: decode (or find) its
 * instruction and predict the rest of the record (itf_sem.c). */
void itf_sem_record(itf_sem *s, uint32_t id, const itf_sem_sk *k, const uint64_t *nums, size_t nn);

#endif

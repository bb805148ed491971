/* The semantic predictor's reader of instruction texts (itf_sem.h): the A64 syntax of
 * Fast Models and gem5, the A32 of the ES/LD/ST style. A mnemonic is looked up in a
 * table (A32: a base, then an S and a condition in either order); the operands, split
 * at the commas outside brackets, become registers, immediates, memory operands,
 * register lists, shifts, conditions and branch targets ("{pc}+0x14 ; 0x210f2c",
 * "0X210A0C"). Anything else leaves the instruction unread: no error, no prediction. */
#include <string.h>
#include "itf/itf_internal.h"
#include "itf/itf_sem.h"

#define COND_AL ITF_SEM_AL
#define ZR ITF_SEM_ZR
/* op flags in the mnemonic table */
#define M_S 1      /* sets the flags */
#define M_NODEST 2 /* compare: no destination */
#define M_LOAD 4
#define M_PAIR 8

typedef struct mnem {
    const char *name;
    uint8_t len;                   /* of the name: compared first */
    uint8_t kind, fn, flags, size; /* size of a memory access, 0: the register's */
} mnem;
#define MN(name, ...) {name, sizeof name - 1, __VA_ARGS__}

static const mnem a64_tab[] = {
    MN("ADD", K_ALU, F_ADD, 0, 0), MN("ADDS", K_ALU, F_ADD, M_S, 0), MN("SUB", K_ALU, F_SUB, 0, 0),
    MN("SUBS", K_ALU, F_SUB, M_S, 0), MN("CMP", K_ALU, F_SUB, M_S | M_NODEST, 0), MN("CMN", K_ALU, F_ADD, M_S | M_NODEST, 0),
    MN("ADC", K_ALU, F_ADC, 0, 0), MN("ADCS", K_ALU, F_ADC, M_S, 0), MN("SBC", K_ALU, F_SBC, 0, 0),
    MN("SBCS", K_ALU, F_SBC, M_S, 0), MN("NEG", K_ALU, F_NEG, 0, 0), MN("NEGS", K_ALU, F_NEG, M_S, 0),
    MN("AND", K_ALU, F_AND, 0, 0), MN("ANDS", K_ALU, F_AND, M_S, 0), MN("TST", K_ALU, F_AND, M_S | M_NODEST, 0),
    MN("ORR", K_ALU, F_ORR, 0, 0), MN("EOR", K_ALU, F_EOR, 0, 0), MN("BIC", K_ALU, F_BIC, 0, 0),
    MN("BICS", K_ALU, F_BIC, M_S, 0), MN("ORN", K_ALU, F_ORN, 0, 0), MN("EON", K_ALU, F_EON, 0, 0),
    MN("MOV", K_ALU, F_MOV, 0, 0), MN("MVN", K_ALU, F_MVN, 0, 0), MN("MOVZ", K_ALU, F_MOVZ, 0, 0),
    MN("MOVN", K_ALU, F_MOVN, 0, 0), MN("MOVK", K_ALU, F_MOVK, 0, 0), MN("MUL", K_ALU, F_MUL, 0, 0),
    MN("MADD", K_ALU, F_MADD, 0, 0), MN("MSUB", K_ALU, F_MSUB, 0, 0), MN("MNEG", K_ALU, F_MNEG, 0, 0),
    MN("UDIV", K_ALU, F_UDIV, 0, 0), MN("SDIV", K_ALU, F_SDIV, 0, 0), MN("LSL", K_ALU, F_LSL, 0, 0),
    MN("LSR", K_ALU, F_LSR, 0, 0), MN("ASR", K_ALU, F_ASR, 0, 0), MN("ROR", K_ALU, F_ROR, 0, 0),
    MN("LSLV", K_ALU, F_LSL, 0, 0), MN("LSRV", K_ALU, F_LSR, 0, 0), MN("ASRV", K_ALU, F_ASR, 0, 0),
    MN("RORV", K_ALU, F_ROR, 0, 0), MN("CLZ", K_ALU, F_CLZ, 0, 0), MN("CSEL", K_ALU, F_CSEL, 0, 0),
    MN("CSINC", K_ALU, F_CSINC, 0, 0), MN("CSINV", K_ALU, F_CSINV, 0, 0), MN("CSNEG", K_ALU, F_CSNEG, 0, 0),
    MN("CSET", K_ALU, F_CSET, 0, 0), MN("CSETM", K_ALU, F_CSETM, 0, 0), MN("CINC", K_ALU, F_CINC, 0, 0),
    MN("CNEG", K_ALU, F_CNEG, 0, 0), MN("SXTW", K_ALU, F_SXTW, 0, 0), MN("SXTB", K_ALU, F_SXTB, 0, 0),
    MN("SXTH", K_ALU, F_SXTH, 0, 0), MN("UXTB", K_ALU, F_UXTB, 0, 0), MN("UXTH", K_ALU, F_UXTH, 0, 0),
    MN("SBFM", K_ALU, F_SBFM, 0, 0), MN("UBFM", K_ALU, F_UBFM, 0, 0), MN("SBFX", K_ALU, F_SBFX, 0, 0),
    MN("UBFX", K_ALU, F_UBFX, 0, 0), MN("ADR", K_ALU, F_ADR, 0, 0), MN("ADRP", K_ALU, F_ADRP, 0, 0),
    MN("B", K_BR, B_B, 0, 0), MN("BL", K_BR, B_BL, 0, 0), MN("BR", K_BR, B_BR, 0, 0), MN("BLR", K_BR, B_BLR, 0, 0),
    MN("RET", K_BR, B_RET, 0, 0), MN("CBZ", K_BR, B_CBZ, 0, 0), MN("CBNZ", K_BR, B_CBNZ, 0, 0),
    MN("TBZ", K_BR, B_TBZ, 0, 0), MN("TBNZ", K_BR, B_TBNZ, 0, 0),
    MN("LDR", K_MEM, 0, M_LOAD, 0), MN("LDRB", K_MEM, 0, M_LOAD, 1), MN("LDRH", K_MEM, 0, M_LOAD, 2),
    MN("LDRSB", K_MEM, 0, M_LOAD, 1), MN("LDRSH", K_MEM, 0, M_LOAD, 2), MN("LDRSW", K_MEM, 0, M_LOAD, 4),
    MN("LDUR", K_MEM, 0, M_LOAD, 0), MN("LDURB", K_MEM, 0, M_LOAD, 1), MN("LDURH", K_MEM, 0, M_LOAD, 2),
    MN("LDURSB", K_MEM, 0, M_LOAD, 1), MN("LDURSH", K_MEM, 0, M_LOAD, 2), MN("LDURSW", K_MEM, 0, M_LOAD, 4),
    MN("STR", K_MEM, 0, 0, 0), MN("STRB", K_MEM, 0, 0, 1), MN("STRH", K_MEM, 0, 0, 2), MN("STUR", K_MEM, 0, 0, 0),
    MN("STURB", K_MEM, 0, 0, 1), MN("STURH", K_MEM, 0, 0, 2), MN("LDP", K_MEM, 0, M_LOAD | M_PAIR, 0),
    MN("LDPSW", K_MEM, 0, M_LOAD | M_PAIR, 4), MN("STP", K_MEM, 0, M_PAIR, 0),
};

static const mnem a32_tab[] = {
    MN("ADD", K_ALU, F_ADD, 0, 0), MN("ADC", K_ALU, F_ADC, 0, 0), MN("SUB", K_ALU, F_SUB, 0, 0),
    MN("SBC", K_ALU, F_SBC, 0, 0), MN("RSB", K_ALU, F_RSB, 0, 0), MN("AND", K_ALU, F_AND, 0, 0),
    MN("ORR", K_ALU, F_ORR, 0, 0), MN("EOR", K_ALU, F_EOR, 0, 0), MN("BIC", K_ALU, F_BIC, 0, 0),
    MN("MOV", K_ALU, F_MOV, 0, 0), MN("MVN", K_ALU, F_MVN, 0, 0), MN("CMP", K_ALU, F_SUB, M_S | M_NODEST, 0),
    MN("CMN", K_ALU, F_ADD, M_S | M_NODEST, 0), MN("TST", K_ALU, F_AND, M_S | M_NODEST, 0),
    MN("TEQ", K_ALU, F_EOR, M_S | M_NODEST, 0), MN("MUL", K_ALU, F_MUL, 0, 0), MN("MLA", K_ALU, F_MLA, 0, 0),
    MN("MLS", K_ALU, F_MLS, 0, 0), MN("UDIV", K_ALU, F_UDIV, 0, 0), MN("SDIV", K_ALU, F_SDIV, 0, 0),
    MN("LSL", K_ALU, F_LSL, 0, 0), MN("LSR", K_ALU, F_LSR, 0, 0), MN("ASR", K_ALU, F_ASR, 0, 0),
    MN("ROR", K_ALU, F_ROR, 0, 0), MN("CLZ", K_ALU, F_CLZ, 0, 0), MN("MOVW", K_ALU, F_MOVW, 0, 0),
    MN("MOVT", K_ALU, F_MOVT, 0, 0), MN("ADR", K_ALU, F_ADR, 0, 0), MN("SXTB", K_ALU, F_SXTB, 0, 0),
    MN("SXTH", K_ALU, F_SXTH, 0, 0), MN("UXTB", K_ALU, F_UXTB, 0, 0), MN("UXTH", K_ALU, F_UXTH, 0, 0),
    MN("B", K_BR, B_B, 0, 0), MN("BL", K_BR, B_BL, 0, 0), MN("BX", K_BR, B_BR, 0, 0), MN("BLX", K_BR, B_BLR, 0, 0),
    MN("SVC", K_BR, B_SVC, 0, 0),
    MN("LDR", K_MEM, 0, M_LOAD, 4), MN("LDRB", K_MEM, 0, M_LOAD, 1), MN("LDRH", K_MEM, 0, M_LOAD, 2),
    MN("LDRSB", K_MEM, 0, M_LOAD, 1), MN("LDRSH", K_MEM, 0, M_LOAD, 2), MN("LDRD", K_MEM, 0, M_LOAD, 8),
    MN("STR", K_MEM, 0, 0, 4), MN("STRB", K_MEM, 0, 0, 1), MN("STRH", K_MEM, 0, 0, 2), MN("STRD", K_MEM, 0, 0, 8),
    /* multiple: fn 1 increment after, 2 decrement before */
    MN("PUSH", K_MULTI, 2, 0, 0), MN("POP", K_MULTI, 1, M_LOAD, 0), MN("LDM", K_MULTI, 1, M_LOAD, 0),
    MN("LDMIA", K_MULTI, 1, M_LOAD, 0), MN("LDMFD", K_MULTI, 1, M_LOAD, 0), MN("LDMDB", K_MULTI, 2, M_LOAD, 0),
    MN("STM", K_MULTI, 1, 0, 0), MN("STMIA", K_MULTI, 1, 0, 0), MN("STMDB", K_MULTI, 2, 0, 0),
    MN("STMFD", K_MULTI, 2, 0, 0),
};

static const char *const conds[16] = {"EQ", "NE", "CS", "CC", "MI", "PL", "VS", "VC",
                                       "HI", "LS", "GE", "LT", "GT", "LE", "AL", "NV"};

static int upper(int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

/* Case-insensitive: s[0..n) == z. */
int itf_sem_word(const char *s, size_t n, const char *z)
{
    size_t i = 0;
    for (; i < n && z[i]; i++)
        if (upper((unsigned char)s[i]) != z[i])
            return 0;
    return i == n && !z[i];
}

static int cond_code(const char *s, size_t n)
{
    if (n != 2)
        return -1;
    for (int c = 0; c < 16; c++)
        if (itf_sem_word(s, 2, conds[c]))
            return c;
    if (itf_sem_word(s, 2, "HS"))
        return 2;
    if (itf_sem_word(s, 2, "LO"))
        return 3;
    return -1;
}

static const mnem *find(const mnem *t, size_t nt, const char *s, size_t n)
{
    int c = n ? upper((unsigned char)s[0]) : 0;
    for (size_t i = 0; i < nt; i++)
        if (t[i].len == n && c == t[i].name[0] && itf_sem_word(s, n, t[i].name))
            return &t[i];
    return NULL;
}

/* A register name: its index (A64: 31 sp, 32 the zero register; A32: 0-15), *w set
 * for a 32-bit view; -1 when s is no register. */
int itf_sem_reg(int isa, const char *s, size_t n, int *w)
{
    *w = 0;
    if (n < 2 || n > 4)
        return -1;
    int c = upper((unsigned char)s[0]);
    /* "r3", "x17", "w0": a letter and a digit, which no alias has (the aliases were
     * compared first, 7 words for most registers: 20 % of parsing a text) */
    int numbered = s[1] >= '0' && s[1] <= '9' && (isa == ITF_SEM_A64 ? c == 'X' || c == 'W' : c == 'R');
    if (numbered)
        *w = c == 'W';
    else if (isa == ITF_SEM_A64) {
        if (itf_sem_word(s, n, "SP"))
            return 31;
        if (itf_sem_word(s, n, "WSP"))
            return *w = 1, 31;
        if (itf_sem_word(s, n, "XZR"))
            return ZR;
        if (itf_sem_word(s, n, "WZR"))
            return *w = 1, ZR;
        if (itf_sem_word(s, n, "LR"))
            return 30;
        if (itf_sem_word(s, n, "FP"))
            return 29;
        if (c != 'X' && c != 'W')
            return -1;
        *w = c == 'W';
    } else {
        static const char *const alias[] = {"SB", "SL", "FP", "IP", "SP", "LR", "PC"};
        for (int i = 0; i < 7; i++)
            if (itf_sem_word(s, n, alias[i]))
                return 9 + i;
        if (c != 'R')
            return -1;
    }
    int v = 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || (i == 1 && s[i] == '0' && n > 2))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= (isa == ITF_SEM_A64 ? 30 : 15) ? v : -1;
}

/* "#-0x10", "#16", "0X2109BC": the value (wrapping), 0 when s is no number. */
static int num_of(const char *s, size_t n, int64_t *v)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '#')
        i++;
    if (i < n && s[i] == '-')
        neg = 1, i++;
    if (i >= n)
        return 0;
    uint64_t x = 0;
    if (i + 2 < n && s[i] == '0' && (s[i + 1] | 0x20) == 'x') {
        for (i += 2; i < n; i++) {
            int d = (unsigned char)s[i];
            if (!itf_hexdigit((unsigned)d))
                return 0;
            x = x << 4 | (uint64_t)(d <= '9' ? d - '0' : (d | 0x20) - 'a' + 10);
        }
    } else {
        for (; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                return 0;
            x = x * 10 + (uint64_t)(s[i] - '0');
        }
    }
    *v = (int64_t)(neg ? 0 - x : x);
    return 1;
}

static int shift_of(const char *s, size_t n)
{
    static const char *const names[] = {"LSL", "LSR", "ASR", "ROR", "UXTB", "UXTH",
                                        "UXTW", "UXTX", "SXTB", "SXTH", "SXTW", "SXTX"};
    for (int i = 0; i < 12; i++)
        if (itf_sem_word(s, n, names[i]))
            return i + 1;
    return 0;
}

/* ---- operands ---- */
enum { O_REG = 1, O_IMM, O_MEM, O_LIST, O_SHIFT, O_COND, O_TGT };
typedef struct opd {
    uint8_t t, w, sh, wb, idxsh, idxamt;
    int8_t reg, base, idx, shreg;
    int64_t v;    /* immediate, shift amount, condition, target, memory offset */
    uint16_t list;
} opd;

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* Splits s[0..n) at the commas outside brackets and braces: up to max pieces. */
static int split(const char *s, size_t n, const char **ps, size_t *pn, int max)
{
    int k = 0, depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && (s[i] == '[' || s[i] == '{'))
            depth++;
        else if (i < n && (s[i] == ']' || s[i] == '}'))
            depth--;
        else if (i == n || (s[i] == ',' && depth == 0)) {
            if (k == max)
                return -1;
            ps[k] = s + start;
            pn[k] = i - start;
            trim(&ps[k], &pn[k]);
            k++;
            start = i + 1;
        }
    }
    return k;
}

/* A shift or extend: "LSL #2", "UXTW", "LSR r2" (A32). */
static int parse_shift(int isa, const char *s, size_t n, opd *o)
{
    size_t j = 0;
    while (j < n && s[j] != ' ')
        j++;
    int sh = shift_of(s, j);
    if (!sh)
        return 0;
    o->t = O_SHIFT;
    o->sh = (uint8_t)sh;
    o->shreg = -1;
    o->v = 0;
    const char *a = s + j;
    size_t an = n - j;
    trim(&a, &an);
    if (!an)
        return 1;
    int w;
    if (a[0] == '#')
        return num_of(a, an, &o->v);
    o->shreg = (int8_t)itf_sem_reg(isa, a, an, &w);
    return o->shreg >= 0;
}

static int parse_mem(int isa, const char *s, size_t n, opd *o)
{
    o->t = O_MEM;
    o->idx = -1;
    if (n && s[n - 1] == '!')
        o->wb = 1, n--;
    trim(&s, &n);
    if (n < 3 || s[n - 1] != ']')
        return 0;
    const char *ps[4];
    size_t pn[4];
    int k = split(s + 1, n - 2, ps, pn, 4), w;
    if (k < 1 || (o->base = (int8_t)itf_sem_reg(isa, ps[0], pn[0], &w)) < 0)
        return 0;
    if (k >= 2) {
        if (ps[1][0] == '#') {
            if (!num_of(ps[1], pn[1], &o->v) || k > 2)
                return 0;
        } else {
            int iw;
            if ((o->idx = (int8_t)itf_sem_reg(isa, ps[1], pn[1], &iw)) < 0)
                return 0;
            if (k == 3) {
                opd sh = {0};
                if (!parse_shift(isa, ps[2], pn[2], &sh) || sh.shreg >= 0)
                    return 0;
                o->idxsh = sh.sh;
                o->idxamt = (uint8_t)(sh.v & 63);
            }
        }
    }
    return 1;
}

static int parse_list(int isa, const char *s, size_t n, opd *o)
{
    o->t = O_LIST;
    const char *ps[16];
    size_t pn[16];
    int k = split(s + 1, n - 2, ps, pn, 16), w;
    if (k < 1)
        return 0;
    for (int i = 0; i < k; i++) {
        const char *dash = memchr(ps[i], '-', pn[i]);
        int a, b;
        if (dash) {
            a = itf_sem_reg(isa, ps[i], (size_t)(dash - ps[i]), &w);
            b = itf_sem_reg(isa, dash + 1, pn[i] - (size_t)(dash - ps[i]) - 1, &w);
        } else
            a = b = itf_sem_reg(isa, ps[i], pn[i], &w);
        if (a < 0 || b < a || b > 15)
            return 0;
        for (int r = a; r <= b; r++)
            o->list |= (uint16_t)(1u << r);
    }
    return 1;
}

static int parse_opd(int isa, const char *s, size_t n, uint64_t pc, opd *o)
{
    memset(o, 0, sizeof *o);
    if (!n)
        return 0;
    if (s[0] == '[')
        return parse_mem(isa, s, n, o);
    if (n >= 4 && memcmp(s, "{pc}", 4) == 0) { /* Fast Models' pc-relative target */
        int64_t off = 0;
        if (n > 4 && (!num_of(s + 5, n - 5, &off) || (s[4] != '+' && s[4] != '-')))
            return 0;
        o->t = O_TGT;
        o->v = (int64_t)(pc + (s[4] == '-' ? 0 - (uint64_t)off : (uint64_t)off));
        return 1;
    }
    if (s[0] == '{')
        return n >= 2 && s[n - 1] == '}' && parse_list(isa, s, n, o);
    if (s[0] == '#')
        return o->t = O_IMM, num_of(s, n, &o->v);
    if (n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
        return o->t = O_TGT, num_of(s, n, &o->v);
    int w, r = itf_sem_reg(isa, s, n, &w);
    if (r >= 0) {
        o->t = O_REG;
        o->reg = (int8_t)r;
        o->w = (uint8_t)w;
        return 1;
    }
    if ((o->v = cond_code(s, n)) >= 0)
        return o->t = O_COND, 1;
    return parse_shift(isa, s, n, o);
}

/* ---- decoding an instruction ---- */

/* The mnemonic: A64 "B.EQ"; A32 base, then an S and a condition in either order. */
static const mnem *decode_mnem(int isa, const char *s, size_t n, itf_sem_op *op)
{
    op->cond = COND_AL;
    if (isa == ITF_SEM_A64) {
        if (n == 4 && upper(s[0]) == 'B' && s[1] == '.') {
            int c = cond_code(s + 2, 2);
            if (c < 0)
                return NULL;
            op->cond = (uint8_t)c;
            return find(a64_tab, sizeof a64_tab / sizeof *a64_tab, "B", 1);
        }
        return find(a64_tab, sizeof a64_tab / sizeof *a64_tab, s, n);
    }
    const size_t nt = sizeof a32_tab / sizeof *a32_tab;
    const mnem *m = find(a32_tab, nt, s, n);
    if (m)
        return m;
    int c = n > 2 ? cond_code(s + n - 2, 2) : -1;
    if (c >= 0 && (m = find(a32_tab, nt, s, n - 2)) != NULL)
        return op->cond = (uint8_t)c, m;
    size_t b = c >= 0 ? n - 2 : n; /* ADDSEQ, or ADDS */
    if (b > 1 && upper(s[b - 1]) == 'S' && (m = find(a32_tab, nt, s, b - 1)) != NULL && m->kind == K_ALU) {
        if (c >= 0)
            op->cond = (uint8_t)c;
        op->setf = 1;
        return m;
    }
    if (n > 3 && upper(s[n - 1]) == 'S' && (c = cond_code(s + n - 3, 2)) >= 0 && /* ADDEQS */
        (m = find(a32_tab, nt, s, n - 3)) != NULL && m->kind == K_ALU) {
        op->cond = (uint8_t)c;
        op->setf = 1;
        return m;
    }
    return NULL;
}

/* The second operand (immediate, or register with its shift) from o[i..n). */
static int take_op2(itf_sem_op *op, const opd *o, int i, int n)
{
    if (i >= n)
        return 0;
    if (o[i].t == O_IMM) {
        op->hasimm = 1;
        op->imm = o[i].v;
        if (i + 1 < n && o[i + 1].t == O_SHIFT && o[i + 1].sh == SH_LSL && o[i + 1].shreg < 0)
            op->imm = (int64_t)((uint64_t)op->imm << (o[i + 1].v & 63));
        else if (i + 1 < n)
            return 0;
        return 1;
    }
    if (o[i].t != O_REG)
        return 0;
    op->rm = o[i].reg;
    if (i + 1 < n) {
        if (o[i + 1].t != O_SHIFT || i + 2 < n)
            return 0;
        op->sh = o[i + 1].sh;
        op->shamt = (uint8_t)(o[i + 1].v & 63);
        op->shreg = o[i + 1].shreg;
    }
    return 1;
}

static int decode_alu(const itf_sem *s, itf_sem_op *op, const opd *o, int n)
{
    if (op->fn == F_ADR || op->fn == F_ADRP || op->fn == F_MOVW || op->fn == F_MOVT || op->fn == F_MOVZ ||
        op->fn == F_MOVN || op->fn == F_MOVK) {
        if (n < 2 || o[0].t != O_REG || (o[1].t != O_IMM && o[1].t != O_TGT))
            return 0;
        op->rd = o[0].reg;
        op->w32 = o[0].w;
        op->hasimm = 1;
        op->imm = o[1].v;
        op->hastgt = o[1].t == O_TGT;
        if (n == 3) /* the halfword's shift: "LSL #16" (Fast Models) or "#16" (gem5) */
            op->imm2 = o[2].v;
        return n <= 3;
    }
    if (op->fn == F_CSET || op->fn == F_CSETM) {
        if (n != 2 || o[0].t != O_REG || o[1].t != O_COND)
            return 0;
        op->rd = o[0].reg, op->w32 = o[0].w, op->cond = (uint8_t)o[1].v;
        return 1;
    }
    if (op->fn >= F_CSEL && op->fn <= F_CNEG) {
        int nr = op->fn == F_CINC || op->fn == F_CNEG ? 2 : 3;
        if (n != nr + 1 || o[n - 1].t != O_COND)
            return 0;
        for (int i = 0; i < nr; i++)
            if (o[i].t != O_REG)
                return 0;
        op->rd = o[0].reg, op->w32 = o[0].w, op->rn = o[1].reg, op->cond = (uint8_t)o[n - 1].v;
        op->rm = nr == 3 ? o[2].reg : o[1].reg;
        return 1;
    }
    if (op->fn == F_MADD || op->fn == F_MSUB || op->fn == F_MLA || op->fn == F_MLS) {
        if (n != 4)
            return 0;
        for (int i = 0; i < 4; i++)
            if (o[i].t != O_REG)
                return 0;
        op->rd = o[0].reg, op->w32 = o[0].w;
        if (s->gem5) /* gem5 writes the addend first: MADD Wd, Wa, Wn, Wm */
            op->ra = o[1].reg, op->rn = o[2].reg, op->rm = o[3].reg;
        else
            op->rn = o[1].reg, op->rm = o[2].reg, op->ra = o[3].reg;
        return 1;
    }
    if (op->fn == F_SBFM || op->fn == F_UBFM || op->fn == F_SBFX || op->fn == F_UBFX) {
        if (n != 4 || o[0].t != O_REG || o[1].t != O_REG || o[2].t != O_IMM || o[3].t != O_IMM)
            return 0;
        op->rd = o[0].reg, op->w32 = o[0].w, op->rn = o[1].reg, op->imm = o[2].v, op->imm2 = o[3].v;
        return 1;
    }
    if (n < 1 || o[0].t != O_REG)
        return 0;
    int one = op->fn == F_MOV || op->fn == F_MVN || op->fn == F_NEG || op->fn == F_CLZ ||
              (op->fn >= F_SXTW && op->fn <= F_UXTH);
    if (op->nodest) {
        op->rd = -1, op->rn = o[0].reg, op->w32 = o[0].w;
        return take_op2(op, o, 1, n);
    }
    op->rd = o[0].reg, op->w32 = o[0].w;
    if (one) {
        if (op->fn >= F_SXTW && op->fn <= F_UXTH) {
            if (n != 2 || o[1].t != O_REG)
                return 0;
            op->rn = o[1].reg;
            return 1;
        }
        return take_op2(op, o, 1, n);
    }
    if (n == 2 && s->isa == ITF_SEM_A32) /* ADD r0, r1: r0 = r0 + r1 */
        return op->rn = o[0].reg, take_op2(op, o, 1, n);
    if (n < 3 || o[1].t != O_REG)
        return 0;
    op->rn = o[1].reg;
    if (op->fn == F_MUL || op->fn == F_MNEG || op->fn == F_UDIV || op->fn == F_SDIV)
        return n == 3 && o[2].t == O_REG && (op->rm = o[2].reg, 1);
    return take_op2(op, o, 2, n);
}

static int decode_mem(const itf_sem *s, itf_sem_op *op, const mnem *m, const opd *o, int n)
{
    int nr = op->pair ? 2 : 1;
    if (n < nr + 1 || o[0].t != O_REG || (op->pair && o[1].t != O_REG) || o[nr].t != O_MEM)
        return 0;
    op->rd = o[0].reg;
    op->ra = op->pair ? o[1].reg : -1;
    const opd *a = &o[nr];
    op->rn = a->base;
    op->rm = a->idx;
    op->imm = a->v;
    op->sh = a->idxsh;
    op->shamt = a->idxamt;
    op->wb = a->wb;
    if (n == nr + 2) { /* post-index */
        if (o[nr + 1].t != O_IMM || a->wb || a->idx >= 0 || a->v)
            return 0;
        op->post = 1;
        op->wb = 1;
        op->imm2 = o[nr + 1].v;
    } else if (n != nr + 1)
        return 0;
    op->size = m->size ? m->size : (s->isa == ITF_SEM_A64 && !o[0].w ? 8 : 4);
    return 1;
}

int itf_sem_decode(const itf_sem *s, const char *t, size_t n, uint64_t pc, itf_sem_op *op)
{
    memset(op, 0, sizeof *op);
    op->rd = op->rn = op->rm = op->ra = op->shreg = -1;
    trim(&t, &n);
    if (n >= 7 && memcmp(t, "CCFAIL ", 7) == 0) { /* ES: the condition failed */
        op->failed = 1;
        return 1;
    }
    const char *semi = memchr(t, ';', n);
    int64_t stgt = 0;
    int hasstgt = 0;
    if (semi) { /* Fast Models: "{pc}+0x14 ; 0x210f2c" */
        const char *q = semi + 1;
        size_t qn = n - (size_t)(q - t);
        trim(&q, &qn);
        hasstgt = num_of(q, qn, &stgt);
        n = (size_t)(semi - t);
    }
    size_t mn = 0;
    while (mn < n && t[mn] != ' ')
        mn++;
    const mnem *m = decode_mnem(s->isa, t, mn, op);
    if (!m)
        return 0;
    op->kind = m->kind;
    op->fn = m->fn;
    op->setf |= (m->flags & M_S) != 0;
    op->nodest = (m->flags & M_NODEST) != 0;
    op->load = (m->flags & M_LOAD) != 0;
    op->pair = (m->flags & M_PAIR) != 0;
    const char *ps[6];
    size_t pn[6];
    int k = split(t + mn, n - mn, ps, pn, 6);
    if (k == 1 && pn[0] == 0)
        k = 0;
    opd o[6];
    for (int i = 0; i < k; i++)
        if (!parse_opd(s->isa, ps[i], pn[i], pc, &o[i]))
            return 0;
    if (hasstgt) /* the absolute address given after ';' */
        for (int i = 0; i < k; i++)
            if (o[i].t == O_TGT)
                o[i].v = stgt;
    switch (m->kind) {
    case K_ALU:
        return decode_alu(s, op, o, k);
    case K_MEM:
        return decode_mem(s, op, m, o, k);
    case K_MULTI:
        if (k == 1 && o[0].t == O_LIST) /* PUSH/POP: sp with write-back */
            return op->rn = 13, op->wb = 1, op->list = o[0].list, 1;
        if (k == 2 && o[0].t == O_REG && o[1].t == O_LIST)
            return op->rn = o[0].reg, op->list = o[1].list, 1;
        return 0;
    case K_BR:
        switch (op->fn) {
        case B_B:
        case B_BL:
            return k == 1 && o[0].t == O_TGT && (op->tgt = (uint64_t)o[0].v, op->hastgt = 1);
        case B_BR:
        case B_BLR:
            return k == 1 && o[0].t == O_REG && (op->rn = o[0].reg, 1);
        case B_RET:
            return k == 0 ? (op->rn = 30, 1) : (k == 1 && o[0].t == O_REG && (op->rn = o[0].reg, 1));
        case B_CBZ:
        case B_CBNZ:
            if (k != 2 || o[0].t != O_REG || o[1].t != O_TGT)
                return 0;
            op->rd = o[0].reg, op->w32 = o[0].w, op->tgt = (uint64_t)o[1].v, op->hastgt = 1;
            return 1;
        case B_TBZ:
        case B_TBNZ:
            if (k != 3 || o[0].t != O_REG || o[1].t != O_IMM || o[2].t != O_TGT)
                return 0;
            op->rd = o[0].reg, op->tgt = (uint64_t)o[2].v, op->hastgt = 1;
            /* the bit: its number (Fast Models), its mask (gem5) */
            op->imm = s->gem5 ? (o[1].v ? __builtin_ctzll((uint64_t)o[1].v) : 0) : (o[1].v & 63);
            return 1;
        default:
            return 1;
        }
    }
    return 0;
}

/* A64 LDP/STP of general registers from the opcode (gem5 prints "STP" alone). */
int itf_sem_decode_ldstp(uint32_t x, itf_sem_op *op)
{
    unsigned mode = x >> 23 & 7;
    if ((x >> 27 & 7) != 5 || (x >> 26 & 1) || (x >> 30) == 3 || (x >> 30) == 1 || mode < 1 || mode > 3)
        return 0;
    memset(op, 0, sizeof *op);
    op->kind = K_MEM;
    op->pair = 1;
    op->load = x >> 22 & 1;
    op->size = x >> 31 ? 8 : 4;
    op->rd = (int8_t)(x & 31), op->ra = (int8_t)(x >> 10 & 31), op->rn = (int8_t)(x >> 5 & 31);
    if (op->rd == 31) /* as a data register, 31 is the zero register */
        op->rd = ZR;
    if (op->ra == 31)
        op->ra = ZR;
    op->rm = op->shreg = -1;
    int64_t off = (int64_t)itf_sem_sext(x >> 15 & 0x7F, 6) * op->size;
    if (mode == 1) /* post-index */
        op->post = 1, op->wb = 1, op->imm2 = off;
    else
        op->imm = off, op->wb = mode == 3;
    return 1;
}

/* Tarmac text: Arm's instruction traces, written by its Fast Models, gem5 and RTL
 * simulations (doc/formats/tarmac.md). One record per line:
 *
 *   Tarmac Text Rev 3t                                   optional header
 *   TIME UNIT [cpuN] IT (N) ADDR OPCODE ISA MODE : DISASM an executed instruction
 *   TIME UNIT [cpuN] IS (N) ADDR OPCODE ISA MODE : DISASM one whose condition failed
 *   TIME UNIT ES (ADDR:OPCODE) ISA MODE: [CCFAIL] DISASM the same, older style
 *   TIME UNIT ES EXC [0xNN] NAME / E ... / EXC ...       an exception
 *   [TIME UNIT [cpuN]] R NAME VALUE                      a register written
 *   [TIME UNIT [cpuN]] MR<n>|MW<n> VA[:PA] VALUE         a memory read / write of n bytes
 *   [TIME UNIT] LD|ST ADDR WORDS... S:PA ATTRS           the same, older style
 *   [TIME UNIT] BR (ADDR) ISA                            a branch taken
 *   TIME UNIT SIGNAL: TEXT / CADI TEXT                   a signal, a simulator event
 *
 * A line without its own time (indented) has the previous line's time and core.
 * UNIT: clk, tic and cyc are cycles: time counts them (trace parameter time.axis =
 * cycles: every view prints "N cycles") unless --time-unit gives them a unit; ns, ps,
 * us, ms, s are times. Every record is
 * a punctual event of its core ("cpuN", or "core" when the lines name none); a line
 * of another kind is skipped and counted (complete or loud). */
#include "import/importers.h"
#include "import/csvutil.h"
#include "import/insn_calls.h"
#include "import/skips.h"
#include "util/input.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_INSN, K_NOEXEC, K_REG, K_MREAD, K_MWRITE, K_BRANCH, K_EXC, K_SIGNAL, K_CADI, K_NKINDS };
static const char *const kind_names[K_NKINDS + 1] = {
    "instr", "instr not executed", "reg write", "mem read", "mem write", "branch", "exception", "signal", "simulator event", NULL,
};
/* the parameters, in the order an event shows them: what a reader looks at first */
enum { P_ADDR, P_DISASM, P_REG, P_TARGET, P_TEXT, P_VALUE, P_OPCODE, P_ISA, P_MODE, P_INDEX, P_PA, P_SIZE, P_ATTRS, P_N };
static const struct {
    const char *name;
    traza_ptype type;
} pdefs[P_N] = {
    {"addr", TRAZA_PT_HEX}, {"disasm", TRAZA_PT_STRING}, {"reg", TRAZA_PT_STRING}, {"target", TRAZA_PT_HEX},
    {"text", TRAZA_PT_STRING}, {"value", TRAZA_PT_STRING}, {"opcode", TRAZA_PT_HEX}, {"isa", TRAZA_PT_STRING},
    {"mode", TRAZA_PT_STRING}, {"index", TRAZA_PT_INT}, {"pa", TRAZA_PT_HEX}, {"size", TRAZA_PT_INT},
    {"attrs", TRAZA_PT_STRING},
};

/* One record parsed from a line: its kind and its values (strings NUL-terminated in
 * the line, which the parse cuts). */
typedef struct tm_rec {
    int has_time;
    int64_t time;
    const char *unit;
    size_t unit_len;
    const char *cpu; /* NULL: no core named */
    size_t cpu_len;
    int kind;        /* K_*, -1: a kind this importer does not know (kind_tok names it) */
    const char *kind_tok;
    size_t kind_len;
    int has[P_N];
    int64_t num[P_N];
    const char *str[P_N];
} tm_rec;

static int is_dig(char c) { return c >= '0' && c <= '9'; }

/* The next token of [*p, end): its start and length; *p after it and its spaces. */
static size_t token(char **p, char *end, char **tok)
{
    char *s = *p;
    while (s < end && tz_is_blank(*s))
        s++;
    char *t = s;
    while (t < end && !tz_is_blank(*t))
        t++;
    *tok = s;
    size_t n = (size_t)(t - s);
    while (t < end && tz_is_blank(*t))
        t++;
    *p = t;
    return n;
}

/* [s, e) trimmed of spaces, NUL-terminated in place (e < the line's end or at it). */
static const char *trimmed(char *s, char *e)
{
    while (s < e && tz_is_blank(*s))
        s++;
    while (e > s && tz_is_blank(e[-1]))
        e--;
    *e = '\0';
    return s;
}

/* Decimal digits only (no sign), below 2^63: 0 or -1. */
static int dec_tok(const char *s, size_t n, int64_t *v) { return n && s[0] != '-' && tz_parse_int(s, n, v) == 0 ? 0 : -1; }

/* Hex digits, with or without 0x: 0 or -1. */
static int hex_tok(const char *s, size_t n, int64_t *v)
{
    uint64_t u;
    if (tz_parse_u64_hex(s, n, &u) < 0)
        return -1;
    *v = (int64_t)u;
    return 0;
}

static void set_num(tm_rec *r, int k, int64_t v) { r->has[k] = 1, r->num[k] = v; }
static void set_str(tm_rec *r, int k, const char *s) { r->has[k] = 1, r->str[k] = s; }

/* The unit's power of ten (-1000: cycles), -2000 when it is not a Tarmac unit. */
static int unit_exp(const char *u, size_t n)
{
    static const struct {
        const char *u;
        int e;
    } units[] = {{"clk", -1000}, {"tic", -1000}, {"cyc", -1000}, {"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}, {"ps", -12}, {"fs", -15}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].u) == n && !memcmp(units[i].u, u, n))
            return units[i].e;
    return -2000;
}

/* The instruction after IT/IS: "(N) ADDR OPCODE ISA [MODE] : DISASM". */
static const char *parse_it(tm_rec *r, char *p, char *end)
{
    char *t;
    size_t n = token(&p, end, &t);
    int64_t v;
    if (n >= 3 && t[0] == '(' && t[n - 1] == ')') {
        if (dec_tok(t + 1, n - 2, &v) < 0)
            return "an instruction count in parentheses, e.g. (12)";
        set_num(r, P_INDEX, v);
        n = token(&p, end, &t);
    }
    if (hex_tok(t, n, &v) < 0)
        return "the instruction's address in hexadecimal";
    set_num(r, P_ADDR, v);
    n = token(&p, end, &t);
    if (hex_tok(t, n, &v) < 0)
        return "the instruction's opcode in hexadecimal";
    set_num(r, P_OPCODE, v);
    /* ISA and mode up to the colon */
    char *colon = memchr(p, ':', (size_t)(end - p));
    if (!colon)
        return "':' before the disassembly";
    char *q = p;
    n = token(&q, colon, &t);
    if (n) {
        t[n] = '\0';
        set_str(r, P_ISA, t);
        n = token(&q, colon, &t);
        if (n) {
            t[n] = '\0';
            set_str(r, P_MODE, t);
        }
    }
    set_str(r, P_DISASM, trimmed(colon + 1, end));
    return NULL;
}

/* The older style's instruction after ES: "(ADDR:OPCODE) ISA MODE: [CCFAIL] DISASM". */
static const char *parse_es(tm_rec *r, char *p, char *end)
{
    char *close = memchr(p, ')', (size_t)(end - p));
    char *colon = close ? memchr(p, ':', (size_t)(close - p)) : NULL;
    int64_t v;
    if (*p != '(' || !close || !colon || hex_tok(p + 1, (size_t)(colon - p - 1), &v) < 0)
        return "(ADDRESS:OPCODE) in hexadecimal";
    set_num(r, P_ADDR, v);
    if (hex_tok(colon + 1, (size_t)(close - colon - 1), &v) < 0)
        return "(ADDRESS:OPCODE) in hexadecimal";
    set_num(r, P_OPCODE, v);
    p = close + 1;
    char *t;
    size_t n = token(&p, end, &t);
    if (!n)
        return "the instruction set after (ADDRESS:OPCODE)";
    t[n] = '\0';
    set_str(r, P_ISA, t);
    n = token(&p, end, &t);
    if (!n)
        return "the processor mode, e.g. svc_s:";
    if (t[n - 1] == ':')
        n--;
    t[n] = '\0';
    set_str(r, P_MODE, t);
    if ((size_t)(end - p) >= 6 && !memcmp(p, "CCFAIL", 6) && (p + 6 == end || tz_is_blank(p[6]))) {
        r->kind = K_NOEXEC;
        p += 6;
    }
    set_str(r, P_DISASM, trimmed(p, end));
    return NULL;
}

/* "VA[:PA] VALUE" after MR<n>/MW<n>. */
static const char *parse_mem(tm_rec *r, char *p, char *end)
{
    char *t;
    size_t n = token(&p, end, &t);
    char *c = memchr(t, ':', n);
    int64_t v;
    if (hex_tok(t, c ? (size_t)(c - t) : n, &v) < 0)
        return "the access's address in hexadecimal (VA or VA:PA)";
    set_num(r, P_ADDR, v);
    if (c) {
        if (hex_tok(c + 1, n - (size_t)(c + 1 - t), &v) < 0)
            return "the access's physical address in hexadecimal after ':'";
        set_num(r, P_PA, v);
    }
    set_str(r, P_VALUE, trimmed(p, end));
    return NULL;
}

/* "ADDR WORDS... S:PA ATTRS" after LD/ST (a byte not accessed is '.'). */
static const char *parse_ldst(tm_rec *r, char *p, char *end)
{
    char *t;
    size_t n = token(&p, end, &t);
    int64_t v;
    if (hex_tok(t, n, &v) < 0)
        return "the access's address in hexadecimal";
    set_num(r, P_ADDR, v);
    char *words = p, *q = p;
    while (q < end) {
        char *w = q;
        n = token(&q, end, &t);
        if (n > 2 && (!memcmp(t, "S:", 2) || (n > 3 && !memcmp(t, "NS:", 3)))) {
            const char *h = t + (t[0] == 'N' ? 3 : 2);
            if (hex_tok(h, n - (size_t)(h - t), &v) < 0)
                return "the physical address in hexadecimal after S: or NS:";
            set_num(r, P_PA, v);
            set_str(r, P_ATTRS, trimmed(q, end));
            set_str(r, P_VALUE, trimmed(words, w));
            return NULL;
        }
    }
    set_str(r, P_VALUE, trimmed(words, end));
    return NULL;
}

/* Parses one line into r (cut in place). NULL, or what was expected (the caller says
 * where). *blank: a line with nothing on it. */
static const char *parse_line(tm_rec *r, char *line, size_t len, int *blank)
{
    char *p = line, *end = line + len, *t;
    memset(r, 0, sizeof *r);
    r->kind = -1;
    while (p < end && tz_is_blank(*p))
        p++;
    *blank = p == end;
    if (*blank)
        return NULL;
    if (is_dig(*p)) {
        size_t n = token(&p, end, &t);
        if (dec_tok(t, n, &r->time) < 0)
            return "a time (an integer >= 0 below 2^63) at the start of the line";
        r->has_time = 1;
        n = token(&p, end, &t);
        if (unit_exp(t, n) == -2000)
            return "a time unit (clk, tic, cyc, ns, ps, us, ms, s or fs) after the time";
        r->unit = t, r->unit_len = n;
        char *save = p;
        n = token(&p, end, &t);
        if (n > 3 && !memcmp(t, "cpu", 3)) {
            r->cpu = t, r->cpu_len = n;
        } else {
            p = save;
        }
    }
    size_t n = token(&p, end, &t);
    r->kind_tok = t, r->kind_len = n;
#define IS(s) (n == sizeof(s) - 1 && !memcmp(t, s, n))
    if (IS("IT") || IS("IS")) {
        r->kind = IS("IT") ? K_INSN : K_NOEXEC;
        return parse_it(r, p, end);
    }
    if (IS("ES")) {
        if ((size_t)(end - p) >= 3 && !memcmp(p, "EXC", 3)) {
            r->kind = K_EXC;
            set_str(r, P_TEXT, trimmed(p + 3, end));
            return NULL;
        }
        r->kind = K_INSN;
        return parse_es(r, p, end);
    }
    if (IS("EXC") || IS("E")) {
        r->kind = K_EXC;
        set_str(r, P_TEXT, trimmed(p, end));
        return NULL;
    }
    if (IS("R")) {
        r->kind = K_REG;
        n = token(&p, end, &t);
        if (!n)
            return "a register's name after R";
        char *nm = t;
        nm[n] = '\0';
        set_str(r, P_REG, nm);
        set_str(r, P_VALUE, trimmed(p, end));
        return NULL;
    }
    if (n >= 3 && t[0] == 'M' && (t[1] == 'R' || t[1] == 'W') && is_dig(t[2])) {
        int64_t sz;
        if (dec_tok(t + 2, n - 2, &sz) < 0 || sz == 0)
            return "MR<bytes> or MW<bytes>, e.g. MR4";
        r->kind = t[1] == 'R' ? K_MREAD : K_MWRITE;
        set_num(r, P_SIZE, sz);
        return parse_mem(r, p, end);
    }
    if (IS("LD") || IS("ST")) {
        r->kind = IS("LD") ? K_MREAD : K_MWRITE;
        return parse_ldst(r, p, end);
    }
    if (IS("BR")) {
        r->kind = K_BRANCH;
        n = token(&p, end, &t);
        int64_t v;
        if (n < 3 || t[0] != '(' || t[n - 1] != ')' || hex_tok(t + 1, n - 2, &v) < 0)
            return "(TARGET) in hexadecimal after BR";
        set_num(r, P_TARGET, v);
        n = token(&p, end, &t);
        if (n) {
            t[n] = '\0';
            set_str(r, P_ISA, t);
        }
        return NULL;
    }
    if (IS("SIGNAL:") || IS("CADI")) {
        r->kind = IS("CADI") ? K_CADI : K_SIGNAL;
        set_str(r, P_TEXT, trimmed(p, end));
        return NULL;
    }
#undef IS
    return NULL; /* a kind not known: skipped by the reader */
}

static int tarmac_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    if (len >= 11 && !memcmp(head, "Tarmac Text", 11))
        return 100;
    const char *ls[64];
    size_t ll[64];
    size_t n = tz_head_lines(head, len, ls, ll, 64);
    int timed = 0, known = 0, other = 0;
    char buf[1024];
    for (size_t i = 0; i < n; i++) {
        if (ll[i] >= sizeof buf) {
            other++;
            continue;
        }
        memcpy(buf, ls[i], ll[i]);
        buf[ll[i]] = '\0';
        tm_rec r;
        int blank;
        const char *bad = parse_line(&r, buf, ll[i], &blank);
        if (blank)
            continue;
        if (bad || r.kind < 0) {
            other++;
            continue;
        }
        known++;
        timed += r.has_time;
    }
    return timed && known >= 2 && other * 10 <= known ? 85 : 0;
}

typedef struct tm_state {
    traza_writer *w;
    traza_err *err;
    tz_namecache prods;
    tz_insn_calls *calls; /* per producer id: the calls of that core */
    size_t ncalls;
    const char *elf;
    int32_t types[K_NKINDS];
    int32_t defs[K_NKINDS][P_N];
} tm_state;

static int32_t type_of(tm_state *s, int kind)
{
    if (s->types[kind] < 0)
        s->types[kind] = traza_writer_event_type(s->w, kind_names[kind], TRAZA_PUNCTUAL, s->err);
    return s->types[kind];
}

static int32_t def_of(tm_state *s, int kind, int k)
{
    if (s->defs[kind][k] < 0)
        s->defs[kind][k] = traza_writer_param_def(s->w, s->types[kind], pdefs[k].name, pdefs[k].type, s->err);
    return s->defs[kind][k];
}

/* The call finder of core `p`, made at its first instruction. */
static tz_insn_calls *calls_of(tm_state *s, int32_t p)
{
    if ((size_t)p >= s->ncalls) {
        size_t n = (size_t)p + 1;
        tz_insn_calls *v = realloc(s->calls, n * sizeof *v);
        if (!v) {
            traza_err_set(s->err, TRAZA_E_NOMEM, "out of memory");
            return NULL;
        }
        for (size_t i = s->ncalls; i < n; i++)
            v[i].w = NULL; /* not started */
        s->calls = v, s->ncalls = n;
    }
    tz_insn_calls *c = &s->calls[p];
    if (!c->w) {
        if (tz_insn_calls_init(c, s->w, p, s->elf, s->err) < 0) {
            tz_insn_calls_free(c);
            c->w = NULL;
            return NULL;
        }
        c->reserved = kind_names;
    }
    return c;
}

static int tarmac_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                       traza_err *err)
{
    tm_state s;
    memset(&s, 0, sizeof s);
    s.w = w, s.err = err;
    for (int k = 0; k < K_NKINDS; k++) {
        s.types[k] = -1;
        for (int j = 0; j < P_N; j++)
            s.defs[k][j] = -1;
    }
    tz_namecache_init(&s.prods);
    s.elf = opts ? opts->elf : NULL;
    int rc = -1, unit = -2000, unit_set = 0;
    int64_t nev = 0, nunknown = 0, evno = 0;
    char first_unknown[64] = "";
    for (size_t fi = 0; fi < npaths; fi++) {
        const char *path = paths[fi];
        tz_lines lr;
        if (tz_lines_open(&lr, path, err) < 0)
            goto out;
        int64_t time = 0;
        int has_time = 0;
        int32_t core = -1;
        char *line;
        size_t len;
        int got, ok = 1;
        while ((got = tz_lines_next(&lr, &line, &len, err)) == 1) {
            long ln = lr.lineno;
            if (tz_check_terminated(&lr, line, len, path, err) < 0 || tz_check_utf8(line, len, path, ln, err) < 0) {
                ok = 0;
                break;
            }
            if (ln == 1 && len >= 11 && !memcmp(line, "Tarmac Text", 11)) {
                char *h = (char *)trimmed(line, line + len);
                if (fi == 0 && traza_writer_set_param(w, "tarmac.header", h, err) < 0) {
                    ok = 0;
                    break;
                }
                continue;
            }
            tz_line_head head; /* parse_line cuts the line; the error shows it whole */
            tz_line_head_keep(&head, line, len);
            char copy[96];
            tm_rec r;
            int blank;
            const char *bad = parse_line(&r, line, len, &blank);
            if (blank)
                continue;
            if (bad) {
                traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected %s, found '%s'", path, ln, bad,
                              tz_shorten(head.head, head.n, copy, sizeof copy));
                ok = 0;
                break;
            }
            if (r.has_time) {
                int e = unit_exp(r.unit, r.unit_len);
                if (!unit_set) {
                    unit_set = 1;
                    unit = e;
                    int given = opts && opts->has_time_unit;
                    traza_writer_set_time_unit(w, given ? opts->time_unit : e == -1000 ? -9 : e);
                    if (e == -1000 && !given && traza_writer_set_param(w, TRAZA_TIME_AXIS_PARAM, "cycles", err) < 0) {
                        ok = 0;
                        break;
                    }
                } else if (e != unit) {
                    traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected the time unit of the first timed line (%s), found '%.*s'", path,
                                  ln, unit == -1000 ? "cycles: clk, tic or cyc" : "the same unit", (int)r.unit_len, r.unit);
                    ok = 0;
                    break;
                }
                time = r.time, has_time = 1;
                const char *cn = r.cpu ? r.cpu : "core";
                if ((core = tz_cached_producer(&s.prods, w, -1, cn, r.cpu ? r.cpu_len : 4, "Core", err)) < 0) {
                    ok = 0;
                    break;
                }
            } else if (!has_time) {
                traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected a line that starts with its time before this one, found '%s'",
                              path, ln, tz_shorten(head.head, head.n, copy, sizeof copy));
                ok = 0;
                break;
            }
            if (r.kind < 0) {
                if (!nunknown++)
                    snprintf(first_unknown, sizeof first_unknown, "%.*s", (int)(r.kind_len < 40 ? r.kind_len : 40), r.kind_tok);
                continue;
            }
            traza_event ev;
            memset(&ev, 0, sizeof ev);
            traza_param ps[P_N];
            ev.ts = time;
            ev.producer = core;
            if ((ev.type = type_of(&s, r.kind)) < 0) {
                ok = 0;
                break;
            }
            for (int k = 0; k < P_N; k++) {
                if (!r.has[k])
                    continue;
                traza_param *p = &ps[ev.nparams++];
                if ((p->def = def_of(&s, r.kind, k)) < 0) {
                    ok = 0;
                    break;
                }
                p->v.kind = pdefs[k].type;
                if (pdefs[k].type == TRAZA_PT_STRING)
                    p->v.s = r.str[k];
                else
                    p->v.i = r.num[k];
            }
            ev.params = ps;
            if (!ok || tz_import_emit(ctx, w, &ev, lr.in, path, ln, &evno, err) < 0) {
                ok = 0;
                break;
            }
            nev++;
            if (r.kind == K_INSN || r.kind == K_NOEXEC) {
                /* a condition failure moves the pc on too (it may be a return address) */
                const char *d = r.has[P_DISASM] ? r.str[P_DISASM] : "";
                tz_insn_calls *c = calls_of(&s, core);
                if (!c || tz_insn_calls_step(c, time, (uint64_t)r.num[P_ADDR], r.kind == K_INSN && tz_insn_is_call(d, strcspn(d, " \t"))) < 0) {
                    traza_err_prefix(err, "%s:%ld: ", path, ln);
                    ok = 0;
                    break;
                }
            }
        }
        tz_lines_close(&lr);
        if (got < 0 || !ok)
            goto out;
    }
    {
        int64_t found = 0, open = 0;
        for (size_t i = 0; i < s.ncalls; i++) {
            if (!s.calls[i].w)
                continue;
            if (tz_insn_calls_finish(&s.calls[i]) < 0)
                goto out;
            found += s.calls[i].ncalls, open += s.calls[i].open_at_end;
        }
        if (tz_insn_calls_report(w, found, open, err) < 0)
            goto out;
        char what[160];
        snprintf(what, sizeof what, "lines of a kind this importer does not know (the first: '%s')", first_unknown);
        tz_skip_kind kinds[] = {{"unknown_lines", what, nunknown}};
        rc = tz_skips_report(ctx, w, npaths ? paths[0] : "", kinds, 1, tz_strict(opts), nev, err);
    }
out:
    for (size_t i = 0; i < s.ncalls; i++)
        if (s.calls[i].w)
            tz_insn_calls_free(&s.calls[i]);
    free(s.calls);
    tz_namecache_free(&s.prods);
    return rc;
}

const traza_importer tz_importer_tarmac = {
    "tarmac", "import-tarmac", "Arm Tarmac text instruction trace (Fast Models, gem5, RTL): instructions, registers, memory",
    tarmac_detect, tarmac_read,
};

/* ITF text: instruction traces of one instruction per line, as `traza itf` compresses
 * them (doc/formats/itf-text.md):
 *
 *   0x000103c0 pop {r1} mem=0x408008d0            generated ITF: pc, instruction, the
 *   0x00010690 push.w {r7, lr} mem=0x.. mem=0x..  data addresses it accessed, CCFAIL
 *   0x000106ba bne #0x106b4 CCFAIL                when its condition failed
 *   0x10001014 ldr -res r3 -par r0:0xbe8f3940     the ITFComp paper's form: values
 *   0x1000101c addeq -noexec -cond                after -par/-target, -noexec
 *
 * Model (as PC traces): one producer "core0" (type Core); each line an event
 * "instr", or "instr not executed" (CCFAIL, -noexec), with the parameters addr (hex),
 * disasm (the instruction's text without its mem= and CCFAIL) and mem, mem2, ...
 * (hex, the data addresses in order). The lines carry no time: the timestamp is the
 * instruction's index (trace parameter time.axis = instructions: every view prints
 * "N instr"). The function calls are found as in Tarmac (import/insn_calls.h). */
#include "import/importers.h"
#include "import/csvutil.h"
#include "import/insn_calls.h"
#include "util/input.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEM 64


/* "0x" and 1-16 hex digits then a space: the digits' length, else 0. */
static size_t pc_prefix(const char *s, size_t n)
{
    if (n < 4 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return 0;
    size_t k = 2;
    while (k < n && k < 19 && ((s[k] >= '0' && s[k] <= '9') || (s[k] >= 'a' && s[k] <= 'f') || (s[k] >= 'A' && s[k] <= 'F')))
        k++;
    return k > 2 && k < n && tz_is_blank(s[k]) ? k - 2 : 0;
}

static int itf_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    const char *ls[64];
    size_t ll[64];
    size_t n = tz_head_lines(head, len, ls, ll, 64), ok = 0;
    for (size_t i = 0; i < n; i++) {
        size_t d = pc_prefix(ls[i], ll[i]);
        if (!d)
            return 0;
        const char *t = ls[i] + 2 + d;
        size_t tn = ll[i] - 2 - d;
        while (tn && tz_is_blank(*t))
            t++, tn--;
        if (!tn)
            return 0; /* an address alone: a PC trace */
        ok++;
    }
    return ok >= 2 ? 80 : 0;
}

/* One line, cut in place: the text (NUL-terminated), its data addresses and whether
 * the instruction was not executed. NULL, or what was expected. */
static const char *parse_line(char *line, size_t len, uint64_t *pc, const char **text, uint64_t *mem, size_t *nmem,
                              int *noexec)
{
    size_t d = pc_prefix(line, len);
    if (!d)
        return "an instruction's address (0x and hexadecimal digits) and a space at the start of the line";
    if (tz_parse_u64_hex(line + 2, d, pc) < 0)
        return "an address of at most 16 hexadecimal digits";
    char *s = line + 2 + d, *end = line + len;
    while (s < end && tz_is_blank(*s))
        s++;
    if (s == end)
        return "the instruction's text after its address";
    *noexec = 0;
    *nmem = 0;
    /* from the end: CCFAIL, then the mem= tokens (generated ITF) */
    char *e = end;
    while (e > s && tz_is_blank(e[-1]))
        e--;
    if (e - s > 7 && !memcmp(e - 6, "CCFAIL", 6) && tz_is_blank(e[-7])) {
        *noexec = 1;
        e -= 7;
        while (e > s && tz_is_blank(e[-1]))
            e--;
    }
    char *first_mem = NULL;
    for (char *p = s; p + 6 < e;) {
        char *m = memmem(p, (size_t)(e - p), " mem=0x", 7);
        if (!m)
            break;
        char *h = m + 7, *q = h;
        while (q < e && !tz_is_blank(*q))
            q++;
        uint64_t a;
        if (q - h < 1 || q - h > 16 || tz_parse_u64_hex(h, (size_t)(q - h), &a) < 0)
            return "a data address after mem=0x (1 to 16 hexadecimal digits)";
        if (*nmem == MAX_MEM)
            return "at most 64 mem= addresses on a line";
        if (!first_mem)
            first_mem = m;
        mem[(*nmem)++] = a;
        p = q;
    }
    if (first_mem)
        e = first_mem;
    while (e > s && tz_is_blank(e[-1]))
        e--;
    *e = '\0';
    /* the paper's form: -noexec right after the mnemonic */
    char *w = s;
    while (*w && !tz_is_blank(*w))
        w++;
    char *a = w;
    while (tz_is_blank(*a))
        a++;
    if (!strncmp(a, "-noexec", 7) && (a[7] == '\0' || tz_is_blank(a[7])))
        *noexec = 1;
    *text = s;
    return NULL;
}

static const char *const own_types[] = {"instr", "instr not executed", NULL};

static int itf_read_lines(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, int32_t core,
                          tz_insn_calls *calls, traza_err *err);

static int itf_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                    traza_err *err)
{
    int32_t core = traza_writer_producer(w, -1, "core0", "Core", err);
    if (core < 0)
        return -1;
    tz_insn_calls calls;
    int rc = tz_insn_calls_init(&calls, w, core, opts ? opts->elf : NULL, err);
    calls.reserved = own_types;
    if (rc == 0)
        rc = itf_read_lines(ctx, w, paths, npaths, core, &calls, err);
    if (rc == 0)
        rc = tz_insn_calls_finish(&calls);
    if (rc == 0)
        rc = tz_insn_calls_report(w, calls.ncalls, calls.open_at_end, err);
    tz_insn_calls_free(&calls);
    return rc;
}

/* The lines, each an instruction (and a step of the calls' finder). */
static int itf_read_lines(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, int32_t core,
                          tz_insn_calls *calls, traza_err *err)
{
    traza_writer_set_time_unit(w, -9);
    if (traza_writer_set_param(w, TRAZA_TIME_AXIS_PARAM, "instructions", err) < 0)
        return -1;
    int32_t types[2] = {-1, -1}, d_addr[2] = {-1, -1}, d_text[2] = {-1, -1}, d_mem[2][MAX_MEM];
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < MAX_MEM; j++)
            d_mem[k][j] = -1;
    int64_t index = 0, evno = 0;
    for (size_t fi = 0; fi < npaths; fi++) {
        const char *path = paths[fi];
        tz_lines lr;
        if (tz_lines_open(&lr, path, err) < 0)
            return -1;
        char *line;
        size_t len;
        int got = 0, ok = 1;
        while (ok && (got = tz_lines_next(&lr, &line, &len, err)) == 1) {
            long ln = lr.lineno;
            if (len == 0)
                continue;
            if (tz_check_terminated(&lr, line, len, path, err) < 0 || tz_check_utf8(line, len, path, ln, err) < 0) {
                ok = 0;
                break;
            }
            tz_line_head head; /* parse_line cuts the line; the error shows it whole */
            tz_line_head_keep(&head, line, len);
            uint64_t pc, mem[MAX_MEM];
            size_t nmem;
            int noexec;
            const char *text;
            const char *bad = parse_line(line, len, &pc, &text, mem, &nmem, &noexec);
            if (bad) {
                char shown[96];
                traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected %s, found '%s'", path, ln, bad,
                              tz_shorten(head.head, head.n, shown, sizeof shown));
                ok = 0;
                break;
            }
            int k = noexec;
            if (types[k] < 0) {
                types[k] = traza_writer_event_type(w, k ? "instr not executed" : "instr", TRAZA_PUNCTUAL, err);
                d_addr[k] = types[k] < 0 ? -1 : traza_writer_param_def(w, types[k], "addr", TRAZA_PT_HEX, err);
                d_text[k] = d_addr[k] < 0 ? -1 : traza_writer_param_def(w, types[k], "disasm", TRAZA_PT_STRING, err);
                if (d_text[k] < 0) {
                    ok = 0;
                    break;
                }
            }
            traza_param ps[2 + MAX_MEM];
            ps[0].def = d_addr[k], ps[0].v.kind = TRAZA_PT_HEX, ps[0].v.i = (int64_t)pc;
            ps[1].def = d_text[k], ps[1].v.kind = TRAZA_PT_STRING, ps[1].v.s = text;
            for (size_t j = 0; j < nmem && ok; j++) {
                if (d_mem[k][j] < 0) {
                    char name[32];
                    if (j == 0)
                        snprintf(name, sizeof name, "mem");
                    else
                        snprintf(name, sizeof name, "mem%zu", j + 1);
                    if ((d_mem[k][j] = traza_writer_param_def(w, types[k], name, TRAZA_PT_HEX, err)) < 0)
                        ok = 0;
                }
                ps[2 + j].def = d_mem[k][j], ps[2 + j].v.kind = TRAZA_PT_HEX, ps[2 + j].v.i = (int64_t)mem[j];
            }
            traza_event ev;
            memset(&ev, 0, sizeof ev);
            ev.ts = index++;
            ev.type = types[k];
            ev.producer = core;
            ev.params = ps;
            ev.nparams = 2 + nmem;
            if (!ok || tz_import_emit(ctx, w, &ev, lr.in, path, ln, &evno, err) < 0)
                ok = 0;
            else if (tz_insn_calls_step(calls, ev.ts, pc, !noexec && tz_insn_is_call(text, strcspn(text, " \t"))) < 0) {
                traza_err_prefix(err, "%s:%ld: ", path, ln);
                ok = 0;
            }
        }
        tz_lines_close(&lr);
        if (got < 0 || !ok)
            return -1;
    }
    if (index == 0)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: expected at least one instruction line, found none (empty file)",
                             npaths ? paths[0] : "");
    return 0;
}

const traza_importer tz_importer_itf = {
    "itf", "import-itf", "ITF text instruction trace (generated ITF, the ITFComp paper's form): one instruction per line",
    itf_detect, itf_read,
};

/* Function calls found in an instruction trace: see insn_calls.h. */
#include "import/insn_calls.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Frames looked at for a return: deeper ones are left open (a return that far down
 * is not one). */
#define RET_SEARCH 256

int tz_insn_calls_init(tz_insn_calls *c, traza_writer *w, int32_t producer, const char *elf, traza_err *err)
{
    memset(c, 0, sizeof *c);
    c->w = w, c->err = err, c->producer = producer, c->elf_fd = -1;
    tz_namecache_init(&c->types);
    if (!elf)
        return 0;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return traza_err_set(err, TRAZA_E_INTERNAL, "libelf: %s", elf_errmsg(-1));
    if ((c->elf_fd = open(elf, O_RDONLY | O_CLOEXEC)) < 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open the ELF file: %s", elf, strerror(errno));
    if (!(c->elf = elf_begin(c->elf_fd, ELF_C_READ, NULL)))
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: not an ELF file (%s)", elf, elf_errmsg(-1));
    return tz_elfsyms_read(c->elf, elf, &c->syms, err);
}

void tz_insn_calls_free(tz_insn_calls *c)
{
    free(c->st);
    tz_namecache_free(&c->types);
    tz_elfsyms_free(&c->syms);
    if (c->elf)
        elf_end(c->elf);
    if (c->elf_fd >= 0)
        close(c->elf_fd);
    memset(c, 0, sizeof *c);
    c->elf_fd = -1;
}

int tz_insn_is_call(const char *m, size_t n)
{
    static const char *const conds[] = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs",
                                        "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"};
    const char *dot = memchr(m, '.', n); /* bl.w, blx.n */
    if (dot)
        n = (size_t)(dot - m);
    if (n < 2 || strncasecmp(m, "bl", 2) != 0)
        return 0;
    m += 2, n -= 2;
    if (n == 0)
        return 1;                          /* BL */
    if (n >= 1 && (m[0] == 'x' || m[0] == 'X' || m[0] == 'r' || m[0] == 'R')) {
        m++, n--;                          /* BLX, BLR */
        if (n == 0)
            return 1;
        if (m[-1] == 'r' || m[-1] == 'R') /* BLRAA, BLRAAZ, BLRAB, BLRABZ (pointer authentication) */
            return n >= 2 && (m[0] == 'a' || m[0] == 'A');
    }
    /* a condition: BLEQ, BLXNE (BLT, BLE, BLS and BLO are B<cond>: no two-letter cond left) */
    if (n != 2)
        return 0;
    for (size_t i = 0; i < sizeof conds / sizeof conds[0]; i++)
        if (strncasecmp(m, conds[i], 2) == 0)
            return 1;
    return 0;
}

/* The event type of a function: its symbol, else its address. */
static int32_t func_type(tz_insn_calls *c, uint64_t func)
{
    char buf[32];
    const char *name = NULL;
    if (c->syms.nfunc) {
        const tz_elfsym *s = tz_elfsyms_func_at(&c->syms, func);
        if (s)
            name = s->name;
    }
    if (!name) {
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)func);
        name = buf;
    }
    for (const char *const *r = c->reserved; r && *r; r++)
        if (strcmp(*r, name) == 0) {
            char *own = tz_asprintf("%s()", name);
            if (!own)
                return traza_err_set(c->err, TRAZA_E_NOMEM, "out of memory");
            int32_t t = tz_cached_type(&c->types, c->w, own, strlen(own), TRAZA_STATE, "", 0, c->err);
            free(own);
            return t;
        }
    return tz_cached_type(&c->types, c->w, name, strlen(name), TRAZA_STATE, "", 0, c->err);
}

/* Closes the frames from k up (the innermost first) at `end`. */
static int close_from(tz_insn_calls *c, size_t k, int64_t end)
{
    while (c->n > k) {
        tz_insn_frame *f = &c->st[--c->n];
        traza_event ev;
        memset(&ev, 0, sizeof ev);
        if ((ev.type = func_type(c, f->func)) < 0)
            return -1;
        ev.ts = f->start;
        ev.end_ts = end;
        ev.producer = c->producer;
        ev.level = (int32_t)c->n;
        ev.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
        if (traza_writer_event(c->w, &ev, c->err) < 0)
            return -1;
        c->ncalls++;
    }
    return 0;
}

int tz_insn_calls_step(tz_insn_calls *c, int64_t ts, uint64_t pc, int is_call)
{
    if (c->pending) {
        /* the call's first instruction: the called function */
        if (TZ_GROW(c->st, c->cap, c->n + 1) < 0)
            return traza_err_set(c->err, TRAZA_E_NOMEM, "out of memory");
        c->st[c->n++] = (tz_insn_frame){c->pending_pc, pc, ts};
        c->pending = 0;
    } else {
        size_t lo = c->n > RET_SEARCH ? c->n - RET_SEARCH : 0;
        for (size_t k = c->n; k-- > lo;) {
            uint64_t cp = c->st[k].call_pc;
            if (pc == cp + 4 || pc == cp + 2) {
                if (close_from(c, k, ts) < 0)
                    return -1;
                break;
            }
        }
    }
    if (is_call) {
        c->pending = 1;
        c->pending_pc = pc;
    }
    c->last_ts = ts;
    return 0;
}

int tz_insn_calls_report(traza_writer *w, int64_t found, int64_t open_at_end, traza_err *err)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)found);
    if (traza_writer_set_param(w, "calls.found", num, err) < 0)
        return -1;
    snprintf(num, sizeof num, "%lld", (long long)open_at_end);
    return open_at_end ? traza_writer_set_param(w, "calls.open_at_end", num, err) : 0;
}

int tz_insn_calls_finish(tz_insn_calls *c)
{
    c->open_at_end += (int64_t)c->n;
    return close_from(c, 0, c->last_ts);
}

/* Call stacks of LTTng cyg-profile events (see ctf_cyg.h). The function names come
 * from a symbol table in nm's format (read by the uftrace importer's .sym parser,
 * the same layout) or from an ELF program through the ETM importer's symbol lookup
 * (an empty snapshot and the program at its link addresses). */
#include "import/ctf_cyg.h"
#include "import/etm_internal.h"
#include "import/uftrace_internal.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cyg_frame {
    int64_t ts;
    uint64_t addr;
} cyg_frame;

typedef struct cyg_thread {
    int32_t producer;
    int64_t last_ts;
    cyg_frame *stack;
    size_t depth, cap;
} cyg_thread;

struct tz_cyg {
    traza_writer *w;
    traza_err *err;
    const char *path;
    tz_etm_syms *syms;
    tz_imap by_addr;     /* address -> index into names (the symbol table) */
    char **names;
    size_t nnames, capnames;
    tz_map types;        /* function name -> state type */
    tz_imap addr_defs;   /* type -> def of "addr" */
    tz_imap by_producer; /* producer -> index into threads */
    cyg_thread *threads;
    size_t nthreads, capthreads;
    int64_t calls, unended, unmatched_exits;
};

static int oom(tz_cyg *g) { return traza_err_set(g->err, TRAZA_E_NOMEM, "%s: out of memory", g->path); }

int tz_cyg_kind(const char *ec)
{
    static const char *const providers[] = {"lttng_ust_cyg_profile:", "lttng_ust_cyg_profile_fast:"};
    for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++) {
        size_t n = strlen(providers[i]);
        if (strncmp(ec, providers[i], n) == 0) {
            if (strcmp(ec + n, "func_entry") == 0)
                return TZ_CYG_ENTRY;
            if (strcmp(ec + n, "func_exit") == 0)
                return TZ_CYG_EXIT;
        }
    }
    return TZ_CYG_NONE;
}

static int add_name(void *user, uint64_t addr, uint64_t size, const char *name, size_t nlen)
{
    (void)size;
    tz_cyg *g = user;
    int64_t v;
    if (tz_imap_get(&g->by_addr, (int64_t)addr, &v))
        return 0; /* the first symbol at an address names it */
    char *s = tz_strndup(name, nlen);
    if (!s || TZ_GROW(g->names, g->capnames, g->nnames + 1) < 0 || tz_imap_put(&g->by_addr, (int64_t)addr, (int64_t)g->nnames) < 0) {
        free(s);
        return -1;
    }
    g->names[g->nnames++] = s;
    return 0;
}

tz_cyg *tz_cyg_new(traza_writer *w, const char *path, const char *symbols, const char *elf, traza_err *err)
{
    tz_cyg *g = calloc(1, sizeof *g);
    if (!g) {
        traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    g->w = w;
    g->err = err;
    g->path = path;
    tz_map_init(&g->types);
    tz_imap_init(&g->addr_defs);
    tz_imap_init(&g->by_producer);
    tz_imap_init(&g->by_addr);
    if (symbols) {
        char *text = NULL;
        size_t len = 0;
        int rc = tz_read_file(symbols, &text, &len, err) < 0 ? -1 : tz_uftrace_parse_syms(symbols, text, len, add_name, g, err);
        free(text);
        if (rc < 0) {
            tz_cyg_free(g);
            return NULL;
        }
    }
    if (elf) {
        tz_snapshot none;
        memset(&none, 0, sizeof none);
        if (tz_etm_syms_open(&none, elf, &g->syms, err) < 0) {
            tz_cyg_free(g);
            return NULL;
        }
    }
    return g;
}

static int emit_call(tz_cyg *g, int32_t producer, const cyg_frame *f, int level, int64_t end)
{
    char hex[24];
    int64_t v;
    const char *name = tz_imap_get(&g->by_addr, (int64_t)f->addr, &v) ? g->names[v] : NULL;
    if (!name && g->syms)
        name = tz_etm_syms_func(g->syms, f->addr);
    if (!name) {
        snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)f->addr);
        name = hex;
    }
    int32_t type, def;
    if (tz_map_get(&g->types, name, &v)) {
        type = (int32_t)v;
    } else {
        if ((type = traza_writer_event_type(g->w, name, TRAZA_STATE, g->err)) < 0)
            return -1;
        if (tz_map_put(&g->types, name, type) < 0)
            return oom(g);
    }
    if (tz_imap_get(&g->addr_defs, type, &v)) {
        def = (int32_t)v;
    } else {
        if ((def = traza_writer_param_def(g->w, type, "addr", TRAZA_PT_HEX, g->err)) < 0)
            return -1;
        if (tz_imap_put(&g->addr_defs, type, def) < 0)
            return oom(g);
    }
    traza_param p = {def, {TRAZA_PT_HEX, (int64_t)f->addr, 0, NULL}};
    traza_event e = {0};
    e.ts = f->ts;
    e.end_ts = end < f->ts ? f->ts : end;
    e.type = type;
    e.producer = producer;
    e.level = level;
    e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
    e.params = &p;
    e.nparams = 1;
    if (traza_writer_event(g->w, &e, g->err) < 0)
        return -1;
    g->calls++;
    return 0;
}

/* Closes the calls of t from the innermost down to depth `to`, at `end`. */
static int close_to(tz_cyg *g, cyg_thread *t, size_t to, int64_t end)
{
    while (t->depth > to) {
        t->depth--;
        if (emit_call(g, t->producer, &t->stack[t->depth], (int)t->depth, end) < 0)
            return -1;
    }
    return 0;
}

int tz_cyg_event(tz_cyg *g, int kind, int32_t thread, int64_t ts, int has_addr, uint64_t addr)
{
    int64_t v;
    cyg_thread *t;
    if (tz_imap_get(&g->by_producer, thread, &v)) {
        t = &g->threads[v];
    } else {
        if (TZ_GROW(g->threads, g->capthreads, g->nthreads + 1) < 0 ||
            tz_imap_put(&g->by_producer, thread, (int64_t)g->nthreads) < 0)
            return oom(g);
        t = &g->threads[g->nthreads++];
        memset(t, 0, sizeof *t);
        t->producer = thread;
    }
    if (ts > t->last_ts)
        t->last_ts = ts;
    if (kind == TZ_CYG_ENTRY) {
        if (TZ_GROW(t->stack, t->cap, t->depth + 1) < 0)
            return oom(g);
        t->stack[t->depth++] = (cyg_frame){ts, addr};
        return 0;
    }
    size_t k = t->depth; /* the call this exit closes: k - 1 */
    if (has_addr)
        while (k > 0 && t->stack[k - 1].addr != addr)
            k--;
    if (k == 0) {
        g->unmatched_exits++; /* entered before the recording started */
        return 0;
    }
    g->unended += (int64_t)(t->depth - k);
    return close_to(g, t, k - 1, ts);
}

int tz_cyg_finish(tz_cyg *g)
{
    for (size_t i = 0; i < g->nthreads; i++) {
        cyg_thread *t = &g->threads[i];
        g->unended += (int64_t)t->depth;
        if (close_to(g, t, 0, t->last_ts) < 0)
            return -1;
    }
    return 0;
}

int64_t tz_cyg_calls(const tz_cyg *g) { return g->calls; }
int64_t tz_cyg_unended(const tz_cyg *g) { return g->unended; }
int64_t tz_cyg_unmatched_exits(const tz_cyg *g) { return g->unmatched_exits; }

void tz_cyg_free(tz_cyg *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nthreads; i++)
        free(g->threads[i].stack);
    free(g->threads);
    tz_map_free(&g->types);
    tz_imap_free(&g->addr_defs);
    tz_imap_free(&g->by_producer);
    tz_imap_free(&g->by_addr);
    for (size_t i = 0; i < g->nnames; i++)
        free(g->names[i]);
    free(g->names);
    tz_etm_syms_close(g->syms);
    free(g);
}

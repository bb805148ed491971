/* uftrace recording directories (uftrace.data/): functions as nested states per
 * thread. See doc/formats/uftrace.md.
 *
 *   info        "Ftrace!\0" header (version, header size, endian, class, feature
 *               and info masks) then "key:value" text lines (exename, taskinfo...)
 *   task.txt    SESS / TASK / FORK / DLOP lines: processes, threads, loaded libraries
 *   sid-*.map   /proc/PID/maps of a session: where each binary is loaded
 *   *.sym       "ADDR [SIZE] TYPE NAME" symbol tables, addresses relative to the load
 *               base when the SYM_REL_ADDR feature bit is set
 *   TID.dat     16-byte records: u64 time (ns), then a u64 with type:2 more:1
 *               magic:3 (= 5) depth:10 addr:48 from the low bit up
 *
 * Entry/exit pairs become states (level = call depth) on the thread producer; exits
 * whose entry precedes the recording start at the thread's first record, entries
 * never exited end at its last one. LOST records become punctual "(lost)" events,
 * EVENT records punctual "event:ID" events. Producers: process "EXE (PID)" ->
 * thread "tid TID"; a forked process nests under its parent. Threads listed in
 * info/task.txt whose .dat file is absent are listed in the trace parameter
 * "missing_tasks"; they, lost records and trailing bytes are skips (import/skips.h). */
#include "import/importers.h"
#include "import/skips.h"
#include "import/uftrace_internal.h"
#include "util/input.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define UF_MAGIC 5
#define UF_FEAT_SYM_REL_ADDR (1u << 5)

typedef struct uf_sym {
    uint64_t addr, size;
    char *name;
} uf_sym;

typedef struct uf_symtab {
    char *base;         /* file basename: "libc-2.31.so" */
    uf_sym *syms;
    size_t n, cap;
} uf_symtab;

typedef struct uf_region {
    uint64_t start, end; /* end 0 = unknown (dlopen) */
    uint64_t base;
    int tab;             /* index into tabs, -1 */
} uf_region;

typedef struct uf_frame {
    int64_t ts;
    uint64_t addr;
    int depth;
} uf_frame;

typedef struct uf_ctx {
    traza_ctx *ctx;
    traza_writer *w;
    traza_err *err;
    const char *dir;
    uint64_t feat;
    uf_symtab *tabs;
    size_t ntabs, captabs;
    uf_region *regions;
    size_t nregions, capregions;
    tz_imap procs;       /* pid -> producer */
    tz_imap threads;     /* tid -> producer */
    tz_imap parent_of;   /* tid -> pid (from TASK/FORK) */
    char *exename;
    tz_map types;        /* function name -> type */
    tz_imap addr_defs;   /* type -> def of "addr" */
    uf_frame *stack;
    size_t depth, capstack;
    int64_t n_unmatched_exit, n_unended, n_lost_records, n_lost, n_trailing;
} uf_ctx;

static int oom(uf_ctx *c) { return traza_err_set(c->err, TRAZA_E_NOMEM, "%s: out of memory", c->dir); }

static int sym_cmp(const void *a, const void *b)
{
    const uf_sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int region_cmp(const void *a, const void *b)
{
    const uf_region *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static const char *basename_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* ---- symbols ---------------------------------------------------------------- */

int tz_uftrace_parse_syms(const char *path, const char *text, size_t len, tz_uftrace_sym_fn fn, void *user, traza_err *err)
{
    size_t pos = 0;
    long lineno = 0;
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);
        lineno++;
        if (ll && line[ll - 1] == '\r')
            ll--;
        if (ll == 0 || line[0] == '#')
            continue;
        /* ADDR [SIZE] TYPE NAME */
        const char *tok[4];
        size_t tl[4];
        int nt = 0;
        size_t i = 0;
        while (nt < 4 && i < ll) {
            while (i < ll && (line[i] == ' ' || line[i] == '\t'))
                i++;
            if (i >= ll)
                break;
            tok[nt] = line + i;
            size_t s = i;
            while (i < ll && line[i] != ' ' && line[i] != '\t')
                i++;
            tl[nt++] = i - s;
        }
        uint64_t addr, size = 0;
        const char *name;
        size_t nlen;
        if (nt == 2 && tl[0] == 1 && (tok[0][0] == 'U' || tok[0][0] == 'w' || tok[0][0] == 'v'))
            continue; /* nm's undefined (or weak undefined) symbol: no address */
        if (nt >= 3 && tl[1] == 1 && tz_parse_u64_hex(tok[0], tl[0], &addr) == 0) {
            /* old layout: ADDR TYPE NAME (name = rest of the line) */
            name = tok[2];
            nlen = (size_t)(line + ll - tok[2]);
        } else if (nt >= 4 && tl[2] == 1 && tz_parse_u64_hex(tok[0], tl[0], &addr) == 0 &&
                   tz_parse_u64_hex(tok[1], tl[1], &size) == 0) {
            name = tok[3];
            nlen = (size_t)(line + ll - tok[3]);
        } else {
            return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected 'ADDR [SIZE] TYPE NAME' (hexadecimal address), found '%.*s'",
                                 path, lineno, (int)(ll > 80 ? 80 : ll), line);
        }
        while (nlen && (name[nlen - 1] == ' ' || name[nlen - 1] == '\t'))
            nlen--;
        if (fn(user, addr, size, name, nlen) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory", path);
    }
    return 0;
}

static int add_sym(void *user, uint64_t addr, uint64_t size, const char *name, size_t nlen)
{
    uf_symtab *t = user;
    if (TZ_GROW(t->syms, t->cap, t->n + 1) < 0)
        return -1;
    char *s = tz_strndup(name, nlen);
    if (!s)
        return -1;
    t->syms[t->n].addr = addr;
    t->syms[t->n].size = size;
    t->syms[t->n].name = s;
    t->n++;
    return 0;
}

static int load_symtabs(uf_ctx *c)
{
    DIR *d = opendir(c->dir);
    if (!d)
        return traza_err_set(c->err, TRAZA_E_IO, "%s: cannot list: %s", c->dir, strerror(errno));
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".sym") != 0)
            continue;
        char *p = tz_asprintf("%s/%s", c->dir, de->d_name);
        char *text = NULL;
        size_t len;
        if (!p || TZ_GROW(c->tabs, c->captabs, c->ntabs + 1) < 0) {
            free(p);
            rc = oom(c);
            break;
        }
        uf_symtab *t = &c->tabs[c->ntabs];
        memset(t, 0, sizeof *t);
        if (!(t->base = tz_strndup(de->d_name, l - 4))) {
            free(p);
            rc = oom(c);
            break;
        }
        c->ntabs++;
        if (tz_read_file(p, &text, &len, c->err) < 0 || tz_uftrace_parse_syms(p, text, len, add_sym, t, c->err) < 0)
            rc = -1;
        free(text);
        free(p);
        if (rc == 0 && t->n)
            qsort(t->syms, t->n, sizeof *t->syms, sym_cmp);
    }
    closedir(d);
    return rc;
}

static int tab_for(uf_ctx *c, const char *path)
{
    const char *b = basename_of(path);
    for (size_t i = 0; i < c->ntabs; i++)
        if (strcmp(c->tabs[i].base, b) == 0)
            return (int)i;
    return -1;
}

static int add_region(uf_ctx *c, uint64_t start, uint64_t end, uint64_t base, const char *path)
{
    if (TZ_GROW(c->regions, c->capregions, c->nregions + 1) < 0)
        return oom(c);
    uf_region *r = &c->regions[c->nregions++];
    r->start = start;
    r->end = end;
    r->base = base;
    r->tab = tab_for(c, path);
    return 0;
}

/* sid-*.map files: "START-END PERMS OFFSET DEV INODE PATH [build-id:...]". */
static int load_maps(uf_ctx *c)
{
    DIR *d = opendir(c->dir);
    if (!d)
        return traza_err_set(c->err, TRAZA_E_IO, "%s: cannot list: %s", c->dir, strerror(errno));
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (strncmp(de->d_name, "sid-", 4) != 0 || l < 8 || strcmp(de->d_name + l - 4, ".map") != 0)
            continue;
        char *p = tz_asprintf("%s/%s", c->dir, de->d_name);
        if (!p) {
            rc = oom(c);
            break;
        }
        tz_lines lr;
        if (tz_lines_open(&lr, p, c->err) < 0) {
            free(p);
            rc = -1;
            break;
        }
        char *line;
        size_t len;
        int r;
        while ((r = tz_lines_next(&lr, &line, &len, c->err)) > 0) {
            unsigned long long s, e, off;
            char perms[8];
            int n = 0;
            if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &n) < 4 || n <= 0 || (size_t)n > len)
                continue;
            char *path = line + n;
            char *sp = strchr(path, ' ');
            if (sp)
                *sp = 0;
            if (!*path || path[0] == '[')
                continue;
            if (add_region(c, s, e, s - off, path) < 0) {
                r = -1;
                break;
            }
        }
        tz_lines_close(&lr);
        free(p);
        if (r < 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

static const char *sym_name(uf_ctx *c, uint64_t addr, char *buf, size_t size)
{
    /* the region with the highest start <= addr */
    size_t lo = 0, hi = c->nregions;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->regions[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k > 0; k--) {
        const uf_region *r = &c->regions[k - 1];
        if (r->end && addr >= r->end)
            break;
        if (r->tab < 0)
            break;
        const uf_symtab *t = &c->tabs[r->tab];
        uint64_t off = (c->feat & UF_FEAT_SYM_REL_ADDR) ? addr - r->base : addr;
        size_t l2 = 0, h2 = t->n;
        while (l2 < h2) {
            size_t mid = (l2 + h2) / 2;
            if (t->syms[mid].addr <= off)
                l2 = mid + 1;
            else
                h2 = mid;
        }
        if (l2 > 0) {
            const uf_sym *s = &t->syms[l2 - 1];
            if (!s->size || off < s->addr + s->size)
                return s->name;
        }
        break;
    }
    snprintf(buf, size, "0x%llx", (unsigned long long)addr);
    return buf;
}

/* ---- info and task.txt -------------------------------------------------------- */

int tz_uftrace_parse_info_header(const char *path, const unsigned char *data, size_t len, uint64_t *feat, traza_err *err)
{
    if (len < 8 || memcmp(data, "Ftrace!\0", 8) != 0)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: byte 0: expected the uftrace magic \"Ftrace!\\0\", found %s", path,
                             len < 8 ? "a file shorter than 8 bytes" : "other bytes");
    if (len < 40)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: header is %zu bytes, expected at least 40", path, len);
    uint32_t version = (uint32_t)data[8] | (uint32_t)data[9] << 8 | (uint32_t)data[10] << 16 | (uint32_t)data[11] << 24;
    unsigned hsize = data[12] | (unsigned)data[13] << 8;
    unsigned endian = data[14], cls = data[15];
    if (version < 3 || version > 4)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: byte 8: uftrace file version %u, expected 3 or 4", path, version);
    if (endian != 1)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: byte 14: big-endian recordings (endian %u) are not supported", path, endian);
    if (cls != 2)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: byte 15: ELF class %u (32-bit recording) is not supported, expected 2", path, cls);
    if (hsize < 40 || hsize > len)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: byte 12: header size %u out of range (file is %zu bytes)", path, hsize, len);
    uint64_t f = 0;
    for (int i = 0; i < 8; i++)
        f |= (uint64_t)data[16 + i] << (8 * i);
    *feat = f;
    return (int)hsize;
}

/* A parent chain (task.txt) that leads back to a process of its own: an error that
 * names the cycle, chain[from..n-1] then chain[from] again. */
static int parent_cycle(uf_ctx *c, const int64_t *chain, size_t from, size_t n)
{
    char list[256];
    size_t len = 0;
    for (size_t i = from; i <= n && len < sizeof list - 32; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", i > from ? " -> " : "",
                                (long long)chain[i < n ? i : from]);
    if (len >= sizeof list - 32)
        snprintf(list + len, sizeof list - len, " -> ...");
    return traza_err_set(c->err, TRAZA_E_PARSE, "%s/task.txt: processes in a parent cycle: %s", c->dir, list);
}

/* The producer of process `pid`, made after those of its ancestors (parent_of; a
 * process that is its own parent has none). Iterative: a chain is as long as the file. */
static int32_t process_producer(uf_ctx *c, int64_t pid)
{
    int64_t v;
    if (tz_imap_get(&c->procs, pid, &v))
        return (int32_t)v;
    int64_t *chain = NULL; /* pid, its parent, ...: the processes without a producer yet */
    size_t n = 0, cap = 0;
    tz_imap pos; /* process -> its index in chain */
    tz_imap_init(&pos);
    int32_t parent = -1;
    for (int64_t cur = pid;;) {
        if (tz_imap_get(&c->procs, cur, &v)) {
            parent = (int32_t)v;
            break;
        }
        if (tz_imap_get(&pos, cur, &v)) {
            parent = parent_cycle(c, chain, (size_t)v, n);
            goto out;
        }
        if (TZ_GROW(chain, cap, n + 1) < 0 || tz_imap_put(&pos, cur, (int64_t)n) < 0) {
            parent = oom(c);
            goto out;
        }
        chain[n++] = cur;
        int64_t ppid;
        if (!tz_imap_get(&c->parent_of, cur, &ppid) || ppid == cur)
            break;
        cur = ppid;
    }
    while (n > 0) {
        int64_t p = chain[--n];
        char *name = tz_asprintf("%s (%lld)", c->exename ? basename_of(c->exename) : "process", (long long)p);
        if (!name) {
            parent = oom(c);
            break;
        }
        int32_t id = traza_writer_producer(c->w, parent, name, "Process", c->err);
        free(name);
        if (id < 0 || tz_imap_put(&c->procs, p, id) < 0) {
            parent = id < 0 ? -1 : oom(c);
            break;
        }
        parent = id;
    }
out:
    free(chain);
    tz_imap_free(&pos);
    return parent;
}

static int32_t thread_producer(uf_ctx *c, int64_t tid)
{
    int64_t v;
    if (tz_imap_get(&c->threads, tid, &v))
        return (int32_t)v;
    int64_t pid = tid;
    tz_imap_get(&c->parent_of, tid, &pid);
    int32_t proc = process_producer(c, pid);
    if (proc < 0)
        return -1;
    char *name = tz_asprintf("tid %lld", (long long)tid);
    if (!name)
        return oom(c);
    int32_t id = traza_writer_producer(c->w, proc, name, "Thread", c->err);
    free(name);
    if (id >= 0 && tz_imap_put(&c->threads, tid, id) < 0)
        return oom(c);
    return id;
}

/* Value of KEY=VALUE in a task.txt line; quotes stripped. */
static int kv(const char *line, const char *key, char *out, size_t size)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p++) {
        if ((p != line && p[-1] != ' ') || p[kl] != '=')
            continue;
        p += kl + 1;
        size_t n = 0;
        if (*p == '"') {
            p++;
            while (p[n] && p[n] != '"')
                n++;
        } else {
            while (p[n] && p[n] != ' ')
                n++;
        }
        if (n >= size)
            n = size - 1;
        memcpy(out, p, n);
        out[n] = 0;
        return 1;
    }
    return 0;
}

static int load_tasks(uf_ctx *c, tz_imap *listed)
{
    char *p = tz_asprintf("%s/task.txt", c->dir);
    if (!p)
        return oom(c);
    struct stat st;
    if (stat(p, &st) < 0) {
        traza_log(c->ctx, TRAZA_LOG_WARN, "%s: no task.txt (old recording?): threads get their own process", c->dir);
        free(p);
        return 0;
    }
    tz_lines lr;
    if (tz_lines_open(&lr, p, c->err) < 0) {
        free(p);
        return -1;
    }
    char *line;
    size_t len;
    int r;
    char a[4096], b[64];
    while ((r = tz_lines_next(&lr, &line, &len, c->err)) > 0) {
        char *end;
        if (strncmp(line, "SESS ", 5) == 0) {
            if (!c->exename && kv(line, "exename", a, sizeof a) && !(c->exename = tz_strdup(a))) {
                r = oom(c);
                break;
            }
        } else if (strncmp(line, "TASK ", 5) == 0 || strncmp(line, "FORK ", 5) == 0) {
            int fork = line[0] == 'F';
            if (!kv(line, fork ? "pid" : "tid", b, sizeof b))
                goto bad;
            long long id = strtoll(b, &end, 10);
            if (*end || !kv(line, fork ? "ppid" : "pid", b, sizeof b))
                goto bad;
            long long parent = strtoll(b, &end, 10);
            if (*end)
                goto bad;
            if (tz_imap_put(&c->parent_of, id, parent) < 0 || tz_imap_put(listed, id, 1) < 0) {
                r = oom(c);
                break;
            }
        } else if (strncmp(line, "DLOP ", 5) == 0) {
            if (!kv(line, "base", b, sizeof b) || !kv(line, "libname", a, sizeof a))
                goto bad;
            unsigned long long base = strtoull(b, &end, 16);
            if (*end)
                goto bad;
            if (add_region(c, base, 0, base, a) < 0) {
                r = -1;
                break;
            }
        }
        continue;
    bad:
        r = traza_err_set(c->err, TRAZA_E_PARSE, "%s:%ld: malformed %.4s line: '%.80s'", p, lr.lineno, line, line);
        break;
    }
    tz_lines_close(&lr);
    free(p);
    return r < 0 ? -1 : 0;
}

/* ---- records ---------------------------------------------------------------- */

static int32_t func_type(uf_ctx *c, const char *name, int32_t *addr_def)
{
    int64_t v;
    int32_t type;
    if (tz_map_get(&c->types, name, &v)) {
        type = (int32_t)v;
    } else {
        if ((type = traza_writer_event_type(c->w, name, TRAZA_STATE, c->err)) < 0)
            return -1;
        if (tz_map_put(&c->types, name, type) < 0)
            return oom(c);
    }
    if (addr_def) {
        if (tz_imap_get(&c->addr_defs, type, &v)) {
            *addr_def = (int32_t)v;
        } else {
            if ((*addr_def = traza_writer_param_def(c->w, type, "addr", TRAZA_PT_HEX, c->err)) < 0)
                return -1;
            if (tz_imap_put(&c->addr_defs, type, *addr_def) < 0)
                return oom(c);
        }
    }
    return type;
}

static int emit_state(uf_ctx *c, int32_t prod, uint64_t addr, int depth, int64_t start, int64_t end)
{
    char buf[32];
    const char *name = sym_name(c, addr, buf, sizeof buf);
    int32_t def = -1;
    int32_t type = func_type(c, name, &def);
    if (type < 0)
        return -1;
    traza_param p = {def, {TRAZA_PT_HEX, (int64_t)addr, 0, NULL}};
    traza_event e = {0};
    e.ts = start;
    e.end_ts = end < start ? start : end;
    e.type = type;
    e.producer = prod;
    e.level = depth;
    e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
    e.params = &p;
    e.nparams = 1;
    return traza_writer_event(c->w, &e, c->err);
}

static int emit_point(uf_ctx *c, int32_t prod, const char *name, int64_t ts, const char *pname, int64_t val)
{
    int64_t v;
    int32_t type;
    if (tz_map_get(&c->types, name, &v)) {
        type = (int32_t)v;
    } else {
        if ((type = traza_writer_event_type(c->w, name, TRAZA_PUNCTUAL, c->err)) < 0)
            return -1;
        if (tz_map_put(&c->types, name, type) < 0)
            return oom(c);
    }
    int32_t def = traza_writer_param_def(c->w, type, pname, TRAZA_PT_INT, c->err);
    if (def < 0)
        return -1;
    traza_param p = {def, {TRAZA_PT_INT, val, 0, NULL}};
    traza_event e = {0};
    e.ts = ts;
    e.type = type;
    e.producer = prod;
    e.params = &p;
    e.nparams = 1;
    return traza_writer_event(c->w, &e, c->err);
}

static int read_dat(uf_ctx *c, const char *path, int64_t tid)
{
    int32_t prod = thread_producer(c, tid);
    if (prod < 0)
        return -1;
    tz_input *in = tz_input_open(path, c->err);
    if (!in)
        return -1;
    unsigned char buf[16 * 4096];
    size_t have = 0;
    uint64_t off = 0;
    int64_t first = 0, last = 0;
    int any = 0, rc = 0;
    c->depth = 0;
    for (;;) {
        long r = tz_input_read(in, buf + have, sizeof buf - have, c->err);
        if (r < 0) {
            rc = -1;
            break;
        }
        have += (size_t)r;
        size_t n = have / 16;
        for (size_t i = 0; rc == 0 && i < n; i++, off += 16) {
            const unsigned char *rec = buf + i * 16;
            uint64_t t = 0, w = 0;
            for (int k = 0; k < 8; k++) {
                t |= (uint64_t)rec[k] << (8 * k);
                w |= (uint64_t)rec[8 + k] << (8 * k);
            }
            unsigned type = w & 3, more = (w >> 2) & 1, magic = (w >> 3) & 7, depth = (w >> 6) & 1023;
            uint64_t addr = w >> 16;
            if (magic != UF_MAGIC) {
                rc = traza_err_set(c->err, TRAZA_E_PARSE, "%s: byte %llu (record #%llu): bad record magic %u, expected %u", path,
                                   (unsigned long long)off, (unsigned long long)(off / 16), magic, UF_MAGIC);
                break;
            }
            if (more) {
                rc = traza_err_set(c->err, TRAZA_E_UNSUPPORTED,
                                   "%s: byte %llu (record #%llu): the record carries argument data (recorded with -A/-R/-a), "
                                   "which this importer does not decode",
                                   path, (unsigned long long)off, (unsigned long long)(off / 16));
                break;
            }
            if (t > INT64_MAX) {
                rc = traza_err_set(c->err, TRAZA_E_PARSE, "%s: byte %llu: timestamp %llu out of range", path, (unsigned long long)off,
                                   (unsigned long long)t);
                break;
            }
            int64_t ts = (int64_t)t;
            if (!any)
                first = ts;
            any = 1;
            if (ts > last)
                last = ts;
            if (type == 0 || type == 1) {
                /* close frames deeper than this record: their exits were not recorded */
                /* an entry at depth d closes open frames at >= d, an exit those at > d */
                int limit = (int)depth + (type == 0 ? 0 : 1);
                while (c->depth > 0 && c->stack[c->depth - 1].depth >= limit) {
                    uf_frame *f = &c->stack[--c->depth];
                    c->n_unended++;
                    if (emit_state(c, prod, f->addr, f->depth, f->ts, ts) < 0) {
                        rc = -1;
                        break;
                    }
                }
                if (rc < 0)
                    break;
            }
            if (type == 0) { /* entry */
                if (TZ_GROW(c->stack, c->capstack, c->depth + 1) < 0) {
                    rc = oom(c);
                    break;
                }
                c->stack[c->depth].ts = ts;
                c->stack[c->depth].addr = addr;
                c->stack[c->depth].depth = (int)depth;
                c->depth++;
            } else if (type == 1) { /* exit */
                if (c->depth > 0 && c->stack[c->depth - 1].depth == (int)depth) {
                    uf_frame *f = &c->stack[--c->depth];
                    rc = emit_state(c, prod, f->addr, f->depth, f->ts, ts);
                } else {
                    c->n_unmatched_exit++; /* entered before the recording of this thread */
                    rc = emit_state(c, prod, addr, (int)depth, first, ts);
                }
            } else if (type == 3) { /* lost */
                c->n_lost_records++;
                c->n_lost += addr > 0 && addr < (1ull << 40) ? (int64_t)addr : 1;
                rc = emit_point(c, prod, "(lost)", ts, "count", (int64_t)addr);
            } else { /* event */
                char name[40];
                snprintf(name, sizeof name, "event:%llu", (unsigned long long)addr);
                rc = emit_point(c, prod, name, ts, "depth", depth);
            }
        }
        if (rc < 0)
            break;
        memmove(buf, buf + n * 16, have - n * 16);
        have -= n * 16;
        if (r == 0)
            break;
        if (traza_progress(c->ctx, "import uftrace", tz_input_raw_pos(in), tz_input_raw_size(in))) {
            rc = traza_err_set(c->err, TRAZA_E_CANCELLED, "cancelled");
            break;
        }
    }
    tz_input_close(in);
    if (rc < 0)
        return -1;
    c->n_trailing += (int64_t)have;
    while (c->depth > 0) {
        uf_frame *f = &c->stack[--c->depth];
        c->n_unended++;
        if (emit_state(c, prod, f->addr, f->depth, f->ts, last) < 0)
            return -1;
    }
    return 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The recording directory of PATH: the directory itself, its uftrace.data/, or the
 * directory of an "info" file. Returns a malloc'd path. */
static char *find_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        const char *s = strrchr(path, '/');
        return s ? tz_strndup(path, (size_t)(s - path)) : tz_strdup(".");
    }
    char *p = tz_asprintf("%s/info", path);
    if (p && stat(p, &st) == 0) {
        free(p);
        return tz_strdup(path);
    }
    free(p);
    p = tz_asprintf("%s/uftrace.data/info", path);
    if (p && stat(p, &st) == 0) {
        free(p);
        return tz_asprintf("%s/uftrace.data", path);
    }
    free(p);
    return tz_strdup(path);
}

static int uftrace_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                        traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "uftrace: expected one recording directory, got %zu paths", npaths);
    uf_ctx c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.w = w;
    c.err = err;
    traza_writer_pack_events(w); /* a function trace: packed (doc/store.md) */
    tz_imap_init(&c.procs);
    tz_imap_init(&c.threads);
    tz_imap_init(&c.parent_of);
    tz_imap_init(&c.addr_defs);
    tz_map_init(&c.types);
    tz_imap listed;
    tz_imap_init(&listed);
    char **dats = NULL;
    size_t ndats = 0, capdats = 0;
    tz_buf missing;
    tz_buf_init(&missing);
    char *dir = find_dir(paths[0]);
    char *info_path = dir ? tz_asprintf("%s/info", dir) : NULL;
    char *info = NULL;
    size_t ilen = 0;
    int rc = 0;
    c.dir = dir;
    if (!dir || !info_path) {
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    if (tz_read_file(info_path, &info, &ilen, err) < 0) {
        traza_err_prefix(err, "uftrace: %s is not a recording directory (no readable info file): ", dir);
        rc = -1;
        goto out;
    }
    int hsize = tz_uftrace_parse_info_header(info_path, (const unsigned char *)info, ilen, &c.feat, err);
    if (hsize < 0) {
        rc = -1;
        goto out;
    }
    /* info text: exename and the list of recorded tids */
    const char *tids = NULL;
    for (const char *l = info + hsize; l && *l;) {
        const char *nl = strchr(l, '\n');
        if (strncmp(l, "exename:", 8) == 0 && !c.exename)
            c.exename = tz_strndup(l + 8, nl ? (size_t)(nl - l - 8) : strlen(l + 8));
        else if (strncmp(l, "taskinfo:tids=", 14) == 0)
            tids = l + 14;
        l = nl ? nl + 1 : NULL;
    }
    if (c.exename)
        traza_writer_set_param(w, "exename", c.exename, err);
    traza_writer_set_time_unit(w, -9);
    if (load_symtabs(&c) < 0 || load_maps(&c) < 0 || load_tasks(&c, &listed) < 0) {
        rc = -1;
        goto out;
    }
    if (c.nregions)
        qsort(c.regions, c.nregions, sizeof *c.regions, region_cmp);
    if (tids) {
        for (const char *t = tids; *t && *t != '\n';) {
            char *end;
            long long v = strtoll(t, &end, 10);
            if (end == t)
                break;
            if (tz_imap_put(&listed, v, 1) < 0) {
                rc = oom(&c);
                goto out;
            }
            t = *end == ',' ? end + 1 : end;
        }
    }
    DIR *d = opendir(dir);
    if (!d) {
        rc = traza_err_set(err, TRAZA_E_IO, "%s: cannot list: %s", dir, strerror(errno));
        goto out;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".dat") != 0 || strspn(de->d_name, "0123456789") != l - 4)
            continue;
        char *s = tz_strdup(de->d_name);
        if (!s || TZ_GROW(dats, capdats, ndats + 1) < 0) {
            free(s);
            closedir(d);
            rc = oom(&c);
            goto out;
        }
        dats[ndats++] = s;
    }
    closedir(d);
    if (ndats)
        qsort(dats, ndats, sizeof *dats, name_cmp);
    if (ndats == 0) {
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: no per-thread record file (TID.dat) in the recording", dir);
        goto out;
    }
    tz_imap present;
    tz_imap_init(&present);
    for (size_t i = 0; i < ndats && rc == 0; i++) {
        long long tid = strtoll(dats[i], NULL, 10);
        char *p = tz_asprintf("%s/%s", dir, dats[i]);
        if (!p || tz_imap_put(&present, tid, 1) < 0) {
            free(p);
            rc = oom(&c);
            break;
        }
        rc = read_dat(&c, p, tid);
        free(p);
    }
    /* threads the recording lists but whose records are absent */
    int64_t nmissing = 0;
    for (size_t k = 0; rc == 0 && k < listed.cap; k++) {
        int64_t dummy;
        if (listed.used[k] && !tz_imap_get(&present, listed.keys[k], &dummy)) {
            tz_buf_printf(&missing, "%s%lld", missing.len ? "," : "", (long long)listed.keys[k]);
            nmissing++;
        }
    }
    tz_imap_free(&present);
    if (rc == 0 && missing.len && traza_writer_set_param(w, "missing_tasks", missing.s, err) < 0)
        rc = -1;
    if (rc == 0) {
        char what[200];
        snprintf(what, sizeof what, "tasks the recording lists without their record file (%.120s): their threads are not in the trace",
                 missing.len ? missing.s : "");
        const tz_skip_kind kinds[] = {
            {"missing_tasks", what, nmissing},
            {"lost_records", "function records the tracer lost (each lost run is a punctual '(lost)' event)", c.n_lost},
            {"trailing_bytes", "trailing bytes after the last whole 16-byte record of a thread", c.n_trailing},
        };
        rc = tz_skips_report(ctx, w, dir, kinds, sizeof kinds / sizeof kinds[0], tz_strict(opts), -1, err);
    }
    if (rc == 0 && c.n_unmatched_exit)
        traza_log(ctx, TRAZA_LOG_INFO, "%s: %lld function(s) entered before their thread's recording start at its first record", dir,
                  (long long)c.n_unmatched_exit);
    if (rc == 0 && c.n_unended)
        traza_log(ctx, TRAZA_LOG_INFO, "%s: %lld function(s) without a recorded exit end at their thread's last record", dir,
                  (long long)c.n_unended);
out:
    for (size_t i = 0; i < ndats; i++)
        free(dats[i]);
    free(dats);
    for (size_t i = 0; i < c.ntabs; i++) {
        for (size_t k = 0; k < c.tabs[i].n; k++)
            free(c.tabs[i].syms[k].name);
        free(c.tabs[i].syms);
        free(c.tabs[i].base);
    }
    free(c.tabs);
    free(c.regions);
    free(c.stack);
    free(c.exename);
    tz_imap_free(&c.procs);
    tz_imap_free(&c.threads);
    tz_imap_free(&c.parent_of);
    tz_imap_free(&c.addr_defs);
    tz_map_free(&c.types);
    tz_imap_free(&listed);
    tz_buf_free(&missing);
    free(info);
    free(info_path);
    free(dir);
    return rc;
}

static int uftrace_detect(const char *path, const unsigned char *head, size_t len)
{
    if (head) {
        const char *b = path ? basename_of(path) : "";
        return len >= 8 && memcmp(head, "Ftrace!\0", 8) == 0 && strcmp(b, "info") == 0 ? 90 : 0;
    }
    if (!path)
        return 0;
    char *dir = find_dir(path);
    char *p = dir ? tz_asprintf("%s/info", dir) : NULL;
    free(dir);
    if (!p)
        return 0;
    FILE *f = fopen(p, "rb");
    free(p);
    if (!f)
        return 0;
    char m[8];
    size_t n = fread(m, 1, 8, f);
    fclose(f);
    return n == 8 && memcmp(m, "Ftrace!\0", 8) == 0 ? 95 : 0;
}

const traza_importer tz_importer_uftrace = {
    "uftrace", "import-uftrace", "uftrace recording directory (uftrace.data/): functions as nested states per thread",
    uftrace_detect, uftrace_read,
};

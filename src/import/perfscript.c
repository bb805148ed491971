/* `perf script` text output: samples with their call chains. See
 * doc/formats/perf-script.md.
 *
 *   # ========                                  header block ('#' lines): "key : value"
 *   # event : name = cycles, ... { sample_period, sample_freq } = 100000000, ...
 *   COMM PID[/TID] [CPU] SECONDS.FRACTION: [PERIOD] EVENT: [ADDR SYM (DSO)]
 *   <TAB> ADDR SYMBOL[+OFF] (DSO)              call chain, innermost frame first
 *   (blank line)                               end of the sample
 *
 * Each sample is one punctual event, of the type named as its event, on producer
 * "COMM (PID)" -> "tid TID"; its value is the period (from the line, else from a
 * "# event :" header line of a fixed-period recording); parameters: the leaf frame's
 * ip, sym and dso, the chain as "stack" (symbols root first, ';'-separated, as
 * FlameGraph's folded stacks) and its "depth". */
#include "import/importers.h"
#include "import/csvutil.h"
#include "util/input.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ps_head {
    const char *comm;
    size_t comm_len;
    int64_t pid, tid;
    int has_pid, cpu; /* cpu -1: absent */
    int64_t ts;
    int has_period;
    int64_t period;
    const char *event;
    size_t event_len;
    const char *rest; /* a frame on the same line (no call chain), or "" */
    size_t rest_len;
} ps_head;

typedef struct ps_frame {
    uint64_t addr;
    const char *sym, *dso; /* dso NULL: none given */
    size_t sym_len, dso_len;
} ps_frame;

static int is_digits(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}


/* A sample line; 0, or -1 with *why the part expected. */
static int parse_head(const char *line, size_t len, ps_head *h, const char **why)
{
    memset(h, 0, sizeof *h);
    h->cpu = -1;
    /* tokens: start/length pairs (the comm may hold spaces: it is what precedes PID) */
    enum { MAXT = 64 };
    size_t ts[MAXT], tl[MAXT];
    size_t nt = 0, i = 0;
    while (i < len && nt < MAXT) {
        while (i < len && tz_is_blank(line[i]))
            i++;
        if (i >= len)
            break;
        ts[nt] = i;
        while (i < len && !tz_is_blank(line[i]))
            i++;
        tl[nt] = i - ts[nt];
        nt++;
    }
    /* the time: the first "DIGITS.DIGITS:" token after the first one */
    size_t t = 1;
    for (; t < nt; t++) {
        const char *s = line + ts[t];
        size_t n = tl[t];
        const char *dot = memchr(s, '.', n);
        if (n >= 4 && s[n - 1] == ':' && dot && is_digits(s, (size_t)(dot - s)) && is_digits(dot + 1, n - 2 - (size_t)(dot - s)))
            break;
    }
    if (t >= nt) {
        *why = "a sample line 'COMM PID[/TID] [CPU] SECONDS.FRACTION: EVENT:'";
        return -1;
    }
    if (tz_parse_fixed(line + ts[t], tl[t] - 1, 9, &h->ts) != 0) {
        *why = "a time in seconds with at most 9 decimals";
        return -1;
    }
    size_t p = t - 1;
    if (tl[p] >= 3 && line[ts[p]] == '[' && line[ts[p] + tl[p] - 1] == ']') {
        int64_t cpu;
        if (tz_parse_int(line + ts[p] + 1, tl[p] - 2, &cpu) != 0 || cpu < 0 || cpu > 1 << 20) {
            *why = "a CPU number '[N]'";
            return -1;
        }
        h->cpu = (int)cpu;
        if (p == 0) {
            *why = "'COMM PID' before the CPU";
            return -1;
        }
        p--;
    }
    /* PID[/TID] */
    const char *s = line + ts[p];
    size_t n = tl[p];
    const char *sl = memchr(s, '/', n);
    size_t a = sl ? (size_t)(sl - s) : n;
    if (!is_digits(s, a) || tz_parse_int(s, a, &h->tid) != 0 || (sl && (!is_digits(sl + 1, n - a - 1) || tz_parse_int(sl + 1, n - a - 1, &h->tid) != 0))) {
        *why = "a thread id 'TID' or 'PID/TID' before the time";
        return -1;
    }
    if (sl) {
        tz_parse_int(s, a, &h->pid);
        h->has_pid = 1;
    } else {
        h->pid = h->tid;
    }
    if (p == 0) {
        *why = "a command name before the thread id";
        return -1;
    }
    h->comm = line;
    h->comm_len = ts[p - 1] + tl[p - 1];
    /* after the time: [PERIOD] EVENT: */
    size_t e = t + 1;
    if (e < nt && is_digits(line + ts[e], tl[e])) {
        if (tz_parse_int(line + ts[e], tl[e], &h->period) != 0) {
            *why = "a period that fits 64 bits";
            return -1;
        }
        h->has_period = 1;
        e++;
    }
    if (e >= nt || tl[e] < 2 || line[ts[e] + tl[e] - 1] != ':') {
        *why = "the event name and a colon ('cycles:') after the time";
        return -1;
    }
    h->event = line + ts[e];
    h->event_len = tl[e] - 1;
    h->rest = e + 1 < nt ? line + ts[e + 1] : line + len;
    h->rest_len = (size_t)(line + len - h->rest);
    return 0;
}

/* "ADDR SYMBOL (DSO)" (leading blanks skipped); 0 or -1. */
static int parse_frame(const char *s, size_t n, ps_frame *f)
{
    while (n && tz_is_blank(*s))
        s++, n--;
    while (n && tz_is_blank(s[n - 1]))
        n--;
    size_t a = 0;
    while (a < n && !tz_is_blank(s[a]))
        a++;
    if (a == 0 || a > 16 || tz_parse_u64_hex(s, a, &f->addr) != 0)
        return -1;
    const char *r = s + a;
    size_t rn = n - a;
    while (rn && tz_is_blank(*r))
        r++, rn--;
    f->dso = NULL;
    f->dso_len = 0;
    if (rn >= 2 && r[rn - 1] == ')') {
        /* the '(' that balances the last ')' opens the DSO ("(/bin/x (deleted))") */
        int depth = 1;
        for (size_t k = rn - 1; k-- > 0;) {
            depth += r[k] == ')' ? 1 : r[k] == '(' ? -1 : 0;
            if (depth != 0)
                continue;
            if (k == 0 || tz_is_blank(r[k - 1])) { /* else: "f(int)", a symbol without DSO */
                f->dso = r + k + 1;
                f->dso_len = rn - k - 2;
                rn = k;
                while (rn && tz_is_blank(r[rn - 1]))
                    rn--;
            }
            break;
        }
    }
    f->sym = r;
    f->sym_len = rn;
    if (!rn) {
        f->sym = "[unknown]";
        f->sym_len = 9;
    }
    return 0;
}

/* ---- the importer ------------------------------------------------------------- */

typedef struct ps_type {
    int32_t type, d_period, d_ip, d_sym, d_dso, d_stack, d_depth;
} ps_type;

typedef struct ps_ctx {
    traza_ctx *ctx;
    traza_writer *w;
    traza_err *err;
    const char *path;
    tz_input *in;
    tz_namecache procs, threads;
    tz_map type_index;    /* event name -> index in types */
    ps_type *types;
    size_t ntypes, captypes;
    tz_map fixed_period;  /* event name -> period, from "# event :" lines */
    /* the sample being read */
    int open;
    long line;
    ps_head h;
    char *headcopy;       /* the sample line (h points into it) */
    ps_frame *frames;
    size_t nframes, capframes;
    tz_buf framebuf;      /* the frame lines' text (frames point into it after the sample) */
    size_t *frame_off;    /* offsets of each frame's line in framebuf */
    size_t capoff;
    tz_buf stack;
    int64_t evno, samples, nframes_total;
    int in_header;
} ps_ctx;

static int oom(ps_ctx *c) { return traza_err_set(c->err, TRAZA_E_NOMEM, "%s: out of memory", c->path); }

static ps_type *type_of(ps_ctx *c, const char *name, size_t len, long line)
{
    int64_t v;
    if (tz_map_getn(&c->type_index, name, len, &v))
        return &c->types[v];
    if (TZ_GROW(c->types, c->captypes, c->ntypes + 1) < 0 || tz_map_putn(&c->type_index, name, len, (int64_t)c->ntypes) < 0) {
        oom(c);
        return NULL;
    }
    ps_type *t = &c->types[c->ntypes++];
    char *n = tz_strndup(name, len);
    if (!n) {
        oom(c);
        return NULL;
    }
    t->type = traza_writer_event_type(c->w, n, TRAZA_PUNCTUAL, c->err);
    free(n);
    if (t->type < 0 || (t->d_period = traza_writer_param_def(c->w, t->type, "period", TRAZA_PT_INT, c->err)) < 0 ||
        (t->d_ip = traza_writer_param_def(c->w, t->type, "ip", TRAZA_PT_HEX, c->err)) < 0 ||
        (t->d_sym = traza_writer_param_def(c->w, t->type, "sym", TRAZA_PT_STRING, c->err)) < 0 ||
        (t->d_dso = traza_writer_param_def(c->w, t->type, "dso", TRAZA_PT_STRING, c->err)) < 0 ||
        (t->d_stack = traza_writer_param_def(c->w, t->type, "stack", TRAZA_PT_STRING, c->err)) < 0 ||
        (t->d_depth = traza_writer_param_def(c->w, t->type, "depth", TRAZA_PT_INT, c->err)) < 0) {
        traza_err_prefix(c->err, "%s:%ld: ", c->path, line);
        return NULL;
    }
    return t;
}

/* Ends the open sample: its event. */
static int flush(ps_ctx *c)
{
    if (!c->open)
        return 0;
    c->open = 0;
    ps_head *h = &c->h;
    ps_type *t = type_of(c, h->event, h->event_len, c->line);
    if (!t)
        return -1;
    /* producers: "COMM (PID)" -> "tid TID" */
    char name[64];
    char *pname = tz_asprintf("%.*s (%lld)", (int)h->comm_len, h->comm, (long long)h->pid);
    if (!pname)
        return oom(c);
    int32_t proc = tz_cached_producer(&c->procs, c->w, -1, pname, strlen(pname), "Process", c->err);
    free(pname);
    if (proc < 0)
        return -1;
    int n = snprintf(name, sizeof name, "%lld\x1f" "tid %lld", (long long)proc, (long long)h->tid);
    int64_t th;
    if (!tz_map_getn(&c->threads.map, name, (size_t)n, &th)) {
        const char *label = strchr(name, '\x1f') + 1;
        if ((th = traza_writer_producer(c->w, proc, label, "Thread", c->err)) < 0)
            return -1;
        if (tz_map_putn(&c->threads.map, name, (size_t)n, th) < 0)
            return oom(c);
    }
    /* the frames' text is in framebuf, which no longer grows: point into it */
    if (c->framebuf.oom)
        return oom(c);
    for (size_t i = 0; i < c->nframes; i++) {
        ps_frame *f = &c->frames[i];
        f->sym = c->framebuf.s + c->frame_off[2 * i];
        f->dso = f->dso ? c->framebuf.s + c->frame_off[2 * i + 1] : NULL;
    }
    tz_buf_reset(&c->stack);
    for (size_t i = c->nframes; i-- > 0;)
        tz_buf_printf(&c->stack, "%s%.*s", i + 1 < c->nframes ? ";" : "", (int)c->frames[i].sym_len, c->frames[i].sym);
    if (c->stack.oom)
        return oom(c);
    int64_t period = h->period, v;
    int has_period = h->has_period;
    if (!has_period && tz_map_getn(&c->fixed_period, h->event, h->event_len, &v)) {
        period = v;
        has_period = 1;
    }
    char *sym = c->nframes ? tz_strndup(c->frames[0].sym, c->frames[0].sym_len) : NULL;
    char *dso = c->nframes && c->frames[0].dso ? tz_strndup(c->frames[0].dso, c->frames[0].dso_len) : NULL;
    traza_param p[6];
    uint32_t np = 0;
    if (has_period)
        p[np++] = (traza_param){t->d_period, {TRAZA_PT_INT, period, 0, NULL}};
    if (c->nframes) {
        p[np++] = (traza_param){t->d_ip, {TRAZA_PT_HEX, (int64_t)c->frames[0].addr, 0, NULL}};
        if (sym)
            p[np++] = (traza_param){t->d_sym, {TRAZA_PT_STRING, 0, 0, sym}};
        if (dso)
            p[np++] = (traza_param){t->d_dso, {TRAZA_PT_STRING, 0, 0, dso}};
        p[np++] = (traza_param){t->d_stack, {TRAZA_PT_STRING, 0, 0, c->stack.s ? c->stack.s : ""}};
    }
    p[np++] = (traza_param){t->d_depth, {TRAZA_PT_INT, (int64_t)c->nframes, 0, NULL}};
    traza_event e = {0};
    e.ts = h->ts;
    e.type = t->type;
    e.producer = (int32_t)th;
    if (h->cpu >= 0) {
        e.cpu = h->cpu;
        e.has |= TRAZA_HAS_CPU;
    }
    if (has_period) {
        e.value = (double)period;
        e.has |= TRAZA_HAS_VALUE;
    }
    e.params = p;
    e.nparams = np;
    int rc = (c->nframes && !sym) || (c->nframes && c->frames[0].dso && !dso) ? oom(c)
             : tz_import_emit(c->ctx, c->w, &e, c->in, c->path, c->line, &c->evno, c->err);
    free(sym);
    free(dso);
    c->samples++;
    c->nframes_total += (int64_t)c->nframes;
    return rc;
}

static int add_frame(ps_ctx *c, const ps_frame *f)
{
    if (TZ_GROW(c->frames, c->capframes, c->nframes + 1) < 0 || TZ_GROW(c->frame_off, c->capoff, 2 * c->nframes + 2) < 0)
        return oom(c);
    c->frames[c->nframes] = *f;
    c->frame_off[2 * c->nframes] = c->framebuf.len;
    tz_buf_put(&c->framebuf, f->sym, f->sym_len);
    c->frame_off[2 * c->nframes + 1] = c->framebuf.len;
    if (f->dso)
        tz_buf_put(&c->framebuf, f->dso, f->dso_len);
    if (c->framebuf.oom)
        return oom(c);
    c->nframes++;
    return 0;
}

/* "# event : name = NAME, ..." of a fixed-period recording: NAME -> its period. */
static int header_event(ps_ctx *c, const char *line)
{
    const char *nm = strstr(line, "name = ");
    if (!nm || strstr(line, "freq = 1"))
        return 0;
    nm += 7;
    size_t nl = strcspn(nm, ", ");
    const char *sp = strstr(line, "sample_period");
    if (!sp || !nl)
        return 0;
    const char *eq = strstr(sp, "= ");
    if (!eq)
        return 0;
    char *end;
    long long v = strtoll(eq + 2, &end, 10);
    if (end == eq + 2 || v <= 0)
        return 0;
    return tz_map_putn(&c->fixed_period, nm, nl, v) < 0 ? oom(c) : 0;
}

/* "# key : value" lines before the first sample become trace parameters. */
static int header_line(ps_ctx *c, const char *line, size_t len)
{
    if (len < 2 || line[1] != ' ')
        return 0;
    const char *k = line + 2;
    const char *colon = strstr(k, " : ");
    if (!colon)
        return 0;
    size_t kl = (size_t)(colon - k);
    if (kl == 5 && memcmp(k, "event", 5) == 0)
        return header_event(c, line);
    if (kl == 0 || kl > 40 || strstr(colon, "info available"))
        return 0;
    char key[64];
    size_t o = 0;
    if (kl < 5 || memcmp(k, "perf ", 5) != 0) { /* "perf version" stays "perf_version" */
        memcpy(key, "perf_", 5);
        o = 5;
    }
    for (size_t i = 0; i < kl; i++)
        key[o++] = k[i] == ' ' ? '_' : k[i];
    key[o] = 0;
    const char *v = colon + 3;
    size_t vl = (size_t)(line + len - v);
    while (vl && tz_is_blank(v[vl - 1]))
        vl--;
    char *val = tz_strndup(v, vl);
    if (!val)
        return oom(c);
    int rc = traza_writer_set_param(c->w, key, val, c->err);
    free(val);
    return rc;
}

static int perfscript_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                           traza_err *err)
{
    (void)opts;
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "perf-script: expected one file, got %zu paths", npaths);
    ps_ctx c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.w = w;
    c.err = err;
    c.path = paths[0];
    c.in_header = 1;
    tz_namecache_init(&c.procs);
    tz_namecache_init(&c.threads);
    tz_map_init(&c.type_index);
    tz_map_init(&c.fixed_period);
    tz_buf_init(&c.framebuf);
    tz_buf_init(&c.stack);
    traza_writer_set_time_unit(w, -9);
    tz_lines lr;
    if (tz_lines_open(&lr, c.path, err) < 0)
        return -1;
    c.in = lr.in;
    char *line;
    size_t len;
    int r, rc = 0;
    while (rc == 0 && (r = tz_lines_next(&lr, &line, &len, err)) > 0) {
        if (tz_check_utf8(line, len, c.path, lr.lineno, err) < 0 || tz_check_terminated(&lr, line, len, c.path, err) < 0) {
            rc = -1;
            break;
        }
        if (len && line[0] == '#') {
            if (c.in_header)
                rc = header_line(&c, line, len);
            continue;
        }
        size_t k = 0;
        while (k < len && tz_is_blank(line[k]))
            k++;
        if (k == len) { /* blank: the sample ends */
            rc = flush(&c);
            continue;
        }
        if (k > 0) { /* a frame of the open sample */
            ps_frame f;
            if (!c.open)
                rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: a stack frame outside a sample: expected a sample line 'COMM PID [CPU] TIME: EVENT:' first, found '%.80s'",
                                   c.path, lr.lineno, line);
            else if (parse_frame(line, len, &f) < 0)
                rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected a stack frame 'ADDR SYMBOL (DSO)' with a hexadecimal address, found '%.80s'",
                                   c.path, lr.lineno, line);
            else
                rc = add_frame(&c, &f);
            continue;
        }
        if ((rc = flush(&c)) < 0)
            break;
        free(c.headcopy);
        if (!(c.headcopy = tz_strndup(line, len))) {
            rc = oom(&c);
            break;
        }
        const char *why = NULL;
        if (parse_head(c.headcopy, len, &c.h, &why) < 0) {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected %s, found '%.80s'", c.path, lr.lineno, why, line);
            break;
        }
        c.in_header = 0;
        c.open = 1;
        c.line = lr.lineno;
        c.nframes = 0;
        tz_buf_reset(&c.framebuf);
        if (c.h.rest_len) { /* no call chain: the sampled address on the line */
            ps_frame f;
            if (parse_frame(c.h.rest, c.h.rest_len, &f) < 0) {
                rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: after the event name: expected 'ADDR SYMBOL (DSO)' or the end of the line, found '%.80s'",
                                   c.path, lr.lineno, c.h.rest);
                break;
            }
            rc = add_frame(&c, &f);
        }
    }
    if (r < 0)
        rc = -1;
    if (rc == 0)
        rc = flush(&c);
    if (rc == 0 && c.samples == 0)
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: no sample line ('COMM PID [CPU] TIME: EVENT:') in the file", c.path);
    if (rc == 0)
        traza_log(ctx, TRAZA_LOG_INFO, "%s: %lld samples, %lld stack frames", c.path, (long long)c.samples, (long long)c.nframes_total);
    tz_lines_close(&lr);
    free(c.headcopy);
    free(c.frames);
    free(c.frame_off);
    free(c.types);
    tz_buf_free(&c.framebuf);
    tz_buf_free(&c.stack);
    tz_namecache_free(&c.procs);
    tz_namecache_free(&c.threads);
    tz_map_free(&c.type_index);
    tz_map_free(&c.fixed_period);
    return rc;
}

/* By shape: after '#' lines and blank ones, a sample line, then a frame, a blank
 * line or another sample line. */
static int perfscript_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    if (!head)
        return 0;
    const char *starts[64];
    size_t lens[64];
    size_t n = tz_head_lines(head, len, starts, lens, 64);
    for (size_t i = 0; i < n; i++) {
        if (lens[i] == 0 || starts[i][0] == '#')
            continue;
        ps_head h;
        const char *why;
        if (tz_is_blank(starts[i][0]) || parse_head(starts[i], lens[i], &h, &why) < 0)
            return 0;
        if (i + 1 < n && lens[i + 1] && tz_is_blank(starts[i + 1][0])) {
            ps_frame f;
            return parse_frame(starts[i + 1], lens[i + 1], &f) == 0 ? 70 : 0;
        }
        return 60;
    }
    return 0;
}

const traza_importer tz_importer_perfscript = {
    "perf-script", "import-perf-script", "`perf script` text output: samples with their call chains, per thread",
    perfscript_detect, perfscript_read,
};

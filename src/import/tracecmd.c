/* trace-cmd recordings (.dat, "tracing" file versions 6 and 7), read through
 * libtracecmd and libtraceevent. See doc/formats/trace-cmd.md; the model (producers,
 * states) is import/ftrace_model.h's.
 *   sched:sched_switch          the CPU's "running" state
 *   irq:irq_handler_entry/exit  "irq" / "softirq" states on the CPU, nested
 *   irq:softirq_entry/exit
 *   raw_syscalls:sys_enter/exit "syscall" states on the thread
 *   syscalls:sys_enter_X/exit_X
 *   ftrace:funcgraph_entry/exit states named by the function on the thread
 *   anything else               a punctual event named as the record's event, every
 *                               field of its format a parameter; ftrace:function
 *                               also gets "func" and "parent" (the symbol names)
 * Timestamps are the records' (ns). Records of an event id the file does not
 * describe, events the kernel dropped and buffer instances besides the top one are
 * skips (import/skips.h: "skipped.records", "skipped.lost_events", "skipped.instances"). */
#include "import/importers.h"
#include "import/ftrace_model.h"
#include "import/skips.h"
#include "import/tracecmd_api.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum tc_kind {
    K_GENERIC,
    K_SWITCH,
    K_IRQ_IN, K_IRQ_OUT,
    K_SOFT_IN, K_SOFT_OUT,
    K_SYS_IN, K_SYS_OUT,     /* raw_syscalls: key = id */
    K_SYSN_IN, K_SYSN_OUT,   /* syscalls:sys_enter_X: key = X */
    K_FG_IN, K_FG_OUT,
};

/* What the importer knows of one event id of the file. */
typedef struct tc_ev {
    int kind;
    int32_t type;             /* K_GENERIC: its punctual type */
    struct tep_format_field **fields;
    int32_t *defs;            /* K_GENERIC: a parameter per field */
    size_t nfields;
    int32_t func_def, parent_def; /* ftrace:function */
    struct tep_format_field *fa, *fb, *fc, *fd, *fe, *ff, *fg; /* the fields a kind reads */
    const char *sysname;      /* K_SYSN_*: the syscall's name (in the event's name) */
} tc_ev;

typedef struct tc_ctx {
    ftm m;
    struct tep_handle *tep;
    tc_ev *evs;            /* indexed through ev_index */
    size_t nevs, capevs;
    tz_imap ev_index;      /* event id -> index in evs */
    int64_t n_skipped, n_lost;
    tz_buf sbuf;
} tc_ctx;

static int oom(tc_ctx *c) { return ftm_oom(&c->m); }

static int fail(tc_ctx *c) { return ftm_fail(&c->m); }

static struct tep_format_field *field_named(struct tep_event *ev, const char *name)
{
    for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

/* A record too short for one of its format's fields: the file is corrupt. */
static int check_field(tc_ctx *c, struct tep_record *r, struct tep_event *ev, struct tep_format_field *f)
{
    if (f->offset >= 0 && f->size >= 0 && (int64_t)f->offset + f->size <= r->size)
        return 0;
    traza_err_set(c->m.err, TRAZA_E_PARSE,
                  "%s: byte %llu (record on CPU %d): event '%s' field '%s' spans bytes %d..%lld, the record holds %d", c->m.path,
                  r->offset, r->cpu, ev->name, f->name, f->offset, (long long)f->offset + f->size, r->size);
    return fail(c);
}

static int read_num(tc_ctx *c, struct tep_record *r, struct tep_event *ev, struct tep_format_field *f, int64_t *out)
{
    if (check_field(c, r, ev, f) < 0)
        return -1;
    unsigned long long v = 0;
    if (tep_read_number_field(f, r->data, &v) < 0) {
        traza_err_set(c->m.err, TRAZA_E_PARSE, "%s: byte %llu: event '%s' field '%s' is %d bytes, expected 1, 2, 4 or 8", c->m.path,
                      r->offset, ev->name, f->name, f->size);
        return fail(c);
    }
    if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
        v |= ~0ull << (f->size * 8);
    *out = (int64_t)v;
    return 0;
}

/* A char array or __data_loc string field as text (up to its NUL), into out[size]. */
static int read_str(tc_ctx *c, struct tep_record *r, struct tep_event *ev, struct tep_format_field *f, char *out, size_t size)
{
    if (check_field(c, r, ev, f) < 0)
        return -1;
    const char *p = (const char *)r->data + f->offset;
    size_t n = (size_t)f->size;
    if (f->flags & TEP_FIELD_IS_DYNAMIC) {
        unsigned long long loc = tep_read_number(c->tep, p, f->size < 4 ? f->size : 4);
        unsigned long long off = loc & 0xffff;
        n = (size_t)(loc >> 16);
        if (f->flags & TEP_FIELD_IS_RELATIVE)
            off += (unsigned long long)f->offset + (unsigned long long)f->size;
        if (off + n > (unsigned long long)r->size) {
            traza_err_set(c->m.err, TRAZA_E_PARSE, "%s: byte %llu: event '%s' field '%s' points at bytes %llu..%llu, the record holds %d",
                          c->m.path, r->offset, ev->name, f->name, off, off + n, r->size);
            return fail(c);
        }
        p = (const char *)r->data + off;
    }
    const char *z = memchr(p, 0, n);
    if (z)
        n = (size_t)(z - p);
    if (n >= size)
        n = size - 1;
    memcpy(out, p, n);
    out[n] = 0;
    return 0;
}

static int is_string_field(const struct tep_format_field *f)
{
    return (f->flags & TEP_FIELD_IS_STRING) ||
           ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) && f->type && strstr(f->type, "char"));
}

static int32_t ptype_of(const struct tep_format_field *f)
{
    if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
        return TRAZA_PT_STRING;
    size_t l = strlen(f->name);
    if ((f->flags & TEP_FIELD_IS_POINTER) || strcmp(f->name, "ip") == 0 || (l > 3 && strcmp(f->name + l - 3, "_ip") == 0))
        return TRAZA_PT_HEX;
    return TRAZA_PT_INT;
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Classifies event `ev` and prepares its type and parameter definitions. */
static tc_ev *event_info(tc_ctx *c, struct tep_event *ev)
{
    int64_t v;
    if (tz_imap_get(&c->ev_index, ev->id, &v))
        return &c->evs[v];
    if (TZ_GROW(c->evs, c->capevs, c->nevs + 1) < 0 || tz_imap_put(&c->ev_index, ev->id, (int64_t)c->nevs) < 0) {
        oom(c);
        fail(c);
        return NULL;
    }
    tc_ev *e = &c->evs[c->nevs++];
    memset(e, 0, sizeof *e);
    e->func_def = e->parent_def = -1; /* set before anything can fail: the entry stays cached */
    const char *sys = ev->system ? ev->system : "", *n = ev->name ? ev->name : "";
    e->kind = K_GENERIC;
    int exit = strstr(n, "_exit") != NULL;
    if (strcmp(sys, "sched") == 0 && strcmp(n, "sched_switch") == 0) {
        e->fa = field_named(ev, "next_comm");
        e->fb = field_named(ev, "next_pid");
        e->fc = field_named(ev, "next_prio");
        e->fd = field_named(ev, "prev_comm");
        e->fe = field_named(ev, "prev_pid");
        e->ff = field_named(ev, "prev_state");
        if (e->fa && e->fb && e->fc && e->fd && e->fe && e->ff)
            e->kind = K_SWITCH;
    } else if (strcmp(sys, "irq") == 0 && (strcmp(n, "irq_handler_entry") == 0 || strcmp(n, "irq_handler_exit") == 0)) {
        e->fa = field_named(ev, "irq");
        e->fb = field_named(ev, "name");
        if (e->fa && (exit || e->fb))
            e->kind = exit ? K_IRQ_OUT : K_IRQ_IN;
    } else if (strcmp(sys, "irq") == 0 && (strcmp(n, "softirq_entry") == 0 || strcmp(n, "softirq_exit") == 0)) {
        if ((e->fa = field_named(ev, "vec")))
            e->kind = exit ? K_SOFT_OUT : K_SOFT_IN;
    } else if (strcmp(sys, "raw_syscalls") == 0 && (strcmp(n, "sys_enter") == 0 || strcmp(n, "sys_exit") == 0)) {
        if ((e->fa = field_named(ev, "id")))
            e->kind = exit ? K_SYS_OUT : K_SYS_IN;
    } else if (strcmp(sys, "syscalls") == 0 && (starts(n, "sys_enter_") || starts(n, "sys_exit_"))) {
        e->kind = exit ? K_SYSN_OUT : K_SYSN_IN;
        e->sysname = n + (exit ? 9 : 10);
    } else if (strcmp(sys, "ftrace") == 0 && (strcmp(n, "funcgraph_entry") == 0 || strcmp(n, "funcgraph_exit") == 0)) {
        e->fa = field_named(ev, "func");
        e->fb = field_named(ev, "depth");
        e->fc = field_named(ev, "calltime");
        if (e->fa && e->fb && (!exit || e->fc))
            e->kind = exit ? K_FG_OUT : K_FG_IN;
    }
    if (e->kind != K_GENERIC)
        return e;
    if ((e->type = traza_writer_event_type(c->m.w, n, TRAZA_PUNCTUAL, c->m.err)) < 0) {
        fail(c);
        return NULL;
    }
    size_t nf = 0;
    for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
        nf++;
    e->fields = nf ? calloc(nf, sizeof *e->fields) : NULL;
    e->defs = nf ? calloc(nf, sizeof *e->defs) : NULL;
    if (nf && (!e->fields || !e->defs)) {
        oom(c);
        fail(c);
        return NULL;
    }
    for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
        e->fields[e->nfields] = f;
        if ((e->defs[e->nfields++] = traza_writer_param_def(c->m.w, e->type, f->name, ptype_of(f), c->m.err)) < 0) {
            fail(c);
            return NULL;
        }
    }
    e->func_def = e->parent_def = -1;
    if (strcmp(sys, "ftrace") == 0 && strcmp(n, "function") == 0 && (e->fa = field_named(ev, "ip")) &&
        (e->fb = field_named(ev, "parent_ip"))) {
        if ((e->func_def = traza_writer_param_def(c->m.w, e->type, "func", TRAZA_PT_STRING, c->m.err)) < 0 ||
            (e->parent_def = traza_writer_param_def(c->m.w, e->type, "parent", TRAZA_PT_STRING, c->m.err)) < 0) {
            fail(c);
            return NULL;
        }
    }
    return e;
}

/* ---- events ------------------------------------------------------------------- */

/* The thread of record r, named by the comm the recording saved for its pid. */
static ftm_stack *task(tc_ctx *c, struct tep_record *r)
{
    int pid = tep_data_pid(c->tep, r);
    return ftm_thread(&c->m, pid, tep_data_comm_from_pid(c->tep, pid), r->cpu);
}

static int emit_generic(tc_ctx *c, tc_ev *e, struct tep_event *ev, struct tep_record *r, ftm_stack *cpu, int64_t ts)
{
    ftm_stack *th = task(c, r);
    if (!th)
        return -1;
    traza_param *p = calloc(e->nfields + 2, sizeof *p);
    char **strs = calloc(e->nfields + 1, sizeof *strs);
    uint32_t np = 0;
    int rc = 0;
    if (!p || !strs) {
        rc = oom(c), fail(c);
        goto out;
    }
    for (size_t i = 0; i < e->nfields && rc == 0; i++) {
        struct tep_format_field *f = e->fields[i];
        traza_param *q = &p[np];
        q->def = e->defs[i];
        q->v.kind = ptype_of(f);
        if (q->v.kind != TRAZA_PT_STRING) {
            rc = read_num(c, r, ev, f, &q->v.i);
        } else if (is_string_field(f)) {
            size_t cap = (size_t)(f->flags & TEP_FIELD_IS_DYNAMIC ? r->size : f->size) + 1;
            if (!(strs[i] = malloc(cap)))
                rc = oom(c), fail(c);
            else
                rc = read_str(c, r, ev, f, strs[i], cap);
            q->v.s = strs[i];
        } else {
            /* a numeric array: its elements in hexadecimal, space-separated */
            if ((rc = check_field(c, r, ev, f)) < 0)
                break;
            const unsigned char *d = (const unsigned char *)r->data + f->offset;
            size_t len = (size_t)f->size, es = f->elementsize;
            if (f->flags & TEP_FIELD_IS_DYNAMIC) {
                unsigned long long loc = tep_read_number(c->tep, d, f->size < 4 ? f->size : 4);
                unsigned long long off = (loc & 0xffff) + (f->flags & TEP_FIELD_IS_RELATIVE ? (unsigned)f->offset + (unsigned)f->size : 0);
                len = (size_t)(loc >> 16);
                if (off + len > (unsigned long long)r->size) {
                    traza_err_set(c->m.err, TRAZA_E_PARSE, "%s: byte %llu: event '%s' field '%s' points at bytes %llu..%llu, the record holds %d",
                                  c->m.path, r->offset, ev->name, f->name, off, off + len, r->size);
                    rc = fail(c);
                    break;
                }
                d = (const unsigned char *)r->data + off;
            }
            if (es != 1 && es != 2 && es != 4 && es != 8)
                es = 1;
            tz_buf_reset(&c->sbuf);
            for (size_t k = 0; k + es <= len; k += es)
                tz_buf_printf(&c->sbuf, "%s0x%llx", k ? " " : "", tep_read_number(c->tep, d + k, (int)es));
            if (!(strs[i] = tz_strdup(c->sbuf.s ? c->sbuf.s : "")))
                rc = oom(c), fail(c);
            q->v.s = strs[i];
        }
        np++;
    }
    if (rc == 0 && e->func_def >= 0) {
        int64_t ip = 0, pip = 0;
        if (read_num(c, r, ev, e->fa, &ip) < 0 || read_num(c, r, ev, e->fb, &pip) < 0) {
            rc = -1;
            goto out;
        }
        const char *fn = tep_find_function(c->tep, (unsigned long long)ip);
        const char *pn = tep_find_function(c->tep, (unsigned long long)pip);
        if (fn)
            p[np++] = (traza_param){e->func_def, {TRAZA_PT_STRING, 0, 0, fn}};
        if (pn)
            p[np++] = (traza_param){e->parent_def, {TRAZA_PT_STRING, 0, 0, pn}};
    }
    if (rc == 0) {
        traza_event te = {0};
        te.ts = ts;
        te.type = e->type;
        te.producer = th->prod;
        te.cpu = cpu->cpu;
        te.has = TRAZA_HAS_CPU;
        te.params = p;
        te.nparams = np;
        if (traza_writer_event(c->m.w, &te, c->m.err) < 0)
            rc = fail(c);
    }
out:
    if (strs)
        for (size_t i = 0; i < e->nfields; i++)
            free(strs[i]);
    free(strs);
    free(p);
    return rc;
}

static int on_record(struct tracecmd_input *h, struct tep_record *r, int cpu_arg, void *user)
{
    (void)h;
    (void)cpu_arg;
    tc_ctx *c = user;
    if (c->m.rc < 0) /* libtracecmd may go on calling after a record failed */
        return -1;
    if (r->ts > INT64_MAX) {
        traza_err_set(c->m.err, TRAZA_E_PARSE, "%s: byte %llu: timestamp %llu out of range", c->m.path, r->offset, r->ts);
        return -fail(c);
    }
    int64_t ts = (int64_t)r->ts;
    if (c->m.n_records++ == 0)
        c->m.first_ts = ts;
    if (ts > c->m.last_ts)
        c->m.last_ts = ts;
    if (r->missed_events)
        c->n_lost += r->missed_events > 0 ? r->missed_events : 1;
    ftm_stack *cs = ftm_record(&c->m, r->cpu, ts);
    if (!cs)
        return 1;
    struct tep_event *ev = tep_find_event_by_record(c->tep, r);
    if (!ev) {
        c->n_skipped++;
        return 0;
    }
    tc_ev *e = event_info(c, ev);
    if (!e)
        return 1;
    int64_t a = 0, b = 0;
    char s1[64];
    switch (e->kind) {
    case K_SWITCH: {
        ftm_run *run = &c->m.run[r->cpu];
        if (ftm_switch(&c->m, r->cpu, ts) < 0 || read_str(c, r, ev, e->fa, run->comm, sizeof run->comm) < 0 ||
            read_num(c, r, ev, e->fb, &run->pid) < 0 || read_num(c, r, ev, e->fc, &run->prio) < 0 ||
            read_str(c, r, ev, e->fd, run->prev_comm, sizeof run->prev_comm) < 0 || read_num(c, r, ev, e->fe, &run->prev_pid) < 0 ||
            read_num(c, r, ev, e->ff, &run->prev_state) < 0)
            return 1;
        break;
    }
    case K_IRQ_IN:
        if (read_num(c, r, ev, e->fa, &a) < 0 || read_str(c, r, ev, e->fb, s1, sizeof s1) < 0 || ftm_push(&c->m, cs, FTM_IRQ, ts, a, NULL, s1) < 0)
            return 1;
        break;
    case K_IRQ_OUT:
        if (read_num(c, r, ev, e->fa, &a) < 0 || ftm_pop(&c->m, cs, FTM_IRQ, ts, a, NULL, cs->first_ts) < 0)
            return 1;
        break;
    case K_SOFT_IN:
    case K_SOFT_OUT:
        if (read_num(c, r, ev, e->fa, &a) < 0 ||
            (e->kind == K_SOFT_IN ? ftm_push(&c->m, cs, FTM_SOFTIRQ, ts, a, NULL, NULL) : ftm_pop(&c->m, cs, FTM_SOFTIRQ, ts, a, NULL, cs->first_ts)) < 0)
            return 1;
        break;
    default: { /* per-thread frames */
        ftm_stack *th = e->kind == K_GENERIC ? NULL : task(c, r);
        if (e->kind != K_GENERIC && !th)
            return 1;
        int rc = 0;
        if (th)
            th->cpu = r->cpu;
        switch (e->kind) {
        case K_SYS_IN:
        case K_SYS_OUT:
            rc = read_num(c, r, ev, e->fa, &a);
            if (rc == 0)
                rc = e->kind == K_SYS_IN ? ftm_push(&c->m, th, FTM_SYSCALL, ts, a, NULL, NULL) : ftm_pop(&c->m, th, FTM_SYSCALL, ts, a, NULL, th->first_ts);
            break;
        case K_SYSN_IN:
            rc = ftm_push(&c->m, th, FTM_SYSCALL_NAMED, ts, 0, e->sysname, NULL);
            break;
        case K_SYSN_OUT:
            rc = ftm_pop(&c->m, th, FTM_SYSCALL_NAMED, ts, 0, e->sysname, th->first_ts);
            break;
        case K_FG_IN:
            rc = read_num(c, r, ev, e->fa, &a);
            if (rc == 0)
                rc = ftm_push(&c->m, th, FTM_FUNC, ts, a, NULL, tep_find_function(c->tep, (unsigned long long)a));
            break;
        case K_FG_OUT:
            rc = read_num(c, r, ev, e->fa, &a);
            if (rc == 0)
                rc = read_num(c, r, ev, e->fc, &b);
            if (rc == 0)
                rc = ftm_pop(&c->m, th, FTM_FUNC, ts, a, NULL, b > 0 && b <= ts ? b : th->first_ts);
            break;
        default:
            rc = emit_generic(c, e, ev, r, cs, ts);
        }
        if (rc < 0)
            return 1;
    }
    }
    if ((c->m.n_records & 4095) == 0 && traza_progress(c->m.ctx, "import trace-cmd", 0, 0)) {
        traza_err_set(c->m.err, TRAZA_E_CANCELLED, "cancelled");
        return -fail(c);
    }
    return 0;
}

/* ---- the file's layout --------------------------------------------------------
 * libtracecmd trusts the sizes and offsets of a file's headers (a cut file makes it
 * crash), so the layout of a version 6 file is walked first, with errors that name
 * the byte: magic, version "6\0", endian, long size, page size (u32), "header_page\0"
 * u64 size + data, "header_event\0" u64 size + data, u32 count x (u64 size + ftrace
 * format), u32 systems x (name\0, u32 count x (u64 size + format)), u32 size +
 * kallsyms, u32 size + printk formats, u64 size + saved cmdlines, u32 cpus, then
 * "options  \0" (u16 id, u32 size, data ... until id 0) and "latency  \0" (text) or
 * "flyrecord\0" with a (u64 offset, u64 size) per CPU. Version 7 files (sections
 * found through offsets) are left to libtracecmd. */

typedef struct tc_walk {
    FILE *f;
    const char *path;
    uint64_t pos, size;
    int big;
    traza_err *err;
} tc_walk;

static int walk_bytes(tc_walk *w, void *out, size_t n, const char *what)
{
    if (w->pos + n > w->size || fread(out, 1, n, w->f) != n)
        return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: expected %s (%zu bytes), found the end of the file (%llu bytes)", w->path,
                             (unsigned long long)w->pos, what, n, (unsigned long long)w->size);
    w->pos += n;
    return 0;
}

static int walk_uint(tc_walk *w, int n, uint64_t *v, const char *what)
{
    unsigned char b[8];
    if (walk_bytes(w, b, (size_t)n, what) < 0)
        return -1;
    *v = 0;
    for (int i = 0; i < n; i++)
        *v |= (uint64_t)b[w->big ? i : n - 1 - i] << (8 * (n - 1 - i));
    return 0;
}

/* Skips n bytes of `what`, which must lie within the file. */
static int walk_skip(tc_walk *w, uint64_t n, const char *what)
{
    if (n > w->size - w->pos)
        return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: %s of %llu bytes runs past the end of the file (%llu bytes)", w->path,
                             (unsigned long long)w->pos, what, (unsigned long long)n, (unsigned long long)w->size);
    w->pos += n;
    return fseeko(w->f, (off_t)w->pos, SEEK_SET) == 0 ? 0 : traza_err_set(w->err, TRAZA_E_IO, "%s: cannot seek: %s", w->path, strerror(errno));
}

static int walk_sized(tc_walk *w, int lenbytes, const char *what)
{
    uint64_t n;
    char lbl[96];
    snprintf(lbl, sizeof lbl, "the size of %s", what);
    return walk_uint(w, lenbytes, &n, lbl) < 0 ? -1 : walk_skip(w, n, what);
}

static int walk_tag(tc_walk *w, const char *tag, size_t n)
{
    char b[16];
    uint64_t at = w->pos;
    char lbl[48];
    snprintf(lbl, sizeof lbl, "the section name '%s'", tag);
    if (walk_bytes(w, b, n, lbl) < 0)
        return -1;
    if (memcmp(b, tag, n) != 0)
        return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: expected the section name '%s', found other bytes", w->path,
                             (unsigned long long)at, tag);
    return 0;
}

static int walk_name(tc_walk *w)
{
    for (size_t n = 0;; n++) {
        char ch;
        if (walk_bytes(w, &ch, 1, "an event system's NUL-terminated name") < 0)
            return -1;
        if (!ch)
            return 0;
        if (n > 4096)
            return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: an event system name longer than 4096 bytes", w->path,
                                 (unsigned long long)w->pos);
    }
}

/* The ring-buffer pages of one CPU: each header (u64 time stamp, a long "commit")
 * must count no more event bytes than the page holds. libtracecmd fails to load a
 * page that does, and then crashes closing the file. */
#define TC_COMMIT_MASK ((1u << 27) - 1)
static int walk_pages(tc_walk *w, uint64_t cpu, uint64_t off, uint64_t size, uint64_t page, int lsize)
{
    uint64_t room = page - 8 - (uint64_t)lsize;
    for (uint64_t p = 0; p < size; p += page) {
        uint64_t commit;
        w->pos = off + p + 8;
        if (size - p < 8 + (uint64_t)lsize)
            return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: the data of CPU %llu ends inside a page header", w->path,
                                 (unsigned long long)(off + p), (unsigned long long)cpu);
        if (fseeko(w->f, (off_t)w->pos, SEEK_SET) != 0)
            return traza_err_set(w->err, TRAZA_E_IO, "%s: cannot seek: %s", w->path, strerror(errno));
        if (walk_uint(w, lsize, &commit, "a page's commit count") < 0)
            return -1;
        if ((commit & TC_COMMIT_MASK) > room || (commit & TC_COMMIT_MASK) > size - p - 8 - (uint64_t)lsize)
            return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: page %llu of CPU %llu counts %llu bytes of events, more than the %llu it holds",
                                 w->path, (unsigned long long)(off + p + 8), (unsigned long long)(p / page), (unsigned long long)cpu,
                                 (unsigned long long)(commit & TC_COMMIT_MASK),
                                 (unsigned long long)(room < size - p - 8 - (uint64_t)lsize ? room : size - p - 8 - (uint64_t)lsize));
    }
    return 0;
}

static int walk_v6(tc_walk *w)
{
    uint64_t page, n, cpus;
    unsigned char b[10];
    if (walk_bytes(w, b, 2, "the endian and long-size bytes") < 0)
        return -1;
    w->big = b[0] != 0;
    int lsize = b[1];
    if (lsize != 4 && lsize != 8)
        return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: a long of %d bytes, expected 4 or 8", w->path, (unsigned long long)w->pos - 1, lsize);
    if (walk_uint(w, 4, &page, "the page size") < 0)
        return -1;
    if (page < 64 || page > (1u << 24) || (page & (page - 1)))
        return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: page size %llu, expected a power of two from 64 to 16 MiB", w->path,
                             (unsigned long long)w->pos - 4, (unsigned long long)page);
    if ( walk_tag(w, "header_page", 12) < 0 || walk_sized(w, 8, "the header_page section") < 0 ||
        walk_tag(w, "header_event", 13) < 0 || walk_sized(w, 8, "the header_event section") < 0 ||
        walk_uint(w, 4, &n, "the number of ftrace event formats") < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        if (walk_sized(w, 8, "an ftrace event format") < 0)
            return -1;
    if (walk_uint(w, 4, &n, "the number of event systems") < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k;
        if (walk_name(w) < 0 || walk_uint(w, 4, &k, "the number of a system's event formats") < 0)
            return -1;
        for (uint64_t j = 0; j < k; j++)
            if (walk_sized(w, 8, "an event format") < 0)
                return -1;
    }
    if (walk_sized(w, 4, "the kallsyms section") < 0 || walk_sized(w, 4, "the printk formats section") < 0 ||
        walk_sized(w, 8, "the saved cmdlines section") < 0 || walk_uint(w, 4, &cpus, "the number of CPUs") < 0)
        return -1;
    uint64_t at = w->pos;
    if (walk_bytes(w, b, 10, "the section name 'options', 'latency' or 'flyrecord'") < 0)
        return -1;
    if (memcmp(b, "options  \0", 10) == 0) {
        for (;;) {
            uint64_t id;
            if (walk_uint(w, 2, &id, "an option id") < 0)
                return -1;
            if (id == 0)
                break;
            if (walk_sized(w, 4, "an option") < 0)
                return -1;
        }
        at = w->pos;
        if (walk_bytes(w, b, 10, "the section name 'latency' or 'flyrecord'") < 0)
            return -1;
    }
    if (memcmp(b, "latency  \0", 10) == 0)
        return 0;
    if (memcmp(b, "flyrecord\0", 10) != 0)
        return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: expected the section name 'options', 'latency' or 'flyrecord', found other bytes",
                             w->path, (unsigned long long)at);
    for (uint64_t i = 0; i < cpus; i++) {
        uint64_t off, size;
        at = w->pos;
        if (walk_uint(w, 8, &off, "a CPU's data offset") < 0 || walk_uint(w, 8, &size, "a CPU's data size") < 0)
            return -1;
        if (off > w->size || size > w->size - off)
            return traza_err_set(w->err, TRAZA_E_PARSE, "%s: byte %llu: the data of CPU %llu (bytes %llu..%llu) runs past the end of the file (%llu bytes)",
                                 w->path, (unsigned long long)at, (unsigned long long)i, (unsigned long long)off,
                                 (unsigned long long)off + size, (unsigned long long)w->size);
        if (walk_pages(w, i, off, size, page, lsize) < 0)
            return -1;
        if (fseeko(w->f, (off_t)(w->pos = at + 16), SEEK_SET) != 0)
            return traza_err_set(w->err, TRAZA_E_IO, "%s: cannot seek: %s", w->path, strerror(errno));
    }
    return 0;
}

/* The magic, a version libtracecmd reads (6 or 7) and, for version 6, the layout. */
static int check_file(const char *path, traza_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) < 0) {
        fclose(f);
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot stat: %s", path, strerror(errno));
    }
    tc_walk w = {f, path, 0, (uint64_t)st.st_size, 0, err};
    unsigned char h[TC_MAGIC_LEN];
    int rc = 0;
    size_t n = fread(h, 1, sizeof h, f);
    for (size_t i = 0; rc == 0 && i < TC_MAGIC_LEN; i++)
        if (i >= n || h[i] != (unsigned char)TC_MAGIC[i])
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: expected the trace-cmd magic \"\\x17\\x08Dtracing\", found %s", path, i,
                               i >= n ? "the end of the file" : "other bytes");
    w.pos = n;
    char ver[8];
    size_t vl = 0;
    while (rc == 0) {
        char ch;
        if (walk_bytes(&w, &ch, 1, "the file version (decimal digits, then a NUL byte)") < 0) {
            rc = -1;
        } else if (ch == 0 && vl > 0) {
            break;
        } else if (ch < '0' || ch > '9' || vl + 1 >= sizeof ver) {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s: byte %llu: expected the file version (decimal digits, then a NUL byte)", path,
                               (unsigned long long)w.pos - 1);
        } else {
            ver[vl++] = ch;
        }
    }
    if (rc == 0) {
        ver[vl] = 0;
        if (strcmp(ver, "6") == 0)
            rc = walk_v6(&w);
        else if (strcmp(ver, "7") != 0)
            rc = traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: byte %d: trace-cmd file version %s, expected 6 or 7", path, TC_MAGIC_LEN, ver);
    }
    fclose(f);
    return rc;
}

int tz_tracecmd_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                         traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "trace-cmd: expected one .dat file, got %zu paths", npaths);
    if (tz_tcmd_load(err) < 0 || tz_tep_load(err) < 0 || check_file(paths[0], err) < 0)
        return -1;
    tracecmd_set_loglevel(TEP_LOG_NONE);
    tep_set_loglevel(TEP_LOG_NONE);
    struct tracecmd_input *h = tracecmd_open_head(paths[0], 0);
    if (!h)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: libtracecmd cannot read the file's headers (event formats, options): a damaged "
                                                 ".dat file", paths[0]);
    if (tracecmd_init_data(h) < 0) {
        /* not closed: libtracecmd 3.1.6 crashes closing a handle whose data failed to
         * load (the page walk above refuses the files known to get here) */
        return traza_err_set(err, TRAZA_E_PARSE, "%s: libtracecmd cannot read the first page of a CPU's data: a damaged .dat file", paths[0]);
    }
    tc_ctx c;
    memset(&c, 0, sizeof c);
    ftm_init(&c.m, ctx, w, paths[0], err);
    c.tep = tracecmd_get_tep(h);
    tz_imap_init(&c.ev_index);
    tz_buf_init(&c.sbuf);
    int rc = c.tep ? 0 : traza_err_set(err, TRAZA_E_PARSE, "%s: no event formats", paths[0]);
    if (rc == 0) {
        int it = tracecmd_iterate_events(h, NULL, 0, on_record, &c);
        if (c.m.rc < 0)
            rc = -1;
        else if (it < 0)
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s: libtracecmd cannot read the CPU data after record %lld", paths[0], (long long)c.m.n_records);
    }
    if (rc == 0 && ftm_finish(&c.m) < 0)
        rc = -1;
    if (rc == 0 && c.m.n_records == 0)
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: the recording holds no event record", paths[0]);
    int ninst = rc == 0 ? tracecmd_buffer_instances(h) : 0;
    if (rc == 0) {
        const tz_skip_kind kinds[] = {
            {"records", "records of event ids the file does not describe", c.n_skipped},
            {"lost_events", "events the kernel dropped (ring-buffer overruns)", c.n_lost},
            {"instances", "buffer instances besides the top one", ninst > 0 ? ninst : 0},
        };
        rc = tz_skips_report(ctx, w, paths[0], kinds, sizeof kinds / sizeof kinds[0], tz_strict(opts), -1, err);
    }
    if (rc == 0)
        ftm_log(&c.m);
    for (size_t i = 0; i < c.nevs; i++) {
        free(c.evs[i].fields);
        free(c.evs[i].defs);
    }
    free(c.evs);
    ftm_free(&c.m);
    tz_imap_free(&c.ev_index);
    tz_buf_free(&c.sbuf);
    tracecmd_close(h);
    return rc;
}

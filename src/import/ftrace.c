/* ftrace text: the kernel's /sys/kernel/tracing/trace file and `trace-cmd report`
 * output. See doc/formats/ftrace.md; the model (producers, states) is
 * import/ftrace_model.h's, as for trace-cmd .dat files.
 *
 *   # tracer: NAME                               header ('#' lines; "tracer" kept)
 *   cpus=N                                       trace-cmd report's first line
 *   COMM-PID [(TGID)] [CPU] [FLAGS] SECONDS.FRACTION: EVENT: BODY
 *   COMM-PID [CPU] ... SECONDS.FRACTION: FUNC <-PARENT     the function tracer
 *   [ABSTIME |] CPU) [COMM-PID |] [DURATION] | BODY        the function_graph tracer
 *   CPU:N [LOST n EVENTS]                        events the kernel dropped: skips
 *
 * sched_switch (either the kernel's "prev_comm=... ==> next_comm=..." or trace-cmd's
 * "COMM:PID [PRIO] S ==> COMM:PID [PRIO]"), irq_handler_entry/exit,
 * softirq_entry/exit, sys_enter/sys_exit, sys_enter_X/sys_exit_X and the
 * function-graph entries and exits ("f() {", "f();" with its duration, "}") become
 * the model's states; any other event is punctual on its thread, each "key=value" of
 * its body a parameter (text), a body of another shape the parameter "args"; a
 * function-tracer line is the event "function" with "func" and "parent".
 * Without absolute times (function_graph's default), a CPU's calls are laid end to
 * end from 0 by their durations. */
#include "import/importers.h"
#include "import/csvutil.h"
#include "import/ftrace_model.h"
#include "import/skips.h"
#include "util/input.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ft_ctx {
    ftm m;
    long lineno;
    tz_map sysnames;          /* syscall names (the frames point into the keys' copies) */
    tz_buf names;             /* the copies, NUL-separated, never moved: kept per name */
    char **owned;
    size_t nowned, capowned;
    int64_t *clock;           /* function_graph without absolute time: per CPU */
    size_t nclock;
    int64_t *task;            /* function_graph: the pid a CPU runs (-1 unknown) */
    char (*task_comm)[32];
    size_t ntask;
    int64_t n_lost, n_markers, n_events;
} ft_ctx;

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static int perr(ft_ctx *c, const char *expected, const char *found)
{
    traza_err_set(c->m.err, TRAZA_E_PARSE, "%s:%ld: expected %s, found '%.80s'", c->m.path, c->lineno, expected, found);
    return ftm_fail(&c->m);
}

/* "SECONDS.FRACTION" (up to 9 fraction digits) as ns; the end in *end. 0 or -1. */
static int parse_time(const char *s, const char **end, int64_t *ns)
{
    int64_t sec = 0, frac = 0;
    int nd = 0, nf = 0;
    while (is_digit(*s) && nd < 11)
        sec = sec * 10 + (*s++ - '0'), nd++;
    if (!nd || *s != '.')
        return -1;
    s++;
    while (is_digit(*s) && nf < 9)
        frac = frac * 10 + (*s++ - '0'), nf++;
    if (!nf || is_digit(*s))
        return -1;
    for (int i = nf; i < 9; i++)
        frac *= 10;
    *ns = sec * 1000000000 + frac;
    *end = s;
    return 0;
}

/* A duration "[marker] N.NNN us" (function_graph) in ns; 0 or -1. */
static int parse_duration(const char *s, size_t n, int64_t *ns)
{
    char buf[48];
    while (n && tz_is_blank(*s))
        s++, n--;
    if (n && strchr("+!#*@$", *s))
        s++, n--;
    while (n && tz_is_blank(*s))
        s++, n--;
    while (n && tz_is_blank(s[n - 1]))
        n--;
    if (n < 4 || n >= sizeof buf || strncmp(s + n - 3, " us", 3) != 0)
        return -1;
    memcpy(buf, s, n - 3);
    buf[n - 3] = 0;
    const char *e;
    int64_t v;
    if (parse_time(buf, &e, &v) < 0 || *e) {
        char *q;
        long long i = strtoll(buf, &q, 10);
        if (q == buf || *q || i < 0)
            return -1;
        *ns = i * 1000;
        return 0;
    }
    *ns = v / 1000; /* "1.234" read as seconds: 1.234 us is 1234 ns */
    return 0;
}

/* "COMM-PID" (COMM may hold '-'): the pid after the last '-'. 0 or -1. */
static int split_task(const char *s, size_t n, char *comm, size_t csize, int64_t *pid)
{
    size_t d = n;
    while (d > 0 && s[d - 1] != '-')
        d--;
    if (d == 0 || d == n)
        return -1;
    int64_t v = 0;
    for (size_t i = d; i < n; i++) {
        if (!is_digit(s[i]) || v > INT32_MAX)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    size_t cl = d - 1 < csize - 1 ? d - 1 : csize - 1;
    memcpy(comm, s, cl);
    comm[cl] = 0;
    *pid = v;
    return 0;
}

typedef struct ft_line {
    char comm[32];
    int64_t pid;
    int cpu;
    int64_t ts;
    const char *event; /* NULL: a function-tracer line */
    size_t event_len;
    const char *body;
} ft_line;

/* "COMM-PID [(TGID)] [CPU] [FLAGS] TIME: ...". 0, or -1 with *why. */
static int parse_head(const char *line, ft_line *h, const char **why)
{
    memset(h, 0, sizeof *h);
    const char *br = line;
    /* the first " [DIGITS]" */
    for (;;) {
        br = strstr(br, "[");
        if (!br) {
            *why = "a task 'COMM-PID' then its CPU '[NNN]'";
            return -1;
        }
        const char *q = br + 1;
        while (is_digit(*q))
            q++;
        if (q > br + 1 && *q == ']' && br > line && tz_is_blank(br[-1]))
            break;
        br++;
    }
    const char *s = line;
    while (tz_is_blank(*s))
        s++;
    const char *te = br;
    while (te > s && tz_is_blank(te[-1]))
        te--;
    if (te > s && te[-1] == ')') { /* the tgid column "(TGID)" */
        const char *o = te - 1;
        while (o > s && *o != '(')
            o--;
        te = o;
        while (te > s && tz_is_blank(te[-1]))
            te--;
    }
    if (split_task(s, (size_t)(te - s), h->comm, sizeof h->comm, &h->pid) < 0) {
        *why = "a task 'COMM-PID' before the CPU";
        return -1;
    }
    h->cpu = (int)strtol(br + 1, NULL, 10);
    const char *p = strchr(br, ']') + 1;
    while (tz_is_blank(*p))
        p++;
    if (parse_time(p, &p, &h->ts) < 0) { /* a flags column first */
        while (*p && !tz_is_blank(*p))
            p++;
        while (tz_is_blank(*p))
            p++;
        if (parse_time(p, &p, &h->ts) < 0) {
            *why = "a timestamp 'SECONDS.FRACTION:' after the CPU";
            return -1;
        }
    }
    if (*p != ':') {
        *why = "':' after the timestamp";
        return -1;
    }
    p++;
    while (tz_is_blank(*p))
        p++;
    const char *n = p;
    while (*n && !tz_is_blank(*n))
        n++;
    if (n > p && n[-1] == ':') {
        h->event = p;
        h->event_len = (size_t)(n - p - 1);
        while (tz_is_blank(*n))
            n++;
        h->body = n;
    } else {
        if (n == p) {
            *why = "an event 'NAME:' or a function after the timestamp";
            return -1;
        }
        h->body = p;
    }
    return 0;
}

static int ev_is(const ft_line *h, const char *name) { return h->event && strlen(name) == h->event_len && memcmp(h->event, name, h->event_len) == 0; }

/* The text after "key=" in body (up to the next space), into out. 0 or -1. */
static int field(const char *body, const char *key, char *out, size_t size)
{
    size_t kl = strlen(key);
    for (const char *p = body; (p = strstr(p, key)); p++) {
        if ((p == body || tz_is_blank(p[-1])) && p[kl] == '=') {
            p += kl + 1;
            size_t n = 0;
            while (p[n] && !tz_is_blank(p[n]))
                n++;
            if (n >= size)
                n = size - 1;
            memcpy(out, p, n);
            out[n] = 0;
            return 0;
        }
    }
    return -1;
}

static int num_field(const char *body, const char *key, int64_t *v)
{
    char b[32], *e;
    if (field(body, key, b, sizeof b) < 0)
        return -1;
    long long x = strtoll(b, &e, 0);
    if (e == b || *e)
        return -1;
    *v = x;
    return 0;
}

/* sched_switch's prev_state as the kernel's TASK_* bits: a number as itself, else
 * each letter its bit in `letters` ("R" 0; unknown letters -1). The kernel prints
 * "S|D", "R+"; trace-cmd's sched_switch plugin "SD", with its own letter order. */
static int64_t task_state(const char *s, const char *letters)
{
    char *e;
    long long v = strtoll(s, &e, 0);
    if (e != s && !*e)
        return v;
    int64_t bits = 0;
    for (; *s; s++) {
        const char *l = strchr(letters, *s);
        if (*s == 'R' || *s == '+' || *s == '|')
            continue;
        if (!l)
            return -1;
        bits |= (int64_t)1 << (l - letters);
    }
    return bits;
}

/* "COMM:PID [PRIO] S" of trace-cmd's sched_switch (COMM may hold ':'). 0 or -1. */
static int switch_side(const char *s, size_t n, char *comm, size_t csize, int64_t *pid, int64_t *prio, char *state, size_t ssize)
{
    const char *br = memchr(s, '[', n);
    if (!br)
        return -1;
    const char *te = br;
    while (te > s && tz_is_blank(te[-1]))
        te--;
    const char *colon = te;
    while (colon > s && colon[-1] != ':')
        colon--;
    if (colon == s)
        return -1;
    char *e;
    *pid = strtoll(colon, &e, 10);
    if (e != te)
        return -1;
    size_t cl = (size_t)(colon - 1 - s) < csize - 1 ? (size_t)(colon - 1 - s) : csize - 1;
    memcpy(comm, s, cl);
    comm[cl] = 0;
    *prio = strtoll(br + 1, &e, 10);
    if (*e != ']')
        return -1;
    e++;
    while (e < s + n && tz_is_blank(*e))
        e++;
    size_t sl = (size_t)(s + n - e);
    while (sl && tz_is_blank(e[sl - 1]))
        sl--;
    if (sl >= ssize)
        sl = ssize - 1;
    memcpy(state, e, sl);
    state[sl] = 0;
    return 0;
}

static int on_switch(ft_ctx *c, const ft_line *h)
{
    const char *b = h->body;
    ftm_run r = {0};
    char st[16] = "";
    int kernel = strstr(b, "prev_comm=") != NULL;
    if (kernel) {
        if (field(b, "prev_comm", r.prev_comm, sizeof r.prev_comm) < 0 || num_field(b, "prev_pid", &r.prev_pid) < 0 ||
            field(b, "prev_state", st, sizeof st) < 0 || field(b, "next_comm", r.comm, sizeof r.comm) < 0 ||
            num_field(b, "next_pid", &r.pid) < 0 || num_field(b, "next_prio", &r.prio) < 0)
            return perr(c, "sched_switch fields prev_comm, prev_pid, prev_state, next_comm, next_pid, next_prio", b);
    } else {
        const char *arrow = strstr(b, "==>");
        char nst[8];
        int64_t pprio;
        if (!arrow || switch_side(b, (size_t)(arrow - b), r.prev_comm, sizeof r.prev_comm, &r.prev_pid, &pprio, st, sizeof st) < 0 ||
            switch_side(arrow + 3 + strspn(arrow + 3, " "), strlen(arrow + 3 + strspn(arrow + 3, " ")), r.comm, sizeof r.comm, &r.pid,
                        &r.prio, nst, sizeof nst) < 0)
            return perr(c, "sched_switch 'COMM:PID [PRIO] STATE ==> COMM:PID [PRIO]'", b);
    }
    r.prev_state = task_state(st, kernel ? "SDTtXZPI" : "SDTtZXxW");
    if (ftm_switch(&c->m, h->cpu, h->ts) < 0)
        return -1;
    r.ts = h->ts;
    r.active = 1;
    c->m.run[h->cpu] = r;
    return 0;
}

/* A name kept as long as the import (for the frames of named syscalls). */
static const char *keep(ft_ctx *c, const char *s, size_t n)
{
    int64_t v;
    if (tz_map_getn(&c->sysnames, s, n, &v))
        return c->owned[v];
    char *d = tz_strndup(s, n);
    if (!d || TZ_GROW(c->owned, c->capowned, c->nowned + 1) < 0 || tz_map_putn(&c->sysnames, s, n, (int64_t)c->nowned) < 0) {
        free(d);
        ftm_oom(&c->m);
        return NULL;
    }
    c->owned[c->nowned++] = d;
    return d;
}

/* A punctual event of the line's thread on its CPU. 0 or -1. */
static int emit_point(ft_ctx *c, const ft_line *h, ftm_stack *th, int32_t type, const traza_param *p, uint32_t np)
{
    traza_event e = {0};
    e.ts = h->ts;
    e.type = type;
    e.producer = th->prod;
    e.cpu = h->cpu;
    e.has = TRAZA_HAS_CPU;
    e.params = p;
    e.nparams = np;
    return traza_writer_event(c->m.w, &e, c->m.err) < 0 ? ftm_fail(&c->m) : 0;
}

/* A punctual event: each "key=value" of body a text parameter, else body as "args". */
static int on_generic(ft_ctx *c, const ft_line *h, const char *name, size_t nlen, ftm_stack *th)
{
    char tname[128];
    snprintf(tname, sizeof tname, "%.*s", (int)(nlen < 127 ? nlen : 127), name);
    int32_t type = traza_writer_event_type(c->m.w, tname, TRAZA_PUNCTUAL, c->m.err);
    if (type < 0)
        return ftm_fail(&c->m);
    /* a copy of body cut at the spaces before each "key=" */
    char *b = tz_strdup(h->body);
    if (!b)
        return ftm_oom(&c->m);
    enum { MAXP = 64 };
    traza_param p[MAXP];
    uint32_t np = 0;
    int kv = *b != 0;
    for (char *q = b; *q && kv;) {
        char *eq = q;
        while (*eq && (is_digit(*eq) || (*eq >= 'a' && *eq <= 'z') || (*eq >= 'A' && *eq <= 'Z') || *eq == '_'))
            eq++;
        if (eq == q || *eq != '=' || np == MAXP) {
            kv = 0;
            break;
        }
        *eq = 0;
        char *v = eq + 1, *e = v;
        while (*e && !tz_is_blank(*e))
            e++;
        char *next = e;
        while (tz_is_blank(*next))
            next++;
        *e = 0;
        int32_t d = traza_writer_param_def(c->m.w, type, q, TRAZA_PT_STRING, c->m.err);
        if (d < 0) {
            free(b);
            return ftm_fail(&c->m);
        }
        p[np++] = (traza_param){d, {TRAZA_PT_STRING, 0, 0, v}};
        q = next;
    }
    if (!kv && *h->body) {
        int32_t d = traza_writer_param_def(c->m.w, type, "args", TRAZA_PT_STRING, c->m.err);
        if (d < 0) {
            free(b);
            return ftm_fail(&c->m);
        }
        np = 1;
        p[0] = (traza_param){d, {TRAZA_PT_STRING, 0, 0, h->body}};
    }
    int rc = emit_point(c, h, th, type, p, np);
    free(b);
    return rc;
}

/* "FUNC <-PARENT" (or "<--"), or "FUNC" alone: the event "function". */
static int on_function(ft_ctx *c, const ft_line *h, ftm_stack *th)
{
    int32_t type = traza_writer_event_type(c->m.w, "function", TRAZA_PUNCTUAL, c->m.err), df, dp = -1;
    if (type < 0 || (df = traza_writer_param_def(c->m.w, type, "func", TRAZA_PT_STRING, c->m.err)) < 0)
        return ftm_fail(&c->m);
    char *b = tz_strdup(h->body);
    if (!b)
        return ftm_oom(&c->m);
    char *par = strstr(b, "<-");
    char *fe = par ? par : b + strlen(b);
    while (fe > b && tz_is_blank(fe[-1]))
        fe--;
    *fe = 0;
    traza_param p[2];
    uint32_t np = 0;
    p[np++] = (traza_param){df, {TRAZA_PT_STRING, 0, 0, b}};
    if (par) {
        par += 2;
        while (*par == '-' || tz_is_blank(*par))
            par++;
        if ((dp = traza_writer_param_def(c->m.w, type, "parent", TRAZA_PT_STRING, c->m.err)) < 0) {
            free(b);
            return ftm_fail(&c->m);
        }
        p[np++] = (traza_param){dp, {TRAZA_PT_STRING, 0, 0, par}};
    }
    int rc = emit_point(c, h, th, type, p, np);
    free(b);
    return rc;
}

/* A function-graph body "f() {", "f();" or "}" (with "/ * f * /" comments), at ts,
 * with its duration dur (-1: none) on stack s. 0 or -1. */
static int on_graph(ft_ctx *c, ftm_stack *s, const char *body, int64_t ts, int64_t dur)
{
    while (tz_is_blank(*body))
        body++;
    size_t n = strlen(body);
    while (n && tz_is_blank(body[n - 1]))
        n--;
    if (n && body[0] == '}') {
        ftm_frame *f = ftm_top(s, FTM_FUNC);
        int64_t end = f && dur >= 0 ? f->ts + dur : ts;
        return ftm_pop(&c->m, s, FTM_FUNC, end, 0, NULL, dur >= 0 && dur <= ts ? ts - dur : c->m.first_ts);
    }
    const char *paren = memchr(body, '(', n);
    if (!paren || paren == body)
        return perr(c, "a function-graph call 'f() {', 'f();' or '}'", body);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(paren - body < 255 ? paren - body : 255), body);
    const char *rest = body + n;
    while (rest > paren && tz_is_blank(rest[-1]))
        rest--;
    int leaf = n >= 2 && body[n - 1] == ';';
    int open = n >= 1 && body[n - 1] == '{';
    if (!leaf && !open)
        return perr(c, "a function-graph call ending in '{' or ';'", body);
    if (ftm_push(&c->m, s, FTM_FUNC, ts, 0, NULL, name) < 0)
        return -1;
    return leaf ? ftm_pop(&c->m, s, FTM_FUNC, ts + (dur > 0 ? dur : 0), 0, NULL, ts) : 0;
}

/* A CPU's clock for function_graph output without absolute times. */
static int64_t *graph_clock(ft_ctx *c, int cpu)
{
    if ((size_t)cpu >= c->nclock) {
        size_t cap = c->nclock;
        if (tz_grow_to((void **)&c->clock, &cap, (size_t)cpu + 1, sizeof *c->clock) < 0) {
            ftm_oom(&c->m);
            return NULL;
        }
        memset(c->clock + c->nclock, 0, ((size_t)cpu + 1 - c->nclock) * sizeof *c->clock);
        c->nclock = (size_t)cpu + 1;
    }
    return &c->clock[cpu];
}

/* The function_graph tracer's own lines. 1 handled, 0 not one, -1 error. */
static int graph_line(ft_ctx *c, const char *line)
{
    const char *p = line;
    while (tz_is_blank(*p))
        p++;
    int64_t ts = -1;
    const char *q;
    int64_t t;
    if (parse_time(p, &q, &t) == 0) { /* an absolute time column */
        while (tz_is_blank(*q))
            q++;
        if (*q != '|')
            return 0;
        ts = t;
        p = q + 1;
        while (tz_is_blank(*p))
            p++;
    }
    if (!is_digit(*p))
        return 0;
    char *e;
    long cpu = strtol(p, &e, 10);
    if (*e != ')' || cpu < 0 || cpu > 65535)
        return 0;
    p = e + 1;
    /* a context switch "COMM-PID => COMM-PID" */
    const char *arrow = strstr(p, "=>");
    if (arrow && !strchr(p, '|')) {
        const char *s = arrow + 2;
        while (tz_is_blank(*s))
            s++;
        size_t n = strlen(s);
        while (n && tz_is_blank(s[n - 1]))
            n--;
        char comm[32];
        int64_t pid;
        if (split_task(s, n, comm, sizeof comm, &pid) < 0)
            return perr(c, "a context switch 'COMM-PID => COMM-PID'", line), -1;
        if ((size_t)cpu >= c->ntask) {
            size_t cap1 = c->ntask, cap2 = c->ntask;
            if (tz_grow_to((void **)&c->task, &cap1, (size_t)cpu + 1, sizeof *c->task) < 0 ||
                tz_grow_to((void **)&c->task_comm, &cap2, (size_t)cpu + 1, sizeof *c->task_comm) < 0)
                return ftm_oom(&c->m);
            for (size_t i = c->ntask; i <= (size_t)cpu; i++)
                c->task[i] = -1;
            c->ntask = (size_t)cpu + 1;
        }
        c->task[cpu] = pid;
        snprintf(c->task_comm[cpu], sizeof c->task_comm[cpu], "%s", comm);
        return 1;
    }
    const char *bar = strchr(p, '|');
    if (!bar)
        return perr(c, "'|' after the function_graph CPU column", line), -1;
    if (strstr(p, "==========>") || strstr(p, "<==========")) { /* irq markers */
        c->n_markers++;
        return 1;
    }
    int64_t pid = -1, dur = -1;
    char comm[32] = "";
    size_t segn = (size_t)(bar - p);
    if (parse_duration(p, segn, &dur) < 0) {
        const char *s = p;
        while (tz_is_blank(*s))
            s++;
        size_t n = (size_t)(bar - s);
        while (n && tz_is_blank(s[n - 1]))
            n--;
        if (n) { /* the task column */
            if (split_task(s, n, comm, sizeof comm, &pid) < 0)
                return perr(c, "a duration 'N.NNN us' or a task 'COMM-PID' before '|'", line), -1;
            p = bar + 1;
            if (!(bar = strchr(p, '|')))
                return perr(c, "'|' after the function_graph task column", line), -1;
            if (parse_duration(p, (size_t)(bar - p), &dur) < 0)
                dur = -1;
        }
    }
    /* a non-empty column that is no duration */
    for (const char *s = p; s < bar && dur < 0; s++)
        if (!tz_is_blank(*s) && !strchr("+!#*@$", *s))
            return perr(c, "a duration 'N.NNN us' before '|'", line), -1;
    const char *body = bar + 1;
    if (strstr(body, "/*") && !strchr(body, '(') && !strchr(body, '}')) { /* a trace_printk comment */
        c->n_markers++;
        return 1;
    }
    if (pid < 0 && (size_t)cpu < c->ntask && c->task[cpu] >= 0) {
        pid = c->task[cpu];
        snprintf(comm, sizeof comm, "%s", c->task_comm[cpu]);
    }
    int64_t *clk = graph_clock(c, (int)cpu);
    if (!clk)
        return -1;
    int is_exit = strchr(body, '}') && !strchr(body, '(');
    if (ts < 0) /* laid end to end: an exit at the end of its call */
        ts = *clk;
    ftm_stack *cs = ftm_record(&c->m, (int)cpu, ts);
    ftm_stack *s = cs && pid >= 0 ? ftm_thread(&c->m, pid, comm, (int)cpu) : cs;
    if (!s)
        return -1;
    if (is_exit && dur >= 0) {
        ftm_frame *f = ftm_top(s, FTM_FUNC);
        if (f && f->ts + dur > ts)
            ts = f->ts + dur;
    }
    if (on_graph(c, s, body, ts, dur) < 0)
        return -1;
    int64_t now = ts + (!is_exit && dur > 0 ? dur : 0);
    if (now > *clk)
        *clk = now;
    if (now > c->m.last_ts)
        c->m.last_ts = now;
    return 1;
}

/* "CPU:N [LOST n EVENTS]" (or "[LOST EVENTS]"). 1 handled, 0 not one. */
static int lost_line(ft_ctx *c, const char *line)
{
    const char *p = line;
    while (tz_is_blank(*p))
        p++;
    if (strncmp(p, "CPU:", 4) != 0 || !strstr(p, "[LOST"))
        return 0;
    const char *l = strstr(p, "[LOST") + 5;
    char *e;
    long long n = strtoll(l, &e, 10);
    c->n_lost += e != l && n > 0 ? n : 1;
    return 1;
}

static int event_line(ft_ctx *c, const ft_line *h)
{
    ftm_stack *cs = ftm_record(&c->m, h->cpu, h->ts);
    if (!cs)
        return -1;
    c->n_events++;
    if (ev_is(h, "sched_switch"))
        return on_switch(c, h);
    int64_t a = 0;
    char s1[64];
    if (ev_is(h, "irq_handler_entry")) {
        if (num_field(h->body, "irq", &a) < 0 || field(h->body, "name", s1, sizeof s1) < 0)
            return perr(c, "irq_handler_entry fields irq=N name=NAME", h->body);
        return ftm_push(&c->m, cs, FTM_IRQ, h->ts, a, NULL, s1);
    }
    if (ev_is(h, "irq_handler_exit")) {
        if (num_field(h->body, "irq", &a) < 0)
            return perr(c, "irq_handler_exit field irq=N", h->body);
        return ftm_pop(&c->m, cs, FTM_IRQ, h->ts, a, NULL, cs->first_ts);
    }
    if (ev_is(h, "softirq_entry") || ev_is(h, "softirq_exit")) {
        if (num_field(h->body, "vec", &a) < 0)
            return perr(c, "softirq field vec=N", h->body);
        return ev_is(h, "softirq_entry") ? ftm_push(&c->m, cs, FTM_SOFTIRQ, h->ts, a, NULL, NULL)
                                         : ftm_pop(&c->m, cs, FTM_SOFTIRQ, h->ts, a, NULL, cs->first_ts);
    }
    ftm_stack *th = ftm_thread(&c->m, h->pid, h->comm, h->cpu);
    if (!th)
        return -1;
    th->cpu = h->cpu;
    if (!h->event || (ev_is(h, "function") && !strchr(h->body, '=')))
        return on_function(c, h, th);
    if (ev_is(h, "sys_enter") || ev_is(h, "sys_exit")) {
        char *e;
        const char *b = h->body;
        if (strncmp(b, "NR ", 3) == 0)
            b += 3;
        else if (num_field(b, "id", &a) == 0)
            b = NULL;
        if (b) {
            a = strtoll(b, &e, 10);
            if (e == b)
                return perr(c, "a syscall number 'NR N' or id=N", h->body);
        }
        return ev_is(h, "sys_enter") ? ftm_push(&c->m, th, FTM_SYSCALL, h->ts, a, NULL, NULL)
                                     : ftm_pop(&c->m, th, FTM_SYSCALL, h->ts, a, NULL, th->first_ts);
    }
    if (h->event_len > 10 && (strncmp(h->event, "sys_enter_", 10) == 0 || strncmp(h->event, "sys_exit_", 9) == 0)) {
        int in = strncmp(h->event, "sys_enter_", 10) == 0;
        const char *nm = keep(c, h->event + (in ? 10 : 9), h->event_len - (in ? 10 : 9));
        if (!nm)
            return -1;
        return in ? ftm_push(&c->m, th, FTM_SYSCALL_NAMED, h->ts, 0, nm, NULL)
                  : ftm_pop(&c->m, th, FTM_SYSCALL_NAMED, h->ts, 0, nm, th->first_ts);
    }
    if (ev_is(h, "funcgraph_entry") || ev_is(h, "funcgraph_exit")) {
        const char *bar = strchr(h->body, '|');
        int64_t dur = -1;
        if (!bar)
            return perr(c, "'DURATION | CALL' after funcgraph_entry/exit", h->body);
        if (parse_duration(h->body, (size_t)(bar - h->body), &dur) < 0)
            dur = -1;
        int64_t ts = h->ts;
        if (ev_is(h, "funcgraph_exit") && dur >= 0) {
            ftm_frame *f = ftm_top(th, FTM_FUNC);
            if (f)
                ts = f->ts + dur;
        }
        return on_graph(c, th, bar + 1, ts, dur);
    }
    return on_generic(c, h, h->event, h->event_len, th);
}

static int header_line(ft_ctx *c, const char *line)
{
    const char *p = line + 1;
    while (tz_is_blank(*p))
        p++;
    if (strncmp(p, "tracer:", 7) != 0)
        return 0;
    p += 7;
    while (tz_is_blank(*p))
        p++;
    return traza_writer_set_param(c->m.w, "tracer", p, c->m.err) < 0 ? ftm_fail(&c->m) : 0;
}

static int ftrace_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                       traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "ftrace: expected one file, got %zu paths", npaths);
    ft_ctx c;
    memset(&c, 0, sizeof c);
    ftm_init(&c.m, ctx, w, paths[0], err);
    tz_map_init(&c.sysnames);
    tz_lines lr;
    if (tz_lines_open(&lr, paths[0], err) < 0) {
        ftm_free(&c.m);
        tz_map_free(&c.sysnames);
        return -1;
    }
    char *line;
    size_t len;
    int r, rc = 0;
    while (rc == 0 && (r = tz_lines_next(&lr, &line, &len, err)) > 0) {
        c.lineno = lr.lineno;
        if (tz_check_utf8(line, len, paths[0], lr.lineno, err) < 0 || tz_check_terminated(&lr, line, len, paths[0], err) < 0) {
            rc = -1;
            break;
        }
        size_t k = 0;
        while (k < len && tz_is_blank(line[k]))
            k++;
        if (k == len || (len >= 3 && strspn(line + k, "-") == len - k)) /* blank, or a function_graph separator */
            continue;
        if (line[k] == '#') {
            rc = header_line(&c, line + k);
            continue;
        }
        if (strncmp(line, "cpus=", 5) == 0 || strncmp(line, "version =", 9) == 0)
            continue;
        if (lost_line(&c, line))
            continue;
        int g = graph_line(&c, line);
        if (g != 0) {
            rc = g < 0 ? -1 : 0;
            continue;
        }
        ft_line h;
        const char *why = NULL;
        if (parse_head(line, &h, &why) < 0) {
            rc = perr(&c, why, line);
            break;
        }
        rc = event_line(&c, &h);
        if (rc == 0 && (c.m.n_records & 65535) == 0 && traza_progress(ctx, "import ftrace", tz_input_raw_pos(lr.in), tz_input_raw_size(lr.in))) {
            rc = traza_err_set(err, TRAZA_E_CANCELLED, "cancelled");
            break;
        }
    }
    if (r < 0)
        rc = -1;
    if (rc == 0 && ftm_finish(&c.m) < 0)
        rc = -1;
    if (rc == 0 && c.m.n_records == 0)
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: no event line ('COMM-PID [CPU] TIME: EVENT:' or function_graph 'CPU) ... | CALL') in the file",
                           paths[0]);
    if (rc == 0) {
        const tz_skip_kind kinds[] = {
            {"lost_events", "events the kernel dropped ('CPU:N [LOST n EVENTS]')", c.n_lost},
            {"markers", "function_graph irq markers and comments", c.n_markers},
        };
        rc = tz_skips_report(ctx, w, paths[0], kinds, sizeof kinds / sizeof kinds[0], tz_strict(opts), -1, err);
    }
    if (rc == 0)
        ftm_log(&c.m);
    tz_lines_close(&lr);
    for (size_t i = 0; i < c.nowned; i++)
        free(c.owned[i]);
    free(c.owned);
    free(c.clock);
    free(c.task);
    free(c.task_comm);
    tz_map_free(&c.sysnames);
    ftm_free(&c.m);
    return rc;
}

/* By shape: "# tracer:" first, or the first non-'#' lines event lines. */
static int ftrace_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    if (!head)
        return 0;
    const char *starts[32];
    size_t lens[32];
    size_t n = tz_head_lines(head, len, starts, lens, 32);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] >= 9 && memcmp(starts[i], "# tracer:", 9) == 0)
            return 85;
        if (lens[i] == 0 || starts[i][0] == '#' || (lens[i] > 5 && memcmp(starts[i], "cpus=", 5) == 0))
            continue;
        char buf[512];
        size_t l = lens[i] < sizeof buf - 1 ? lens[i] : sizeof buf - 1;
        memcpy(buf, starts[i], l);
        buf[l] = 0;
        ft_line h;
        const char *why;
        if (parse_head(buf, &h, &why) < 0)
            return 0;
        if (++seen == 2)
            break;
    }
    return seen ? 80 : 0;
}

const traza_importer tz_importer_ftrace = {
    "ftrace", "import-ftrace",
    "ftrace text (the kernel's trace file, trace-cmd report): scheduling, irq, syscall and function-graph states per CPU and thread, "
    "other events punctual",
    ftrace_detect, ftrace_read,
};

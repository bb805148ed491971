/* Folded stacks ("a;b;c WEIGHT" per line), the input of Brendan Gregg's FlameGraph
 * (flamegraph.pl) and speedscope's collapsed format, from a trace whose functions are
 * nested states (traza record, uftrace, ...), through the call-stack model of
 * `traza callstack` (src/tools/callprofile.c):
 *
 *   a line per distinct call stack, outermost frame first, frames = event type names;
 *   WEIGHT = the self (exclusive) time of the stack's last frame, summed over its
 *   calls, in ticks of the trace's time unit (ns for most traces).
 *
 * So the weights of the lines ending in f add up to f's exclusive time in
 * `traza callstack`. Stacks of every producer (thread) are merged; lines are sorted,
 * those of weight 0 left out. A ';' or a line break inside a name becomes '_' (they
 * separate frames and lines). Filters do not apply: the stacks need every call. */
#include "export/exporters.h"
#include "tools/callprofile.h"
#include "util/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fd_line {
    char *stack;
    int64_t weight;
} fd_line;

static int line_cmp(const void *a, const void *b) { return strcmp(((const fd_line *)a)->stack, ((const fd_line *)b)->stack); }

static void put_frame(tz_buf *b, const char *name)
{
    for (const char *p = name; *p; p++)
        tz_buf_putc(b, *p == ';' || *p == '\n' || *p == '\r' ? '_' : *p);
}

static int write_folded(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    (void)f;
    tz_callprofile cp;
    if (tz_callprofile_build(t, &cp, NULL, NULL, err) < 0)
        return -1;
    size_t *open = malloc(((size_t)cp.max_level + 1) * sizeof *open); /* the call open at each level */
    int64_t *self = malloc((cp.ncalls ? cp.ncalls : 1) * sizeof *self);
    fd_line *lines = NULL;
    size_t nlines = 0, caplines = 0;
    tz_map idx;
    tz_map_init(&idx);
    tz_buf path;
    tz_buf_init(&path);
    int rc = open && self ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    /* self time: the call's duration less its children's */
    int32_t prod = -1;
    int depth = 0;
    for (size_t i = 0; rc == 0 && i < cp.ncalls; i++) {
        const tz_cp_call *c = &cp.calls[i];
        if (c->producer != prod) {
            prod = c->producer;
            depth = 0;
        }
        self[i] = c->end - c->ts;
        for (int k = depth; k < c->level; k++)
            open[k] = SIZE_MAX;
        if (c->level > 0 && c->level <= depth && open[c->level - 1] != SIZE_MAX)
            self[open[c->level - 1]] -= self[i];
        open[c->level] = i;
        depth = c->level + 1;
    }
    /* the stacks, summed */
    prod = -1;
    depth = 0;
    for (size_t i = 0; rc == 0 && i < cp.ncalls; i++) {
        const tz_cp_call *c = &cp.calls[i];
        if (c->producer != prod) {
            prod = c->producer;
            depth = 0;
        }
        /* levels skipped (a state without its parent) are unknown frames "?" */
        for (int k = depth; k < c->level; k++)
            open[k] = SIZE_MAX;
        open[c->level] = i;
        depth = c->level + 1;
        tz_buf_reset(&path);
        for (int k = 0; k < depth; k++) {
            if (k)
                tz_buf_putc(&path, ';');
            const traza_event_type *ty = open[k] != SIZE_MAX ? traza_trace_event_type(t, cp.calls[open[k]].type) : NULL;
            put_frame(&path, ty ? ty->name : "?");
        }
        if (path.oom) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        int64_t li;
        if (tz_map_get(&idx, path.s ? path.s : "", &li)) {
            lines[li].weight += self[i];
            continue;
        }
        char *s = tz_strdup(path.s ? path.s : "");
        if (!s || TZ_GROW(lines, caplines, nlines + 1) < 0 || tz_map_put(&idx, s, (int64_t)nlines) < 0) {
            free(s);
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        lines[nlines].stack = s;
        lines[nlines++].weight = self[i];
    }
    if (rc == 0 && nlines)
        qsort(lines, nlines, sizeof *lines, line_cmp);
    for (size_t i = 0; rc == 0 && i < nlines; i++)
        if (lines[i].weight != 0 && fprintf(out, "%s %lld\n", lines[i].stack, (long long)lines[i].weight) < 0)
            rc = traza_err_set(err, TRAZA_E_IO, "writing folded stacks: %s", strerror(errno));
    for (size_t i = 0; i < nlines; i++)
        free(lines[i].stack);
    free(lines);
    free(open);
    free(self);
    tz_map_free(&idx);
    tz_buf_free(&path);
    tz_callprofile_free(&cp);
    return rc;
}

const traza_exporter tz_exporter_folded = {"folded", "export-folded",
                                           "folded call stacks (FlameGraph / speedscope collapsed: 'a;b;c self-time')", write_folded, NULL};

/* Folded stacks ("a;b;c WEIGHT" per line), the input of Brendan Gregg's FlameGraph
 * (flamegraph.pl) and speedscope's collapsed format, from a trace whose functions are
 * nested states (traza record, uftrace, ...), through the call-stack model of
 * `traza callstack` (src/tools/callprofile.c) as export/stacks.h sums them:
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
#include "export/stacks.h"
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
    tz_stack *st;
    size_t n;
    if (tz_stacks_build(t, &st, &n, err) < 0)
        return -1;
    fd_line *lines = calloc(n ? n : 1, sizeof *lines);
    tz_buf path;
    tz_buf_init(&path);
    int rc = lines ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        tz_buf_reset(&path);
        for (size_t k = 0; k < st[i].depth; k++) {
            if (k)
                tz_buf_putc(&path, ';');
            /* a level the trace lacks (a state without its parent): "?" */
            const traza_event_type *ty = st[i].frames[k] >= 0 ? traza_trace_event_type(t, st[i].frames[k]) : NULL;
            put_frame(&path, ty ? ty->name : "?");
        }
        if (path.oom || !(lines[i].stack = tz_strdup(path.s ? path.s : "")))
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        lines[i].weight = st[i].weight;
    }
    if (rc == 0 && n)
        qsort(lines, n, sizeof *lines, line_cmp);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (lines[i].weight != 0 && fprintf(out, "%s %lld\n", lines[i].stack, (long long)lines[i].weight) < 0)
            rc = traza_err_set(err, TRAZA_E_IO, "writing folded stacks: %s", strerror(errno));
    for (size_t i = 0; lines && i < n; i++)
        free(lines[i].stack);
    free(lines);
    tz_buf_free(&path);
    tz_stacks_free(st, n);
    return rc;
}

const traza_exporter tz_exporter_folded = {"folded", "export-folded",
                                           "folded call stacks (FlameGraph / speedscope collapsed: 'a;b;c self-time')", write_folded, NULL};

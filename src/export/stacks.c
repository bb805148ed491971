/* The weighted call stacks (export/stacks.h). */
#include "export/stacks.h"
#include "traza/callprofile.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void tz_stacks_free(tz_stack *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i].frames);
    free(s);
}

int tz_stacks_build(traza_trace *t, tz_stack **out, size_t *nout, traza_err *err)
{
    *out = NULL;
    *nout = 0;
    traza_callprofile cp;
    if (traza_callprofile_build(t, &cp, NULL, NULL, NULL, err) < 0)
        return -1;
    size_t *open = malloc(((size_t)cp.max_level + 1) * sizeof *open); /* the call open at each level */
    int64_t *self = malloc((cp.ncalls ? cp.ncalls : 1) * sizeof *self);
    int32_t *frames = malloc(((size_t)cp.max_level + 1) * sizeof *frames);
    tz_stack *lines = NULL;
    size_t nlines = 0, caplines = 0;
    tz_map idx; /* the frames as text "T;T;T" -> index in lines */
    tz_map_init(&idx);
    tz_buf key;
    tz_buf_init(&key);
    int rc = open && self && frames ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    /* self time: the call's duration less its children's */
    int32_t prod = -1;
    int depth = 0;
    for (size_t i = 0; rc == 0 && i < cp.ncalls; i++) {
        const traza_cp_call *c = &cp.calls[i];
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
        const traza_cp_call *c = &cp.calls[i];
        if (c->producer != prod) {
            prod = c->producer;
            depth = 0;
        }
        for (int k = depth; k < c->level; k++)
            open[k] = SIZE_MAX;
        open[c->level] = i;
        depth = c->level + 1;
        for (int k = 0; k < depth; k++)
            frames[k] = open[k] != SIZE_MAX ? cp.calls[open[k]].type : -1;
        size_t bytes = (size_t)depth * sizeof *frames;
        tz_buf_reset(&key);
        for (int k = 0; k < depth; k++)
            tz_buf_printf(&key, "%d;", (int)frames[k]);
        if (key.oom) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        int64_t li;
        if (tz_map_get(&idx, key.s, &li)) {
            lines[li].weight += self[i];
            continue;
        }
        int32_t *copy = malloc(bytes);
        if (!copy || TZ_GROW(lines, caplines, nlines + 1) < 0 || tz_map_put(&idx, key.s, (int64_t)nlines) < 0) {
            free(copy);
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        memcpy(copy, frames, bytes);
        lines[nlines].frames = copy;
        lines[nlines].depth = (size_t)depth;
        lines[nlines++].weight = self[i];
    }
    free(open);
    free(self);
    free(frames);
    tz_map_free(&idx);
    tz_buf_free(&key);
    traza_callprofile_free(&cp);
    if (rc < 0) {
        tz_stacks_free(lines, nlines);
        return -1;
    }
    *out = lines;
    *nout = nlines;
    return 0;
}

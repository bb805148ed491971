/* `traza info`'s lists: the event types by count and the producer tree, each cut
 * after a screenful unless all are asked for. */
#include "cli/info_detail.h"

#include <stdlib.h>
#include <string.h>

enum { SHOWN_TYPES = 20, SHOWN_PRODUCERS = 30 };

/* Event types by count, most first; by id among equals. */
static int by_count_desc(const void *a, const void *b, void *user)
{
    const traza_stats *st = user;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int64_t x = st->types[i].count, y = st->types[j].count;
    return x < y ? 1 : x > y ? -1 : (i > j) - (i < j);
}

/* The slot of producer i's parent in the child lists: 1 + its id, or 0 for a root. */
static size_t parent_slot(const traza_producer *p, size_t n, size_t i)
{
    return p[i].parent >= 0 && (size_t)p[i].parent < n ? (size_t)p[i].parent + 1 : 0;
}

/* The producers in tree order (each followed by its subtree, siblings by id) with their
 * depths. Returns 0, or -1 when out of memory. */
static int tree_order(const traza_producer *p, size_t n, size_t *order, int *depth)
{
    size_t *first = calloc(n + 1, sizeof *first), *fill = calloc(n + 1, sizeof *fill);
    size_t *kids = malloc((n ? n : 1) * sizeof *kids), *stack = malloc((n ? n : 1) * sizeof *stack);
    char *placed = calloc(n ? n : 1, 1);
    int rc = -1;
    if (!first || !kids || !stack || !fill || !placed)
        goto out;
    /* the children of each parent slot, in id order: counting sort over the slot */
    for (size_t i = 0; i < n; i++)
        first[parent_slot(p, n, i)]++;
    for (size_t i = 0, sum = 0; i <= n; i++) {
        size_t c = first[i];
        first[i] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) {
        size_t up = parent_slot(p, n, i);
        kids[first[up] + fill[up]++] = i;
    }
    size_t top = 0, k = 0;
    /* pushed last-first so that the first comes out first */
    for (size_t j = fill[0]; j-- > 0;)
        stack[top++] = kids[first[0] + j];
    while (top) {
        size_t i = stack[--top], up = parent_slot(p, n, i);
        depth[i] = up ? depth[up - 1] + 1 : 0;
        order[k++] = i;
        placed[i] = 1;
        for (size_t j = fill[i + 1]; j-- > 0;)
            stack[top++] = kids[first[i + 1] + j];
    }
    /* producers on a parent cycle are reached from no root: listed at the top level */
    for (size_t i = 0; i < n; i++)
        if (!placed[i]) {
            depth[i] = 0;
            order[k++] = i;
        }
    rc = 0;
out:
    free(first);
    free(fill);
    free(kids);
    free(stack);
    free(placed);
    return rc;
}

int cli_info_details(tz_buf *b, traza_trace *t, const traza_stats *st, int all, int json)
{
    const traza_event_type *types;
    const traza_producer *prods;
    size_t nt = traza_trace_event_types(t, &types), np = traza_trace_producers(t, &prods);
    if (nt > st->ntypes)
        nt = st->ntypes;
    if (np > st->nproducers)
        np = st->nproducers;
    size_t *tord = malloc((nt ? nt : 1) * sizeof *tord), *pord = malloc((np ? np : 1) * sizeof *pord);
    int *depth = malloc((np ? np : 1) * sizeof *depth);
    if (!tord || !pord || !depth || tree_order(prods, np, pord, depth) < 0) {
        free(tord), free(pord), free(depth);
        return -1;
    }
    for (size_t i = 0; i < nt; i++)
        tord[i] = i;
    qsort_r(tord, nt, sizeof *tord, by_count_desc, (void *)st);
    size_t show_t = all || nt <= SHOWN_TYPES ? nt : SHOWN_TYPES, show_p = all || np <= SHOWN_PRODUCERS ? np : SHOWN_PRODUCERS;
    char path[4096];
    if (json) {
        tz_buf_puts(b, ",\"type_list\":[");
        for (size_t k = 0; k < show_t; k++) {
            const traza_event_type *ty = &types[tord[k]];
            tz_buf_puts(b, k ? ",{\"name\":" : "{\"name\":");
            tz_json_str(b, ty->name);
            tz_buf_printf(b, ",\"category\":\"%s\",\"count\":%lld}", traza_category_name(ty->category),
                          (long long)st->types[tord[k]].count);
        }
        tz_buf_printf(b, "],\"more_types\":%zu,\"producer_list\":[", nt - show_t);
        for (size_t k = 0; k < show_p; k++) {
            const traza_producer *p = &prods[pord[k]];
            tz_buf_puts(b, k ? ",{\"name\":" : "{\"name\":");
            tz_json_str(b, p->name);
            tz_buf_puts(b, ",\"path\":");
            tz_json_str(b, traza_trace_producer_path(t, p->id, path, sizeof path));
            tz_buf_printf(b, ",\"depth\":%d,\"count\":%lld}", depth[pord[k]], (long long)st->producers[pord[k]].count);
        }
        tz_buf_printf(b, "],\"more_producers\":%zu", np - show_p);
    } else {
        tz_buf_printf(b, "event types (%zu, by count):\n", nt);
        for (size_t k = 0; k < show_t; k++) {
            const traza_event_type *ty = &types[tord[k]];
            tz_buf_printf(b, "  %-32s %-9s %12lld\n", ty->name, traza_category_name(ty->category),
                          (long long)st->types[tord[k]].count);
        }
        if (show_t < nt)
            tz_buf_printf(b, "  \u2026 %zu more (--all lists them)\n", nt - show_t);
        tz_buf_printf(b, "producers (%zu, as a tree, with their own events):\n", np);
        for (size_t k = 0; k < show_p; k++) {
            const traza_producer *p = &prods[pord[k]];
            int d = depth[pord[k]] > 16 ? 16 : depth[pord[k]];
            int w = 32 - 2 * d > 8 ? 32 - 2 * d : 8;
            tz_buf_printf(b, "  %*s%-*s %12lld  %s\n", 2 * d, "", w, p->name, (long long)st->producers[pord[k]].count,
                          traza_trace_producer_path(t, p->id, path, sizeof path));
        }
        if (show_p < np)
            tz_buf_printf(b, "  \u2026 %zu more (--all lists them)\n", np - show_p);
    }
    free(tord), free(pord), free(depth);
    return 0;
}

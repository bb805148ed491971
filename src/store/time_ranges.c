/* The time ranges of a saved annotations result, sorted and merged. */
#include "traza/result.h"

#include <stdlib.h>

static int cmp_range(const void *a, const void *b)
{
    const traza_time_range *x = a, *y = b;
    return (x->from > y->from) - (x->from < y->from);
}

int traza_result_time_ranges(traza_trace *t, int64_t id, traza_time_range **out, size_t *n, traza_err *err)
{
    *out = NULL;
    *n = 0;
    traza_annotation *a = NULL;
    size_t na = 0;
    if (traza_result_annotations(t, id, &a, &na, err) < 0)
        return -1;
    traza_time_range *r = malloc((na ? na : 1) * sizeof *r);
    if (!r) {
        traza_annotations_free(a, na);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < na; i++)
        if (a[i].has_range)
            r[k++] = (traza_time_range){a[i].from < a[i].to ? a[i].from : a[i].to, a[i].from < a[i].to ? a[i].to : a[i].from};
    traza_annotations_free(a, na);
    qsort(r, k, sizeof *r, cmp_range);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && r[i].from <= r[m - 1].to) {
            if (r[i].to > r[m - 1].to)
                r[m - 1].to = r[i].to;
        } else {
            r[m++] = r[i];
        }
    }
    *out = r;
    *n = m;
    return 0;
}

int traza_time_ranges_overlap(const traza_time_range *r, size_t n, int64_t from, int64_t to)
{
    /* the first range ending at or after from begins at or before to */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].to < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && r[lo].from <= to;
}

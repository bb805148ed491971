/* Anomaly detection on a series metric (Martin & Marangozova-Martin, RT-0450):
 * events whose duration or period falls outside an interval of normal values. */
#include "traza/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int traza_metric_parse(const char *s)
{
    if (!s) return -1;
    if (!strcmp(s, "duration")) return TRAZA_METRIC_DURATION;
    if (!strcmp(s, "period")) return TRAZA_METRIC_PERIOD;
    return -1;
}

const char *traza_metric_name(traza_metric m) { return m == TRAZA_METRIC_PERIOD ? "period" : "duration"; }

int traza_rule_parse(const char *s)
{
    if (!s) return -1;
    if (!strcmp(s, "ci99")) return TRAZA_RULE_CI99;
    if (!strcmp(s, "sigma")) return TRAZA_RULE_SIGMA;
    if (!strcmp(s, "mad")) return TRAZA_RULE_MAD;
    return -1;
}

const char *traza_rule_name(traza_rule r)
{
    switch (r) {
    case TRAZA_RULE_CI99: return "ci99";
    case TRAZA_RULE_SIGMA: return "sigma";
    case TRAZA_RULE_MAD: return "mad";
    }
    return "?";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of a sorted array. */
static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int traza_anomaly_interval(const double *v, size_t n, traza_rule rule, double k, double *lo, double *hi,
                           double *center, double *spread, traza_err *err)
{
    if (n == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "no metric values: the series needs at least one event "
                                                  "(duration) or two events (period)");
    if (rule == TRAZA_RULE_MAD) {
        double *w = malloc(n * sizeof *w);
        if (!w)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        memcpy(w, v, n * sizeof *w);
        qsort(w, n, sizeof *w, cmp_double);
        double med = median_sorted(w, n);
        for (size_t i = 0; i < n; i++)
            w[i] = fabs(v[i] - med);
        qsort(w, n, sizeof *w, cmp_double);
        double mad = median_sorted(w, n);
        free(w);
        *center = med;
        *spread = mad;
        *lo = med - k * mad;
        *hi = med + k * mad;
        return 0;
    }
    /* Two-pass mean and (population) standard deviation. */
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    double sd = sqrt(ss / (double)n);
    *center = mean;
    *spread = sd;
    double half = rule == TRAZA_RULE_CI99 ? 3.0 * sd / sqrt((double)n) : k * sd;
    *lo = mean - half;
    *hi = mean + half;
    return 0;
}

void traza_anomalies_free(traza_anomalies *a)
{
    if (!a)
        return;
    free(a->index);
    free(a->value);
    memset(a, 0, sizeof *a);
}

int traza_anomaly_detect(const traza_series *s, traza_metric m, traza_rule rule, double k, traza_anomalies *out, traza_err *err)
{
    memset(out, 0, sizeof *out);
    out->rule = rule;
    out->metric = m;
    out->k = rule == TRAZA_RULE_CI99 ? 3.0 : k;
    size_t first = m == TRAZA_METRIC_PERIOD ? 1 : 0;
    size_t nv = s->n > first ? s->n - first : 0;
    double *v = calloc(nv ? nv : 1, sizeof *v);
    if (!v)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = first; i < s->n; i++)
        v[i - first] = m == TRAZA_METRIC_PERIOD ? (double)(s->ts[i] - s->ts[i - 1]) : (double)(s->end[i] - s->ts[i]);
    if (traza_anomaly_interval(v, nv, rule, k, &out->lo, &out->hi, &out->center, &out->spread, err) < 0) {
        traza_err_prefix(err, "series '%s': ", s->name);
        free(v);
        return -1;
    }
    out->nvalues = nv;
    size_t cnt = 0;
    for (size_t i = 0; i < nv; i++)
        if (v[i] < out->lo || v[i] > out->hi)
            cnt++;
    out->index = malloc((cnt ? cnt : 1) * sizeof *out->index);
    out->value = malloc((cnt ? cnt : 1) * sizeof *out->value);
    if (!out->index || !out->value) {
        free(v);
        traza_anomalies_free(out);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < nv; i++)
        if (v[i] < out->lo || v[i] > out->hi) {
            out->index[out->n] = i + first;
            out->value[out->n] = v[i];
            out->n++;
        }
    free(v);
    if (nv > 0 && (double)out->n > TRAZA_ANOMALY_WARN_SHARE * (double)nv) {
        if (rule == TRAZA_RULE_CI99)
            traza_warnings_add(&out->warn, "rule ci99 flags %zu of %zu %ss: it bounds the mean, not single values; "
                                           "the mad rule tests single values", out->n, nv, traza_metric_name(m));
        else
            traza_warnings_add(&out->warn, "rule %s flags %zu of %zu %ss (more than %.0f%%): a larger k keeps fewer",
                               traza_rule_name(rule), out->n, nv, traza_metric_name(m), 100 * TRAZA_ANOMALY_WARN_SHARE);
    }
    return 0;
}

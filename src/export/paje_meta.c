/* Pajé names kept by the Pajé importers, read back for the exporters. */
#include "export/paje_meta.h"
#include "formats/paje_common.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *param_of(const traza_trace_info *in, const char *key)
{
    for (size_t i = 0; i < in->nparams; i++)
        if (strcmp(in->params[i].key, key) == 0)
            return in->params[i].value;
    return NULL;
}

int tz_paje_meta_load(traza_trace *t, tz_paje_meta *m, traza_err *err)
{
    memset(m, 0, sizeof *m);
    const traza_trace_info *in = traza_trace_info_of(t);
    const traza_event_type *ets;
    m->netypes = traza_trace_event_types(t, &ets);
    const traza_producer *ps;
    m->nprod = traza_trace_producers(t, &ps);
    m->etypes = calloc(m->netypes + 1, sizeof *m->etypes);
    m->cstart = calloc(m->nprod + 1, sizeof *m->cstart);
    m->cend = calloc(m->nprod + 1, sizeof *m->cend);
    m->has_ctimes = calloc(m->nprod + 1, 1);
    const char *types = param_of(in, "paje.types"), *conts = param_of(in, "paje.containers");
    m->types_copy = tz_strdup(types ? types : "");
    if (!m->etypes || !m->cstart || !m->cend || !m->has_ctimes || !m->types_copy) {
        tz_paje_meta_free(m);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    /* defaults: state and punctual types become values of one Pajé type per category */
    for (size_t i = 0; i < m->netypes; i++) {
        const traza_event_type *e = traza_trace_event_type(t, (int32_t)i);
        if (!e)
            continue;
        switch (e->category) {
        case TRAZA_STATE: m->etypes[i].ptype = "State"; m->etypes[i].value = e->name; break;
        case TRAZA_PUNCTUAL: m->etypes[i].ptype = "Event"; m->etypes[i].value = e->name; break;
        default: m->etypes[i].ptype = e->name; m->etypes[i].value = ""; break;
        }
    }
    /* records "id US category US ptype US value RS" */
    char *q = m->types_copy;
    while (*q) {
        char *rs = strchr(q, TZ_PAJE_RS[0]);
        if (!rs)
            break;
        *rs = '\0';
        char *f[4] = {q, NULL, NULL, NULL};
        for (int k = 1; k < 4 && f[k - 1]; k++) {
            char *us = strchr(f[k - 1], TZ_PAJE_US[0]);
            if (us) {
                *us = '\0';
                f[k] = us + 1;
            }
        }
        long id = strtol(f[0], NULL, 10);
        if (f[3] && id >= 0 && (size_t)id < m->netypes) {
            m->etypes[id].ptype = f[2];
            m->etypes[id].value = f[3];
        }
        q = rs + 1;
    }
    if (conts) {
        const char *c = conts;
        while (*c) {
            long long id, s, e;
            int used = 0;
            if (sscanf(c, "%lld\x1f%lld\x1f%lld\x1e%n", &id, &s, &e, &used) != 3 || used == 0)
                break;
            if (id >= 0 && (size_t)id < m->nprod) {
                m->cstart[id] = s;
                m->cend[id] = e;
                m->has_ctimes[id] = 1;
            }
            c += used;
        }
    }
    m->paje_root = m->nprod > 0 && ps[0].parent < 0 && strcmp(ps[0].name, "0") == 0 && ps[0].type && strcmp(ps[0].type, "0") == 0;
    return 0;
}

void tz_paje_meta_free(tz_paje_meta *m)
{
    free(m->etypes);
    free(m->cstart);
    free(m->cend);
    free(m->has_ctimes);
    free(m->types_copy);
    memset(m, 0, sizeof *m);
}

void tz_paje_time_text(int64_t ticks, int unit, char *buf, size_t size)
{
    int neg = ticks < 0;
    uint64_t v = neg ? (uint64_t)0 - (uint64_t)ticks : (uint64_t)ticks;
    if (unit >= 0) {
        static const char zeros[] = "000";
        snprintf(buf, size, "%s%llu%s", neg ? "-" : "", (unsigned long long)v, zeros + (unit > 3 ? 0 : 3 - unit));
        return;
    }
    int digits = -unit;
    uint64_t p = 1;
    for (int i = 0; i < digits && i < 19; i++)
        p *= 10;
    uint64_t ip = v / p, fp = v % p;
    if (fp == 0) {
        snprintf(buf, size, "%s%llu", neg ? "-" : "", (unsigned long long)ip);
        return;
    }
    char frac[32];
    int nd = digits > 19 ? 19 : digits;
    for (int i = nd - 1; i >= 0; i--) {
        frac[i] = (char)('0' + fp % 10);
        fp /= 10;
    }
    frac[nd] = '\0';
    size_t n = (size_t)nd;
    while (n > 0 && frac[n - 1] == '0')
        frac[--n] = '\0';
    snprintf(buf, size, "%s%llu.%s", neg ? "-" : "", (unsigned long long)ip, frac);
}

double tz_paje_time_double(int64_t ticks, int unit)
{
    if (unit >= 0) {
        double v = (double)ticks;
        for (int i = 0; i < unit; i++)
            v *= 10;
        return v;
    }
    double p = 1;
    for (int i = 0; i < -unit; i++)
        p *= 10; /* exact up to 10^22 */
    return (double)ticks / p;
}

/* Names of the model's enumerations, and freeing of model structs. */
#include "traza/model.h"
#include "traza/result.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static const char *const category_names[] = {"punctual", "state", "link", "variable"};

const char *traza_category_name(traza_category c)
{
    return (unsigned)c < TRAZA_NCATEGORIES ? category_names[c] : "?";
}

int traza_category_parse(const char *name)
{
    for (int i = 0; i < TRAZA_NCATEGORIES; i++)
        if (strcmp(name, category_names[i]) == 0)
            return i;
    return -1;
}

static const char *const ptype_names[] = {"int", "double", "string", "hex"};

const char *traza_ptype_name(traza_ptype t) { return (unsigned)t < 4 ? ptype_names[t] : "?"; }

int traza_ptype_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, ptype_names[i]) == 0)
            return i;
    return -1;
}

void traza_trace_info_clear(traza_trace_info *info)
{
    if (!info)
        return;
    free(info->name);
    free(info->alias);
    free(info->format);
    for (size_t i = 0; i < info->nsources; i++)
        free(info->sources[i]);
    free(info->sources);
    for (size_t i = 0; i < info->nparams; i++) {
        free(info->params[i].key);
        free(info->params[i].value);
    }
    free(info->params);
    memset(info, 0, sizeof *info);
}

void traza_trace_info_array_free(traza_trace_info *arr, size_t n)
{
    for (size_t i = 0; i < n; i++)
        traza_trace_info_clear(&arr[i]);
    free(arr);
}

static const char *const result_kind_names[] = {"event_set", "producer_set", "group", "annotation", "processed_trace"};

const char *traza_result_kind_name(traza_result_kind k) { return (unsigned)k < 5 ? result_kind_names[k] : "?"; }

int traza_result_kind_parse(const char *name)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(name, result_kind_names[i]) == 0)
            return i;
    return -1;
}

void traza_result_info_clear(traza_result_info *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->tool);
    free(r->params);
    free(r->target);
    free(r->inputs);
    free(r->version);
    memset(r, 0, sizeof *r);
}

void traza_result_info_array_free(traza_result_info *arr, size_t n)
{
    for (size_t i = 0; i < n; i++)
        traza_result_info_clear(&arr[i]);
    free(arr);
}

void tz_json_result_provenance(tz_buf *b, const traza_result_info *r)
{
    tz_buf_puts(b, ",\"inputs\":[");
    for (const char *p = r->inputs; p && *p;) {
        const char *c = strchr(p, '\n');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (p != r->inputs)
            tz_buf_putc(b, ',');
        tz_json_strn(b, p, n);
        p = c ? c + 1 : p + n;
    }
    tz_buf_puts(b, "],\"version\":");
    if (r->version)
        tz_json_str(b, r->version);
    else
        tz_buf_puts(b, "null");
}

/* The event filter a tool takes as options (tool_filter.h). */
#include "tools/tool_filter.h"

#include <stdlib.h>
#include <string.h>

static const traza_tool_option filter_options[] = {TZ_FILTER_OPTIONS};

void tz_filter_args_init(tz_filter_args *tf)
{
    memset(tf, 0, sizeof *tf);
    traza_filter_init(&tf->f);
}

static int is_filter_option(const char *name)
{
    for (size_t i = 0; i < sizeof filter_options / sizeof filter_options[0]; i++)
        if (strcmp(filter_options[i].name, name) == 0)
            return 1;
    return 0;
}

/* The values of a repeatable option, in the order given (*v malloc'd). */
static int values_of(const traza_tool_call *call, const char *name, const char ***v, size_t *n, traza_err *err)
{
    *n = 0;
    *v = malloc((call->args->n ? call->args->n : 1) * sizeof **v);
    if (!*v)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < call->args->n; i++)
        if (strcmp(call->args->keys[i], name) == 0 && call->args->values[i])
            (*v)[(*n)++] = call->args->values[i];
    return 0;
}

/* The where and regex options, parsed into tf's conditions. */
static int read_conditions(const traza_tool_call *call, tz_filter_args *tf, traza_err *err)
{
    size_t n = call->args->n ? call->args->n : 1;
    tf->conds = calloc(n, sizeof *tf->conds);
    tf->cond_copies = calloc(n, sizeof *tf->cond_copies);
    tf->regexes = calloc(n, sizeof *tf->regexes);
    tf->regex_columns = calloc(n, sizeof *tf->regex_columns);
    if (!tf->conds || !tf->cond_copies || !tf->regexes || !tf->regex_columns)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < call->args->n; i++) {
        const char *k = call->args->keys[i], *v = call->args->values[i];
        if (v && strcmp(k, "where") == 0) {
            if (traza_param_cond_parse(v, &tf->conds[tf->nconds], &tf->cond_copies[tf->nconds], err) < 0)
                return traza_err_prefix(err, "option 'where': ");
            tf->nconds++;
        } else if (v && strcmp(k, "regex") == 0) {
            if (traza_regex_cond_parse(v, &tf->regexes[tf->nregexes], &tf->regex_columns[tf->nregexes], err) < 0)
                return traza_err_prefix(err, "option 'regex': ");
            tf->nregexes++;
        }
    }
    tf->f.conds = tf->conds;
    tf->f.nconds = tf->nconds;
    return 0;
}

int tz_filter_args_read(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const int32_t *extra_producers,
                        size_t nextra, tz_filter_args *tf, traza_err *err)
{
    const char **types = NULL, **producers = NULL, **categories = NULL;
    size_t ntypes = 0, nproducers = 0, ncategories = 0;
    int rc = -1;
    if ((!tf->conditions_only &&
         (values_of(call, "type", &types, &ntypes, err) < 0 || values_of(call, "producer", &producers, &nproducers, err) < 0)) ||
        values_of(call, "category", &categories, &ncategories, err) < 0 || read_conditions(call, tf, err) < 0)
        goto out;
    const char *subtree = tf->conditions_only ? NULL : traza_tool_arg(tool, call->args, "subtree");
    traza_filter_spec spec = {
        .type_names = types, .ntype_names = ntypes,
        .producer_names = producers, .nproducer_names = nproducers,
        .producer_ids = extra_producers, .nproducer_ids = nextra,
        .subtree = subtree && (!strcmp(subtree, "true") || !strcmp(subtree, "1") || !strcmp(subtree, "yes")),
        .categories = categories, .ncategories = ncategories,
        .result = traza_tool_arg(tool, call->args, "set"), .producer_sets = 1,
        .during = traza_tool_arg(tool, call->args, "during"),
        .regexes = tf->regexes, .nregexes = tf->nregexes,
    };
    rc = traza_filter_resolve(t, &spec, &tf->f, &tf->types, &tf->producers, err);
out:
    free(types);
    free(producers);
    free(categories);
    return rc;
}

void tz_filter_args_text(const traza_tool_call *call, const char *sep, const char *const *skip, tz_buf *b)
{
    for (size_t i = 0; i < call->args->n; i++) {
        const char *k = call->args->keys[i];
        int skipped = !is_filter_option(k);
        for (size_t j = 0; skip && skip[j] && !skipped; j++)
            skipped = strcmp(skip[j], k) == 0;
        if (!skipped)
            tz_buf_printf(b, "%s%s=%s", sep, k, call->args->values[i] ? call->args->values[i] : "true");
    }
}

void tz_filter_conditions_text(const traza_tool_call *call, const char *sep, tz_buf *b)
{
    static const char *const selection[] = {"type", "producer", "subtree", NULL};
    tz_filter_args_text(call, sep, selection, b);
}

void tz_filter_args_free(tz_filter_args *tf)
{
    for (size_t i = 0; i < tf->nconds; i++)
        free(tf->cond_copies[i]);
    for (size_t i = 0; i < tf->nregexes; i++)
        free(tf->regex_columns[i]);
    free(tf->conds);
    free(tf->cond_copies);
    free(tf->regexes);
    free(tf->regex_columns);
    free(tf->types);
    free(tf->producers);
    tz_filter_args_init(tf);
}

int tz_filter_only_category(traza_filter *f, traza_category category, const char *what, traza_err *err)
{
    unsigned bit = 1u << category;
    if (f->categories && !(f->categories & bit))
        return traza_err_set(err, TRAZA_E_USAGE, "%s read %s events, which the filter's categories leave out", what,
                             traza_category_name(category));
    f->categories = bit;
    return 0;
}

void tz_ids_keep(int32_t *ids, size_t *n, const int32_t *keep, size_t nkeep)
{
    if (!keep || !nkeep)
        return;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        for (size_t j = 0; j < nkeep; j++)
            if (ids[i] == keep[j]) {
                ids[k++] = ids[i];
                break;
            }
    *n = k;
}

traza_filter tz_filter_all_of(const traza_filter *sel)
{
    traza_filter f;
    traza_filter_init(&f);
    if (sel)
        f = *sel;
    f.offset = f.limit = 0;
    f.order = TRAZA_ORDER_TIME;
    return f;
}

/* The "seqsearch" tool: instances of a pattern of event types saved as ordered
 * groups, the exceptions as a separate group. */
#include "analysis/tool_util.h"
#include "tools/tool_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const traza_tool_option seqsearch_opts[] = {
    {"pattern", TRAZA_OPT_STRING, NULL, "event types in order, comma-separated: 'A,B[,C...]'", 1, 0},
    {"per-producer", TRAZA_OPT_BOOL, "false", "match each producer's events separately", 0, 0},
    {"max-gap", TRAZA_OPT_TIME, NULL, "at most this long between consecutive events of an instance", 0, 0},
    {"save", TRAZA_OPT_STRING, NULL, "name of the saved instance group (exceptions: NAME:exceptions)", 0, 0},
    TZ_OPT_REPLACE,
    TZ_FILTER_OPTIONS,
};

static int run_seqsearch(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    const char *pat = tz_targ(tool, call, "pattern");
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    int rc = -1;
    int32_t types[64];
    size_t len = 0;
    traza_seq_result r;
    memset(&r, 0, sizeof r);
    traza_group_node *nodes = NULL;
    char *inames = NULL;
    tz_buf b, fname, fparams;
    tz_buf_init(&b);
    tz_buf_init(&fname);
    tz_buf_init(&fparams);
    tz_filter_args tf;
    tz_filter_args_init(&tf);
    char *dup = tz_strdup(pat);
    if (!dup) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    for (char *save = NULL, *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        const traza_event_type *ty = traza_trace_event_type_by_name(t, tok);
        if (!ty) {
            traza_err_set(err, TRAZA_E_NOTFOUND, "option 'pattern' '%s': the trace has no event type '%s'", pat, tok);
            goto done;
        }
        if (len == 64) {
            traza_err_set(err, TRAZA_E_USAGE, "option 'pattern': at most 64 types");
            goto done;
        }
        types[len++] = ty->id;
    }
    int64_t gap = 0;
    if (tz_targ_time(tool, call, t, "max-gap", &gap, err) < 0)
        goto done;
    /* only the events of the filter options take part; a filtered search is saved
     * under a name that tells it from the whole one */
    if (tz_filter_args_read(tool, call, t, NULL, 0, &tf, err) < 0 ||
        traza_seqsearch(t, &tf.f, types, len, tz_targ_bool(tool, call, "per-producer"), gap, &r, err) < 0)
        goto done;
    tz_filter_args_text(call, ":", NULL, &fname);
    tz_filter_args_text(call, " ", NULL, &fparams);
    if (fname.oom || fparams.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    size_t nn = r.ninstances * (len + 1) + r.nexceptions + 1;
    nodes = calloc(nn, sizeof *nodes);
    if (!nodes) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    /* each instance is named by its index: GROUP/3 names the fourth as an input */
    inames = malloc((r.ninstances ? r.ninstances : 1) * 24);
    if (!inames) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    size_t k = 0;
    int64_t nid = 1;
    for (size_t i = 0; i < r.ninstances; i++) {
        int64_t inst = nid++;
        snprintf(inames + i * 24, 24, "%zu", i);
        nodes[k].id = inst;
        nodes[k].name = inames + i * 24;
        nodes[k].parent = 0;
        nodes[k].ordered = 1;
        nodes[k].position = (int64_t)i;
        k++;
        for (size_t j = 0; j < len; j++, k++) {
            nodes[k].id = nid++;
            nodes[k].parent = inst;
            nodes[k].ref_kind = TRAZA_GROUP_EVENT;
            nodes[k].ref = r.inst[i * len + j];
            nodes[k].position = (int64_t)j;
        }
    }
    char name[600], ename[620], params[700];
    const char *sv = tz_targ(tool, call, "save");
    if (sv)
        snprintf(name, sizeof name, "%s", sv);
    else
        snprintf(name, sizeof name, "seq:%.300s%.250s", pat, fname.s ? fname.s : "");
    snprintf(ename, sizeof ename, "%s:exceptions", name);
    snprintf(params, sizeof params, "pattern=%.300s per-producer=%d max-gap=%lld%.250s", pat, tz_targ_bool(tool, call, "per-producer"),
             (long long)gap, fparams.s ? fparams.s : "");
    traza_result_meta meta = {name, tool->name, params, tz_targ_bool(tool, call, "replace"), NULL};
    if (traza_result_save_group(t, &meta, nodes, k, err) < 0)
        goto done;
    k = 0;
    nodes[k].id = 1;
    nodes[k].parent = 0;
    nodes[k].name = "exceptions";
    nodes[k].ordered = 0;
    nodes[k].ref_kind = TRAZA_GROUP_NONE;
    k++;
    for (size_t i = 0; i < r.nexceptions; i++, k++) {
        memset(&nodes[k], 0, sizeof nodes[k]);
        nodes[k].id = (int64_t)k + 1;
        nodes[k].parent = 1;
        nodes[k].ref_kind = TRAZA_GROUP_EVENT;
        nodes[k].ref = r.exceptions[i];
        nodes[k].position = (int64_t)i;
    }
    traza_result_meta emeta = {ename, tool->name, params, tz_targ_bool(tool, call, "replace"), NULL};
    if (traza_result_save_group(t, &emeta, nodes, k, err) < 0)
        goto done;
    if (call->json) {
        tz_buf_puts(&b, "{\"pattern\": ");
        tz_json_str(&b, pat);
        tz_buf_puts(&b, ", \"instances\": [");
        for (size_t i = 0; i < r.ninstances; i++) {
            tz_buf_puts(&b, i ? ", [" : "[");
            for (size_t j = 0; j < len; j++)
                tz_buf_printf(&b, "%s%lld", j ? ", " : "", (long long)r.inst[i * len + j]);
            tz_buf_putc(&b, ']');
        }
        tz_buf_puts(&b, "], \"exceptions\": [");
        for (size_t i = 0; i < r.nexceptions; i++)
            tz_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)r.exceptions[i]);
        tz_buf_puts(&b, "]}\n");
    } else {
        tz_buf_printf(&b, "pattern %s: %zu instances saved as group '%s', %zu exceptions saved as group '%s'\n", pat,
                      r.ninstances, name, r.nexceptions, ename);
        size_t show = r.ninstances < 10 ? r.ninstances : 10;
        for (size_t i = 0; i < show; i++) {
            tz_buf_printf(&b, "  instance %zu: events", i);
            for (size_t j = 0; j < len; j++)
                tz_buf_printf(&b, " %lld", (long long)r.inst[i * len + j]);
            tz_buf_putc(&b, '\n');
        }
        if (show < r.ninstances)
            tz_buf_printf(&b, "  ... %zu more\n", r.ninstances - show);
    }
    if (b.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    traza_tool_printf(call, "%s", b.s ? b.s : "");
    rc = 0;
done:
    tz_buf_free(&b);
    tz_buf_free(&fname);
    tz_buf_free(&fparams);
    tz_filter_args_free(&tf);
    free(nodes);
    free(inames);
    free(dup);
    traza_seq_result_free(&r);
    traza_trace_close(t);
    return rc;
}

const traza_tool tz_tool_seqsearch = {
    "seqsearch", "instances of a pattern of event types (ordered groups) and the exceptions",
    TRAZA_TOOL_ANALYSIS, seqsearch_opts, sizeof seqsearch_opts / sizeof seqsearch_opts[0], run_seqsearch, NULL, "builtin",
};

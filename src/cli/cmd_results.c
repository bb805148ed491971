/* traza results TRACE [show RESULT | rm RESULT] [--json] */
#include "cli/cli.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cmd_results_usage[] =
    "usage: traza results TRACE [--json]\n"
    "       traza results TRACE show RESULT [--json]\n"
    "       traza results TRACE rm RESULT [--json]\n"
    "\n"
    "Lists the results saved beside a trace (event sets, producer sets, groups,\n"
    "annotations, processed traces), shows one's content, or removes it. Any event set\n"
    "can restrict another command with --set NAME.\n";

static void info_json(tz_buf *b, const traza_result_info *r)
{
    tz_buf_printf(b, "{\"id\":%lld,\"name\":", (long long)r->id);
    tz_json_str(b, r->name);
    tz_buf_printf(b, ",\"kind\":\"%s\",\"tool\":", traza_result_kind_name(r->kind));
    tz_json_str(b, r->tool);
    tz_buf_puts(b, ",\"params\":");
    tz_json_str(b, r->params);
    tz_buf_printf(b, ",\"created\":%lld,\"size\":%lld", (long long)r->created, (long long)r->size);
    if (r->target) {
        tz_buf_puts(b, ",\"target\":");
        tz_json_str(b, r->target);
    }
    tz_json_result_provenance(b, r);
    tz_buf_putc(b, '}');
}

static int show(traza_cli *cli, traza_trace *t, const traza_result_info *r, tz_buf *b)
{
    traza_err err;
    traza_err_clear(&err);
    size_t n = 0;
    char path[1024];
    if (cli->json) {
        info_json(b, r);
        b->len--; /* reopen the object to add the members */
        tz_buf_puts(b, ",\"members\":[");
    } else {
        tz_buf_printf(b, "%s (%s, %lld)%s%s\n", r->name, traza_result_kind_name(r->kind), (long long)r->size, r->target ? " -> " : "",
                      r->target ? r->target : "");
        /* the provenance: what made it, from what, with which traza */
        char when[32];
        time_t tt = (time_t)r->created;
        struct tm tm;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&tt, &tm));
        tz_buf_printf(b, "made by %s%s%s with %s, %s\n", r->tool ? r->tool : "an unknown tool", r->version ? " of traza " : "",
                      r->version ? r->version : "", r->params && *r->params ? r->params : "no options", when);
        tz_buf_puts(b, "inputs:");
        for (const char *p = r->inputs; p && *p;) {
            const char *c = strchr(p, '\n');
            int k = c ? (int)(c - p) : (int)strlen(p);
            tz_buf_printf(b, " %.*s%s", k, p, c ? "," : "");
            p = c ? c + 1 : p + k;
        }
        tz_buf_puts(b, r->inputs ? "\n" : " none\n");
    }
    switch (r->kind) {
    case TRAZA_RES_EVENT_SET: {
        int64_t *ids;
        if (traza_result_events(t, r->id, &ids, &n, &err) < 0)
            return cli_fail(cli, &err);
        for (size_t i = 0; i < n; i++)
            tz_buf_printf(b, cli->json ? "%s%lld" : "%s%lld\n", cli->json && i ? "," : "", (long long)ids[i]);
        free(ids);
        break;
    }
    case TRAZA_RES_PRODUCER_SET: {
        int32_t *ids;
        if (traza_result_producers(t, r->id, &ids, &n, &err) < 0)
            return cli_fail(cli, &err);
        for (size_t i = 0; i < n; i++) {
            traza_trace_producer_path(t, ids[i], path, sizeof path);
            if (cli->json) {
                if (i) tz_buf_putc(b, ',');
                tz_json_str(b, path);
            } else {
                tz_buf_printf(b, "%s\n", path);
            }
        }
        free(ids);
        break;
    }
    case TRAZA_RES_GROUP: {
        traza_group_node *g;
        if (traza_result_group(t, r->id, &g, &n, &err) < 0)
            return cli_fail(cli, &err);
        static const char *const kinds[] = {"node", "event", "type", "producer"};
        for (size_t i = 0; i < n; i++) {
            if (cli->json) {
                tz_buf_printf(b, "%s{\"id\":%lld,\"parent\":%lld,\"name\":", i ? "," : "", (long long)g[i].id, (long long)g[i].parent);
                tz_json_str(b, g[i].name);
                tz_buf_printf(b, ",\"ordered\":%s,\"ref_kind\":\"%s\",\"ref\":%lld,\"position\":%lld}", g[i].ordered ? "true" : "false",
                              kinds[g[i].ref_kind & 3], (long long)g[i].ref, (long long)g[i].position);
            } else {
                tz_buf_printf(b, "%lld <- %lld %s%s %s %lld\n", (long long)g[i].id, (long long)g[i].parent, g[i].name ? g[i].name : "",
                              g[i].ordered ? " (ordered)" : "", kinds[g[i].ref_kind & 3], (long long)g[i].ref);
            }
        }
        traza_group_nodes_free(g, n);
        break;
    }
    case TRAZA_RES_ANNOTATION: {
        traza_annotation *a;
        if (traza_result_annotations(t, r->id, &a, &n, &err) < 0)
            return cli_fail(cli, &err);
        for (size_t i = 0; i < n; i++) {
            tz_buf v;
            tz_buf_init(&v);
            switch (a[i].value.kind) {
            case TRAZA_PT_INT: tz_buf_printf(&v, "%lld", (long long)a[i].value.i); break;
            case TRAZA_PT_HEX: tz_buf_printf(&v, "0x%llx", (unsigned long long)a[i].value.i); break;
            case TRAZA_PT_DOUBLE: tz_buf_printf(&v, "%.17g", a[i].value.d); break;
            case TRAZA_PT_STRING: tz_buf_puts(&v, a[i].value.s ? a[i].value.s : ""); break;
            }
            if (cli->json) {
                tz_buf_puts(b, i ? ",{\"key\":" : "{\"key\":");
                tz_json_str(b, a[i].key);
                tz_buf_puts(b, ",\"value\":");
                tz_json_str(b, v.s ? v.s : "");
                if (a[i].has_range)
                    tz_buf_printf(b, ",\"from\":%lld,\"to\":%lld", (long long)a[i].from, (long long)a[i].to);
                tz_buf_putc(b, '}');
            } else if (a[i].has_range) {
                tz_buf_printf(b, "%s = %s  [%lld, %lld]\n", a[i].key, v.s ? v.s : "", (long long)a[i].from, (long long)a[i].to);
            } else {
                tz_buf_printf(b, "%s = %s\n", a[i].key, v.s ? v.s : "");
            }
            tz_buf_free(&v);
        }
        traza_annotations_free(a, n);
        break;
    }
    case TRAZA_RES_PROCESSED_TRACE:
        break;
    }
    if (cli->json)
        tz_buf_puts(b, "]}\n");
    return EXIT_OK;
}

int cmd_results(traza_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int k = cli_common_opt(cli, "results", c);
        if (k == -1) return EXIT_OK;
        if (k <= 0) return EXIT_USAGE;
    }
    int nargs = argc - optind;
    if (nargs != 1 && nargs != 3)
        return cli_usage_error("results", "expected TRACE, or TRACE show|rm RESULT");
    const char *verb = nargs == 3 ? argv[optind + 1] : NULL;
    if (verb && strcmp(verb, "show") && strcmp(verb, "rm"))
        return cli_usage_error("results", "unknown verb '%s' (show or rm)", verb);
    traza_trace *t = cli_trace(cli, argv[optind], verb && !strcmp(verb, "rm") ? TRAZA_OPEN_WRITE : TRAZA_OPEN_READ);
    if (!t)
        return EXIT_FAIL;
    traza_err err;
    traza_err_clear(&err);
    int rc = EXIT_OK;
    tz_buf b;
    tz_buf_init(&b);
    if (verb) {
        traza_result_info r;
        if (traza_result_find(t, argv[optind + 2], &r, &err) < 0) {
            rc = cli_fail(cli, &err);
        } else {
            if (!strcmp(verb, "rm")) {
                if (traza_result_delete(t, r.id, &err) < 0)
                    rc = cli_fail(cli, &err);
                else if (cli->json) {
                    tz_buf_puts(&b, "{\"removed\":[");
                    tz_json_str(&b, r.name);
                    tz_buf_puts(&b, "]}\n");
                } else if (!cli->quiet)
                    tz_buf_printf(&b, "removed result '%s'\n", r.name);
            } else {
                rc = show(cli, t, &r, &b);
            }
            traza_result_info_clear(&r);
        }
    } else {
        traza_result_info *list;
        size_t n;
        if (traza_result_list(t, &list, &n, &err) < 0) {
            rc = cli_fail(cli, &err);
        } else {
            if (cli->json) {
                tz_buf_putc(&b, '[');
                for (size_t i = 0; i < n; i++) {
                    if (i) tz_buf_putc(&b, ',');
                    info_json(&b, &list[i]);
                }
                tz_buf_puts(&b, "]\n");
            } else if (!n) {
                tz_buf_printf(&b, "no results saved for '%s'\n", traza_trace_info_of(t)->name);
            } else {
                tz_buf_printf(&b, "%4s  %-28s %-16s %10s  %-18s %s\n", "id", "name", "kind", "size", "tool", "created");
                for (size_t i = 0; i < n; i++) {
                    char when[32];
                    time_t tt = (time_t)list[i].created;
                    struct tm tm;
                    strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime_r(&tt, &tm));
                    tz_buf_printf(&b, "%4lld  %-28s %-16s %10lld  %-18s %s%s%s\n", (long long)list[i].id, list[i].name,
                                  traza_result_kind_name(list[i].kind), (long long)list[i].size, list[i].tool ? list[i].tool : "", when,
                                  list[i].target ? "  -> " : "", list[i].target ? list[i].target : "");
                }
            }
            traza_result_info_array_free(list, n);
        }
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    traza_trace_close(t);
    return rc;
}

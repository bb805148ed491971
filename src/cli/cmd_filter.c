/* traza filter TRACE [filters] --name N [--exclude] [--producers] | --active|--idle */
#include "cli/cli.h"

#include <string.h>

const char cmd_filter_usage[] =
    "usage: traza filter TRACE [FILTERS] --name NAME [--exclude] [--producers] [--replace] [--json]\n"
    "       traza filter TRACE --active|--idle [--from T] [--to T] --name NAME\n"
    "\n"
    "Saves the events matching the filters as an event set (or, with --producers, their\n"
    "producers as a producer set) beside the trace. --exclude keeps the events that do\n"
    "NOT match. --active / --idle save the producers with / without events overlapping\n"
    "the [--from, --to] interval (the producer activity filter).\n"
    "Saved sets feed other commands: --set NAME, and the analyses.\n"
    "\n" CLI_FILTER_HELP;

int cmd_filter(traza_cli *cli, int argc, char **argv)
{
    enum { O_NAME = OPT_FIRST_FREE, O_EXCLUDE, O_PRODUCERS, O_ACTIVE, O_IDLE, O_REPLACE };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_FILTER_LONGOPTS,
        {"name", required_argument, NULL, O_NAME},
        {"exclude", no_argument, NULL, O_EXCLUDE},
        {"producers", no_argument, NULL, O_PRODUCERS},
        {"active", no_argument, NULL, O_ACTIVE},
        {"idle", no_argument, NULL, O_IDLE},
        {"replace", no_argument, NULL, O_REPLACE},
        {NULL, 0, NULL, 0},
    };
    cli_filter cf;
    cli_filter_init(&cf);
    const char *name = NULL;
    int exclude = 0, producers = 0, activity = 0, replace = 0, c, rc = EXIT_OK;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int r = cli_filter_opt(&cf, "filter", c, optarg);
        if (r < 0) { rc = EXIT_USAGE; goto out; }
        if (r) continue;
        switch (c) {
        case O_NAME: name = optarg; break;
        case O_EXCLUDE: exclude = 1; break;
        case O_PRODUCERS: producers = 1; break;
        case O_ACTIVE: activity = 1; break;
        case O_IDLE: activity = 2; break;
        case O_REPLACE: replace = 1; break;
        default: {
            int k = cli_common_opt(cli, "filter", c);
            if (k == -1) goto out;
            if (k <= 0) { rc = EXIT_USAGE; goto out; }
        }
        }
    }
    if (optind + 1 != argc) { rc = cli_usage_error("filter", "expected one trace name"); goto out; }
    if (!name) { rc = cli_usage_error("filter", "--name is required (the name of the saved result)"); goto out; }
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_WRITE);
    if (!t) { rc = EXIT_FAIL; goto out; }
    if ((rc = cli_filter_resolve(cli, &cf, t)) == EXIT_OK) {
        traza_err err;
        traza_err_clear(&err);
        char params[1024] = "";
        size_t off = 0;
        for (int i = 1; i < argc && off < sizeof params - 2; i++) {
            int n = snprintf(params + off, sizeof params - off, "%s%s", i > 1 ? " " : "", argv[i]);
            if (n < 0) break;
            off += (size_t)n;
        }
        /* the inputs: the event set and the time ranges it read, one a line */
        char inputs[600];
        snprintf(inputs, sizeof inputs, "%.280s%s%.280s", cf.set_s ? cf.set_s : "", cf.set_s && cf.during_s ? "\n" : "",
                 cf.during_s ? cf.during_s : "");
        traza_result_meta m = {name, activity ? "producer-activity" : "filter", params, replace, inputs};
        int64_t count = 0, rid;
        const traza_trace_info *info = traza_trace_info_of(t);
        if (activity)
            rid = traza_producer_activity_save(t, cf.f.has_from ? cf.f.from : info->min_ts, cf.f.has_to ? cf.f.to : info->max_ts,
                                               activity == 2, &m, &count, &err);
        else
            rid = traza_filter_save(t, &cf.f, exclude, producers, &m, &count, &err);
        const char *kind = (activity || producers) ? "producer_set" : "event_set";
        if (rid < 0)
            rc = cli_fail_saved(cli, &err, "--name");
        else if (cli->json) {
            tz_buf b; /* the name is the user's: escaped */
            tz_buf_init(&b);
            tz_buf_puts(&b, "{\"result\":");
            tz_json_str(&b, name);
            tz_buf_printf(&b, ",\"id\":%lld,\"kind\":\"%s\",\"size\":%lld}\n", (long long)rid, kind, (long long)count);
            fputs(b.s ? b.s : "", stdout);
            tz_buf_free(&b);
        } else
            printf("saved %s '%s': %lld members\n", kind, name, (long long)count);
    }
    traza_trace_close(t);
out:
    cli_filter_free(&cf);
    return rc;
}

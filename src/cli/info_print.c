/* Trace metadata as JSON objects (stable keys for scripts) and as text. */
#include "cli/info_print.h"

#include <stdio.h>
#include <time.h>

void cli_info_json(tz_buf *b, const traza_trace_info *info)
{
    cli_info_json_members(b, info);
    tz_buf_putc(b, '}');
}

void cli_info_json_members(tz_buf *b, const traza_trace_info *info)
{
    tz_buf_printf(b, "{\"id\":%lld,\"name\":", (long long)info->id);
    tz_json_str(b, info->name);
    tz_buf_puts(b, ",\"alias\":");
    if (info->alias)
        tz_json_str(b, info->alias);
    else
        tz_buf_puts(b, "null");
    tz_buf_puts(b, ",\"format\":");
    tz_json_str(b, info->format);
    tz_buf_printf(b, ",\"events\":%lld,\"producers\":%lld,\"event_types\":%lld,\"min_ts\":%lld,\"max_ts\":%lld,\"time_unit\":%d",
                  (long long)info->events, (long long)info->producers, (long long)info->event_types, (long long)info->min_ts,
                  (long long)info->max_ts, info->time_unit);
    tz_buf_puts(b, ",\"categories\":{");
    for (int c = 0; c < TRAZA_NCATEGORIES; c++)
        tz_buf_printf(b, "%s\"%s\":%lld", c ? "," : "", traza_category_name((traza_category)c), (long long)info->categories[c]);
    tz_buf_printf(b, "},\"created\":%lld,\"sources\":[", (long long)info->created);
    for (size_t i = 0; i < info->nsources; i++) {
        if (i)
            tz_buf_putc(b, ',');
        tz_json_str(b, info->sources[i]);
    }
    tz_buf_puts(b, "],\"params\":{");
    for (size_t i = 0; i < info->nparams; i++) {
        if (i)
            tz_buf_putc(b, ',');
        tz_json_str(b, info->params[i].key);
        tz_buf_putc(b, ':');
        tz_json_str(b, info->params[i].value);
    }
    tz_buf_putc(b, '}');
}

void cli_info_text(tz_buf *b, const traza_trace_info *info)
{
    char t1[64], t2[64], when[64];
    time_t c = (time_t)info->created;
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&c, &tm));
    tz_buf_printf(b, "name:        %s\nid:          %lld\nformat:      %s\n", info->name, (long long)info->id, info->format ? info->format : "");
    if (info->alias)
        tz_buf_printf(b, "alias:       %s\n", info->alias);
    tz_buf_printf(b, "events:      %lld\n", (long long)info->events);
    for (int k = 0; k < TRAZA_NCATEGORIES; k++)
        tz_buf_printf(b, "  %-10s %lld\n", traza_category_name((traza_category)k), (long long)info->categories[k]);
    tz_buf_printf(b, "producers:   %lld\nevent types: %lld\n", (long long)info->producers, (long long)info->event_types);
    if (traza_time_axis(info))
        tz_buf_printf(b, "time axis:   %s\n", traza_time_axis(info));
    else
        tz_buf_printf(b, "time unit:   10^%d s\n", info->time_unit);
    tz_buf_printf(b, "start:       %lld (%s)\n", (long long)info->min_ts, traza_trace_time_format(info, info->min_ts, 1, t1, sizeof t1));
    tz_buf_printf(b, "end:         %lld (+%s from the start)\n", (long long)info->max_ts,
                  traza_trace_time_format(info, info->max_ts - info->min_ts, 0, t2, sizeof t2));
    tz_buf_printf(b, "imported:    %s\n", when);
    for (size_t i = 0; i < info->nsources; i++)
        tz_buf_printf(b, "%s %s\n", i ? "            " : "sources:    ", info->sources[i]);
    for (size_t i = 0; i < info->nparams; i++)
        tz_buf_printf(b, "param:       %s = %s\n", info->params[i].key, info->params[i].value);
}

void cli_print_new_trace(traza_cli *cli, const char *verb, const traza_trace_info *info)
{
    cli_progress_clear(cli);
    tz_buf b;
    tz_buf_init(&b);
    if (cli->json) {
        cli_info_json(&b, info);
        tz_buf_putc(&b, '\n');
    } else {
        tz_buf_printf(&b, "%s '%s' (%s): %lld events, %lld producers, %lld event types\n", verb, info->name, info->format ? info->format : "",
                      (long long)info->events, (long long)info->producers, (long long)info->event_types);
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
}

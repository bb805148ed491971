/* A registered tool as JSON (server/tool_json.h). */
#include "server/tool_json.h"

#include <string.h>

int tz_tool_option_names_file(const traza_tool_option *o)
{
    return o->type == TRAZA_OPT_STRING && (strcmp(o->name, "svg") == 0 || strcmp(o->name, "file") == 0 ||
                                           strcmp(o->name, "output-file") == 0 || strcmp(o->name, "micro-out") == 0 ||
                                           (o->help && strstr(o->help, " file")));
}

/* Allowed values of a text option, read from its help when it starts with them
 * ("include or exclude ...", "occurrences, duration or avg-value", "mad (...),
 * sigma (...)"): the words before the first that is followed by anything else
 * than ", " or " or ". Only lists that hold the default count. */
static size_t choices(const traza_tool_option *o, char words[][32], size_t max)
{
    if (o->type != TRAZA_OPT_STRING || !o->help || !o->def)
        return 0;
    char text[256];
    size_t k = 0;
    int depth = 0;
    for (const char *p = o->help; *p && k + 1 < sizeof text; p++) {
        if (*p == '(') depth++;
        else if (*p == ')') depth = depth ? depth - 1 : 0;
        else if (!depth) text[k++] = *p;
    }
    text[k] = 0;
    size_t n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, " ,");
        if (len == 0 || len >= 32 || n >= max)
            return 0;
        memcpy(words[n], p, len);
        words[n][len] = 0;
        n++;
        p += len;
        while (*p == ' ')
            p++;
        if (*p == ',') {
            p++;
            while (*p == ' ')
                p++;
            if (strncmp(p, "or ", 3) == 0)
                p += 3;
        } else if (strncmp(p, "or ", 3) == 0) {
            p += 3;
        } else {
            break; /* the list ends here */
        }
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(words[i], o->def) == 0)
            return n > 1 ? n : 0;
    return 0;
}

void tz_tool_json(tz_buf *b, const traza_tool *t, int no_files)
{
    tz_buf_puts(b, "{\"name\":");
    tz_json_str(b, t->name);
    tz_buf_printf(b, ",\"kind\":\"%s\",\"summary\":", traza_tool_kind_name(t->kind));
    tz_json_str(b, t->summary);
    tz_buf_puts(b, ",\"origin\":");
    tz_json_str(b, t->origin);
    tz_buf_puts(b, ",\"options\":[");
    int first = 1;
    for (size_t i = 0; i < t->noptions; i++) {
        const traza_tool_option *o = &t->options[i];
        if (no_files && tz_tool_option_names_file(o))
            continue;
        tz_buf_puts(b, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        tz_json_str(b, o->name);
        tz_buf_printf(b, ",\"type\":\"%s\",\"default\":", traza_opt_type_name(o->type));
        tz_json_str(b, o->def);
        tz_buf_puts(b, ",\"help\":");
        tz_json_str(b, o->help);
        tz_buf_printf(b, ",\"required\":%s,\"repeatable\":%s,\"allowed\":", o->required ? "true" : "false",
                      o->multi ? "true" : "false");
        char words[16][32];
        size_t nw = o->type == TRAZA_OPT_BOOL ? 2 : choices(o, words, 16);
        if (o->type == TRAZA_OPT_BOOL) {
            strcpy(words[0], "false");
            strcpy(words[1], "true");
        }
        if (!nw)
            tz_buf_puts(b, "null");
        for (size_t w = 0; w < nw; w++) {
            tz_buf_puts(b, w ? "," : "[");
            tz_json_str(b, words[w]);
        }
        if (nw)
            tz_buf_putc(b, ']');
        tz_buf_putc(b, '}');
    }
    tz_buf_puts(b, "]}");
}


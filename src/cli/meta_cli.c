/* Trace metadata on the command line: KEY=VALUE arguments and --where selections. */
#include "cli/meta_cli.h"

#include <fnmatch.h>
#include <string.h>

int cli_meta_arg(const char *cmd, char *arg, traza_kv *kv)
{
    char *eq = strchr(arg, '=');
    if (!eq)
        return cli_usage_error(cmd, "expected KEY=VALUE, got '%s'", arg);
    *eq = '\0';
    traza_err err;
    traza_err_clear(&err);
    if (traza_meta_key_check(arg, &err) < 0)
        return cli_usage_error(cmd, "%s", err.msg);
    kv->key = arg;
    kv->value = eq + 1;
    return 0;
}

int cli_meta_where_parse(const char *cmd, char *arg, cli_meta_where *w)
{
    size_t k = strcspn(arg, "=!~");
    char *op = arg + k;
    memset(w, 0, sizeof *w);
    if (strncmp(op, "!=", 2) == 0)
        w->negate = 1, w->value = op + 2;
    else if (strncmp(op, "!~", 2) == 0)
        w->negate = w->glob = 1, w->value = op + 2;
    else if (*op == '=')
        w->value = op + 1;
    else if (*op == '~')
        w->glob = 1, w->value = op + 1;
    else
        return cli_usage_error(cmd, "--where expects KEY=VALUE, KEY!=VALUE, KEY~GLOB or KEY!~GLOB, got '%s'", arg);
    *op = '\0';
    traza_err err;
    traza_err_clear(&err);
    if (traza_meta_key_check(arg, &err) < 0)
        return cli_usage_error(cmd, "--where: %s", err.msg);
    w->key = arg;
    return 0;
}

const char *cli_meta_value(const traza_trace_info *info, const char *key)
{
    if (strcmp(key, "name") == 0)
        return info->name;
    if (strcmp(key, "format") == 0)
        return info->format;
    if (strcmp(key, "alias") == 0)
        return info->alias;
    for (size_t i = 0; i < info->nparams; i++)
        if (strcmp(info->params[i].key, key) == 0)
            return info->params[i].value;
    return NULL;
}

int cli_meta_matches(const traza_trace_info *info, const cli_meta_where *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = cli_meta_value(info, w[i].key);
        /* a trace without the key matches no = or ~, and every != and !~ */
        int hit = v && (w[i].glob ? fnmatch(w[i].value, v, 0) == 0 : strcmp(v, w[i].value) == 0);
        if (hit == w[i].negate)
            return 0;
    }
    return 1;
}

/* The tool registry: built-ins, dlopen'ed plugins (versioned C ABI) and external
 * black-box tools described by `.tool` manifests (doc/plugins.md). */
#include "tools/registry_internal.h"
#include "util/util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct traza_registry {
    traza_ctx *ctx;
    traza_tool *tools;
    size_t n, cap;
    void **handles;       /* dlopen handles */
    size_t nhandles, caphandles;
    char **strings;       /* strings owned for manifest tools */
    size_t nstrings, capstrings;
    traza_tool_option **optarrays;
    size_t noptarrays, capoptarrays;
};

traza_registry *tz_registry_new(traza_ctx *ctx, traza_err *err)
{
    traza_registry *r = calloc(1, sizeof *r);
    if (!r) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    r->ctx = ctx;
    if (tz_register_builtins(r, err) < 0) {
        tz_registry_free(r);
        return NULL;
    }
    return r;
}

void tz_registry_free(traza_registry *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nhandles; i++)
        dlclose(r->handles[i]);
    for (size_t i = 0; i < r->nstrings; i++)
        free(r->strings[i]);
    for (size_t i = 0; i < r->noptarrays; i++)
        free(r->optarrays[i]);
    free(r->optarrays);
    free(r->strings);
    free(r->handles);
    free(r->tools);
    free(r);
}

static const char *keep(traza_registry *r, const char *s)
{
    char *c = tz_strdup(s);
    if (!c || TZ_GROW(r->strings, r->capstrings, r->nstrings + 1) < 0) {
        free(c);
        return NULL;
    }
    return r->strings[r->nstrings++] = c;
}

int traza_registry_add(traza_registry *r, const traza_tool *tool, traza_err *err)
{
    if (!tool->name || !*tool->name || !tool->run)
        return traza_err_set(err, TRAZA_E_USAGE, "a tool needs a name and a run function");
    if (traza_registry_find(r, tool->name))
        return traza_err_set(err, TRAZA_E_EXISTS, "a tool named '%s' is already registered", tool->name);
    if (TZ_GROW(r->tools, r->cap, r->n + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    r->tools[r->n] = *tool;
    if (!r->tools[r->n].origin)
        r->tools[r->n].origin = "builtin";
    r->n++;
    return 0;
}

size_t traza_registry_count(const traza_registry *r) { return r->n; }
const traza_tool *traza_registry_at(const traza_registry *r, size_t i) { return i < r->n ? &r->tools[i] : NULL; }

const traza_tool *traza_registry_find(const traza_registry *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->tools[i].name, name) == 0)
            return &r->tools[i];
    return NULL;
}

const char *traza_tool_kind_name(traza_tool_kind k)
{
    switch (k) {
    case TRAZA_TOOL_IMPORTER: return "importer";
    case TRAZA_TOOL_EXPORTER: return "exporter";
    case TRAZA_TOOL_ANALYSIS: return "analysis";
    }
    return "?";
}

static const char *const opt_type_names[] = {"bool", "int", "double", "string", "time", "result"};
const char *traza_opt_type_name(traza_opt_type t) { return (unsigned)t <= TRAZA_OPT_RESULT ? opt_type_names[t] : "?"; }

static const traza_tool_option *find_opt(const traza_tool *tool, const char *name)
{
    for (size_t i = 0; i < tool->noptions; i++)
        if (strcmp(tool->options[i].name, name) == 0)
            return &tool->options[i];
    return NULL;
}

int traza_tool_check_args(const traza_tool *tool, const traza_tool_args *args, traza_err *err)
{
    for (size_t i = 0; i < args->n; i++) {
        const traza_tool_option *o = find_opt(tool, args->keys[i]);
        if (!o) {
            tz_buf b;
            tz_buf_init(&b);
            for (size_t k = 0; k < tool->noptions; k++)
                tz_buf_printf(&b, "%s--%s", k ? ", " : "", tool->options[k].name);
            int rc = traza_err_set(err, TRAZA_E_USAGE, "tool '%s' has no option '--%s' (its options: %s)", tool->name,
                                   args->keys[i], b.s ? b.s : "none");
            tz_buf_free(&b);
            return rc;
        }
        const char *v = args->values[i];
        size_t vl = v ? strlen(v) : 0;
        int64_t iv;
        double dv;
        switch (o->type) {
        case TRAZA_OPT_INT:
            if (!v || tz_parse_i64(v, vl, &iv) < 0)
                return traza_err_set(err, TRAZA_E_USAGE, "tool '%s': option --%s expects an integer, got '%s'", tool->name, o->name, v ? v : "");
            break;
        case TRAZA_OPT_DOUBLE:
            if (!v || tz_parse_double(v, vl, &dv) < 0)
                return traza_err_set(err, TRAZA_E_USAGE, "tool '%s': option --%s expects a number, got '%s'", tool->name, o->name, v ? v : "");
            break;
        case TRAZA_OPT_BOOL:
            if (v && strcmp(v, "1") && strcmp(v, "0") && strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "yes") && strcmp(v, "no"))
                return traza_err_set(err, TRAZA_E_USAGE, "tool '%s': option --%s expects true or false, got '%s'", tool->name, o->name, v);
            break;
        case TRAZA_OPT_TIME: {
            int64_t t;
            if (!v || traza_time_parse(v, -9, &t, err) < 0)
                return traza_err_prefix(err, "tool '%s': option --%s: ", tool->name, o->name);
            break;
        }
        default:
            if (!v)
                return traza_err_set(err, TRAZA_E_USAGE, "tool '%s': option --%s needs a value", tool->name, o->name);
        }
        if (!o->multi)
            for (size_t k = 0; k < i; k++)
                if (strcmp(args->keys[k], o->name) == 0)
                    return traza_err_set(err, TRAZA_E_USAGE, "tool '%s': option --%s given twice", tool->name, o->name);
    }
    for (size_t i = 0; i < tool->noptions; i++) {
        if (!tool->options[i].required)
            continue;
        int given = 0;
        for (size_t k = 0; k < args->n && !given; k++)
            given = strcmp(args->keys[k], tool->options[i].name) == 0;
        if (!given)
            return traza_err_set(err, TRAZA_E_USAGE, "tool '%s' needs option --%s (%s)", tool->name, tool->options[i].name,
                                 tool->options[i].help ? tool->options[i].help : "");
    }
    return 0;
}

const char *traza_tool_arg(const traza_tool *tool, const traza_tool_args *args, const char *name)
{
    for (size_t i = args ? args->n : 0; i-- > 0;)
        if (strcmp(args->keys[i], name) == 0)
            return args->values[i] ? args->values[i] : "true";
    const traza_tool_option *o = find_opt(tool, name);
    return o ? o->def : NULL;
}

int traza_tool_run(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    static const traza_tool_args none = {0, NULL, NULL};
    traza_tool_call c = *call;
    if (!c.args)
        c.args = &none;
    if (traza_tool_check_args(tool, c.args, err) < 0)
        return -1;
    return tool->run(tool, &c, err);
}

void traza_tool_printf(const traza_tool_call *call, const char *fmt, ...)
{
    if (!call->print)
        return;
    tz_buf b;
    tz_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    tz_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (!b.oom && b.s)
        call->print(call->print_user, b.s);
    tz_buf_free(&b);
}

/* ---- plugins -------------------------------------------------------------- */

static int load_plugin(traza_registry *r, const char *path, traza_err *err)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return traza_err_set(err, TRAZA_E_IO, "plugin %s: %s", path, dlerror());
    traza_plugin_init_fn init;
    *(void **)&init = dlsym(h, TRAZA_PLUGIN_INIT_SYMBOL);
    if (!init) {
        dlclose(h);
        return traza_err_set(err, TRAZA_E_FORMAT, "plugin %s: no '%s' symbol", path, TRAZA_PLUGIN_INIT_SYMBOL);
    }
    size_t before = r->n;
    if (init(r, TRAZA_PLUGIN_ABI, err) < 0) {
        r->n = before;
        dlclose(h);
        return traza_err_prefix(err, "plugin %s: ", path);
    }
    const char *origin = keep(r, path);
    for (size_t i = before; i < r->n; i++)
        r->tools[i].origin = origin ? origin : "plugin";
    if (TZ_GROW(r->handles, r->caphandles, r->nhandles + 1) < 0) {
        r->n = before;
        dlclose(h);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    r->handles[r->nhandles++] = h;
    return 0;
}

/* ---- external tools ------------------------------------------------------- */

typedef struct ext_tool {
    const char *exec;
} ext_tool;

static int run_external(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    const char *exe = tool->user;
    size_t argc = 0;
    const char *argv[256 + 8];
    argv[argc++] = exe;
    const char *loc = call->ws ? traza_workspace_location(call->ws) : NULL;
    if (loc) {
        argv[argc++] = "--workspace";
        argv[argc++] = loc;
    }
    if (call->trace) {
        argv[argc++] = "--trace";
        argv[argc++] = call->trace;
    }
    if (call->json)
        argv[argc++] = "--json";
    tz_buf opts;
    tz_buf_init(&opts);
    size_t offs[128];
    size_t nargs = call->args->n < 128 ? call->args->n : 128;
    for (size_t i = 0; i < nargs; i++) {
        offs[i] = opts.len;
        tz_buf_printf(&opts, "--%s=%s", call->args->keys[i], call->args->values[i] ? call->args->values[i] : "true");
        tz_buf_putc(&opts, '\0');
    }
    if (opts.oom) {
        tz_buf_free(&opts);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < nargs; i++)
        argv[argc++] = opts.s + offs[i];
    argv[argc] = NULL;

    int out[2], errp[2];
    if (pipe2(out, O_CLOEXEC) < 0) {
        tz_buf_free(&opts);
        return traza_err_set(err, TRAZA_E_IO, "tool '%s': pipe: %s", tool->name, strerror(errno));
    }
    if (pipe2(errp, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        tz_buf_free(&opts);
        return traza_err_set(err, TRAZA_E_IO, "tool '%s': pipe: %s", tool->name, strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    close(errp[1]);
    tz_buf_free(&opts);
    if (rc != 0) {
        close(out[0]);
        close(errp[0]);
        return traza_err_set(err, TRAZA_E_IO, "tool '%s': cannot run %s: %s", tool->name, exe, strerror(rc));
    }
    tz_buf so, se;
    tz_buf_init(&so);
    tz_buf_init(&se);
    struct pollfd pf[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int k = 0; k < 2; k++) {
            if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t n = read(pf[k].fd, buf, sizeof buf);
            if (n <= 0) {
                close(pf[k].fd);
                pf[k].fd = -1;
                open_fds--;
            } else {
                tz_buf_put(k ? &se : &so, buf, (size_t)n);
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (so.len && call->print)
        call->print(call->print_user, so.s);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) {
        const char *tail = se.s ? se.s : "";
        if (se.len > 600)
            tail = se.s + se.len - 600;
        traza_err_set(err, TRAZA_E_IO, "tool '%s' (%s) failed (%s %d)%s%s", tool->name, exe,
                      WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                      *tail ? ": " : "", tail);
    }
    tz_buf_free(&so);
    tz_buf_free(&se);
    return ok ? 0 : -1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static int load_manifest(traza_registry *r, const char *path, traza_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return traza_err_set(err, TRAZA_E_IO, "%s: %s", path, strerror(errno));
    traza_tool t;
    memset(&t, 0, sizeof t);
    t.kind = TRAZA_TOOL_ANALYSIS;
    t.run = run_external;
    traza_tool_option *opts = NULL;
    size_t nopts = 0, capopts = 0;
    char line[1024];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%d: expected 'key = value', found '%s'", path, lineno, s);
            break;
        }
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        if (strcmp(k, "name") == 0) t.name = keep(r, v);
        else if (strcmp(k, "summary") == 0) t.summary = keep(r, v);
        else if (strcmp(k, "kind") == 0) {
            if (strcmp(v, "importer") == 0) t.kind = TRAZA_TOOL_IMPORTER;
            else if (strcmp(v, "exporter") == 0) t.kind = TRAZA_TOOL_EXPORTER;
            else if (strcmp(v, "analysis") == 0) t.kind = TRAZA_TOOL_ANALYSIS;
            else rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%d: kind must be importer, exporter or analysis, found '%s'", path, lineno, v);
        } else if (strcmp(k, "exec") == 0) {
            char *full;
            if (v[0] == '/') {
                full = tz_strdup(v);
            } else {
                const char *slash = strrchr(path, '/');
                full = slash ? tz_asprintf("%.*s/%s", (int)(slash - path), path, v) : tz_strdup(v);
            }
            t.user = (void *)(full ? keep(r, full) : NULL);
            free(full);
        } else if (strcmp(k, "option") == 0) {
            /* option = NAME:TYPE[:DEFAULT[:HELP]] */
            char *parts[4] = {NULL, NULL, NULL, NULL};
            int np = 0;
            for (char *p = v; np < 4;) {
                parts[np++] = p;
                if (np == 4) break;
                char *c = strchr(p, ':');
                if (!c) break;
                *c = '\0';
                p = c + 1;
            }
            int ty = -1;
            for (int i = 0; parts[1] && i <= TRAZA_OPT_RESULT; i++)
                if (strcmp(parts[1], opt_type_names[i]) == 0)
                    ty = i;
            if (np < 2 || ty < 0 || !*parts[0]) {
                rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%d: expected option = NAME:TYPE[:DEFAULT[:HELP]] with TYPE one of bool, int, double, string, time, result", path, lineno);
                break;
            }
            if (TZ_GROW(opts, capopts, nopts + 1) < 0) {
                rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                break;
            }
            traza_tool_option *o = &opts[nopts++];
            memset(o, 0, sizeof *o);
            o->name = keep(r, parts[0]);
            o->type = (traza_opt_type)ty;
            o->def = parts[2] && *parts[2] ? keep(r, parts[2]) : NULL;
            o->help = parts[3] ? keep(r, parts[3]) : NULL;
        } else {
            rc = traza_err_set(err, TRAZA_E_PARSE, "%s:%d: unknown key '%s' (expected name, summary, kind, exec, option)", path, lineno, k);
        }
    }
    fclose(f);
    if (rc == 0 && (!t.name || !t.user))
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: a manifest needs 'name' and 'exec'", path);
    if (rc == 0 && TZ_GROW(r->optarrays, r->capoptarrays, r->noptarrays + 1) < 0)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (rc < 0) {
        free(opts);
        return -1;
    }
    r->optarrays[r->noptarrays++] = opts;
    t.options = opts;
    t.noptions = nopts;
    t.origin = keep(r, path);
    if (!t.summary)
        t.summary = "external tool";
    return traza_registry_add(r, &t, err);
}

int traza_registry_load_path(traza_registry *r, const char *path, traza_err *err)
{
    if (!path || !*path)
        return 0;
    char *copy = tz_strdup(path);
    if (!copy)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int loaded = 0;
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        struct dirent **list;
        int n = scandir(dir, &list, NULL, alphasort);
        if (n < 0)
            continue;
        for (int i = 0; i < n; i++) {
            const char *name = list[i]->d_name;
            size_t l = strlen(name);
            char *full = tz_asprintf("%s/%s", dir, name);
            traza_err e;
            traza_err_clear(&e);
            int rc = 1;
            if (full && l > 3 && strcmp(name + l - 3, ".so") == 0)
                rc = load_plugin(r, full, &e);
            else if (full && l > 5 && strcmp(name + l - 5, ".tool") == 0)
                rc = load_manifest(r, full, &e);
            if (rc == 0)
                loaded++;
            else if (rc < 0)
                traza_log(r->ctx, TRAZA_LOG_WARN, "%s", e.msg);
            free(full);
            free(list[i]);
        }
        free(list);
    }
    free(copy);
    return loaded;
}

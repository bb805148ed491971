/* Importing: choosing the importer, running it into a writer, commit or abort. */
#include "import/importers.h"
#include "import/postprocess.h"
#include "tools/builtin_list.h"
#include "util/util.h"
#include "util/input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t traza_importer_count(void)
{
    size_t n = 0;
    while (tz_importers[n])
        n++;
    return n;
}

const traza_importer *traza_importer_at(size_t i) { return i < traza_importer_count() ? tz_importers[i] : NULL; }

const traza_importer *traza_importer_find(const char *name)
{
    for (size_t i = 0; tz_importers[i]; i++)
        if (strcmp(tz_importers[i]->name, name) == 0)
            return tz_importers[i];
    return NULL;
}

const traza_importer *traza_importer_detect(const char *path, traza_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* Directory formats (uftrace, CTF, CoreSight snapshots): detect gets no head. */
        const traza_importer *best = NULL;
        int best_score = 0;
        for (size_t i = 0; tz_importers[i]; i++) {
            int s = tz_importers[i]->detect ? tz_importers[i]->detect(path, NULL, 0) : 0;
            if (s > best_score) {
                best_score = s;
                best = tz_importers[i];
            }
        }
        if (!best)
            traza_err_set(err, TRAZA_E_PARSE, "%s: a directory, and no importer recognises it (uftrace.data, CTF, CoreSight snapshot)", path);
        return best;
    }
    /* The head is read through tz_input so compressed files (.xz, .zst, .gz) are
     * detected by their content. */
    unsigned char head[8192];
    tz_input *in = tz_input_open(path, err);
    if (!in)
        return NULL;
    size_t n = 0;
    while (n < sizeof head) {
        long k = tz_input_read(in, head + n, sizeof head - n, err);
        if (k < 0) {
            tz_input_close(in);
            return NULL;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    tz_input_close(in);
    const traza_importer *best = NULL;
    int best_score = 0;
    for (size_t i = 0; tz_importers[i]; i++) {
        if (!tz_importers[i]->detect)
            continue;
        int s = tz_importers[i]->detect(path, head, n);
        if (s > best_score) {
            best_score = s;
            best = tz_importers[i];
        }
    }
    if (!best) {
        tz_buf b;
        tz_buf_init(&b);
        for (size_t i = 0; tz_importers[i]; i++)
            tz_buf_printf(&b, "%s%s", i ? ", " : "", tz_importers[i]->name);
        traza_err_set(err, TRAZA_E_PARSE, "%s: the format is not recognised (tried %s)", path, b.s ? b.s : "");
        tz_buf_free(&b);
    }
    return best;
}

/* Standard input ("-") and pipes (/dev/stdin, a FIFO) can be read once only, while
 * detection reads a file's head and several importers read their input twice. Such
 * an input is therefore first copied whole into a temporary file, which detection and
 * the importer then read as any file. */
static int is_stream(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 1;
    struct stat st;
    return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* Copies the stream at path into a new temporary file; its path (free it, unlink it)
 * or NULL. */
static char *spool(const char *path, traza_err *err)
{
    const char *dir = getenv("TMPDIR");
    char *tmp = tz_asprintf("%s/traza-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    if (!tmp) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot create a temporary copy of %s: %s", tmp, path, strerror(errno));
        free(tmp);
        return NULL;
    }
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    int rc = in ? 0 : traza_err_set(err, TRAZA_E_IO, "%s: cannot open: %s", path, strerror(errno));
    char buf[1 << 16];
    size_t n;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (tz_write_all(fd, buf, n) < 0)
            rc = traza_err_set(err, TRAZA_E_IO, "%s: cannot write the copy of %s: %s", tmp, path, strerror(errno));
    if (rc == 0 && ferror(in))
        rc = traza_err_set(err, TRAZA_E_IO, "%s: read error: %s", path, strerror(errno));
    if (in && in != stdin)
        fclose(in);
    if (close(fd) < 0 && rc == 0)
        rc = traza_err_set(err, TRAZA_E_IO, "%s: cannot write the copy of %s: %s", tmp, path, strerror(errno));
    if (rc < 0) {
        unlink(tmp);
        free(tmp);
        return NULL;
    }
    return tmp;
}

static char *default_name(const char *path)
{
    if (strcmp(path, "-") == 0)
        return tz_strdup("stdin");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!*base)
        base = "trace";
    const char *dot = strchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return tz_strndup(base, n);
}

static int import_files(traza_workspace *ws, const char *const *paths, const char *const *sources, size_t npaths,
                        const traza_import_opts *opts, traza_trace_info *out, traza_err *err)
{
    static const traza_import_opts none = {0};
    if (!opts)
        opts = &none;
    const traza_importer *imp;
    if (opts->format && strcmp(opts->format, "auto") != 0) {
        imp = traza_importer_find(opts->format);
        if (!imp) {
            tz_buf b;
            tz_buf_init(&b);
            for (size_t i = 0; tz_importers[i]; i++)
                tz_buf_printf(&b, "%s%s", i ? ", " : "", tz_importers[i]->name);
            int rc = traza_err_set(err, TRAZA_E_USAGE, "unknown format '%s' (known: %s)", opts->format, b.s ? b.s : "");
            tz_buf_free(&b);
            return rc;
        }
    } else if (!(imp = traza_importer_detect(paths[0], err))) {
        return -1;
    }
    if (opts->timestamp_hz != 0 && strcmp(imp->name, "etm") != 0)
        return traza_err_set(err, TRAZA_E_USAGE, "%s: a timestamp counter frequency applies to ETM traces only, not to format '%s'",
                             paths[0], imp->name);
    if (opts->timestamp_hz < 0 || opts->timestamp_hz != opts->timestamp_hz)
        return traza_err_set(err, TRAZA_E_USAGE, "timestamp counter frequency %g: expected a positive number of hertz",
                             opts->timestamp_hz);
    if (traza_meta_check(opts->params, opts->nparams, err) < 0)
        return -1;
    char *name = opts->name ? tz_strdup(opts->name) : default_name(sources[0]);
    if (!name)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    traza_writer *w = opts->replace ? traza_writer_begin_replacing(ws, name, imp->name, err)
                                    : traza_writer_begin(ws, name, imp->name, err);
    free(name);
    if (!w)
        return -1;
    traza_writer_set_layout(w, (traza_layout)opts->layout);
    for (size_t i = 0; i < npaths; i++) {
        char *real = sources[i] == paths[i] ? realpath(paths[i], NULL) : NULL;
        int rc = traza_writer_add_source(w, real ? real : sources[i], err);
        free(real);
        if (rc < 0) {
            traza_writer_abort(w);
            return -1;
        }
    }
    if (imp->read(traza_workspace_ctx(ws), w, paths, npaths, opts, err) < 0) {
        traza_writer_abort(w);
        return -1;
    }
    if (opts->has_time_unit)
        traza_writer_set_time_unit(w, opts->time_unit);
    for (size_t i = 0; i < opts->nparams; i++)
        if (traza_writer_set_param(w, opts->params[i].key, opts->params[i].value, err) < 0) {
            traza_writer_abort(w);
            return -1;
        }
    traza_trace_info mine;
    memset(&mine, 0, sizeof mine);
    if (traza_writer_commit(w, &mine, err) < 0)
        return -1;
    tz_import_postprocess(ws, imp, opts, &mine, err);
    if (out)
        *out = mine;
    else
        traza_trace_info_clear(&mine);
    return 0;
}

int traza_import(traza_workspace *ws, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                 traza_trace_info *out, traza_err *err)
{
    if (npaths == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "no file to import");
    const char **files = calloc(npaths, sizeof *files);
    if (!files)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < npaths && rc == 0; i++) {
        files[i] = paths[i];
        if (is_stream(paths[i]) && !(files[i] = spool(paths[i], err)))
            rc = -1;
    }
    if (rc == 0)
        rc = import_files(ws, files, paths, npaths, opts, out, err);
    for (size_t i = 0; i < npaths && files[i]; i++)
        if (files[i] != paths[i]) {
            unlink(files[i]);
            free((char *)files[i]);
        }
    free(files);
    return rc;
}

/* ---- importers as tools ("import-<format>") ------------------------------- */

static const traza_tool_option import_opts[] = {
    {"name", TRAZA_OPT_STRING, NULL, "name of the new trace", 0, 0},
    {"map", TRAZA_OPT_STRING, NULL, "csv: column map ts=0,type=1,...", 0, 0},
};

static int run_import_tool(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    const traza_importer *imp = tool->user;
    traza_import_opts o = {0};
    o.format = imp->name;
    o.name = traza_tool_arg(tool, call->args, "name");
    o.map = traza_tool_arg(tool, call->args, "map");
    if (!call->trace)
        return traza_err_set(err, TRAZA_E_USAGE, "tool '%s' needs the file to import", tool->name);
    traza_trace_info info;
    const char *paths[1] = {call->trace};
    if (traza_import(call->ws, paths, 1, &o, &info, err) < 0)
        return -1;
    if (call->json) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_puts(&b, "{\"trace\":");
        tz_json_str(&b, info.name);
        tz_buf_printf(&b, ",\"events\":%lld}\n", (long long)info.events);
        traza_tool_printf(call, "%s", b.s ? b.s : "");
        tz_buf_free(&b);
    } else {
        traza_tool_printf(call, "imported '%s': %lld events\n", info.name, (long long)info.events);
    }
    traza_trace_info_clear(&info);
    return 0;
}

int tz_register_importer_tools(traza_registry *reg, traza_err *err)
{
    for (size_t i = 0; tz_importers[i]; i++) {
        traza_tool t = {0};
        t.name = tz_importers[i]->tool_name;
        t.summary = tz_importers[i]->summary;
        t.kind = TRAZA_TOOL_IMPORTER;
        t.options = import_opts;
        t.noptions = sizeof import_opts / sizeof import_opts[0];
        t.run = run_import_tool;
        t.user = (void *)tz_importers[i];
        if (traza_registry_add(reg, &t, err) < 0)
            return -1;
    }
    return 0;
}

/* Helpers shared by the importer tests: import a text fixture, snapshot the
 * workspace (catalogue bytes + file list) to prove a failed import changed nothing. */
#ifndef TZ_TEST_IMPUTIL_H
#define TZ_TEST_IMPUTIL_H

#include "testutil.h"
#include <dirent.h>

/* The catalogue's bytes followed by the sorted names of traces/ . */
static inline char *iu_snapshot(const char *dir)
{
    char *p = NULL, *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    assert_non_null(m);
    assert_true(asprintf(&p, "%s/catalog.db", dir) > 0);
    FILE *f = fopen(p, "rb");
    if (f) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, n, m);
        fclose(f);
    }
    free(p);
    assert_true(asprintf(&p, "%s/traces", dir) > 0);
    struct dirent **list;
    int n = scandir(p, &list, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        fprintf(m, "|%s", list[i]->d_name);
        free(list[i]);
    }
    if (n >= 0)
        free(list);
    free(p);
    fclose(m);
    return out;
}

/* Imports the `len` bytes of `data` (written to DIR/NAME) with format/map; returns
 * traza_import's rc. On failure, asserts the workspace is byte-identical to before. */
static inline int iu_import_n(tu_ws *w, const char *name, const char *data, size_t len, const char *format,
                              const char *map, traza_trace_info *info)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s", w->dir, name) > 0);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    char *before = iu_snapshot(w->dir);
    traza_import_opts o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.map = map;
    o.name = name;
    traza_err_clear(&w->err);
    traza_trace_info tmp;
    int rc = traza_import(w->ws, (const char *const *)&path, 1, &o, info ? info : &tmp, &w->err);
    if (rc < 0) {
        char *after = iu_snapshot(w->dir);
        if (strcmp(before, after) != 0)
            fail_msg("a failed import changed the workspace (%s)", w->err.msg);
        free(after);
    } else if (!info) {
        traza_trace_info_clear(&tmp);
    }
    free(before);
    free(path);
    return rc;
}

/* iu_import_n of a NUL-terminated text. */
static inline int iu_import(tu_ws *w, const char *name, const char *text, const char *format, const char *map,
                            traza_trace_info *info)
{
    return iu_import_n(w, name, text, strlen(text), format, map, info);
}

/* Expects the import of the bytes to fail with exactly the message DIR/`msg` (msg
 * starts with the file's name). */
static inline void iu_expect_fail_msg(tu_ws *w, const char *name, const char *data, size_t len, const char *format,
                                      const char *msg)
{
    if (iu_import_n(w, name, data, len, format, NULL, NULL) == 0)
        fail_msg("import of %s succeeded, expected: %s", name, msg);
    char *want = NULL;
    assert_true(asprintf(&want, "%s/%s", w->dir, msg) > 0);
    assert_string_equal(w->err.msg, want);
    free(want);
}

/* Expects the import to fail with an error containing each of the NULL-terminated substrings. */
static inline void iu_expect_fail(tu_ws *w, const char *name, const char *text, const char *format, const char *map, ...)
{
    int rc = iu_import(w, name, text, format, map, NULL);
    if (rc == 0)
        fail_msg("import of %s succeeded, expected an error", name);
    va_list ap;
    va_start(ap, map);
    const char *sub;
    while ((sub = va_arg(ap, const char *)))
        assert_err_contains(w->err, sub);
    va_end(ap);
}

/* All events of a trace in time order, with params. */
typedef struct iu_events {
    traza_event *ev;
    size_t n;
    char **strs; /* copies of string parameter values, one per param */
    traza_param *params;
} iu_events;

static inline traza_trace *iu_open(tu_ws *w, const char *name)
{
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &w->err);
    if (!t)
        fail_msg("open %s: %s", name, w->err.msg);
    return t;
}

/* Returns the value of a named parameter of the i-th event (time order) as text. */
static inline void iu_event_at(traza_trace *t, int64_t i, traza_event *out, char *pbuf, size_t psize, const char *pname)
{
    traza_filter f;
    traza_filter_init(&f);
    f.offset = i;
    f.limit = 1;
    f.with_params = 1;
    traza_err err;
    traza_cursor *c = traza_query(t, &f, &err);
    if (!c)
        fail_msg("query: %s", err.msg);
    const traza_event *e;
    int rc = traza_cursor_next(c, &e, &err);
    if (rc != 1)
        fail_msg("no event %lld (%s)", (long long)i, rc < 0 ? err.msg : "end");
    *out = *e;
    out->params = NULL;
    if (pbuf) {
        pbuf[0] = '\0';
        for (uint32_t k = 0; k < e->nparams; k++) {
            const traza_param_def *d = traza_trace_param_def(t, e->params[k].def);
            if (d && pname && strcmp(d->name, pname) == 0) {
                const traza_value *v = &e->params[k].v;
                switch (v->kind) {
                case TRAZA_PT_INT: snprintf(pbuf, psize, "%lld", (long long)v->i); break;
                case TRAZA_PT_HEX: snprintf(pbuf, psize, "0x%llx", (unsigned long long)v->i); break;
                case TRAZA_PT_DOUBLE: snprintf(pbuf, psize, "%g", v->d); break;
                case TRAZA_PT_STRING: snprintf(pbuf, psize, "%s", v->s); break;
                }
            }
        }
    }
    traza_cursor_free(c);
}

/* Imports `head` (complete lines) followed by each cut of `last` (its first k bytes,
 * no newline, k = 0 .. strlen(last)): k = 0 gives the complete lines' events
 * (head_events, the last at head_max_ts); every other cut fails, naming the line and
 * its text; the whole line with its newline adds one event at last_ts. */
static inline void iu_check_cuts(tu_ws *w, const char *format, const char *head, const char *last, int64_t head_events,
                                 int64_t head_max_ts, int64_t last_ts)
{
    size_t hl = strlen(head), ll = strlen(last);
    long lineno = 1;
    for (size_t i = 0; i < hl; i++)
        lineno += head[i] == '\n';
    char *buf = malloc(hl + ll + 2);
    assert_non_null(buf);
    memcpy(buf, head, hl);
    for (size_t k = 0; k <= ll + 1; k++) {
        size_t n = hl + (k <= ll ? k : ll + 1);
        if (k > ll)
            memcpy(buf + hl, last, ll), buf[hl + ll] = '\n';
        else
            memcpy(buf + hl, last, k);
        char name[32];
        snprintf(name, sizeof name, "%s_cut%zu", format, k);
        traza_trace_info info;
        int rc = iu_import_n(w, name, buf, n, format, NULL, &info);
        if (k == 0 || k > ll) {
            if (rc < 0)
                fail_msg("%s: %s", name, w->err.msg);
            assert_int_equal(info.events, head_events + (k > ll));
            assert_int_equal(info.max_ts, k > ll ? last_ts : head_max_ts);
            traza_trace_info_clear(&info);
            assert_int_equal(traza_workspace_remove(w->ws, name, &w->err), 0);
            continue;
        }
        char *want = NULL;
        assert_true(asprintf(&want, "%s:%ld: the last line has no newline, so the file may be cut inside it: expected a "
                                    "newline after '%.*s' (add one if the line is complete)", name, lineno, (int)k, last) > 0);
        iu_expect_fail_msg(w, name, buf, n, format, want);
        free(want);
    }
    free(buf);
}

#endif

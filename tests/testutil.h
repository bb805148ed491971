/* Helpers for traza's cmocka tests: temporary workspaces, fixtures, shared data. */
#ifndef TZ_TESTUTIL_H
#define TZ_TESTUTIL_H

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "traza/traza.h"

static int tu_rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

/* A fresh temporary directory; remove it with tu_rmdir. */
static inline char *tu_tmpdir(void)
{
    char *d = strdup("/tmp/traza-test-XXXXXX");
    assert_non_null(d);
    assert_non_null(mkdtemp(d));
    return d;
}

static inline void tu_rmdir(char *d)
{
    if (d) {
        nftw(d, tu_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        free(d);
    }
}

/* Writes text to DIR/NAME and returns the path (free it). */
static inline char *tu_write(const char *dir, const char *name, const char *text)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* The shared real-trace folder, or NULL (tests then skip, visibly). */
static inline const char *tu_data_dir(void)
{
    const char *d = getenv("TRAZA_TEST_DATA");
    if (!d)
        d = "../shared/data";
    return access(d, R_OK) == 0 ? d : NULL;
}

#define TU_SKIP_NO_DATA(d)                                                              \
    do {                                                                                \
        if (!(d)) {                                                                     \
            print_message("[  SKIPPED ] %s: ../shared/data is absent\n", __func__);     \
            skip();                                                                     \
        }                                                                               \
    } while (0)

/* Asserts an error message contains a substring. */
#define assert_err_contains(err, sub)                                                   \
    do {                                                                                \
        if (!strstr((err).msg, (sub)))                                                  \
            fail_msg("error '%s' does not contain '%s'", (err).msg, (sub));             \
    } while (0)

/* A context plus an empty workspace in a temporary directory. */
typedef struct tu_ws {
    traza_ctx *ctx;
    traza_workspace *ws;
    char *dir;
    traza_err err;
} tu_ws;

static inline void tu_ws_open(tu_ws *w)
{
    memset(w, 0, sizeof *w);
    w->ctx = traza_ctx_new(&w->err);
    assert_non_null(w->ctx);
    w->dir = tu_tmpdir();
    w->ws = traza_workspace_open(w->ctx, w->dir, &w->err);
    if (!w->ws)
        fail_msg("workspace: %s", w->err.msg);
}

static inline void tu_ws_close(tu_ws *w)
{
    traza_workspace_close(w->ws);
    traza_ctx_free(w->ctx);
    tu_rmdir(w->dir);
}

#endif

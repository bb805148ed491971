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

/* libpq, to create and drop the databases of PostgreSQL runs: without its development
 * files (TU_HAVE_LIBPQ unset by the Makefile) those runs are skipped. */
#ifdef TU_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

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

/* A context plus an empty workspace in a temporary directory (`dir`, also scratch
 * space), or, when tu_pg_base() is set, in a fresh PostgreSQL database. */
typedef struct tu_ws {
    traza_ctx *ctx;
    traza_workspace *ws;
    char *dir;
    traza_err err;
    char *pg_db;   /* the database created for this workspace (PostgreSQL runs) */
    char *pg_uri;
} tu_ws;

/* The PostgreSQL server URI store tests run against (NULL: SQLite). A test binary
 * sets it from TRAZA_PG_URI to run the same test bodies on the PostgreSQL backend. */
static inline const char **tu_pg_base(void)
{
    static const char *uri;
    return &uri;
}

/* URI `base` with its database name replaced by `db`
 * (base: postgresql://[authority]/dbname[?params]). */
static inline char *tu_pg_uri_for(const char *base, const char *db)
{
    const char *auth = strstr(base, "://");
    assert_non_null(auth);
    const char *slash = strchr(auth + 3, '/');
    assert_non_null(slash);
    const char *q = strchr(slash, '?');
    char *u = NULL;
    assert_true(asprintf(&u, "%.*s/%s%s", (int)(slash - base), base, db, q ? q : "") > 0);
    return u;
}

#ifdef TU_HAVE_LIBPQ
static inline void tu_pg_quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

/* Runs one SQL statement on the server's base database; returns 0 on success. */
static inline int tu_pg_admin(const char *sql)
{
    PGconn *c = PQconnectdb(*tu_pg_base());
    int ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
        PQsetNoticeProcessor(c, tu_pg_quiet, NULL);
        PGresult *r = PQexec(c, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok)
            print_message("postgresql: %s: %s", sql, PQresultErrorMessage(r));
        PQclear(r);
    } else {
        print_message("postgresql: %s", PQerrorMessage(c));
    }
    PQfinish(c);
    return ok ? 0 : -1;
}
#else
static inline int tu_pg_admin(const char *sql)
{
    print_message("postgresql: %s: this test was built without libpq\n", sql);
    return -1;
}
#endif

static inline void tu_ws_open(tu_ws *w)
{
    static unsigned seq;
    memset(w, 0, sizeof *w);
    w->ctx = traza_ctx_new(&w->err);
    assert_non_null(w->ctx);
    w->dir = tu_tmpdir();
    const char *loc = w->dir;
    if (*tu_pg_base()) {
        assert_true(asprintf(&w->pg_db, "tz_%ld_%u", (long)getpid(), seq++) > 0);
        char sql[128];
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", w->pg_db);
        tu_pg_admin(sql);
        snprintf(sql, sizeof sql, "CREATE DATABASE %s", w->pg_db);
        if (tu_pg_admin(sql) < 0)
            fail_msg("cannot create database %s", w->pg_db);
        w->pg_uri = tu_pg_uri_for(*tu_pg_base(), w->pg_db);
        loc = w->pg_uri;
    }
    w->ws = traza_workspace_open(w->ctx, loc, &w->err);
    if (!w->ws)
        fail_msg("workspace: %s", w->err.msg);
}

static inline void tu_ws_close(tu_ws *w)
{
    traza_workspace_close(w->ws);
    traza_ctx_free(w->ctx);
    tu_rmdir(w->dir);
    if (w->pg_db) {
        char sql[128];
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", w->pg_db);
        tu_pg_admin(sql);
    }
    free(w->pg_db);
    free(w->pg_uri);
}

/* For a test binary running store tests on PostgreSQL: sets tu_pg_base() from
 * TRAZA_PG_URI; 0 when it is absent (the caller then skips, visibly). */
static inline int tu_pg_init(void)
{
    const char *u = getenv("TRAZA_PG_URI");
#ifndef TU_HAVE_LIBPQ
    if (u && *u)
        print_message("[  SKIPPED ] TRAZA_PG_URI is set, but the tests were built without libpq\n");
    return 0;
#endif
    if (!u || !*u)
        return 0;
    *tu_pg_base() = u;
    return 1;
}

#endif

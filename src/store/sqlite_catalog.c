/* SQLite backend: the workspace catalogue (catalog.db) and trace files.
 *
 * Atomicity: a trace is written to traces/<file>.importing-<pid>.db, closed and
 * fsync'd, then published by one catalogue transaction that also renames the file
 * into place (under the catalogue's write lock). A crash before that leaves only a
 * temporary file, which the next open removes once its writer's pid is gone; a
 * crash between rename and commit leaves a file no row names, also removed. */
#include "store/sqlite_internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *const catalog_schema =
    "CREATE TABLE IF NOT EXISTS trace("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, alias TEXT, format TEXT, file TEXT NOT NULL UNIQUE,"
    " time_unit INTEGER NOT NULL, min_ts INTEGER, max_ts INTEGER, events INTEGER, producers INTEGER,"
    " event_types INTEGER, n_punctual INTEGER, n_state INTEGER, n_link INTEGER, n_variable INTEGER,"
    " created INTEGER);"
    "CREATE TABLE IF NOT EXISTS trace_source(trace INTEGER NOT NULL, seq INTEGER NOT NULL, path TEXT NOT NULL,"
    " PRIMARY KEY(trace, seq)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS trace_param(trace INTEGER NOT NULL, key TEXT NOT NULL, value TEXT,"
    " PRIMARY KEY(trace, key)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS trace_type(name TEXT PRIMARY KEY, description TEXT) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;"
    "INSERT OR IGNORE INTO info VALUES('schema_version', '1');";

/* SQLite's message plus, for I/O errors, the operating system's reason and the
 * file: "disk I/O error" alone does not tell a user that the disk is full. */
static int sql_error(sqlite3 *db, const char *what, const char *msg, traza_err *err)
{
    int code = sqlite3_errcode(db);
    traza_errcode c = (code == SQLITE_NOMEM) ? TRAZA_E_NOMEM : (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) ? TRAZA_E_FORMAT : TRAZA_E_IO;
    int sys = sqlite3_system_errno(db);
    const char *file = sqlite3_db_filename(db, "main");
    if (!file || !*file)
        file = "the store";
    if ((code == SQLITE_IOERR || code == SQLITE_FULL) && (sys == ENOSPC || sys == EFBIG || sys == EDQUOT))
        return traza_err_set(err, c, "%s: cannot write %s: the disk is full or a file-size limit was reached (%s)", what, file,
                             strerror(sys));
    if ((code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN) && sys)
        return traza_err_set(err, c, "%s: %s (%s) in %s", what, msg, strerror(sys), file);
    int ext = sqlite3_extended_errcode(db);
    if (code == SQLITE_FULL || ext == SQLITE_IOERR_WRITE || ext == SQLITE_IOERR_FSYNC || ext == SQLITE_IOERR_TRUNCATE) {
        /* SQLite has lost errno by now: say what is left to check. */
        struct statvfs vfs;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", file);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        unsigned long long freemb = statvfs(slash ? dir : ".", &vfs) == 0 ? (unsigned long long)vfs.f_bavail * vfs.f_frsize >> 20 : 0;
        return traza_err_set(err, c, "%s: cannot write %s: the disk is full or a file-size limit was reached (%llu MiB free there)", what,
                             file, freemb);
    }
    return traza_err_set(err, c, "%s: %s", what, msg);
}

int tz_sql_fail(sqlite3 *db, const char *what, traza_err *err) { return sql_error(db, what, sqlite3_errmsg(db), err); }

int tz_sql_exec(sqlite3 *db, const char *sql, const char *what, traza_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        sql_error(db, what, msg ? msg : sqlite3_errmsg(db), err);
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int tz_sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, traza_err *err)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return tz_sql_fail(db, "preparing a query", err);
    return 0;
}

char *tz_sqlite_trace_path(const tz_sqlite *s, const char *file) { return tz_asprintf("%s/traces/%s", s->dir, file); }

/* Removes files of traces/ that no catalogue row names and whose writer is gone. */
static void sweep_orphans(tz_sqlite *s)
{
    if (sqlite3_exec(s->cat, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return;
    char *tdir = tz_asprintf("%s/traces", s->dir);
    DIR *d = tdir ? opendir(tdir) : NULL;
    sqlite3_stmt *st = NULL;
    if (d && sqlite3_prepare_v2(s->cat, "SELECT 1 FROM trace WHERE file=?", -1, &st, NULL) == SQLITE_OK) {
        struct dirent *de;
        while ((de = readdir(d))) {
            const char *n = de->d_name;
            if (n[0] == '.')
                continue;
            const char *imp = strstr(n, ".importing-");
            int remove_it = 0;
            if (imp) {
                long pid = strtol(imp + 11, NULL, 10);
                remove_it = pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
            } else {
                /* "<file>.db" or its "-journal"/"-wal"/"-shm" companions */
                char base[256];
                snprintf(base, sizeof base, "%s", n);
                char *dash = strstr(base, ".db-");
                if (dash)
                    dash[3] = '\0';
                size_t bl = strlen(base);
                if (bl > 3 && strcmp(base + bl - 3, ".db") == 0) {
                    sqlite3_bind_text(st, 1, base, -1, SQLITE_TRANSIENT);
                    remove_it = sqlite3_step(st) != SQLITE_ROW;
                    sqlite3_reset(st);
                }
            }
            if (remove_it) {
                char *p = tz_asprintf("%s/%s", tdir, n);
                if (p)
                    unlink(p);
                free(p);
            }
        }
    }
    sqlite3_finalize(st);
    if (d)
        closedir(d);
    free(tdir);
    sqlite3_exec(s->cat, "COMMIT", NULL, NULL, NULL);
}

static void sqlite_close(tz_backend *b)
{
    tz_sqlite *s = (tz_sqlite *)b;
    sqlite3_close(s->cat);
    free(s->ro);
    free(s->dir);
    free(s);
}

static int mkdir_p(const char *path, traza_err *err)
{
    char *p = tz_strdup(path);
    if (!p)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (char *q = p + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST) {
            traza_err_set(err, TRAZA_E_IO, "%s: cannot create directory: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *q = '/';
    }
    int rc = 0;
    if (mkdir(p, 0777) < 0 && errno != EEXIST)
        rc = traza_err_set(err, TRAZA_E_IO, "%s: cannot create directory: %s", p, strerror(errno));
    free(p);
    return rc;
}

static int64_t col_i64(sqlite3_stmt *st, int i) { return sqlite3_column_int64(st, i); }
static char *col_str(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? tz_strdup((const char *)s) : NULL;
}

static int sqlite_list(tz_backend *b, traza_trace_info **out, size_t *n, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    sqlite3_stmt *st = NULL, *src = NULL, *par = NULL;
    traza_trace_info *arr = NULL;
    size_t cnt = 0, cap = 0;
    if (tz_sql_prepare(s->cat,
                       "SELECT id, name, alias, format, time_unit, min_ts, max_ts, events, producers, event_types,"
                       " n_punctual, n_state, n_link, n_variable, created FROM trace ORDER BY id",
                       &st, err) < 0 ||
        tz_sql_prepare(s->cat, "SELECT path FROM trace_source WHERE trace=? ORDER BY seq", &src, err) < 0 ||
        tz_sql_prepare(s->cat, "SELECT key, value FROM trace_param WHERE trace=? ORDER BY key", &par, err) < 0)
        goto fail;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0)
            goto oom;
        traza_trace_info *t = &arr[cnt++];
        memset(t, 0, sizeof *t);
        t->id = col_i64(st, 0);
        t->name = col_str(st, 1);
        t->alias = col_str(st, 2);
        t->format = col_str(st, 3);
        t->time_unit = (int)col_i64(st, 4);
        t->min_ts = col_i64(st, 5);
        t->max_ts = col_i64(st, 6);
        t->events = col_i64(st, 7);
        t->producers = col_i64(st, 8);
        t->event_types = col_i64(st, 9);
        for (int k = 0; k < 4; k++)
            t->categories[k] = col_i64(st, 10 + k);
        t->created = col_i64(st, 14);
        if (!t->name)
            goto oom;
        sqlite3_bind_int64(src, 1, t->id);
        size_t scap = 0;
        while (sqlite3_step(src) == SQLITE_ROW) {
            if (TZ_GROW(t->sources, scap, t->nsources + 1) < 0 || !(t->sources[t->nsources] = col_str(src, 0)))
                goto oom;
            t->nsources++;
        }
        sqlite3_reset(src);
        sqlite3_bind_int64(par, 1, t->id);
        size_t pcap = 0;
        while (sqlite3_step(par) == SQLITE_ROW) {
            if (TZ_GROW(t->params, pcap, t->nparams + 1) < 0)
                goto oom;
            traza_kv *kv = &t->params[t->nparams];
            kv->key = col_str(par, 0);
            kv->value = col_str(par, 1);
            t->nparams++;
            if (!kv->key)
                goto oom;
        }
        sqlite3_reset(par);
    }
    if (rc != SQLITE_DONE) {
        tz_sql_fail(s->cat, "reading the catalogue", err);
        goto fail;
    }
    sqlite3_finalize(st);
    sqlite3_finalize(src);
    sqlite3_finalize(par);
    *out = arr;
    *n = cnt;
    return 0;
oom:
    traza_err_set(err, TRAZA_E_NOMEM, "out of memory reading the catalogue");
fail:
    sqlite3_finalize(st);
    sqlite3_finalize(src);
    sqlite3_finalize(par);
    traza_trace_info_array_free(arr, cnt);
    return -1;
}

static int sqlite_name_taken(tz_backend *b, const char *name, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    sqlite3_stmt *st;
    if (tz_sql_prepare(s->cat, "SELECT 1 FROM trace WHERE name=?", &st, err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return tz_sql_fail(s->cat, "reading the catalogue", err);
    return rc == SQLITE_ROW;
}

int tz_sqlite_unlist(sqlite3 *cat, int64_t id, char **file, traza_err *err)
{
    sqlite3_stmt *st = NULL;
    char *f = NULL;
    if (tz_sql_prepare(cat, "SELECT file FROM trace WHERE id=?", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW && !(f = col_str(st, 0))) {
        sqlite3_finalize(st);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    sqlite3_finalize(st);
    if (!f)
        return traza_err_set(err, TRAZA_E_NOTFOUND, "trace %lld does not exist", (long long)id);
    char sql[256];
    snprintf(sql, sizeof sql,
             "DELETE FROM trace_source WHERE trace=%lld; DELETE FROM trace_param WHERE trace=%lld;"
             "DELETE FROM trace WHERE id=%lld;",
             (long long)id, (long long)id, (long long)id);
    if (tz_sql_exec(cat, sql, "removing a trace", err) < 0) {
        free(f);
        return -1;
    }
    if (file)
        *file = f;
    else
        free(f);
    return 0;
}

static int sqlite_remove(tz_backend *b, int64_t id, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    char *file = NULL;
    if (tz_sqlite_writable(s, "remove a trace", err) < 0 ||
        tz_sql_exec(s->cat, "BEGIN IMMEDIATE", "locking the catalogue", err) < 0)
        return -1;
    if (tz_sqlite_unlist(s->cat, id, &file, err) < 0 || tz_sql_exec(s->cat, "COMMIT", "removing a trace", err) < 0)
        goto fail;
    char *path = tz_sqlite_trace_path(s, file);
    if (path)
        unlink(path); /* if this fails, the next open sweeps the orphan */
    free(path);
    free(file);
    return 0;
fail:
    free(file);
    sqlite3_exec(s->cat, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int sqlite_rename(tz_backend *b, int64_t id, const char *name, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    sqlite3_stmt *st;
    if (tz_sqlite_writable(s, "rename a trace", err) < 0 ||
        tz_sql_prepare(s->cat, "UPDATE trace SET name=? WHERE id=?", &st, err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return tz_sql_fail(s->cat, "renaming a trace", err);
    return 0;
}

static int sqlite_meta_set(tz_backend *b, int64_t id, const traza_kv *kv, size_t n, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    sqlite3_stmt *alias = NULL, *put = NULL, *del = NULL;
    if (tz_sqlite_writable(s, "change a trace's metadata", err) < 0 ||
        tz_sql_exec(s->cat, "BEGIN IMMEDIATE", "locking the catalogue", err) < 0)
        return -1;
    if (tz_sql_prepare(s->cat, "UPDATE trace SET alias=?2 WHERE id=?1", &alias, err) < 0 ||
        tz_sql_prepare(s->cat, "INSERT OR REPLACE INTO trace_param(trace, key, value) VALUES(?1, ?2, ?3)", &put, err) < 0 ||
        tz_sql_prepare(s->cat, "DELETE FROM trace_param WHERE trace=?1 AND key=?2", &del, err) < 0)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        int is_alias = strcmp(kv[i].key, "alias") == 0;
        sqlite3_stmt *st = is_alias ? alias : kv[i].value ? put : del;
        sqlite3_bind_int64(st, 1, id);
        if (is_alias) {
            if (kv[i].value)
                sqlite3_bind_text(st, 2, kv[i].value, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(st, 2);
        } else {
            sqlite3_bind_text(st, 2, kv[i].key, -1, SQLITE_STATIC);
            if (kv[i].value)
                sqlite3_bind_text(st, 3, kv[i].value, -1, SQLITE_STATIC);
        }
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc != SQLITE_DONE) {
            tz_sql_fail(s->cat, "changing a trace's metadata", err);
            goto fail;
        }
    }
    sqlite3_finalize(alias);
    sqlite3_finalize(put);
    sqlite3_finalize(del);
    return tz_sql_exec(s->cat, "COMMIT", "changing a trace's metadata", err);
fail:
    sqlite3_finalize(alias);
    sqlite3_finalize(put);
    sqlite3_finalize(del);
    sqlite3_exec(s->cat, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static const tz_backend_ops sqlite_ops = {
    .name = "sqlite",
    .close = sqlite_close,
    .list = sqlite_list,
    .remove = sqlite_remove,
    .rename = sqlite_rename,
    .name_taken = sqlite_name_taken,
    .meta_set = sqlite_meta_set,
    .sql_setup = tz_sqlite_sql_setup,
    .sql_run = tz_sqlite_sql_run,
    .w_begin = tz_sqlite_w_begin,
    .w_producer = tz_sqlite_w_producer,
    .w_event_type = tz_sqlite_w_event_type,
    .w_param_def = tz_sqlite_w_param_def,
    .w_param_const = tz_sqlite_w_param_const,
    .w_event = tz_sqlite_w_event,
    .w_commit = tz_sqlite_w_commit,
    .w_abort = tz_sqlite_w_abort,
    .w_layout = tz_sqlite_w_layout,
    .t_open = tz_sqlite_t_open,
    .t_close = tz_sqlite_t_close,
    .t_load_model = tz_sqlite_t_load_model,
    .t_max_duration = tz_sqlite_t_max_duration,
    .t_storage = tz_sqlite_t_storage,
    .q_open = tz_sqlite_q_open,
    .q_next = tz_sqlite_q_next,
    .q_close = tz_sqlite_q_close,
    .q_count = tz_sqlite_q_count,
    .r_save = tz_sqlite_r_save,
    .r_list = tz_sqlite_r_list,
    .r_delete = tz_sqlite_r_delete,
    .r_events = tz_sqlite_r_events,
    .r_producers = tz_sqlite_r_producers,
    .r_sets_of_event = tz_sqlite_r_sets_of_event,
    .r_group = tz_sqlite_r_group,
    .r_annotations = tz_sqlite_r_annotations,
    .s_open = tz_sqlite_s_open,
    .s_next = tz_sqlite_s_next,
    .t_ranks = tz_sqlite_t_ranks,
    .t_rows = tz_sqlite_t_rows,
    .t_overview = tz_sqlite_t_overview,
};

/* Why the workspace's files cannot be written (a phrase for tz_sqlite_writable), or
 * NULL when they can. access() asks the kernel, so a read-only mount is seen even by
 * root, who ignores permissions. */
static char *unwritable_reason(const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (access(paths[i], F_OK) != 0 || access(paths[i], W_OK) == 0)
            continue;
        int e = errno;
        if (e == EROFS)
            return tz_strdup("it is on a read-only file system");
        if (e == EACCES || e == EPERM)
            return tz_asprintf("no permission to write %s", paths[i]);
        return tz_asprintf("%s cannot be written: %s", paths[i], strerror(e));
    }
    return NULL;
}

int tz_sqlite_writable(const tz_sqlite *s, const char *what, traza_err *err)
{
    if (!s->ro)
        return 0;
    return traza_err_set(err, TRAZA_E_IO, "%s: the workspace is read-only (%s): cannot %s", s->dir, s->ro, what);
}

/* Opens catalog.db for writing: WAL, its schema created, orphans swept. -1 with err
 * (s->cat left open for the caller to read SQLite's error code). */
static int open_catalog_rw(tz_sqlite *s, const char *cpath, traza_err *err)
{
    if (sqlite3_open_v2(cpath, &s->cat, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open the workspace catalogue: %s", cpath,
                             s->cat ? sqlite3_errmsg(s->cat) : "out of memory");
    sqlite3_busy_timeout(s->cat, 10000);
    if (tz_sql_exec(s->cat, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", cpath, err) < 0 ||
        tz_sql_exec(s->cat, catalog_schema, cpath, err) < 0)
        return traza_err_prefix(err, "workspace %s is not usable: ", s->dir);
    sweep_orphans(s);
    return 0;
}

/* Opens catalog.db for reading only. "mode=ro" takes SQLite's locks like any reader,
 * so it is correct beside a running import; but a WAL database needs its -shm file:
 * SQLite maps an existing one even when it may not write it, and creates it when it
 * can. When it can do neither (a read-only folder where no process has the catalogue
 * open, or no space left for the -shm), the catalogue is opened "immutable=1": no
 * locks, no -shm, and the WAL is not read. That is correct only while no process
 * writes the workspace, which holds on a read-only mount; in a folder that another
 * user can write, an import or rm running at the same time may be read half done.
 * (The WAL is empty whenever no writer is running: the last connection to close
 * checkpoints it.) */
static int open_catalog_ro(tz_sqlite *s, const char *cpath, traza_err *err)
{
    static const char *const modes[] = {"mode=ro", "immutable=1"};
    tz_buf u;
    tz_buf_init(&u);
    tz_buf_puts(&u, cpath[0] == '/' ? "file://" : "file:");
    for (const char *c = cpath; *c; c++) { /* the URI's special characters, escaped */
        if (*c == '%' || *c == '?' || *c == '#')
            tz_buf_printf(&u, "%%%02X", (unsigned char)*c);
        else
            tz_buf_printf(&u, "%c", *c);
    }
    size_t base = u.len;
    int rc = -1;
    for (size_t k = 0; k < 2 && rc < 0; k++) {
        u.len = base;
        tz_buf_printf(&u, "?%s", modes[k]);
        if (u.oom)
            break;
        if (sqlite3_open_v2(u.s, &s->cat, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
            traza_err_set(err, TRAZA_E_IO, "%s: cannot open the workspace catalogue: %s", cpath,
                          s->cat ? sqlite3_errmsg(s->cat) : "out of memory");
        } else {
            sqlite3_busy_timeout(s->cat, 10000);
            if (tz_sql_exec(s->cat, "SELECT count(*) FROM trace", cpath, err) == 0)
                rc = 0;
        }
        if (rc < 0) {
            sqlite3_close(s->cat);
            s->cat = NULL;
        }
    }
    if (u.oom)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    tz_buf_free(&u);
    return rc;
}

/* A failure of open_catalog_rw that reading only may avoid: the folder, the file or
 * the disk cannot take a write. NULL, or the reason to show. */
static char *rw_failure_reason(sqlite3 *db)
{
    int code = db ? sqlite3_errcode(db) : SQLITE_NOMEM;
    int sys = db ? sqlite3_system_errno(db) : 0;
    if (code == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT)
        return tz_strdup("its disk is full");
    if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM || code == SQLITE_IOERR)
        return sys ? tz_asprintf("%s: %s", sqlite3_errmsg(db), strerror(sys)) : tz_strdup(sqlite3_errmsg(db));
    return NULL;
}

int tz_sqlite_exists(const char *dir)
{
    char *cpath = tz_asprintf("%s/catalog.db", dir);
    struct stat st;
    int yes = cpath && stat(cpath, &st) == 0 && S_ISREG(st.st_mode);
    free(cpath);
    return yes;
}

tz_backend *tz_sqlite_open(traza_ctx *ctx, const char *dir, traza_err *err)
{
    tz_sqlite *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = tz_strdup(dir))) {
        free(s);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    s->base.ops = &sqlite_ops;
    s->base.ctx = ctx;
    char *tdir = tz_asprintf("%s/traces", dir);
    char *cpath = tz_asprintf("%s/catalog.db", dir);
    if (!tdir || !cpath) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto fail;
    }
    if (mkdir_p(tdir, err) < 0)
        goto fail;
    int exists = access(cpath, F_OK) == 0;
    const char *paths[] = {dir, tdir, cpath};
    s->ro = unwritable_reason(paths, 3);
    if (!s->ro) {
        traza_err rw_err;
        traza_err_clear(&rw_err);
        if (open_catalog_rw(s, cpath, &rw_err) == 0)
            goto done;
        s->ro = exists ? rw_failure_reason(s->cat) : NULL;
        sqlite3_close(s->cat);
        s->cat = NULL;
        if (!s->ro) {
            if (err)
                *err = rw_err;
            goto fail;
        }
    } else if (!exists) {
        traza_err_set(err, TRAZA_E_IO, "%s: no workspace here (no catalog.db), and it cannot be created: %s", dir, s->ro);
        goto fail;
    }
    if (open_catalog_ro(s, cpath, err) < 0) {
        traza_err_prefix(err, "workspace %s is not usable (opened read-only: %s): ", dir, s->ro);
        goto fail;
    }
done:
    free(tdir);
    free(cpath);
    return &s->base;
fail:
    free(tdir);
    free(cpath);
    if (s->cat)
        sqlite3_close(s->cat);
    free(s->ro);
    free(s->dir);
    free(s);
    return NULL;
}

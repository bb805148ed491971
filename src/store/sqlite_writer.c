/* SQLite backend: writing a trace store in bulk.
 *
 * One transaction, prepared statements, no journal (the file is private until it is
 * published, so a crash just leaves a temporary to sweep), indexes after the load.
 * Events are stored with rowid = position in time order, which makes the table its
 * own time index (see doc/store.md); an import that arrives out of order is copied
 * once into a fresh file in time order at commit. */
#include "store/sqlite_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

struct tz_wstate {
    tz_sqlite *ws;
    sqlite3 *db;
    char *file;     /* final file name "<hex>.db" */
    char *tmp;      /* full path of the temporary */
    char *name;
    sqlite3_stmt *ins_event, *ins_param, *ins_producer, *ins_type, *ins_def;
    int64_t max_duration;
};

int tz_sqlite_create_schema(sqlite3 *db, const char *p, traza_err *err)
{
    char sql[2048];
    /* Column order matters for size: the always-present fields first. */
    snprintf(sql, sizeof sql,
             "CREATE TABLE %smeta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
             "CREATE TABLE %sproducer(id INTEGER PRIMARY KEY, parent INTEGER, name TEXT NOT NULL, type TEXT);"
             "CREATE TABLE %sevent_type(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, category INTEGER NOT NULL, color TEXT);"
             "CREATE TABLE %sparam_def(id INTEGER PRIMARY KEY, type INTEGER NOT NULL, name TEXT NOT NULL, ptype INTEGER NOT NULL);"
             "CREATE TABLE %sevent(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, type INTEGER NOT NULL, producer INTEGER NOT NULL,"
             " end_ts INTEGER, end_producer INTEGER, level INTEGER, value REAL, cpu INTEGER);"
             "CREATE TABLE %sparam(event INTEGER NOT NULL, def INTEGER NOT NULL, value, PRIMARY KEY(event, def)) WITHOUT ROWID;"
             "CREATE TABLE %sresult(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind INTEGER NOT NULL, tool TEXT,"
             " params TEXT, created INTEGER, size INTEGER, target TEXT);"
             "CREATE TABLE %sresult_event(result INTEGER NOT NULL, event INTEGER NOT NULL, PRIMARY KEY(result, event)) WITHOUT ROWID;"
             "CREATE TABLE %sresult_producer(result INTEGER NOT NULL, producer INTEGER NOT NULL, PRIMARY KEY(result, producer)) WITHOUT ROWID;"
             "CREATE TABLE %sresult_group(result INTEGER NOT NULL, node INTEGER NOT NULL, parent INTEGER, name TEXT,"
             " ordered INTEGER, ref_kind INTEGER, ref INTEGER, position INTEGER, PRIMARY KEY(result, node)) WITHOUT ROWID;"
             "CREATE TABLE %sresult_annotation(result INTEGER NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, value,"
             " vkind INTEGER, ts_from INTEGER, ts_to INTEGER, PRIMARY KEY(result, seq)) WITHOUT ROWID;",
             p, p, p, p, p, p, p, p, p, p, p);
    return tz_sql_exec(db, sql, "creating the trace store", err);
}

int tz_sqlite_create_indexes(sqlite3 *db, traza_err *err)
{
    /* Time: the rowid order. Type and producer: one composite index (a producer
     * query enumerates types in front of it), to stay under 40 bytes per event. */
    return tz_sql_exec(db,
                       "CREATE INDEX event_type_producer ON event(type, producer);"
                       "CREATE INDEX param_value ON param(def, value);"
                       "PRAGMA analysis_limit=1000; ANALYZE;",
                       "indexing the trace", err);
}

static void wstate_free(tz_wstate *w, int unlink_tmp)
{
    sqlite3_finalize(w->ins_event);
    sqlite3_finalize(w->ins_param);
    sqlite3_finalize(w->ins_producer);
    sqlite3_finalize(w->ins_type);
    sqlite3_finalize(w->ins_def);
    if (w->db)
        sqlite3_close(w->db);
    if (unlink_tmp && w->tmp)
        unlink(w->tmp);
    free(w->file);
    free(w->tmp);
    free(w->name);
    free(w);
}

static char *random_file_name(void)
{
    unsigned char r[8];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        /* Extremely unlikely; fall back to pid and address entropy. */
        uint64_t x = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)r;
        memcpy(r, &x, sizeof r);
    }
    return tz_asprintf("%02x%02x%02x%02x%02x%02x%02x%02x.db", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
}

static int open_bulk_db(const char *path, sqlite3 **db, traza_err *err)
{
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot create: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
    return tz_sql_exec(*db,
                       "PRAGMA page_size=4096; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                       "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; PRAGMA temp_store=FILE;",
                       path, err);
}

int tz_sqlite_w_begin(tz_backend *b, const char *name, tz_wstate **out, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    tz_wstate *w = calloc(1, sizeof *w);
    if (!w)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    w->ws = s;
    w->file = random_file_name();
    w->name = tz_strdup(name);
    if (w->file)
        w->tmp = tz_asprintf("%s/traces/%.16s.importing-%ld.db", s->dir, w->file, (long)getpid());
    if (!w->file || !w->tmp || !w->name) {
        wstate_free(w, 0);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    if (open_bulk_db(w->tmp, &w->db, err) < 0 || tz_sqlite_create_schema(w->db, "", err) < 0 ||
        tz_sql_exec(w->db, "BEGIN", "starting the import", err) < 0 ||
        tz_sql_prepare(w->db, "INSERT INTO event VALUES(?,?,?,?,?,?,?,?,?)", &w->ins_event, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT INTO param VALUES(?,?,?)", &w->ins_param, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT INTO producer VALUES(?,?,?,?)", &w->ins_producer, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT OR REPLACE INTO event_type VALUES(?,?,?,?)", &w->ins_type, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT INTO param_def VALUES(?,?,?,?)", &w->ins_def, err) < 0) {
        wstate_free(w, 1);
        return -1;
    }
    *out = w;
    return 0;
}

static int step_reset(tz_wstate *w, sqlite3_stmt *st, const char *what, traza_err *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return tz_sql_fail(w->db, what, err);
    return 0;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

int tz_sqlite_w_producer(tz_wstate *w, const traza_producer *p, traza_err *err)
{
    sqlite3_stmt *st = w->ins_producer;
    sqlite3_bind_int(st, 1, p->id);
    if (p->parent >= 0)
        sqlite3_bind_int(st, 2, p->parent);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_text(st, 3, p->name, -1, SQLITE_STATIC);
    bind_text_or_null(st, 4, p->type);
    return step_reset(w, st, "storing a producer", err);
}

int tz_sqlite_w_event_type(tz_wstate *w, const traza_event_type *t, traza_err *err)
{
    sqlite3_stmt *st = w->ins_type;
    sqlite3_bind_int(st, 1, t->id);
    sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, (int)t->category);
    bind_text_or_null(st, 4, t->color);
    return step_reset(w, st, "storing an event type", err);
}

int tz_sqlite_w_param_def(tz_wstate *w, const traza_param_def *d, traza_err *err)
{
    sqlite3_stmt *st = w->ins_def;
    sqlite3_bind_int(st, 1, d->id);
    sqlite3_bind_int(st, 2, d->type_id);
    sqlite3_bind_text(st, 3, d->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, (int)d->ptype);
    return step_reset(w, st, "storing a parameter definition", err);
}

int tz_sqlite_w_event(tz_wstate *w, const traza_event *ev, int64_t seq, traza_err *err)
{
    sqlite3_stmt *st = w->ins_event;
    int64_t id = seq + 1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, ev->ts);
    sqlite3_bind_int(st, 3, ev->type);
    sqlite3_bind_int(st, 4, ev->producer);
    if (ev->has & TRAZA_HAS_END) {
        sqlite3_bind_int64(st, 5, ev->end_ts);
        if (ev->end_ts - ev->ts > w->max_duration)
            w->max_duration = ev->end_ts - ev->ts;
    } else {
        sqlite3_bind_null(st, 5);
    }
    if (ev->has & TRAZA_HAS_END_PRODUCER) sqlite3_bind_int(st, 6, ev->end_producer); else sqlite3_bind_null(st, 6);
    if (ev->has & TRAZA_HAS_LEVEL) sqlite3_bind_int(st, 7, ev->level); else sqlite3_bind_null(st, 7);
    if (ev->has & TRAZA_HAS_VALUE) sqlite3_bind_double(st, 8, ev->value); else sqlite3_bind_null(st, 8);
    if (ev->has & TRAZA_HAS_CPU) sqlite3_bind_int(st, 9, ev->cpu); else sqlite3_bind_null(st, 9);
    if (step_reset(w, st, "storing an event", err) < 0)
        return -1;
    for (uint32_t i = 0; i < ev->nparams; i++) {
        const traza_param *p = &ev->params[i];
        sqlite3_stmt *ps = w->ins_param;
        sqlite3_bind_int64(ps, 1, id);
        sqlite3_bind_int(ps, 2, p->def);
        switch (p->v.kind) {
        case TRAZA_PT_INT:
        case TRAZA_PT_HEX: sqlite3_bind_int64(ps, 3, p->v.i); break;
        case TRAZA_PT_DOUBLE: sqlite3_bind_double(ps, 3, p->v.d); break;
        case TRAZA_PT_STRING: sqlite3_bind_text(ps, 3, p->v.s ? p->v.s : "", -1, SQLITE_STATIC); break;
        }
        if (step_reset(w, ps, "storing a parameter", err) < 0)
            return -1;
    }
    return 0;
}

/* Copies the store into a new file with events in time order (ids renumbered, and
 * parameters remapped), then makes that file the temporary. */
static int reorder(tz_wstate *w, traza_err *err)
{
    char *sorted = tz_asprintf("%s.sorted", w->tmp);
    if (!sorted)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    char *sql = tz_asprintf(
        "ATTACH '%s' AS s;"
        "PRAGMA s.page_size=4096; PRAGMA s.journal_mode=OFF; PRAGMA s.synchronous=OFF;",
        sorted);
    int rc = -1;
    if (!sql) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    if (tz_sql_exec(w->db, "COMMIT", "sorting events by time", err) < 0 || tz_sql_exec(w->db, sql, "sorting events by time", err) < 0 ||
        tz_sql_exec(w->db, "BEGIN", "sorting events by time", err) < 0 || tz_sqlite_create_schema(w->db, "s.", err) < 0 ||
        tz_sql_exec(w->db,
                    "INSERT INTO s.meta SELECT * FROM meta; INSERT INTO s.producer SELECT * FROM producer;"
                    "INSERT INTO s.event_type SELECT * FROM event_type; INSERT INTO s.param_def SELECT * FROM param_def;"
                    "INSERT INTO s.event(ts, type, producer, end_ts, end_producer, level, value, cpu)"
                    " SELECT ts, type, producer, end_ts, end_producer, level, value, cpu FROM event ORDER BY ts, id;"
                    "CREATE TEMP TABLE idmap(old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
                    "INSERT INTO idmap SELECT id, row_number() OVER (ORDER BY ts, id) FROM event;"
                    "INSERT INTO s.param SELECT m.new, p.def, p.value FROM param p JOIN idmap m ON m.old = p.event ORDER BY 1, 2;"
                    "DROP TABLE idmap;",
                    "sorting events by time", err) < 0 ||
        tz_sql_exec(w->db, "COMMIT; DETACH s;", "sorting events by time", err) < 0)
        goto out;
    sqlite3_finalize(w->ins_event);
    sqlite3_finalize(w->ins_param);
    sqlite3_finalize(w->ins_producer);
    sqlite3_finalize(w->ins_type);
    sqlite3_finalize(w->ins_def);
    w->ins_event = w->ins_param = w->ins_producer = w->ins_type = w->ins_def = NULL;
    sqlite3_close(w->db);
    w->db = NULL;
    if (rename(sorted, w->tmp) < 0) {
        traza_err_set(err, TRAZA_E_IO, "%s: %s", w->tmp, strerror(errno));
        goto out;
    }
    if (open_bulk_db(w->tmp, &w->db, err) < 0 || tz_sql_exec(w->db, "BEGIN", "sorting events by time", err) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0)
        unlink(sorted);
    free(sorted);
    free(sql);
    return rc;
}

static int fsync_path(const char *path, int dir)
{
    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int publish(tz_wstate *w, const traza_trace_info *info, int64_t *id, traza_err *err)
{
    sqlite3 *cat = w->ws->cat;
    sqlite3_stmt *st = NULL;
    char *final = tz_sqlite_trace_path(w->ws, w->file);
    int renamed = 0;
    if (!final)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (tz_sql_exec(cat, "BEGIN IMMEDIATE", "locking the catalogue", err) < 0) {
        free(final);
        return -1;
    }
    if (tz_sql_prepare(cat,
                       "INSERT INTO trace(name, alias, format, file, time_unit, min_ts, max_ts, events, producers, event_types,"
                       " n_punctual, n_state, n_link, n_variable, created) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       &st, err) < 0)
        goto fail;
    sqlite3_bind_text(st, 1, info->name, -1, SQLITE_STATIC);
    bind_text_or_null(st, 2, info->alias);
    bind_text_or_null(st, 3, info->format);
    sqlite3_bind_text(st, 4, w->file, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, info->time_unit);
    sqlite3_bind_int64(st, 6, info->min_ts);
    sqlite3_bind_int64(st, 7, info->max_ts);
    sqlite3_bind_int64(st, 8, info->events);
    sqlite3_bind_int64(st, 9, info->producers);
    sqlite3_bind_int64(st, 10, info->event_types);
    for (int k = 0; k < 4; k++)
        sqlite3_bind_int64(st, 11 + k, info->categories[k]);
    sqlite3_bind_int64(st, 15, info->created);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_CONSTRAINT) {
        traza_err_set(err, TRAZA_E_EXISTS, "a trace named '%s' already exists", info->name);
        goto fail;
    }
    if (rc != SQLITE_DONE) {
        tz_sql_fail(cat, "publishing the trace", err);
        goto fail;
    }
    *id = sqlite3_last_insert_rowid(cat);
    if (tz_sql_prepare(cat, "INSERT INTO trace_source VALUES(?,?,?)", &st, err) < 0)
        goto fail;
    for (size_t i = 0; i < info->nsources; i++) {
        sqlite3_bind_int64(st, 1, *id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, info->sources[i], -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            tz_sql_fail(cat, "publishing the trace", err);
            goto fail;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (tz_sql_prepare(cat, "INSERT OR REPLACE INTO trace_param VALUES(?,?,?)", &st, err) < 0)
        goto fail;
    for (size_t i = 0; i < info->nparams; i++) {
        sqlite3_bind_int64(st, 1, *id);
        sqlite3_bind_text(st, 2, info->params[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, info->params[i].value, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            tz_sql_fail(cat, "publishing the trace", err);
            goto fail;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rename(w->tmp, final) < 0) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot move into place: %s", final, strerror(errno));
        goto fail;
    }
    renamed = 1;
    if (tz_sql_exec(cat, "COMMIT", "publishing the trace", err) < 0)
        goto fail;
    char *dir = tz_asprintf("%s/traces", w->ws->dir);
    if (dir)
        fsync_path(dir, 1);
    free(dir);
    free(final);
    return 0;
fail:
    sqlite3_finalize(st);
    sqlite3_exec(cat, "ROLLBACK", NULL, NULL, NULL);
    if (renamed)
        unlink(final);
    free(final);
    return -1;
}

int tz_sqlite_w_commit(tz_wstate *w, int sorted, const traza_trace_info *info, int64_t *id, traza_err *err)
{
    char meta[256];
    snprintf(meta, sizeof meta,
             "INSERT INTO meta VALUES('format_version', 1); INSERT INTO meta VALUES('max_duration', %lld);"
             "INSERT INTO meta VALUES('events', %lld);",
             (long long)w->max_duration, (long long)info->events);
    if (tz_sql_exec(w->db, meta, "finishing the import", err) < 0 || (!sorted && reorder(w, err) < 0) ||
        tz_sqlite_create_indexes(w->db, err) < 0 || tz_sql_exec(w->db, "COMMIT", "finishing the import", err) < 0)
        goto fail;
    sqlite3_finalize(w->ins_event);
    sqlite3_finalize(w->ins_param);
    sqlite3_finalize(w->ins_producer);
    sqlite3_finalize(w->ins_type);
    sqlite3_finalize(w->ins_def);
    w->ins_event = w->ins_param = w->ins_producer = w->ins_type = w->ins_def = NULL;
    if (sqlite3_close(w->db) != SQLITE_OK) {
        traza_err_set(err, TRAZA_E_IO, "%s: closing failed", w->tmp);
        goto fail;
    }
    w->db = NULL;
    if (fsync_path(w->tmp, 0) < 0) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot sync to disk: %s", w->tmp, strerror(errno));
        goto fail;
    }
    if (publish(w, info, id, err) < 0)
        goto fail;
    wstate_free(w, 0);
    return 0;
fail:
    wstate_free(w, 1);
    return -1;
}

void tz_sqlite_w_abort(tz_wstate *w) { wstate_free(w, 1); }

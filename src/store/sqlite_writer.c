/* SQLite backend: writing a trace store in bulk.
 *
 * One transaction, prepared statements, no journal (the file is private until it is
 * published, so a crash just leaves a temporary to sweep), indexes after the load.
 * Events are stored with rowid = position in time order, which makes the table its
 * own time index (see doc/store.md); an import that arrives out of order is copied
 * once into a fresh file in time order at commit. */
#include "store/sqlite_internal.h"
#include "store/sqlite_btree.h"
#include "store/event_pack.h"
#include "store/sqlite_pvindex.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Page size of trace stores (see doc/store.md). */
#ifndef TZ_PAGE_SIZE
#define TZ_PAGE_SIZE "8192"
#endif
/* Memory for sorting an out-of-order import and the parameter index in memory
 * (TRAZA_SORT_MEM overrides): a quarter of the machine's memory, at least 512 MiB.
 * Beyond it the writer falls back to paths that spill to disk and cost about twice
 * the time (a 111 MB trace-cmd file: 30.5 s at 512 MiB, 14.6 s sorted in 0.9 GB);
 * a quarter leaves room for the rest of the machine and a second import. */
#define TZ_SORT_MEM_MIN ((size_t)512 << 20)

static size_t sort_mem_default(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return TZ_SORT_MEM_MIN;
    uint64_t quarter = (uint64_t)pages * (uint64_t)page / 4;
    if (quarter > SIZE_MAX)
        quarter = SIZE_MAX;
    return quarter > TZ_SORT_MEM_MIN ? (size_t)quarter : TZ_SORT_MEM_MIN;
}

/* The ids of the events of one (type, producer) pair, in increasing order: the
 * (type, producer) index is written from these lists, already sorted, at commit. */
typedef struct tz_keylist {
    uint64_t key; /* type << 32 | producer */
    uint32_t *ids;
    size_t n, cap;
} tz_keylist;

/* An event held in memory until commit (out-of-order imports). */
typedef struct tz_bparam {
    int32_t def;
    int32_t kind; /* TRAZA_PT_* */
    int64_t i;
    double d;
    size_t soff;  /* string: offset in the string arena */
} tz_bparam;

typedef struct tz_bev {
    int64_t ts, end_ts, seq;
    double value;
    int32_t type, producer, end_producer, level, cpu;
    uint32_t has, np;
    size_t p0;
} tz_bev;

enum { MODE_DIRECT, MODE_BUFFER, MODE_SPILLED };

struct tz_wstate {
    tz_sqlite *ws;
    sqlite3 *db;
    char *file;     /* final file name "<hex>.db" */
    char *tmp;      /* full path of the temporary */
    char *name;
    sqlite3_stmt *ins_producer, *ins_type, *ins_def, *ins_const;
    int64_t max_duration;
    /* The event table's pages, written by the page writer (sqlite_btree.c) */
    tz_table_writer *bt;
    tz_rec_spool *ps;        /* param records, (event, def) order */
    tz_buf prec;       /* one param record being built */
    uint32_t root_event, root_tp, root_param, root_pv;
    /* packed events (tz_sqlite_w_layout; doc/store.md, "Packed events"): asked for, and
     * then done when the import ends in order with its id lists */
    int pack_asked, pack;
    int direct_pack;         /* packing as the events come (packer.c's blocks in pk) */
    uint32_t root_pack, root_ptp;
    tz_table_writer *pk;     /* the blocks' pages */
    struct packer *pkr;      /* the block being filled */
    tz_pack_block *unpk;     /* unpack_rows' block */
    uint64_t pstr_bytes; /* text in parameter values, for the param_value sort budget */
    int pv_pages;        /* param_value written by the page writer (else CREATE INDEX) */
    int mode;
    int64_t ndb;       /* rows stored in the table (MODE_DIRECT, MODE_BUFFER) */
    int64_t last_ts;
    /* (type, producer) -> ids, open addressing over klist indexes + 1 */
    int lists_off;     /* the index is built by CREATE INDEX instead */
    tz_keylist *klist;
    size_t nklist, capklist;
    uint32_t *kslot;
    size_t kcap;
    /* in-memory reorder buffer */
    tz_bev *buf;
    size_t nbuf, capbuf;
    tz_bparam *bpar;
    size_t nbpar, capbpar;
    tz_buf bstr;
    size_t sort_mem;
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
             " params TEXT, created INTEGER, size INTEGER, target TEXT, inputs TEXT, version TEXT);"
             "CREATE TABLE %sresult_event(result INTEGER NOT NULL, event INTEGER NOT NULL, PRIMARY KEY(result, event)) WITHOUT ROWID;"
             "CREATE TABLE %sresult_producer(result INTEGER NOT NULL, producer INTEGER NOT NULL, PRIMARY KEY(result, producer)) WITHOUT ROWID;"
             "CREATE TABLE %sresult_group(result INTEGER NOT NULL, node INTEGER NOT NULL, parent INTEGER, name TEXT,"
             " ordered INTEGER, ref_kind INTEGER, ref INTEGER, position INTEGER, PRIMARY KEY(result, node)) WITHOUT ROWID;"
             "CREATE TABLE %sresult_annotation(result INTEGER NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, value,"
             " vkind INTEGER, ts_from INTEGER, ts_to INTEGER, PRIMARY KEY(result, seq)) WITHOUT ROWID;"
             "CREATE TABLE %sparam_const(def INTEGER PRIMARY KEY, value);",
             p, p, p, p, p, p, p, p, p, p, p, p);
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

static void lists_free(tz_wstate *w)
{
    for (size_t i = 0; i < w->nklist; i++)
        free(w->klist[i].ids);
    free(w->klist);
    free(w->kslot);
    w->klist = NULL;
    w->kslot = NULL;
    w->nklist = w->capklist = w->kcap = 0;
}

static void buffer_free(tz_wstate *w)
{
    free(w->buf);
    free(w->bpar);
    tz_buf_free(&w->bstr);
    w->buf = NULL;
    w->bpar = NULL;
    w->nbuf = w->capbuf = w->nbpar = w->capbpar = 0;
}

static void finalize_all(tz_wstate *w)
{
    sqlite3_finalize(w->ins_producer);
    sqlite3_finalize(w->ins_type);
    sqlite3_finalize(w->ins_def);
    sqlite3_finalize(w->ins_const);
    w->ins_producer = w->ins_type = w->ins_def = w->ins_const = NULL;
}

static void packer_free(tz_wstate *w);

static void wstate_free(tz_wstate *w, int unlink_tmp)
{
    finalize_all(w);
    if (w->db)
        sqlite3_close(w->db);
    if (unlink_tmp && w->tmp)
        unlink(w->tmp);
    tz_table_writer_free(w->bt);
    packer_free(w);
    tz_rec_spool_free(w->ps);
    tz_buf_free(&w->prec);
    lists_free(w);
    buffer_free(w);
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
                       "PRAGMA page_size=" TZ_PAGE_SIZE "; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                       "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; PRAGMA temp_store=FILE; PRAGMA temp.cache_size=-65536;",
                       path, err);
}

/* The root page of a table or index of the schema. */
static int root_page(sqlite3 *db, const char *name, uint32_t *root, traza_err *err)
{
    sqlite3_stmt *st;
    if (tz_sql_prepare(db, "SELECT rootpage FROM sqlite_schema WHERE name=?", &st, err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (v < 2 || v > UINT32_MAX)
        return traza_err_set(err, TRAZA_E_FORMAT, "no root page for %s", name);
    *root = (uint32_t)v;
    return 0;
}

/* The event table, its (type, producer) index, the param table and its value index
 * are created empty here and their b-trees written by the page writer at commit: the
 * indexes exist from the start, so their schema rows are the ones CREATE INDEX
 * writes. */
static int begin_pages(tz_wstate *w, traza_err *err)
{
    char *spool = tz_asprintf("%s.pages", w->tmp), *pspool = tz_asprintf("%s.params", w->tmp);
    if (!spool || !pspool) {
        free(spool);
        free(pspool);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    int rc = tz_sql_exec(w->db,
                         "CREATE INDEX event_type_producer ON event(type, producer);"
                         "CREATE INDEX param_value ON param(def, value);",
                         "creating the trace store", err);
    if (rc == 0)
        rc = root_page(w->db, "event", &w->root_event, err);
    if (rc == 0)
        rc = root_page(w->db, "event_type_producer", &w->root_tp, err);
    if (rc == 0)
        rc = root_page(w->db, "param", &w->root_param, err);
    if (rc == 0)
        rc = root_page(w->db, "param_value", &w->root_pv, err);
    if (rc == 0)
        rc = tz_table_writer_open(&w->bt, spool, (uint32_t)atoi(TZ_PAGE_SIZE), err);
    if (rc == 0)
        rc = tz_rec_spool_open(&w->ps, pspool, err);
    free(spool);
    free(pspool);
    return rc;
}

int tz_sqlite_w_begin(tz_backend *b, const char *name, tz_wstate **out, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    if (tz_sqlite_writable(s, "import a trace", err) < 0)
        return -1;
    tz_wstate *w = calloc(1, sizeof *w);
    if (!w)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    w->ws = s;
    w->last_ts = INT64_MIN;
    tz_buf_init(&w->bstr);
    tz_buf_init(&w->prec);
    w->sort_mem = sort_mem_default();
    const char *env = getenv("TRAZA_SORT_MEM");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0')
            w->sort_mem = (size_t)v;
    }
    /* TRAZA_STORE_LAYOUT=packed or =rows: the default of every import, over the
     * importer's (the suite runs with it to read every store packed); a layout the
     * user chose (traza_writer_set_layout) stands over it */
    const char *layout = getenv("TRAZA_STORE_LAYOUT");
    w->pack_asked = layout && strcmp(layout, "packed") == 0 ? 1 : layout && strcmp(layout, "rows") == 0 ? -1 : 0;
    w->file = random_file_name();
    w->name = tz_strdup(name);
    if (w->file)
        w->tmp = tz_asprintf("%s/traces/%.16s.importing-%ld.db", s->dir, w->file, (long)getpid());
    if (!w->file || !w->tmp || !w->name) {
        wstate_free(w, 0);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    if (open_bulk_db(w->tmp, &w->db, err) < 0 || tz_sqlite_create_schema(w->db, "", err) < 0 ||
        tz_sql_exec(w->db, "BEGIN", "starting the import", err) < 0 || begin_pages(w, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT INTO producer VALUES(?,?,?,?)", &w->ins_producer, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT OR REPLACE INTO event_type VALUES(?,?,?,?)", &w->ins_type, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT INTO param_def VALUES(?,?,?,?)", &w->ins_def, err) < 0 ||
        tz_sql_prepare(w->db, "INSERT INTO param_const VALUES(?,?)", &w->ins_const, err) < 0) {
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

int tz_sqlite_w_param_const(tz_wstate *w, int32_t def, const traza_value *v, traza_err *err)
{
    sqlite3_stmt *st = w->ins_const;
    sqlite3_bind_int(st, 1, def);
    if (v->kind == TRAZA_PT_STRING)
        sqlite3_bind_text(st, 2, v->s, -1, SQLITE_TRANSIENT);
    else if (v->kind == TRAZA_PT_DOUBLE)
        sqlite3_bind_double(st, 2, v->d);
    else
        sqlite3_bind_int64(st, 2, v->i);
    return step_reset(w, st, "storing a parameter's value", err);
}

/* ---- (type, producer) id lists ---------------------------------------------- */

static uint64_t key_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static int key_add(tz_wstate *w, int32_t type, int32_t producer, int64_t id, traza_err *err)
{
    if (w->lists_off)
        return 0;
    if (id > (int64_t)UINT32_MAX) {
        /* Beyond 32-bit ids the index is built by SQLite. */
        lists_free(w);
        w->lists_off = 1;
        return 0;
    }
    uint64_t key = (uint64_t)(uint32_t)type << 32 | (uint32_t)producer;
    if (2 * (w->nklist + 1) > w->kcap) {
        size_t ncap = w->kcap ? 2 * w->kcap : 256;
        uint32_t *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        for (size_t i = 0; i < w->nklist; i++) {
            size_t h = key_hash(w->klist[i].key) & (ncap - 1);
            while (ns[h])
                h = (h + 1) & (ncap - 1);
            ns[h] = (uint32_t)(i + 1);
        }
        free(w->kslot);
        w->kslot = ns;
        w->kcap = ncap;
    }
    size_t h = key_hash(key) & (w->kcap - 1);
    while (w->kslot[h] && w->klist[w->kslot[h] - 1].key != key)
        h = (h + 1) & (w->kcap - 1);
    if (!w->kslot[h]) {
        if (TZ_GROW(w->klist, w->capklist, w->nklist + 1) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        memset(&w->klist[w->nklist], 0, sizeof w->klist[0]);
        w->klist[w->nklist].key = key;
        w->kslot[h] = (uint32_t)++w->nklist;
    }
    tz_keylist *l = &w->klist[w->kslot[h] - 1];
    if (TZ_GROW(l->ids, l->cap, l->n + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    l->ids[l->n++] = (uint32_t)id;
    return 0;
}

/* Forgets the ids >= from (they are the largest of each list). */
static void keys_truncate(tz_wstate *w, int64_t from)
{
    for (size_t i = 0; i < w->nklist; i++) {
        tz_keylist *l = &w->klist[i];
        while (l->n && (int64_t)l->ids[l->n - 1] >= from)
            l->n--;
    }
}

/* Index order: type, then producer, as signed integers. */
static int cmp_keylist(const void *a, const void *b)
{
    uint64_t x = ((const tz_keylist *)a)->key, y = ((const tz_keylist *)b)->key;
    int32_t tx = (int32_t)(uint32_t)(x >> 32), ty = (int32_t)(uint32_t)(y >> 32);
    int32_t px = (int32_t)(uint32_t)x, py = (int32_t)(uint32_t)y;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return px < py ? -1 : px > py;
}

/* The entries of the (type, producer) index in index order, from the sorted id
 * lists: records (type, producer, rowid) for the page writer. */
typedef struct tp_iter {
    tz_wstate *w;
    size_t k, i;
    unsigned char rec[TZ_BT_MAXREC];
} tp_iter;

/* The key list holding the next index entry (*k, *i moved past the lists used up), or
 * NULL at the end: the (type, producer) index and the posting lists read the sorted
 * id lists this way. */
static const tz_keylist *klist_at(const tz_wstate *w, size_t *k, size_t *i)
{
    while (*k < w->nklist && *i == w->klist[*k].n) {
        ++*k;
        *i = 0;
    }
    return *k < w->nklist ? &w->klist[*k] : NULL;
}

static int tp_next(void *ctx, const unsigned char **rec, size_t *n, traza_err *err)
{
    (void)err;
    tp_iter *it = ctx;
    const tz_keylist *l = klist_at(it->w, &it->k, &it->i);
    if (!l)
        return 0;
    *n = tz_bt_tp_record((int32_t)(uint32_t)(l->key >> 32), (int32_t)(uint32_t)l->key, l->ids[it->i++], 1, it->rec);
    *rec = it->rec;
    return 1;
}

/* ---- packed events ------------------------------------------------------------- */

/* Events packed into blocks of consecutive ids, each block a row of event_pack.
 * An import that asked for packing before its first event packs as the events come
 * while they come in time order (no row is written); one that goes back in time has
 * its blocks turned into rows (unpack_rows) and takes the row path, whose rows are
 * packed at commit (pack_events) once they are in order. */
typedef struct packer {
    tz_table_writer *out;
    unsigned char buf[TZ_PACK_BYTES + TZ_PACK_MAXEV];
    size_t len, n;
    int64_t first;
    traza_event prev;
    tz_buf rec;
} packer;

static int pack_flush(packer *p, traza_err *err)
{
    if (!p->n)
        return 0;
    tz_bt_col c[2];
    memset(c, 0, sizeof c);
    c[0].kind = TZ_BT_NULL; /* the id column: the rowid */
    c[1].kind = TZ_BT_BLOB;
    c[1].s = (const char *)p->buf;
    c[1].slen = p->len;
    tz_buf_reset(&p->rec);
    tz_bt_record(c, 2, 1, &p->rec);
    if (p->rec.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    /* the block's last time stamp: what tz_table_writer_first_after reads */
    int rc = tz_table_writer_add(p->out, p->first, p->prev.ts, (const unsigned char *)p->rec.s, p->rec.len, err);
    p->n = p->len = 0;
    return rc;
}

static int pack_add(packer *p, const traza_event *ev, int64_t id, traza_err *err)
{
    if (p->n && (id != p->first + (int64_t)p->n || p->n == TZ_PACK_BLOCK || p->len + TZ_PACK_MAXEV > TZ_PACK_BYTES) &&
        pack_flush(p, err) < 0)
        return -1;
    if (!p->n)
        p->first = id;
    p->len += tz_pack_put(p->n ? &p->prev : NULL, ev, p->buf + p->len);
    p->prev = *ev;
    p->n++;
    return 0;
}

static void packer_free(tz_wstate *w)
{
    if (w->pkr)
        tz_buf_free(&w->pkr->rec);
    free(w->pkr);
    w->pkr = NULL;
    tz_table_writer_free(w->pk);
    w->pk = NULL;
}

/* Opens the block spool and the packer. */
static int packer_open(tz_wstate *w, traza_err *err)
{
    char *spool = tz_asprintf("%s.packs", w->tmp);
    w->pkr = calloc(1, sizeof *w->pkr);
    if (!spool || !w->pkr) {
        free(spool);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    tz_buf_init(&w->pkr->rec);
    int rc = tz_table_writer_open(&w->pk, spool, (uint32_t)atoi(TZ_PAGE_SIZE), err);
    free(spool);
    w->pkr->out = w->pk;
    return rc;
}

static int pack_row(void *ctx, int64_t id, const unsigned char *rec, size_t n, traza_err *err)
{
    traza_event ev;
    if (tz_bt_event_decode(rec, n, &ev) < 0)
        return traza_err_set(err, TRAZA_E_FORMAT, "packing events: unreadable row %lld", (long long)id);
    return pack_add(ctx, &ev, id, err);
}

/* At commit, the rows of the page spool (now in time order), packed into w->pk. */
static int pack_events(tz_wstate *w, traza_err *err)
{
    int rc = packer_open(w, err);
    if (rc == 0)
        rc = tz_table_writer_take_from(w->bt, 1, pack_row, w->pkr, err);
    return rc == 0 ? pack_flush(w->pkr, err) : -1;
}

static int unpack_block(void *ctx, int64_t first, const unsigned char *rec, size_t n, traza_err *err)
{
    tz_wstate *w = ctx;
    const unsigned char *b;
    size_t len;
    if (tz_bt_last_blob(rec, n, &b, &len) < 0 || tz_pack_decode(b, len, first, w->unpk) < 0)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: block %lld: unreadable in the spool", w->tmp, (long long)first);
    for (size_t i = 0; i < w->unpk->n; i++) {
        traza_event ev;
        tz_pack_event(w->unpk, i, &ev);
        unsigned char r[TZ_BT_MAXREC];
        size_t rn = tz_bt_event_record(&ev, 1, r);
        if (tz_table_writer_add(w->bt, ev.id, ev.ts, r, rn, err) < 0)
            return -1;
    }
    return 0;
}

/* The blocks packed so far, turned into rows of the page spool. */
static int unpack_rows(tz_wstate *w, traza_err *err)
{
    w->direct_pack = 0;
    w->unpk = malloc(sizeof *w->unpk);
    int rc = w->unpk ? pack_flush(w->pkr, err) : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = tz_table_writer_take_from(w->pk, 1, unpack_block, w, err);
    free(w->unpk);
    w->unpk = NULL;
    packer_free(w);
    return rc;
}

/* The posting lists of event_tp in key order: (type, producer, first id, gaps) for
 * each TZ_PACK_IDS ids of a (type, producer) pair. */
typedef struct ptp_iter {
    tz_wstate *w;
    size_t k, i;
    tz_buf rec, ids;
} ptp_iter;

static int ptp_next(void *ctx, const unsigned char **rec, size_t *n, traza_err *err)
{
    ptp_iter *it = ctx;
    const tz_keylist *l = klist_at(it->w, &it->k, &it->i);
    if (!l)
        return 0;
    size_t end = it->i + TZ_PACK_IDS < l->n ? it->i + TZ_PACK_IDS : l->n;
    tz_buf_reset(&it->ids);
    for (size_t j = it->i + 1; j < end; j++)
        tz_pack_put_id(&it->ids, l->ids[j - 1], l->ids[j]);
    tz_bt_col c[4];
    memset(c, 0, sizeof c);
    c[0].kind = c[1].kind = c[2].kind = TZ_BT_INT;
    c[0].i = (int32_t)(uint32_t)(l->key >> 32);
    c[1].i = (int32_t)(uint32_t)l->key;
    c[2].i = l->ids[it->i];
    c[3].kind = TZ_BT_BLOB;
    c[3].s = it->ids.s ? it->ids.s : "";
    c[3].slen = it->ids.len;
    tz_buf_reset(&it->rec);
    tz_bt_record(c, 4, 1, &it->rec);
    if (it->rec.oom || it->ids.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    it->i = end;
    *rec = (const unsigned char *)it->rec.s;
    *n = it->rec.len;
    return 1;
}

/* With SQLite closed: writes the event table from the spooled pages, the param table
 * from its spool and, unless the id lists were given up, the (type, producer) index. */
static int write_pages(tz_wstate *w, traza_err *err)
{
    tz_dbfile f;
    if (tz_dbfile_open(&f, w->tmp, err) < 0)
        return -1;
    int rc = 0;
    if (!f.schema4 || f.page_size != (uint32_t)atoi(TZ_PAGE_SIZE))
        rc = traza_err_set(err, TRAZA_E_FORMAT, "%s: unexpected page size %u or schema format", w->tmp, f.page_size);
    if (rc == 0 && w->pack) {
        rc = w->direct_pack ? pack_flush(w->pkr, err) : pack_events(w, err);
        if (rc == 0)
            rc = tz_dbfile_put_table(&f, w->root_pack, w->pk, err);
    } else if (rc == 0) {
        rc = tz_dbfile_put_table(&f, w->root_event, w->bt, err);
    }
    if (rc == 0)
        rc = tz_rec_spool_rewind(w->ps, err);
    if (rc == 0)
        rc = tz_dbfile_put_index(&f, w->root_param, tz_rec_spool_count(w->ps), tz_rec_spool_next, w->ps, err);
    if (rc == 0 && w->pv_pages)
        rc = tz_pv_write(&f, w->root_pv, w->ps, err);
    if (rc == 0 && !w->lists_off) {
        uint64_t count = 0;
        if (w->nklist)
            qsort(w->klist, w->nklist, sizeof *w->klist, cmp_keylist);
        free(w->kslot); /* the hash no longer matches the sorted list */
        w->kslot = NULL;
        w->kcap = 0;
        for (size_t k = 0; k < w->nklist; k++)
            count += w->pack ? (w->klist[k].n + TZ_PACK_IDS - 1) / TZ_PACK_IDS : w->klist[k].n;
        if (w->pack) {
            ptp_iter it = {w, 0, 0, {0}, {0}};
            rc = tz_dbfile_put_index(&f, w->root_ptp, count, ptp_next, &it, err);
            tz_buf_free(&it.rec);
            tz_buf_free(&it.ids);
        } else {
            tp_iter it = {w, 0, 0, {0}};
            rc = tz_dbfile_put_index(&f, w->root_tp, count, tp_next, &it, err);
        }
    }
    if (rc == 0)
        return tz_dbfile_close(&f, err);
    tz_dbfile_abort(&f);
    return -1;
}

/* ---- storing rows ------------------------------------------------------------ */

/* Parameters go to the param spool as records of the WITHOUT ROWID table param
 * (event, def, value), in key order: ids increase, and the definitions of one event
 * are put in order here (importers usually give them in order already: the insertion
 * sort is then one pass; the generic writer has refused a definition given twice). */
static int put_params(tz_wstate *w, const traza_param *pv, uint32_t n, int64_t id, traza_err *err)
{
    uint32_t ord[64], *o = n <= 64 ? ord : malloc(n * sizeof *o);
    if (!o)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        for (; j > 0 && pv[o[j - 1]].def > pv[i].def; j--)
            o[j] = o[j - 1];
        o[j] = i;
    }
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const traza_param *p = &pv[o[i]];
        if (i && p->def == pv[o[i - 1]].def) {
            rc = traza_err_set(err, TRAZA_E_USAGE, "event %lld: a parameter definition given twice", (long long)id);
            break;
        }
        tz_buf_reset(&w->prec);
        tz_bt_param_record(id, p->def, &p->v, 1, &w->prec);
        if (w->prec.oom)
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        else if (p->v.kind == TRAZA_PT_STRING)
            w->pstr_bytes += w->prec.len; /* the text and a few bytes: enough for the sort budget */
        if (rc == 0)
            rc = tz_rec_spool_add(w->ps, id, (const unsigned char *)w->prec.s, w->prec.len, err);
    }
    if (o != ord)
        free(o);
    return rc;
}

/* Stores one event under `id`: its row goes to the page writer, its parameters to SQLite. */
static int put_row(tz_wstate *w, const traza_event *ev, int64_t id, traza_err *err)
{
    if ((ev->has & TRAZA_HAS_END) && ev->end_ts - ev->ts > w->max_duration)
        w->max_duration = ev->end_ts - ev->ts;
    if (id == 1 && w->pack_asked > 0 && w->mode == MODE_DIRECT && !w->pkr) {
        if (packer_open(w, err) < 0)
            return -1;
        w->direct_pack = 1;
    }
    if (w->direct_pack) {
        if (pack_add(w->pkr, ev, id, err) < 0)
            return -1;
    } else {
        unsigned char rec[TZ_BT_MAXREC];
        size_t n = tz_bt_event_record(ev, 1, rec);
        if (tz_table_writer_add(w->bt, id, ev->ts, rec, n, err) < 0)
            return -1;
    }
    if (put_params(w, ev->params, ev->nparams, id, err) < 0)
        return -1;
    return key_add(w, ev->type, ev->producer, id, err);
}

/* ---- out-of-order imports: sorting in memory ---------------------------------- */

static size_t buffer_bytes(const tz_wstate *w)
{
    return w->nbuf * sizeof *w->buf + w->nbpar * sizeof *w->bpar + w->bstr.len;
}

static int buffer_add(tz_wstate *w, const traza_event *ev, int64_t seq, traza_err *err)
{
    if (TZ_GROW(w->buf, w->capbuf, w->nbuf + 1) < 0 || TZ_GROW(w->bpar, w->capbpar, w->nbpar + ev->nparams) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    tz_bev *b = &w->buf[w->nbuf];
    b->ts = ev->ts;
    b->end_ts = ev->end_ts;
    b->seq = seq;
    b->value = ev->value;
    b->type = ev->type;
    b->producer = ev->producer;
    b->end_producer = ev->end_producer;
    b->level = ev->level;
    b->cpu = ev->cpu;
    b->has = ev->has;
    b->p0 = w->nbpar;
    b->np = ev->nparams;
    for (uint32_t i = 0; i < ev->nparams; i++) {
        const traza_param *p = &ev->params[i];
        tz_bparam *q = &w->bpar[w->nbpar++];
        memset(q, 0, sizeof *q);
        q->def = p->def;
        q->kind = (int32_t)p->v.kind;
        q->i = p->v.i;
        q->d = p->v.d;
        if (p->v.kind == TRAZA_PT_STRING) {
            const char *str = p->v.s ? p->v.s : "";
            q->soff = w->bstr.len;
            tz_buf_put(&w->bstr, str, strlen(str) + 1);
            if (w->bstr.oom)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
    }
    w->nbuf++;
    return 0;
}

/* Stores buffered event b under `id`. */
static int put_buffered(tz_wstate *w, const tz_bev *b, int64_t id, traza_err *err)
{
    traza_param pv[64];
    traza_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts = b->ts;
    ev.end_ts = b->end_ts;
    ev.value = b->value;
    ev.type = b->type;
    ev.producer = b->producer;
    ev.end_producer = b->end_producer;
    ev.level = b->level;
    ev.cpu = b->cpu;
    ev.has = b->has;
    if (put_row(w, &ev, id, err) < 0)
        return -1;
    /* Parameters in chunks of 64. */
    for (uint32_t i = 0; i < b->np;) {
        uint32_t n = 0;
        for (; n < 64 && i < b->np; n++, i++) {
            const tz_bparam *q = &w->bpar[b->p0 + i];
            pv[n].def = q->def;
            pv[n].v.kind = (traza_ptype)q->kind;
            pv[n].v.i = q->i;
            pv[n].v.d = q->d;
            pv[n].v.s = q->kind == TRAZA_PT_STRING ? w->bstr.s + q->soff : NULL;
        }
        if (put_params(w, pv, n, id, err) < 0)
            return -1;
    }
    return 0;
}

/* Gives up sorting in memory: the buffered events are stored in arrival order and
 * the whole store is copied in time order at commit (reorder()). */
static int spill(tz_wstate *w, traza_err *err)
{
    lists_free(w);
    w->lists_off = 1;
    w->mode = MODE_SPILLED;
    for (size_t i = 0; i < w->nbuf; i++)
        if (put_buffered(w, &w->buf[i], w->buf[i].seq + 1, err) < 0)
            return -1;
    buffer_free(w);
    return 0;
}

static int cmp_bev(const void *a, const void *b)
{
    const tz_bev *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Taking stored rows back (pull_tail): the rows come from the page writer's spool,
 * their parameters from the param spool; both are in event order. */
typedef struct pulled_param {
    int64_t event;
    traza_param p;
    size_t soff; /* string: offset in the arena */
} pulled_param;

typedef struct pull_ctx {
    tz_wstate *w;
    pulled_param *pp;
    size_t npp, cap, next;
    tz_buf str;
} pull_ctx;

static int pull_param(void *ctx, int64_t key, const unsigned char *rec, size_t n, traza_err *err)
{
    pull_ctx *c = ctx;
    pulled_param q;
    size_t slen;
    memset(&q, 0, sizeof q);
    if (tz_bt_param_decode(rec, n, &q.event, &q.p.def, &q.p.v, &slen) < 0 || q.event != key)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: event %lld: unreadable parameter in the spool", c->w->tmp, (long long)key);
    if (q.p.v.kind == TRAZA_PT_STRING) {
        q.soff = c->str.len;
        tz_buf_put(&c->str, q.p.v.s, slen);
        tz_buf_putc(&c->str, '\0');
    }
    if (c->str.oom || TZ_GROW(c->pp, c->cap, c->npp + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    c->pp[c->npp++] = q;
    return 0;
}

static int pull_row(void *ctx, int64_t id, const unsigned char *rec, size_t n, traza_err *err)
{
    pull_ctx *c = ctx;
    traza_event e;
    if (tz_bt_event_decode(rec, n, &e) < 0)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: event %lld: unreadable row in the page spool", c->w->tmp, (long long)id);
    traza_param pv[256];
    uint32_t np = 0;
    while (c->next < c->npp && c->pp[c->next].event < id)
        c->next++; /* cannot happen: every parameter has its event */
    for (; c->next < c->npp && c->pp[c->next].event == id; c->next++) {
        if (np == 256)
            return traza_err_set(err, TRAZA_E_USAGE, "event %lld has more than 256 parameters", (long long)id);
        pv[np] = c->pp[c->next].p;
        if (pv[np].v.kind == TRAZA_PT_STRING)
            pv[np].v.s = c->str.s + c->pp[c->next].soff;
        np++;
    }
    e.params = pv;
    e.nparams = np;
    return buffer_add(c->w, &e, id - 1, err);
}

/* Moves the stored rows with id >= from (and their parameters) into the buffer. */
static int pull_tail(tz_wstate *w, int64_t from, traza_err *err)
{
    pull_ctx c;
    memset(&c, 0, sizeof c);
    c.w = w;
    tz_buf_init(&c.str);
    int rc = tz_rec_spool_take_from(w->ps, from, pull_param, &c, err);
    if (rc == 0)
        rc = tz_table_writer_take_from(w->bt, from, pull_row, &c, err);
    free(c.pp);
    tz_buf_free(&c.str);
    if (rc < 0)
        return -1;
    keys_truncate(w, from);
    w->ndb = from - 1;
    return 0;
}

/* At commit of an import that went out of order: sorts the buffered events, takes
 * back the stored rows they must precede, and stores everything in time order.
 * Falls back to spill() when that would not fit in memory. */
static int settle(tz_wstate *w, traza_err *err)
{
    qsort(w->buf, w->nbuf, sizeof *w->buf, cmp_bev);
    int64_t m = w->buf[0].ts;
    /* First stored id with ts > m (stored rows are in time order). */
    int64_t lo;
    if (tz_table_writer_first_after(w->bt, m, &lo, err) < 0)
        return -1;
    int64_t ntail = w->ndb - lo + 1;
    if (ntail > 0) {
        if (buffer_bytes(w) + (size_t)ntail * (sizeof(tz_bev) + 16) > w->sort_mem)
            return spill(w, err);
        if (pull_tail(w, lo, err) < 0)
            return -1;
        qsort(w->buf, w->nbuf, sizeof *w->buf, cmp_bev);
    }
    int64_t id = w->ndb + 1;
    for (size_t i = 0; i < w->nbuf; i++)
        if (put_buffered(w, &w->buf[i], id++, err) < 0)
            return -1;
    w->ndb = id - 1;
    buffer_free(w);
    w->mode = MODE_DIRECT;
    return 0;
}

int tz_sqlite_w_event(tz_wstate *w, const traza_event *ev, int64_t seq, traza_err *err)
{
    if (w->mode == MODE_DIRECT) {
        if (ev->ts >= w->last_ts) {
            w->last_ts = ev->ts;
            w->ndb++;
            return put_row(w, ev, seq + 1, err);
        }
        if (w->direct_pack && unpack_rows(w, err) < 0) /* sorting takes rows back */
            return -1;
        w->mode = MODE_BUFFER;
    }
    if (w->mode == MODE_BUFFER) {
        if (buffer_add(w, ev, seq, err) < 0)
            return -1;
        if (buffer_bytes(w) > w->sort_mem)
            return spill(w, err);
        return 0;
    }
    return put_row(w, ev, seq + 1, err);
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
        "PRAGMA s.page_size=" TZ_PAGE_SIZE "; PRAGMA s.journal_mode=OFF; PRAGMA s.synchronous=OFF;",
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
                    "INSERT INTO s.param_const SELECT * FROM param_const;"
                    "INSERT INTO s.event(ts, type, producer, end_ts, end_producer, level, value, cpu)"
                    " SELECT ts, type, producer, end_ts, end_producer, level, value, cpu FROM event ORDER BY ts, id;"
                    "CREATE TEMP TABLE idmap(old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
                    "INSERT INTO idmap SELECT id, row_number() OVER (ORDER BY ts, id) FROM event;"
                    "INSERT INTO s.param SELECT m.new, p.def, p.value FROM param p JOIN idmap m ON m.old = p.event ORDER BY 1, 2;"
                    "DROP TABLE idmap;",
                    "sorting events by time", err) < 0 ||
        tz_sql_exec(w->db, "COMMIT; DETACH s;", "sorting events by time", err) < 0)
        goto out;
    finalize_all(w);
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

/* With `replace`: the trace named info->name, if any, leaves the catalogue in the
 * transaction (its file is removed after the commit), and the new one takes an id
 * above every id so far (the old one's included: a reader holding it sees a change). */
static int publish(tz_wstate *w, const traza_trace_info *info, int replace, int64_t *id, traza_err *err)
{
    sqlite3 *cat = w->ws->cat;
    sqlite3_stmt *st = NULL;
    char *final = tz_sqlite_trace_path(w->ws, w->file), *old_file = NULL;
    int renamed = 0;
    int64_t new_id = -1;
    if (!final)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (tz_sql_exec(cat, "BEGIN IMMEDIATE", "locking the catalogue", err) < 0) {
        free(final);
        return -1;
    }
    if (replace) {
        if (tz_sql_prepare(cat, "SELECT id, (SELECT max(id) FROM trace) FROM trace WHERE name=?", &st, err) < 0)
            goto fail;
        sqlite3_bind_text(st, 1, info->name, -1, SQLITE_STATIC);
        int64_t old_id = -1;
        if (sqlite3_step(st) == SQLITE_ROW) {
            old_id = sqlite3_column_int64(st, 0);
            new_id = sqlite3_column_int64(st, 1) + 1;
        }
        sqlite3_finalize(st);
        st = NULL;
        if (old_id >= 0 && tz_sqlite_unlist(cat, old_id, &old_file, err) < 0)
            goto fail;
    }
    if (tz_sql_prepare(cat,
                       "INSERT INTO trace(id, name, alias, format, file, time_unit, min_ts, max_ts, events, producers,"
                       " event_types, n_punctual, n_state, n_link, n_variable, created)"
                       " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       &st, err) < 0)
        goto fail;
    if (new_id >= 0)
        sqlite3_bind_int64(st, 1, new_id);
    else
        sqlite3_bind_null(st, 1); /* the next rowid */
    sqlite3_bind_text(st, 2, info->name, -1, SQLITE_STATIC);
    bind_text_or_null(st, 3, info->alias);
    bind_text_or_null(st, 4, info->format);
    sqlite3_bind_text(st, 5, w->file, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, info->time_unit);
    sqlite3_bind_int64(st, 7, info->min_ts);
    sqlite3_bind_int64(st, 8, info->max_ts);
    sqlite3_bind_int64(st, 9, info->events);
    sqlite3_bind_int64(st, 10, info->producers);
    sqlite3_bind_int64(st, 11, info->event_types);
    for (int k = 0; k < 4; k++)
        sqlite3_bind_int64(st, 12 + k, info->categories[k]);
    sqlite3_bind_int64(st, 16, info->created);
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
    if (old_file) {
        /* readers that opened it keep reading it; if this fails, the next open sweeps the orphan */
        char *old = tz_sqlite_trace_path(w->ws, old_file);
        if (old)
            unlink(old);
        free(old);
        free(old_file);
    }
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
    free(old_file);
    return -1;
}

int tz_sqlite_w_commit(tz_wstate *w, int sorted, int replace, const traza_trace_info *info, int64_t *id, traza_err *err)
{
    (void)sorted; /* the backend tracks the order itself (w->mode) */
    if (w->mode == MODE_BUFFER && settle(w, err) < 0)
        goto fail;
    char meta[256]; /* after settle(): max_duration counts every event */
    snprintf(meta, sizeof meta,
             "INSERT INTO meta VALUES('format_version', 1); INSERT INTO meta VALUES('max_duration', %lld);"
             "INSERT INTO meta VALUES('events', %lld);",
             (long long)w->max_duration, (long long)info->events);
    if (tz_sql_exec(w->db, meta, "finishing the import", err) < 0)
        goto fail;
    int spilled = w->mode == MODE_SPILLED;
    /* Without id lists the (type, producer) index is built by SQLite after the pages
     * are in (for a spilled import, in the copy that reorder() makes). */
    if (w->lists_off && tz_sql_exec(w->db, "DROP INDEX event_type_producer", "indexing the trace", err) < 0)
        goto fail;
    /* Packed: the event table and its index give way to event_pack and event_tp,
     * written by the page writer (they need the id lists, and the rows in order). */
    if (w->direct_pack && w->lists_off && unpack_rows(w, err) < 0) /* posting lists need the id lists */
        goto fail;
    w->pack = w->pack_asked > 0 && !spilled && !w->lists_off;
    if (w->pack &&
        (tz_sql_exec(w->db,
                     "DROP INDEX event_type_producer; DROP TABLE event;"
                     "CREATE TABLE event_pack(id INTEGER PRIMARY KEY, data BLOB NOT NULL);"
                     "CREATE TABLE event_tp(type INTEGER NOT NULL, producer INTEGER NOT NULL, first INTEGER NOT NULL,"
                     " ids BLOB NOT NULL, PRIMARY KEY(type, producer, first)) WITHOUT ROWID;"
                     "INSERT INTO meta VALUES('event_layout', 'packed');",
                     "packing the events", err) < 0 ||
         root_page(w->db, "event_pack", &w->root_pack, err) < 0 || root_page(w->db, "event_tp", &w->root_ptp, err) < 0))
        goto fail;
    /* param_value is sorted in memory within the sort budget, else by CREATE INDEX */
    w->pv_pages = !spilled && tz_pv_bytes(tz_rec_spool_count(w->ps), w->pstr_bytes) <= w->sort_mem;
    if (!w->pv_pages && tz_sql_exec(w->db, "DROP INDEX param_value", "indexing the trace", err) < 0)
        goto fail;
    if (tz_sql_exec(w->db, "COMMIT", "finishing the import", err) < 0)
        goto fail;
    finalize_all(w);
    sqlite3_close(w->db);
    w->db = NULL;
    if (write_pages(w, err) < 0)
        goto fail;
    tz_table_writer_free(w->bt);
    packer_free(w);
    tz_rec_spool_free(w->ps);
    w->bt = NULL;
    w->ps = NULL;
    lists_free(w);
    int packed;
    if (open_bulk_db(w->tmp, &w->db, err) < 0 || tz_sqlite_packed_attach(w->db, &packed, err) < 0 ||
        tz_sql_exec(w->db, "BEGIN", "finishing the import", err) < 0)
        goto fail;
    if (spilled) {
        if (reorder(w, err) < 0 || tz_sqlite_create_indexes(w->db, err) < 0)
            goto fail;
    } else if ((w->lists_off &&
                tz_sql_exec(w->db, "CREATE INDEX event_type_producer ON event(type, producer)", "indexing the trace", err) < 0) ||
               (!w->pv_pages && tz_sql_exec(w->db, "CREATE INDEX param_value ON param(def, value)", "indexing the trace", err) < 0)) {
        goto fail;
    }
    /* the overview sample, read while the event pages are still cached */
    if (tz_sqlite_overview_write(w->db, info->events, err) < 0 || tz_sql_exec(w->db, "COMMIT", "finishing the import", err) < 0)
        goto fail;
    /* Statistics for the planner (tz_sqlite_create_indexes ran them for a spilled import). */
    if (!spilled && tz_sql_exec(w->db, "PRAGMA analysis_limit=1000; ANALYZE;", "indexing the trace", err) < 0)
        goto fail;
    if (sqlite3_close(w->db) != SQLITE_OK) {
        traza_err_set(err, TRAZA_E_IO, "%s: closing failed", w->tmp);
        goto fail;
    }
    w->db = NULL;
    if (fsync_path(w->tmp, 0) < 0) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot sync to disk: %s", w->tmp, strerror(errno));
        goto fail;
    }
    if (publish(w, info, replace, id, err) < 0)
        goto fail;
    wstate_free(w, 0);
    return 0;
fail:
    wstate_free(w, 1);
    return -1;
}

void tz_sqlite_w_abort(tz_wstate *w) { wstate_free(w, 1); }

/* pack_asked: > 0 packed, < 0 rows; +-1 the importer's default or the environment,
 * +-2 the user's choice (which stands). */
void tz_sqlite_w_layout(tz_wstate *w, int packed, int strong)
{
    if (strong)
        w->pack_asked = packed ? 2 : -2;
    else if (w->pack_asked == 0)
        w->pack_asked = packed ? 1 : -1;
}

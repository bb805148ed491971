/* Writing SQLite b-trees directly, for the bulk import (doc/store.md, "The page
 * writer"). Layouts: the SQLite database file format (sqlite.org/fileformat.html). */
#ifndef TZ_SQLITE_BTREE_H
#define TZ_SQLITE_BTREE_H

#include <stddef.h>
#include <stdint.h>
#include "traza/model.h"
#include "traza/error.h"

/* Largest record the writers accept (event rows and index entries are far smaller:
 * no record needs overflow pages). */
#define TZ_BT_MAXREC 128

/* ---- records ---------------------------------------------------------------- */

/* The record of an `event` row (columns of tz_sqlite_create_schema; the id column is
 * the rowid, stored as NULL; trailing NULL columns are left out, which SQLite reads
 * as NULL). schema4: the file's schema format is 4 (integers 0 and 1 take no body).
 * Returns the record's length (<= TZ_BT_MAXREC). */
size_t tz_bt_event_record(const traza_event *ev, int schema4, unsigned char *out);
/* Decodes such a record (or one written by SQLite) into ev's fixed fields.
 * Returns 0, or -1 when the bytes are not a record of that shape. */
int tz_bt_event_decode(const unsigned char *rec, size_t n, traza_event *ev);
/* The record of an index entry (type, producer, rowid). */
size_t tz_bt_tp_record(int32_t type, int32_t producer, int64_t rowid, int schema4, unsigned char *out);

/* ---- a table b-tree built in rowid order ------------------------------------- */

/* Leaf pages are filled in memory and spooled to a side file; the b-tree is written
 * into the database file by tz_dbf_put_table once SQLite has closed it. Rows carry
 * a time stamp so that a caller that stores them in time order can search them. */
typedef struct tz_btw tz_btw;

int tz_btw_open(tz_btw **out, const char *spool_path, uint32_t page_size, traza_err *err);
/* Appends a row; rowids must increase. */
int tz_btw_add(tz_btw *t, int64_t rowid, int64_t ts, const unsigned char *rec, size_t n, traza_err *err);
int64_t tz_btw_rows(const tz_btw *t);
/* The first rowid whose ts is > m, assuming rows were added in time order
 * (last rowid + 1 when none). */
int tz_btw_first_after(tz_btw *t, int64_t m, int64_t *rowid, traza_err *err);
/* Hands the rows with rowid >= from to cb, in rowid order, then removes them.
 * cb returns 0, or -1 to stop (its error is then in err). */
typedef int (*tz_btw_row_cb)(void *ctx, int64_t rowid, const unsigned char *rec, size_t n, traza_err *err);
int tz_btw_take_from(tz_btw *t, int64_t from, tz_btw_row_cb cb, void *ctx, traza_err *err);
/* Closes and removes the spool. */
void tz_btw_free(tz_btw *t);

/* ---- the database file, after SQLite closed it -------------------------------- */

typedef struct tz_dbf {
    int fd;
    const char *path;
    uint32_t page_size;
    uint32_t npages;   /* pages in the file, growing as b-trees are appended */
    uint32_t lock_page; /* the page holding the lock bytes, never used */
    int schema4;
    unsigned char *buf; /* pages waiting to be written, contiguous from buf_first */
    uint32_t buf_first, buf_n, buf_cap;
} tz_dbf;

/* Opens a closed SQLite file and checks that its layout is one the writers handle
 * (page size, no reserved bytes, no auto-vacuum, header page count = file size). */
int tz_dbf_open(tz_dbf *f, const char *path, traza_err *err);
/* Writes the table b-tree of t into the file; its top page goes to page `root`
 * (the empty leaf that CREATE TABLE made). */
int tz_dbf_put_table(tz_dbf *f, uint32_t root, tz_btw *t, traza_err *err);
/* Writes an index b-tree of `count` entries whose records `next` delivers in index
 * order (next returns the record length, 0 when done, or -1 on error). */
typedef int (*tz_bt_next_fn)(void *ctx, unsigned char *rec, traza_err *err);
int tz_dbf_put_index(tz_dbf *f, uint32_t root, uint64_t count, tz_bt_next_fn next, void *ctx, traza_err *err);
/* Writes the header (page count, change counter), sets the file length, closes. */
int tz_dbf_close(tz_dbf *f, traza_err *err);
/* Closes without finishing (after an error). */
void tz_dbf_abort(tz_dbf *f);

#endif

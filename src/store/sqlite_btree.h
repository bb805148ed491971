/* Writing SQLite b-trees directly, for the bulk import (doc/store.md, "The page
 * writer"). Layouts: the SQLite database file format (sqlite.org/fileformat.html). */
#ifndef TZ_SQLITE_BTREE_H
#define TZ_SQLITE_BTREE_H

#include <stddef.h>
#include <stdint.h>
#include "traza/model.h"
#include "traza/error.h"
#include "util/util.h"

/* Largest record the writers accept (event rows and index entries are far smaller:
 * no record needs overflow pages), and the size of the buffers records are written
 * into: the writer stores 8 bytes at a time, past a record's end too. */
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

/* A record of up to 8 columns, appended to out. */
enum { TZ_BT_NULL, TZ_BT_INT, TZ_BT_REAL, TZ_BT_TEXT, TZ_BT_BLOB };
typedef struct tz_bt_col {
    int kind; /* TZ_BT_* */
    int64_t i;
    double d; /* a NaN is stored as NULL, as SQLite does */
    const char *s; /* text or blob */
    size_t slen;
} tz_bt_col;
void tz_bt_record(const tz_bt_col *cols, size_t n, int schema4, tz_buf *out);

/* The blob of a record whose other columns are NULL (an event_pack row): 0 with
 * *blob and *len set, or -1 when the record is not of that shape. */
int tz_bt_last_blob(const unsigned char *rec, size_t n, const unsigned char **blob, size_t *len);

/* The record of a `param` row (event, def, value), a WITHOUT ROWID table whose key is
 * (event, def): appended to out. */
void tz_bt_param_record(int64_t event, int32_t def, const traza_value *v, int schema4, tz_buf *out);
/* Decodes it; a string value points into rec (not NUL-terminated: *slen bytes). */
int tz_bt_param_decode(const unsigned char *rec, size_t n, int64_t *event, int32_t *def, traza_value *v, size_t *slen);

/* ---- a spool of records in key order ------------------------------------------- */

/* Records appended with a non-decreasing 64-bit key (the event id), kept in a side
 * file until commit, then handed to tz_dbfile_put_index by tz_rec_spool_next. */
typedef struct tz_rec_spool tz_rec_spool;
int tz_rec_spool_open(tz_rec_spool **out, const char *path, traza_err *err);
int tz_rec_spool_add(tz_rec_spool *r, int64_t key, const unsigned char *rec, size_t n, traza_err *err);
uint64_t tz_rec_spool_count(const tz_rec_spool *r);
/* Hands the records with key >= from to cb in order, then removes them. */
typedef int (*tz_rec_spool_cb)(void *ctx, int64_t key, const unsigned char *rec, size_t n, traza_err *err);
int tz_rec_spool_take_from(tz_rec_spool *r, int64_t from, tz_rec_spool_cb cb, void *ctx, traza_err *err);
/* Starts reading the records back from the first (after the last add). */
int tz_rec_spool_rewind(tz_rec_spool *r, traza_err *err);
/* A tz_bt_next_fn over the spool (ctx: the tz_rec_spool). */
int tz_rec_spool_next(void *ctx, const unsigned char **rec, size_t *n, traza_err *err);
void tz_rec_spool_free(tz_rec_spool *r);

/* ---- a table b-tree built in rowid order ------------------------------------- */

/* Leaf pages are filled in memory and spooled to a side file; the b-tree is written
 * into the database file by tz_dbfile_put_table once SQLite has closed it. Rows carry
 * a time stamp so that a caller that stores them in time order can search them. */
typedef struct tz_table_writer tz_table_writer;

int tz_table_writer_open(tz_table_writer **out, const char *spool_path, uint32_t page_size, traza_err *err);
/* Appends a row; rowids must increase. */
int tz_table_writer_add(tz_table_writer *t, int64_t rowid, int64_t ts, const unsigned char *rec, size_t n, traza_err *err);
int64_t tz_table_writer_rows(const tz_table_writer *t);
/* The first rowid whose ts is > m, assuming rows were added in time order
 * (last rowid + 1 when none). */
int tz_table_writer_first_after(tz_table_writer *t, int64_t m, int64_t *rowid, traza_err *err);
/* Hands the rows with rowid >= from to cb, in rowid order, then removes them. Rows
 * below `from` on the same page are event rows (their time is read back); any
 * record is taken from 1.
 * cb returns 0, or -1 to stop (its error is then in err). */
typedef int (*tz_table_writer_row_cb)(void *ctx, int64_t rowid, const unsigned char *rec, size_t n, traza_err *err);
int tz_table_writer_take_from(tz_table_writer *t, int64_t from, tz_table_writer_row_cb cb, void *ctx, traza_err *err);
/* Closes and removes the spool. */
void tz_table_writer_free(tz_table_writer *t);

/* ---- the database file, after SQLite closed it -------------------------------- */

typedef struct tz_dbfile {
    int fd;
    const char *path;
    uint32_t page_size;
    uint32_t npages;   /* pages in the file, growing as b-trees are appended */
    uint32_t lock_page; /* the page holding the lock bytes, never used */
    int schema4;
    unsigned char *buf; /* pages waiting to be written, contiguous from buf_first */
    uint32_t buf_first, buf_n, buf_cap;
} tz_dbfile;

/* Opens a closed SQLite file and checks that its layout is one the writers handle
 * (page size, no reserved bytes, no auto-vacuum, header page count = file size). */
int tz_dbfile_open(tz_dbfile *f, const char *path, traza_err *err);
/* Writes the table b-tree of t into the file; its top page goes to page `root`
 * (the empty leaf that CREATE TABLE made). */
int tz_dbfile_put_table(tz_dbfile *f, uint32_t root, tz_table_writer *t, traza_err *err);
/* Writes an index b-tree (or a WITHOUT ROWID table) of `count` entries whose records
 * `next` delivers in key order (next returns 1 with *rec, *n set, 0 when done, -1 on
 * error). Records of any length: long ones get overflow pages. */
typedef int (*tz_bt_next_fn)(void *ctx, const unsigned char **rec, size_t *n, traza_err *err);
int tz_dbfile_put_index(tz_dbfile *f, uint32_t root, uint64_t count, tz_bt_next_fn next, void *ctx, traza_err *err);
/* Writes the header (page count, change counter), sets the file length, closes. */
int tz_dbfile_close(tz_dbfile *f, traza_err *err);
/* Closes without finishing (after an error). */
void tz_dbfile_abort(tz_dbfile *f);

#endif

/* The param_value index written by the page writer (sqlite_pvindex.c). */
#ifndef TZ_SQLITE_PVINDEX_H
#define TZ_SQLITE_PVINDEX_H

#include <stddef.h>
#include <stdint.h>
#include "store/sqlite_btree.h"

/* Memory the in-memory sort needs for nparams values holding string_bytes of text. */
size_t tz_pv_bytes(uint64_t nparams, uint64_t string_bytes);
/* Writes param_value (def, value, event) from the param spool into the file. */
int tz_pv_write(tz_dbfile *f, uint32_t root, tz_rec_spool *ps, traza_err *err);

#endif

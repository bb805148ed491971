/* The packed event table: events stored many to a row (doc/store.md, "Packed
 * events"). A block holds up to TZ_PACK_BLOCK events of consecutive ids, each as a
 * flags byte and LEB128 fields relative to the event before it; a posting list
 * holds the ids of one (type, producer) as LEB128 gaps. Both are written by the
 * bulk writer and read by the `event` virtual table (sqlite_packed.c). The decoders
 * check every byte: a store file may come from anywhere. */
#ifndef TZ_EVENT_PACK_H
#define TZ_EVENT_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "traza/model.h"
#include "util/util.h"

#define TZ_PACK_BLOCK 256  /* events per block */
#define TZ_PACK_IDS 512    /* ids per posting-list chunk */
#define TZ_PACK_MAXEV 72   /* bytes one event can take: flags, 6 LEB128 fields, a double */
#define TZ_PACK_BYTES 2000 /* a block ends before it would pass this (a row stays in its page) */

/* Appends ev's fixed fields to a block; prev is the event before it in the block
 * (NULL for the first). ev->ts must not be before prev->ts. Writes at most
 * TZ_PACK_MAXEV bytes at out: their count. */
size_t tz_pack_put(const traza_event *prev, const traza_event *ev, unsigned char *out);

/* A decoded block: events first_id .. first_id + n - 1. */
typedef struct tz_pack_block {
    int64_t first_id;
    size_t n;
    int64_t ts[TZ_PACK_BLOCK], end_ts[TZ_PACK_BLOCK];
    int32_t type[TZ_PACK_BLOCK], producer[TZ_PACK_BLOCK], end_producer[TZ_PACK_BLOCK], level[TZ_PACK_BLOCK],
        cpu[TZ_PACK_BLOCK];
    uint8_t has[TZ_PACK_BLOCK]; /* TRAZA_HAS_* */
    double value[TZ_PACK_BLOCK];
} tz_pack_block;

/* Decodes a block's bytes. 0, or -1 when they are not a block (empty, more than
 * TZ_PACK_BLOCK events, a field cut short or out of range, an unknown flag). */
int tz_pack_decode(const unsigned char *b, size_t n, int64_t first_id, tz_pack_block *out);
/* Event i of a block as a traza_event (no parameters). */
void tz_pack_event(const tz_pack_block *blk, size_t i, traza_event *ev);

/* A posting list chunk: ids after `first` (itself an id of the list) as gaps. Appends
 * the gap from prev to id (id > prev) to out. */
void tz_pack_put_id(tz_buf *out, int64_t prev, int64_t id);
/* Decodes a chunk into ids[] (first, then each gap added): the count, or -1 when
 * the bytes are not a chunk (a gap of 0, an id past INT64_MAX, more than cap ids). */
long tz_pack_ids(const unsigned char *b, size_t n, int64_t first, int64_t *ids, size_t cap);

#endif

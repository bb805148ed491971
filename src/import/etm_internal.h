/* Internal: CoreSight snapshot .ini files and the snapshot model. */
#ifndef TZ_ETM_INTERNAL_H
#define TZ_ETM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"
#include "traza/etm.h"

typedef struct tz_ini_kv {
    char *section, *key, *value; /* key without a "(...)" suffix */
} tz_ini_kv;

typedef struct tz_ini {
    tz_ini_kv *kv;
    size_t n, cap;
} tz_ini;

/* Parses INI text ("[section]", "key=value", ';' or '#' comments). `fname` names the
 * file in errors ("FILE:LINE: ..."). */
int tz_ini_parse(const char *text, size_t len, const char *fname, tz_ini *out, traza_err *err);
void tz_ini_free(tz_ini *ini);
/* The value of section/key (case-insensitive key), or NULL. */
const char *tz_ini_get(const tz_ini *ini, const char *section, const char *key);

typedef struct tz_ss_dump {
    char *path;       /* resolved against the snapshot directory */
    uint64_t address, offset, length; /* length 0 = the whole file */
} tz_ss_dump;

typedef struct tz_ss_device {
    char *name, *cls, *type;
    tz_ini ini;
    tz_ss_dump *dumps;
    size_t ndumps;
} tz_ss_device;

typedef struct tz_ss_buffer {
    char *name, *path, *format;
} tz_ss_buffer;

typedef struct tz_snapshot {
    tz_ss_device *dev;
    size_t ndev;
    tz_ss_buffer *buf;
    size_t nbuf;
    tz_ini trace;       /* trace.ini: source_buffers, core_trace_sources */
} tz_snapshot;

int tz_snapshot_load(const char *dir, tz_snapshot *ss, traza_err *err);

/* Function names of code addresses, from the snapshot's memory images that are ELF
 * files and from `elf` (NULL: none; else an ELF program at its link addresses, an
 * error when it has no function symbols). */
typedef struct tz_etm_syms tz_etm_syms;
int tz_etm_syms_open(const tz_snapshot *ss, const char *elf, tz_etm_syms **out, traza_err *err);
/* The function containing addr, or NULL. */
const char *tz_etm_syms_func(const tz_etm_syms *s, uint64_t addr);
void tz_etm_syms_close(tz_etm_syms *s);
void tz_snapshot_free(tz_snapshot *ss);

/* The time of the elements from the trace's timestamps (etm_time.c): a first decoding
 * pass through tz_etm_time_scan, then tz_etm_time_usable, then tz_etm_time_place on
 * each element of a second pass, in the same order. hz: the timestamp counter's
 * frequency (times in nanoseconds), 0 for ticks. */
typedef struct tz_etm_time tz_etm_time;
int tz_etm_time_new(double hz, tz_etm_time **out, traza_err *err);
/* A traza_etm_decode callback (u: the tz_etm_time). */
int tz_etm_time_scan(void *u, const traza_etm_elem *e, traza_err *err);
/* After the first pass: whether the timestamps can tell the time (there are some and
 * every core that executed instructions has its own). */
int tz_etm_time_usable(tz_etm_time *t);
/* The number of timestamps scanned. */
int64_t tz_etm_time_count(const tz_etm_time *t);
/* The cycles per time unit of the core's cycle-accurate segments; 0 when it has none. */
double tz_etm_time_rate(const tz_etm_time *t, const char *core);
/* The time of the next element of the second pass (end_ts: a range's end, else ts). */
int tz_etm_time_place(tz_etm_time *t, const traza_etm_elem *e, int64_t *ts, int64_t *end_ts, traza_err *err);
void tz_etm_time_free(tz_etm_time *t);
/* The whole of a file (a trace buffer, a memory dump) into *data (free()). */
int tz_etm_read_file(const char *path, uint8_t **data, size_t *len, traza_err *err);
const tz_ss_device *tz_snapshot_device(const tz_snapshot *ss, const char *name);
/* The core device name whose trace source is `source`, or NULL. */
const char *tz_snapshot_core_of(const tz_snapshot *ss, const char *source);

#endif

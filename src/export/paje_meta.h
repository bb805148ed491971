/* Internal: reading back the Pajé names the Pajé importers keep (paje_common.h), for
 * the Pajé and pjdump exporters. Traces from other formats get defaults. */
#ifndef TZ_PAJE_META_H
#define TZ_PAJE_META_H

#include "traza/store.h"

typedef struct tz_paje_etype {
    const char *ptype;  /* Pajé type name */
    const char *value;  /* entity value name ("" for variables and links) */
} tz_paje_etype;

typedef struct tz_paje_meta {
    tz_paje_etype *etypes;   /* by event type id */
    size_t netypes;
    int64_t *cstart, *cend;  /* by producer id; has_ctimes[i] says if known */
    unsigned char *has_ctimes;
    size_t nprod;
    int paje_root;           /* producer 0 is Pajé's root container "0" */
    char *types_copy;        /* storage of the strings */
} tz_paje_meta;

int tz_paje_meta_load(traza_trace *t, tz_paje_meta *m, traza_err *err);
void tz_paje_meta_free(tz_paje_meta *m);

/* Ticks of 10^unit s as an exact decimal number of seconds ("1.25", "0", "3"). */
void tz_paje_time_text(int64_t ticks, int unit, char *buf, size_t size);
/* The same as a double (correctly rounded, like strtod of the text). */
double tz_paje_time_double(int64_t ticks, int unit);

#endif

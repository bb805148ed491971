/* Internal: shared pieces of the line-oriented importers (kptrace, pc, csv):
 * field splitting with quotes, exact fixed-point time parsing, typed parameter
 * values, name caches and precise error messages. */
#ifndef TZ_IMPORT_CSVUTIL_H
#define TZ_IMPORT_CSVUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "util/input.h"
#include "traza/store.h"
#include "util/util.h"

/* The fields of one line, split in place (each NUL-terminated). */
typedef struct tz_fields {
    char **f;
    size_t *len;
    size_t n, cap;
} tz_fields;

void tz_fields_free(tz_fields *r);
/* Splits `line` on `sep`; a field starting with '"' is quoted ("" is a quote) and
 * unescaped in place. Errors (unterminated quote, text after a closing quote) name
 * path:lineno and the column. */
int tz_fields_split(tz_fields *r, char *line, size_t len, char sep, const char *path, long lineno, traza_err *err);

/* Parses a decimal number "[-]digits[.digits]" and returns value * 10^shift as an
 * exact integer. 0 ok; -1 not a number; -2 out of range; -3 more precision than
 * 10^-shift (a non-zero digit would be lost). shift may be negative. */
int tz_parse_fixed(const char *s, size_t n, int shift, int64_t *out);
/* Fast strict integer: optional '-', 1..19 digits, no spaces. 0 / -1 (not a number) / -2 (overflow). */
int tz_parse_int(const char *s, size_t n, int64_t *out);
/* Number of fraction digits of a decimal number (0 if none, -1 if not a number). */
int tz_frac_digits(const char *s, size_t n);

/* Type guess for a parameter value: hex (0x...), int, double, else string. */
traza_ptype tz_guess_ptype(const char *s, size_t n);
/* Parses s as ptype into v (strings point into s). 0 or -1 if it does not fit. */
int tz_parse_value(traza_ptype t, const char *s, size_t n, traza_value *v);

/* "file:line: column N (name): expected X, found 'Y'" with Y shortened and made
 * printable. name may be NULL. Returns -1. */
int tz_field_err(traza_err *err, const char *path, long line, size_t col, const char *name, const char *expected,
                 const char *found, size_t foundlen);
/* Copies a printable, shortened view of s into buf: its first TZ_SHORTEN_KEEP bytes,
 * then "..." when s is longer. */
#define TZ_SHORTEN_KEEP 40
const char *tz_shorten(const char *s, size_t n, char *buf, size_t size);
/* What tz_shorten needs of a line that parsing will modify in place: its first bytes
 * (one more than it keeps, so it still knows to add "..."). */
typedef struct {
    char head[TZ_SHORTEN_KEEP + 1];
    size_t n;
} tz_line_head;
static inline void tz_line_head_keep(tz_line_head *h, const char *line, size_t len)
{
    h->n = len < sizeof h->head ? len : sizeof h->head;
    memcpy(h->head, line, h->n);
}
/* A space or a tab: the separators of the whitespace-separated text formats. */
static inline int tz_is_blank(char c) { return c == ' ' || c == '\t'; }
/* Checks a line is UTF-8 text without NUL bytes (a NUL would cut the field it is
 * in); the error names path:line and the byte column. */
int tz_check_utf8(const char *line, size_t len, const char *path, long lineno, traza_err *err);

/* A last line without its newline may be a file cut inside that line, and a field
 * cut short can still parse (a number with fewer digits): such a line is an error
 * naming path:line. Returns 0 when the line last read from lr ended with '\n'. */
int tz_check_terminated(const tz_lines *lr, const char *line, size_t len, const char *path, traza_err *err);

/* Name -> id caches in front of the writer's get-or-create calls. */
typedef struct tz_namecache {
    tz_map map;
} tz_namecache;
/* Adds one event for a line importer: on error the message gets "path:line: ";
 * every 65536 events (counted in *evno) reports progress and honours cancellation.
 * Returns 0 or -1. */
int tz_import_emit(traza_ctx *ctx, traza_writer *w, const traza_event *ev, tz_input *in, const char *path, long line,
                   int64_t *evno, traza_err *err);

void tz_namecache_init(tz_namecache *c);
void tz_namecache_free(tz_namecache *c);
/* Producer (flat, under `parent`) by name. -1 on error. */
int32_t tz_cached_producer(tz_namecache *c, traza_writer *w, int32_t parent, const char *name, size_t len,
                           const char *ptype, traza_err *err);
/* Event type by name and category; a second category is an error naming path:line. */
int32_t tz_cached_type(tz_namecache *c, traza_writer *w, const char *name, size_t len, traza_category cat,
                       const char *path, long lineno, traza_err *err);

/* The parameter definitions of a line importer, one slot per (event type, parameter
 * column): the definition is made at the column's first value for that type, its type
 * given or guessed from that value, and every later value is parsed as that type. */
typedef struct tz_param_slots {
    int32_t *defs;          /* [type * width + k], -1 = none yet */
    traza_ptype *ptypes;
    size_t ntypes_cap, width;
} tz_param_slots;
/* Frees the slots and starts again with `width` parameter columns per type. */
void tz_param_slots_reset(tz_param_slots *s, size_t width);
/* Value f of parameter column k of event type t into p (definition and value), the
 * definition named `name` made at the first value, of type `pt` (< 0: guessed from f).
 * *slot_type gets the slot's type. 0; -1 (err set: memory, or the writer refused the
 * definition); -2 when f is not a value of the slot's type (the caller says so). */
int tz_param_slot_value(tz_param_slots *s, traza_writer *w, int32_t t, size_t k, const char *name, int pt, const char *f,
                        size_t fl, traza_param *p, traza_ptype *slot_type, traza_err *err);

/* Picks the separator of a CSV line: the most frequent of , ; TAB outside quotes (',' on ties/none). */
char tz_guess_sep(const char *line, size_t len);
/* Counts lines in head (complete lines only, at most max). */
size_t tz_head_lines(const unsigned char *head, size_t len, const char **starts, size_t *lens, size_t max);

#endif

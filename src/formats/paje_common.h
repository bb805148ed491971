/* What the Pajé importers (native Pajé and pj_dump CSV) and the Pajé exporters share
 * (src/formats/ holds what an importer and an exporter of one format share): how Pajé
 * entities map onto the traza model, and the trace parameters that keep the Pajé names
 * so an export can rebuild the file.
 *
 * Mapping (see doc/formats/paje.md):
 *   container       -> producer (producer type = container type name); Pajé's root
 *                      container "0" (type "0") is producer 0, as pj_dump lists it
 *   PajeSetState/Push -> state event; event type = entity value name (the type name
 *                      when a value has no name), nesting level = pj_dump's imbrication
 *   PajeNewEvent    -> punctual event; event type = entity value name
 *   PajeSetVariable -> variable event (value, end = next change or container end);
 *                      event type = variable type name
 *   Start/EndLink   -> link event from the start container to the end container;
 *                      event type = link type name; parameters value, key, container
 * When one name would be used by two different (Pajé type, value) pairs, the second
 * event type is named "name (Pajé type)" so that every event type maps back to one
 * Pajé type and value.
 *
 * Trace parameters written by the importers:
 *   paje.types      records "<event type id>\x1f<category>\x1f<Pajé type>\x1f<value>\x1e"
 *   paje.containers records "<producer id>\x1f<start ticks>\x1f<end ticks>\x1e"
 */
#ifndef TZ_PAJE_COMMON_H
#define TZ_PAJE_COMMON_H

#include "traza/store.h"
#include "util/util.h"

#define TZ_PAJE_US "\x1f"
#define TZ_PAJE_RS "\x1e"

/* Names of the link event parameters. */
#define TZ_PAJE_P_VALUE "value"
#define TZ_PAJE_P_KEY "key"
#define TZ_PAJE_P_CONTAINER "container"

/* Parses "[+-]digits[.digits][(e|E)[+-]digits]" exactly: value = mant * 10^exp10
 * (mantissa without trailing zeros, at most 19 significant digits). 0, or -1 with
 * *why set to what was wrong. */
int tz_paje_decimal(const char *s, int *neg, uint64_t *mant, int *exp10, const char **why);

#endif

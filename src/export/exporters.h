/* Internal: the exporters built into libtraza (one file per format). */
#ifndef TZ_EXPORTERS_H
#define TZ_EXPORTERS_H

#include "traza/export.h"

extern const traza_exporter tz_exporter_csv;
extern const traza_exporter tz_exporter_paje;
extern const traza_exporter tz_exporter_pjdump;
extern const traza_exporter tz_exporter_chrome;
extern const traza_exporter tz_exporter_perfetto;
extern const traza_exporter tz_exporter_folded;
extern const traza_exporter tz_exporter_pprof;

static const traza_exporter *const tz_exporters[] = {
    &tz_exporter_csv,
    &tz_exporter_paje,
    &tz_exporter_pjdump,
    &tz_exporter_chrome,
    &tz_exporter_perfetto,
    &tz_exporter_folded,
    &tz_exporter_pprof,
    NULL,
};

#endif

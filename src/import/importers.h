/* Internal: the importers built into libtraza (one file per format). */
#ifndef TZ_IMPORTERS_H
#define TZ_IMPORTERS_H

#include "traza/import.h"

extern const traza_importer tz_importer_chrome;
extern const traza_importer tz_importer_uftrace;
extern const traza_importer tz_importer_ctf;

/* In detection order (ties go to the earlier one). */
static const traza_importer *const tz_importers[] = {
    &tz_importer_chrome,
    &tz_importer_uftrace,
    &tz_importer_ctf,
    NULL,
};

#endif

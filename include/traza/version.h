/* traza — the version of libtraza these headers belong to (traza_version() gives the
 * library's at run time). The Makefile reads its VERSION from here. */
#ifndef TRAZA_VERSION_H
#define TRAZA_VERSION_H

#define TRAZA_VERSION_MAJOR 0
#define TRAZA_VERSION_MINOR 1
#define TRAZA_VERSION_PATCH 0
#define TRAZA_VERSION_STRING "0.1.0"
/* One number that grows with each version, for #if checks. */
#define TRAZA_VERSION_NUMBER (TRAZA_VERSION_MAJOR * 10000 + TRAZA_VERSION_MINOR * 100 + TRAZA_VERSION_PATCH)

#endif

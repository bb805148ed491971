/* traza — CoreSight ETM/PTM/ETE trace snapshots decoded with OpenCSD.
 *
 * A snapshot directory (snapshot.ini, device .ini files, trace buffers, memory dumps;
 * the layout of OpenCSD's test snapshots) is decoded per trace source (ETMv3, PTM,
 * ETMv4, ETE as the device files say) into elements: executed instruction ranges,
 * exceptions, trace-on and the like. The "etm" importer stores them; the PC
 * expansion turns ranges into one address per executed instruction. */
#ifndef TRAZA_ETM_H
#define TRAZA_ETM_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)
/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

typedef enum traza_etm_kind {
    TRAZA_ETM_RANGE = 0,      /* executed instructions [start, end) */
    TRAZA_ETM_EXCEPTION,      /* number; end = preferred return address when has_ret */
    TRAZA_ETM_EXCEPTION_RET,
    TRAZA_ETM_TRACE_ON,       /* number = the reason */
    TRAZA_ETM_NO_SYNC,
    TRAZA_ETM_END_OF_TRACE,
    TRAZA_ETM_ADDR_NACC,      /* start = the address with no memory image */
    TRAZA_ETM_OTHER,          /* anything else (events, software trace, markers...): elem_name */
    TRAZA_ETM_TIMESTAMP,      /* timestamp (and cycle_count when has_cc) */
    TRAZA_ETM_PE_CONTEXT,     /* context_id, vmid, secure, el, bits64; isa */
    TRAZA_ETM_CYCLE_COUNT     /* cycle_count: cycles since the previous count */
} traza_etm_kind;

typedef struct traza_etm_elem {
    traza_etm_kind kind;
    const char *core;     /* the core of the source ("cpu_0"), else the source's name */
    const char *source;   /* "ETM_0" */
    const char *protocol; /* "ETMV4I", "ETE", "ETMV3", "PTM" */
    uint8_t trace_id;
    uint64_t index;       /* byte index in the trace buffer of the packet */
    uint64_t start, end;
    uint32_t ninstr;      /* ranges */
    const char *isa;      /* "A64", "A32", "T32", ... */
    uint32_t last_size;   /* size of the last instruction */
    int last_type;        /* OpenCSD ocsd_instr_type of the last instruction */
    int executed;         /* the last instruction executed (conditional not taken = 0) */
    uint32_t number;      /* exception number / trace-on reason */
    int has_ret;
    uint64_t timestamp;   /* TRAZA_ETM_TIMESTAMP */
    int has_cc;           /* cycle_count is valid (any kind) */
    uint32_t cycle_count;
    uint32_t context_id, vmid; /* TRAZA_ETM_PE_CONTEXT */
    int ctxt_id_valid, vmid_valid;
    const char *secure;   /* "secure", "nonsecure", "root", "realm" */
    int el;               /* exception level, -1 when the protocol does not trace it */
    int bits64;
    const char *elem_name; /* OpenCSD's element type name ("OCSD_GEN_TRC_ELEM_...") */
} traza_etm_elem;

/* Returns 0 to continue, non-zero to stop decoding with an error already in err. */
typedef int (*traza_etm_fn)(void *user, const traza_etm_elem *e, traza_err *err);

/* 1 if `dir` holds a snapshot.ini. */
int traza_etm_is_snapshot(const char *dir);
/* Decodes every trace source of every buffer of the snapshot, in buffer order. */
int traza_etm_decode(const char *dir, traza_etm_fn fn, void *user, traza_err *err);
/* One PC per executed instruction (ranges expanded with the memory images; T32
 * instruction sizes read from memory), for the core named `core` (NULL = all cores,
 * in decode order). *pcs is malloc'd. Fails if a range cannot be expanded to exactly
 * its instruction count. */
int traza_etm_pcs(const char *dir, const char *core, uint64_t **pcs, size_t *n, traza_err *err);

#endif /* TRAZA_EXPERIMENTAL_API */
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif

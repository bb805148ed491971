/* The online grammar engine shared by Sequitur and ReSequitur (internal).
 *
 * Doubly-linked circular rule bodies with a guard node per rule, a digram table
 * (open addressing, backward-shift deletion) and free lists, so memory follows the
 * grammar, not the input. In Sequitur mode the order of operations follows
 * Nevill-Manning's reference implementation step by step, so grammars (and Size(G))
 * are the same. In ReSequitur mode nodes carry repetition counts: a^n a^m is merged,
 * digrams compare symbols and counts, and rule uses are counted with repetitions. */
#ifndef TZ_GRAMMAR_ENGINE_H
#define TZ_GRAMMAR_ENGINE_H

#include <stdint.h>
#include "traza/grammar.h"

enum { GK_TERM = 0, GK_RULE = 1, GK_GUARD = 2, GK_DEAD = 3 };
#define GNIL UINT32_MAX
#define GE_MAXID ((1u << 30) - 1)

/* A node's symbol code s = id << 2 | kind: terminals are interned to dense ids
 * (tval[id] is the value), rules are their id, guards carry their rule's id. A
 * digram is then one 64-bit key (s1 << 32 | s2), compared without touching nodes. */
typedef struct gnode {
    uint32_t p, n;
    uint32_t slot; /* digram table slot owned by this node (GNIL: none) */
    uint32_t s;    /* symbol code */
} gnode;

typedef struct grule {
    uint32_t guard;
    uint32_t pinned; /* start rules and cycle rules: never expanded */
    uint64_t uses;   /* with repetition counts */
    int live;
} grule;

typedef struct gslot {
    uint64_t key;  /* digram key */
    uint32_t node; /* GNIL = empty */
    uint32_t h;    /* hash (home = h & mask) */
} gslot;

typedef struct gengine {
    int rle;              /* ReSequitur mode */
    gnode *nodes;
    size_t nnodes, capnodes;
    uint64_t *cnt;        /* ReSequitur: repetition count of each node (Sequitur: all 1, NULL) */
    size_t capcnt;
    uint32_t freenode;
    grule *rules;
    size_t nrules, caprules;
    uint32_t *freerules;
    size_t nfreerules, capfreerules;
    gslot *tab;
    size_t tabcap, tabcount; /* kept at most 1/4 full: short probes and shifts */
    uint64_t *tval;       /* interned terminal values */
    size_t ntval, captval;
    uint32_t *imap;       /* value -> id + 1 (0 = empty), open addressing */
    size_t imapcap;
    uint64_t icv[4096];   /* a direct-mapped cache in front of imap: value ... */
    uint32_t ici[4096];   /* ... and its id + 1 (0 = empty) */
    int oom;
} gengine;

/* Repetition count of node i. */
#define GCNT(e, i) ((e)->rle ? (e)->cnt[(i)] : 1u)
#define GKIND(e, i) ((e)->nodes[(i)].s & 3u)
#define GID(e, i) ((e)->nodes[(i)].s >> 2)
/* Terminal value or rule id of node i. */
static inline uint64_t ge_val(const gengine *e, uint32_t i)
{
    return GKIND(e, i) == GK_TERM ? e->tval[GID(e, i)] : GID(e, i);
}

int ge_init(gengine *e, int rle);
void ge_free(gengine *e);
/* A new pinned root rule; returns its id (GNIL on out of memory). */
uint32_t ge_root(gengine *e);
/* Appends sym^cnt (terminal or rule) to root. 0 or -1 (out of memory). */
int ge_push(gengine *e, uint32_t root, uint64_t v, uint32_t kind, uint64_t cnt);
/* Deletes a root rule whose body is a single r-pair (used by Cyclitur); the body
 * symbol's use is handed to the caller. */
void ge_drop_root(gengine *e, uint32_t root);
/* Exports the rules reachable from `start` (renumbered, start = rule 0). */
traza_grammar *ge_export(gengine *e, uint32_t start, traza_galgo algo, traza_err *err);

#define GFIRST(e, r) ((e)->nodes[(e)->rules[r].guard].n)
#define GLAST(e, r) ((e)->nodes[(e)->rules[r].guard].p)

#endif

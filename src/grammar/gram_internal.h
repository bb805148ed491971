/* Internal helpers of the grammar area. */
#ifndef TZ_GRAM_INTERNAL_H
#define TZ_GRAM_INTERNAL_H

#include <stdint.h>
#include "traza/grammar.h"

/* Rules in an order where every rule comes after the rules it uses. */
int tzg_topo(const traza_grammar *g, uint32_t **order, traza_err *err);

/* The symbols of [at, at + len) of g's expansion into *out (malloc'ed, free() it, even
 * on failure). */
int tzg_expand(const traza_grammar *g, uint64_t at, uint64_t len, uint64_t **out, traza_err *err);

/* The .tzg payload decoder alone (no header, no checksum): for the fuzzer. has_loop_header is
 * the header flags: bit 0 loop header, bit 1 names section. */
traza_grammar *tzg_decode_payload(const unsigned char *p, size_t n, int has_loop_header, traza_err *err);

/* Nodes ever allocated by a builder's engine (its memory high-water mark, in nodes):
 * for tests that memory follows the grammar. */
size_t tzg_builder_nodes(const traza_gbuilder *b);

#endif

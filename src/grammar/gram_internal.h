/* Internal helpers of the grammar area. */
#ifndef TZ_GRAM_INTERNAL_H
#define TZ_GRAM_INTERNAL_H

#include <stdint.h>
#include "traza/grammar.h"

/* Rules in an order where every rule comes after the rules it uses. */
int tzg_topo(const traza_grammar *g, uint32_t **order, traza_err *err);

#endif

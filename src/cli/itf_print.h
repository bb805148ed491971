/* Printing of ITFComp statistics (text or JSON). */
#ifndef TZ_CLI_ITF_PRINT_H
#define TZ_CLI_ITF_PRINT_H
#include <stdio.h>
#include "traza/itf.h"
void itf_print_info(FILE *f, const traza_itf_info *i, int json);
#endif

/* The ITFComp paper's text ITF through the block model (format version 11): each line
 * is coded as a line of the generated ITF and turned back when it is read. The coded
 * form and its rules are in doc/formats/tzi.md, "The paper's ITF in the block model". */
#ifndef TRAZA_ITF_PAPER_H
#define TRAZA_ITF_PAPER_H
#include <stddef.h>
#include "util/util.h"

#define ITF_PAPER_SLOT '\x01' /* where a value stood in the instruction's text */
#define ITF_PAPER_ESC '\x02'  /* first byte of a line kept as it is */
#define ITF_PAPER_MAXVAL 64   /* values a coded line may carry (the writer's MAXMEM) */

/* The coded (generated-ITF) form of the paper line s[0..n) (no newline) into out. */
void itf_paper_to_gen(const char *s, size_t n, tz_buf *out);

/* The text t[0..n) without its values, appended to out: every word (between spaces)
 * holding a slot goes, and with it the word before when that is a flag ("-par"). */
void itf_paper_drop_values(const char *t, size_t n, tz_buf *out);

/* The paper line of the coded line s[0..n) (no newline) appended to out. */
void itf_paper_from_gen(const char *s, size_t n, tz_buf *out);

/* Rewrites the coded lines of b from offset `from` on into paper lines, through `tmp`
 * (emptied; its storage is kept for the next call). A last line without a newline
 * stays without one. 0, or -1 out of memory (b unchanged). */
int itf_paper_rewrite(tz_buf *b, size_t from, tz_buf *tmp);

#endif

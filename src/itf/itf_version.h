/* What each .tzi format version added (doc/formats/tzi.md), as one predicate per
 * feature on the version a file was written with: every "since version N" of the
 * reader is asked here. The writer writes ITF_VERSION only. */
#ifndef TRAZA_ITF_VERSION_H
#define TRAZA_ITF_VERSION_H

#define ITF_VERSION 11    /* the version the writer writes */
#define ITF_VERSION_MIN 2 /* the oldest version the reader accepts */

/* 3: block-model chunks carry the interrupt stream (INT); a text's direct branch
 * target is stored apart, as a 0x01 byte and a TLEN entry. */
static inline int itf_has_interrupts(unsigned v) { return v >= 3; }
static inline int itf_has_branch_targets(unsigned v) { return v >= 3; }

/* 4: a stream may be stored in zero-run form (method bit 0x80); the line model
 * predicts from record contexts and skeleton record starts. */
static inline int itf_has_zero_runs(unsigned v) { return v >= 4; }
static inline int itf_has_record_contexts(unsigned v) { return v >= 4; }

/* 5: a stream may be coded with chunk 0's same stream as preset dictionary (method bit
 * 0x40), or with bzip2 (method 3). */
static inline int itf_has_presets(unsigned v) { return v >= 5; }
static inline int itf_has_bzip2(unsigned v) { return v >= 5; }

/* 6: the skeleton dictionary (SKEL) is front-coded. */
static inline int itf_has_front_coded_skeletons(unsigned v) { return v >= 6; }

/* 7: frames leave out their empty streams' headers (a stream mask); the line model's
 * hits charge the missing candidates a constant, its slot costs decay by >> 2. */
static inline int itf_has_compact_frames(unsigned v) { return v >= 7; }
static inline int itf_has_hit_cost_rules(unsigned v) { return v >= 7; }

/* 8: the block model's addresses, blocks and variants are coded against the
 * predictions of the instruction texts (itf_blockdict.c), read with the texts; branch
 * targets are ranks and pc-relative load offsets are stored apart (0x02). */
static inline int itf_has_text_predictions(unsigned v) { return v >= 8; }

/* 9: the line model's semantic candidate (itf_sem.c). */
static inline int itf_has_semantics(unsigned v) { return v >= 9; }

/* 10: a right semantic prediction is coded 0 and leaves the candidates' costs. */
static inline int itf_has_semantic_zero(unsigned v) { return v >= 10; }

/* 11: the paper's text ITF may be coded in the block model, its lines in the coded form
 * of itf_paper.c (older readers would print that form). */
static inline int itf_has_paper_blocks(unsigned v) { return v >= 11; }

#endif

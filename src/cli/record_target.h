/* traza record --target: a bare-metal target's ring read live through a GDB server
 * (record_target.c). */
#ifndef TZ_CLI_RECORD_TARGET_H
#define TZ_CLI_RECORD_TARGET_H

#include "cli/cli.h"

typedef struct cli_record_target_opts {
    const char *target;   /* gdb://HOST:PORT */
    const char *elf;      /* the firmware */
    const char *name;     /* the trace; NULL: the firmware's file name */
    const char *out;      /* -o: the dump kept there; NULL: none kept */
    double duration_s;    /* 0: until the target exits or Ctrl-C */
    long interval_ms;     /* between polls */
    long refresh_ms;      /* between the imports while recording; 0: at the end only */
} cli_record_target_opts;

int cli_record_target(traza_cli *cli, const cli_record_target_opts *o);

#endif

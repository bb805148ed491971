/* The replay of a parsed runtime dump's thread, shared by the harnesses that parse
 * dumps (fuzz_rtdump.c, fuzz_rtram.c). */
#ifndef TZ_FUZZ_RTREPLAY_H
#define TZ_FUZZ_RTREPLAY_H

#include "import/rtdump.h"

/* Replays thread t (calls and user events in start order) into *acc. */
static void replay(const tz_rtd_thread *t, uint64_t *acc, uint64_t *unmatched)
{
    tz_rtd_replay r;
    traza_err err;
    if (tz_rtd_replay_open(&r, t, unmatched, &err) < 0)
        return;
    tz_rtd_call c;
    const tz_rtd_user *user;
    int k;
    while ((k = tz_rtd_replay_next(&r, &c, &user)) > 0)
        *acc += k == 2 ? user->tsc + user->id : c.end - c.start + (uint64_t)c.level;
    tz_rtd_replay_close(&r);
}

#endif

/* traza runtime dump format (.tzr): shared by the tracer runtime (rt/) and libtraza's
 * importer (src/import/rtdump.c). Freestanding: only <stdint.h>/<stddef.h>.
 * The full description is doc/formats/tzr.md. All integers are little-endian. */
#ifndef TRAZA_RT_FORMAT_H
#define TRAZA_RT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define TZR_MAGIC "TZRDUMP\x1a" /* 8 bytes at offset 0 of a dump */
#define TZR_VERSION 3u /* 2: TASK records and chunks (RTOS tasks); 3: ISR and STATE records, the INFO clock; readers take 1 to 3 */

/* File header: magic[8], u16 version, u16 arch, u8 ptr_size, u8 mode, u16 reserved
 * (16 bytes), then chunks until end of file. */
#define TZR_FILE_HEADER_SIZE 16u

enum tzr_arch { TZR_ARCH_X86_64 = 1, TZR_ARCH_ARM = 2, TZR_ARCH_THUMB = 3, TZR_ARCH_CORTEX_M = 4 };
enum tzr_mode { TZR_MODE_RING = 0, TZR_MODE_STREAM = 1 };

/* Chunk header: u32 type, u32 payload length, u64 checksum (tzr_sum64 of payload). */
#define TZR_CHUNK_HEADER_SIZE 16u
enum tzr_chunk {
    TZR_CHUNK_INFO = 1,   /* u32 pid, u32 clock (enum tzr_clock), u64 load_bias, then exe path bytes (no NUL) */
    TZR_CHUNK_BLOCK = 2,  /* u64 seq, u64 tsc0, u32 tid, u32 used; then `used` event bytes */
    TZR_CHUNK_CALIB = 3,  /* u64 tsc_a, u64 ns_a, u64 tsc_b, u64 ns_b (ticks <-> nanoseconds) */
    TZR_CHUNK_THREAD = 4, /* u32 tid, u32 reserved, u64 events, u64 lost_events,
                             u64 overwritten_blocks, u64 shadow_overflow, u64 first_seq */
    TZR_CHUNK_END = 5,    /* u64 number of chunks before this one */
    TZR_CHUNK_TASK = 6    /* u32 task id, u32 flags (TZR_TASK_ISR), u64 switches in (ISR: entries), then the
                             task's name bytes (no NUL) */
};
/* TASK chunk flags: the "task" is an interrupt handler (its name the handler's) */
#define TZR_TASK_ISR 1u
/* The clock the ticks come from (INFO chunk); 0 where the runtime does not say. */
enum tzr_clock {
    TZR_CLOCK_UNSPECIFIED = 0,
    TZR_CLOCK_DWT = 1,          /* Cortex-M DWT cycle counter (processor cycles) */
    TZR_CLOCK_SYSTICK = 2,      /* Cortex-M SysTick, programmed by the runtime (processor cycles) */
    TZR_CLOCK_SYSTICK_RTOS = 3  /* Cortex-M SysTick as the RTOS programs it, widened by its tick count */
};
/* Task states of STATE records (the Running state is the span between switches) */
enum tzr_task_state { TZR_STATE_READY = 0, TZR_STATE_BLOCKED = 1, TZR_STATE_SUSPENDED = 2 };
#define TZR_BLOCK_HEADER_SIZE 24u
#define TZR_INFO_FIXED 16u
#define TZR_CALIB_SIZE 32u
#define TZR_THREAD_SIZE 48u
#define TZR_TASK_FIXED 16u
/* Largest chunk payload a reader accepts (a runtime block is at most this). */
#define TZR_MAX_CHUNK (16u << 20)

/* Events: a LEB128 varint v = (delta_ticks << 2) | kind, where delta_ticks is the
 * time since the previous event of the block (the first: since tsc0). Then:
 *   ENTRY: zigzag varint of (function address - previous entry's function address)
 *          (the previous starts at 0 in every block); addresses are ELF virtual
 *          addresses (runtime address - load_bias).
 *   EXIT:  nothing.
 *   USER:  varint id, zigzag varint value.
 *   EXT:   u8 subkind; STACK: varint n, n varints of absolute function addresses
 *          (outermost first) = the functions open when the block started.
 *          TASK (RTOS firmware): varint task id, varint n, n varints of absolute
 *          function addresses (outermost first) = the task's open functions. At the
 *          start of a block (instead of STACK): the task running then; anywhere else:
 *          a switch to that task. The events that follow belong to that task.
 *          ISR_ENTER: as TASK, for an interrupt handler (a TASK chunk with
 *          TZR_TASK_ISR): its events follow, the interrupted task stays Running. At
 *          the start of a block: the handler running then.
 *          ISR_EXIT: as TASK: the handler returned to that task or handler (not a
 *          switch).
 *          STATE: varint task id, varint state (enum tzr_task_state): the task
 *          becomes Ready, Blocked or Suspended; for the running task, the state it
 *          takes when it is switched out. */
enum tzr_kind { TZR_K_ENTRY = 0, TZR_K_EXIT = 1, TZR_K_USER = 2, TZR_K_EXT = 3 };
enum tzr_ext { TZR_EXT_STACK = 1, TZR_EXT_TASK = 2, TZR_EXT_ISR_ENTER = 3, TZR_EXT_ISR_EXIT = 4, TZR_EXT_STATE = 5 };

/* The control block of a bare-metal runtime (symbol traza_rt_control, in RAM): what a
 * debugger reads to find the ring and the write position of a running target, and what
 * marks a raw RAM image of it (doc/formats/rtram.md). u32 little-endian words; the
 * *_ADDR words hold target addresses of u32 variables of the runtime. */
#define TZRC_MAGIC 0x43525a54u  /* "TZRC" */
#define TZRC_VERSION 1u
enum tzrc_word {
    TZRC_W_MAGIC = 0,
    TZRC_W_VERSION,        /* TZRC_VERSION */
    TZRC_W_SELF,           /* the control block's own address (places a RAM image) */
    TZRC_W_ARCH,           /* enum tzr_arch */
    TZRC_W_RING,           /* address of the ring: nblocks slots of block_size bytes */
    TZRC_W_BLOCK_SIZE,     /* a slot: TZR_CHUNK_HEADER_SIZE bytes of room, the block header, events */
    TZRC_W_NBLOCKS,
    TZRC_W_CLOCK_HZ,       /* ticks per second of the event clock, 0 if unknown */
    TZRC_W_WP_ADDR,        /* -> the write position (an address in the current slot; 0: not started) */
    TZRC_W_SEQ_ADDR,       /* -> blocks started (the current block's sequence number + 1) */
    TZRC_W_EVENTS_ADDR,    /* -> events written */
    TZRC_W_OVERFLOW_ADDR,  /* -> calls beyond the shadow stack */
    TZRC_WORDS
};
#define TZRC_SIZE (4u * TZRC_WORDS)

/* A cheap 64-bit checksum (two running sums over little-endian u32 words, the tail
 * zero-padded). Fast enough to run in the target on every streamed block. */
static inline uint64_t tzr_sum64(const void *data, size_t n)
{
    const uint8_t *p = (const uint8_t *)data;
    uint64_t a = 1, b = 0;
    size_t i = 0;
/* (not in the size-bound bare-metal runtime, TZ_RING_ONLY) */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(TZ_RING_ONLY)
    for (; i + 8 <= n; i += 8) { /* the same sums, two words per step */
        uint32_t w[2];
        __builtin_memcpy(w, p + i, 8);
        a += w[0];
        b += a;
        a += w[1];
        b += a;
    }
#endif
    for (; i + 4 <= n; i += 4) {
        uint32_t w = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
        a += w;
        b += a;
    }
    if (i < n) {
        uint32_t w = 0;
        for (size_t k = 0; i + k < n; k++)
            w |= (uint32_t)p[i + k] << (8 * k);
        a += w;
        b += a;
    }
    return (b << 32 | (b >> 32)) ^ a ^ ((uint64_t)n << 48);
}

static inline uint64_t tzr_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t tzr_unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

#endif

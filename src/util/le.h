/* Little-endian integers in byte buffers, for the binary layouts we write
 * (doc/formats/): portable whatever the host's byte order or alignment. */
#ifndef TZ_LE_H
#define TZ_LE_H

#include <stdint.h>

static inline void tz_put_le16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void tz_put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void tz_put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t tz_get_le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static inline uint32_t tz_get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t tz_get_le64(const unsigned char *p) { return (uint64_t)tz_get_le32(p) | (uint64_t)tz_get_le32(p + 4) << 32; }

#endif

/* Open-addressing hash maps (linear probing, power-of-two capacity, load <= 1/2). */
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

uint64_t tz_hash_bytes(const void *data, size_t n)
{
    /* FNV-1a, then a final mix: fast and good enough for symbol tables. */
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return tz_hash_u64(h);
}

void tz_map_init(tz_map *m) { memset(m, 0, sizeof *m); }

void tz_map_free(tz_map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    tz_map_init(m);
}

static size_t map_slot(const tz_map *m, const char *key, size_t len)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)tz_hash_bytes(key, len) & mask;
    while (m->keys[i]) {
        if (strncmp(m->keys[i], key, len) == 0 && m->keys[i][len] == '\0')
            return i;
        i = (i + 1) & mask;
    }
    return i;
}

int tz_map_getn(const tz_map *m, const char *key, size_t len, int64_t *val)
{
    if (!m->cap)
        return 0;
    size_t i = map_slot(m, key, len);
    if (!m->keys[i])
        return 0;
    if (val)
        *val = m->vals[i];
    return 1;
}

int tz_map_get(const tz_map *m, const char *key, int64_t *val) { return tz_map_getn(m, key, strlen(key), val); }

static int map_rehash(tz_map *m, size_t ncap)
{
    char **ok = m->keys;
    int64_t *ov = m->vals;
    size_t ocap = m->cap;
    char **nk = calloc(ncap, sizeof *nk);
    int64_t *nv = calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    for (size_t i = 0; i < ocap; i++) {
        if (!ok[i])
            continue;
        size_t j = map_slot(m, ok[i], strlen(ok[i]));
        m->keys[j] = ok[i];
        m->vals[j] = ov[i];
    }
    free(ok);
    free(ov);
    return 0;
}

int tz_map_putn(tz_map *m, const char *key, size_t len, int64_t val)
{
    if ((m->count + 1) * 2 > m->cap && map_rehash(m, m->cap ? m->cap * 2 : 16) < 0)
        return -1;
    size_t i = map_slot(m, key, len);
    if (!m->keys[i]) {
        m->keys[i] = tz_strndup(key, len);
        if (!m->keys[i])
            return -1;
        m->count++;
    }
    m->vals[i] = val;
    return 0;
}

int tz_map_put(tz_map *m, const char *key, int64_t val) { return tz_map_putn(m, key, strlen(key), val); }

void tz_imap_init(tz_imap *m) { memset(m, 0, sizeof *m); }

void tz_imap_free(tz_imap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    tz_imap_init(m);
}

static size_t imap_slot(const tz_imap *m, int64_t key)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)tz_hash_u64((uint64_t)key) & mask;
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

int tz_imap_get(const tz_imap *m, int64_t key, int64_t *val)
{
    if (!m->cap)
        return 0;
    size_t i = imap_slot(m, key);
    if (!m->used[i])
        return 0;
    if (val)
        *val = m->vals[i];
    return 1;
}

int tz_imap_reserve(tz_imap *m, size_t more)
{
    if ((m->count + more) * 2 <= m->cap)
        return 0;
    size_t ncap = m->cap ? m->cap : 16;
    while ((m->count + more) * 2 > ncap)
        ncap *= 2;
    tz_imap n = {calloc(ncap, sizeof(int64_t)), calloc(ncap, sizeof(int64_t)), calloc(ncap, 1), ncap, 0};
    if (!n.keys || !n.vals || !n.used) {
        tz_imap_free(&n);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        size_t j = imap_slot(&n, m->keys[i]);
        n.used[j] = 1;
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
        n.count++;
    }
    tz_imap_free(m);
    *m = n;
    return 0;
}

int tz_imap_put(tz_imap *m, int64_t key, int64_t val)
{
    if (tz_imap_reserve(m, 1) < 0)
        return -1;
    size_t i = imap_slot(m, key);
    if (!m->used[i]) {
        m->used[i] = 1;
        m->keys[i] = key;
        m->count++;
    }
    m->vals[i] = val;
    return 0;
}

/* Trace metadata: the alias and free key/value pairs of the catalogue. */
#include "store/store_internal.h"

#include <string.h>

#define META_KEY_MAX 64
#define META_VALUE_MAX 4096

int traza_meta_key_check(const char *key, traza_err *err)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "a metadata key cannot be empty");
    if (n > META_KEY_MAX)
        return traza_err_set(err, TRAZA_E_USAGE, "metadata key '%.20s...' is %zu characters long (at most %d)", key, n, META_KEY_MAX);
    for (size_t i = 0; i < n; i++) {
        char c = key[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
        if (!ok)
            return traza_err_set(err, TRAZA_E_USAGE,
                                 "metadata key '%s': character %zu ('%c') is not a letter, digit, '_', '-' or '.'", key, i + 1,
                                 c);
    }
    return 0;
}

int traza_meta_check(const traza_kv *kv, size_t n, traza_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (traza_meta_key_check(kv[i].key, err) < 0)
            return -1;
        if (kv[i].value && strlen(kv[i].value) > META_VALUE_MAX)
            return traza_err_set(err, TRAZA_E_USAGE, "the value of metadata key '%s' is %zu bytes long (at most %d)", kv[i].key,
                                 strlen(kv[i].value), META_VALUE_MAX);
    }
    return 0;
}

int traza_workspace_set_meta(traza_workspace *ws, const char *name_or_id, const traza_kv *kv, size_t n, traza_err *err)
{
    if (traza_meta_check(kv, n, err) < 0)
        return -1;
    traza_trace_info info;
    if (tz_ws_resolve(ws, name_or_id, &info, err) < 0)
        return -1;
    int rc = ws->b->ops->meta_set(ws->b, info.id, kv, n, err);
    traza_trace_info_clear(&info);
    return rc;
}

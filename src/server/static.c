/* The embedded front end: "/" and the files of web/dist, compiled in as byte arrays
 * (the table comes from the generated web_assets.c; this weak default is empty so the
 * library also builds without it). */
#include "server/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((weak)) size_t tz_web_assets(const tz_asset **out)
{
    *out = NULL;
    return 0;
}

static const char no_ui[] =
    "<!doctype html><meta charset=utf-8><title>traza</title>"
    "<p>This traza was built without its web front end (web/dist). The JSON API is at /api/ (doc/api.md).</p>\n";

static const char not_found[] = "{\"error\":\"not found\",\"status\":404}\n";

/* index.html with <meta name="traza-token"> after its <head> (the page reads the
 * token from it for its POST requests); the plain page when memory is short. */
static void with_token(const tz_asset *a, const char *token, tz_resp *resp)
{
    const char *head = memmem(a->data, a->len, "<head>", 6);
    size_t at = head ? (size_t)(head - (const char *)a->data) + 6 : 0;
    char meta[128 + TZ_TOKEN_LEN];
    int m = snprintf(meta, sizeof meta, "\n<meta name=\"traza-token\" content=\"%s\">", token);
    char *body = m > 0 && (size_t)m < sizeof meta ? malloc(a->len + (size_t)m) : NULL;
    if (!body)
        return;
    memcpy(body, a->data, at);
    memcpy(body + at, meta, (size_t)m);
    memcpy(body + at + (size_t)m, a->data + at, a->len - at);
    resp->body = body;
    resp->len = a->len + (size_t)m;
    resp->is_static = 0;
}

void tz_static_handle(const char *path, const char *token, tz_resp *resp)
{
    const tz_asset *a;
    size_t n = tz_web_assets(&a);
    const char *want = strcmp(path, "/") == 0 ? "/index.html" : path;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(a[i].path, want) == 0) {
            resp->status = 200;
            resp->ctype = a[i].ctype;
            resp->body = (char *)a[i].data;
            resp->len = a[i].len;
            resp->is_static = 1;
            if (token && *token && strcmp(want, "/index.html") == 0)
                with_token(&a[i], token, resp);
            return;
        }
    }
    resp->is_static = 1;
    if (strcmp(want, "/index.html") == 0) {
        resp->status = 200;
        resp->ctype = "text/html; charset=utf-8";
        resp->body = (char *)no_ui;
        resp->len = sizeof no_ui - 1;
        return;
    }
    resp->status = 404;
    resp->ctype = "application/json";
    resp->body = (char *)not_found;
    resp->len = sizeof not_found - 1;
}

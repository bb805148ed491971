/* The libmicrohttpd function table (src/server/mhd_api.h). */
#include "server/mhd_api.h"

TZ_DYNLIB_DEFINE(mhd, TZ_MHD_FUNCS, "libmicrohttpd.so.12", "libmicrohttpd12", "traza serve")

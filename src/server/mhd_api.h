/* libmicrohttpd, opened on first use by `traza serve` (src/util/dynlib.c says why). */
#ifndef TZ_MHD_API_H
#define TZ_MHD_API_H

#include <microhttpd.h>
#include "util/dynlib.h"

#define TZ_MHD_FUNCS(X)                                                                                                 \
    X(MHD_add_response_header) X(MHD_create_response_from_buffer) X(MHD_destroy_response) X(MHD_get_connection_values) \
    X(MHD_get_daemon_info) X(MHD_queue_response) X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_get_connection_info)

TZ_DYNLIB_DECLARE(mhd, TZ_MHD_FUNCS)

#define MHD_add_response_header (tz_mhd_api_get()->MHD_add_response_header)
#define MHD_create_response_from_buffer (tz_mhd_api_get()->MHD_create_response_from_buffer)
#define MHD_destroy_response (tz_mhd_api_get()->MHD_destroy_response)
#define MHD_get_connection_values (tz_mhd_api_get()->MHD_get_connection_values)
#define MHD_get_connection_info (tz_mhd_api_get()->MHD_get_connection_info)
#define MHD_get_daemon_info (tz_mhd_api_get()->MHD_get_daemon_info)
#define MHD_queue_response (tz_mhd_api_get()->MHD_queue_response)
#define MHD_start_daemon (tz_mhd_api_get()->MHD_start_daemon)
#define MHD_stop_daemon (tz_mhd_api_get()->MHD_stop_daemon)

#endif

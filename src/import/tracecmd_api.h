/* libtracecmd and libtraceevent, opened on first use by the trace-cmd importer
 * (src/util/dynlib.c says why). */
#ifndef TZ_TRACECMD_API_H
#define TZ_TRACECMD_API_H

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include "util/dynlib.h"

#define TZ_TCMD_FUNCS(X) X(tracecmd_open_head) X(tracecmd_init_data) X(tracecmd_close) X(tracecmd_get_tep) X(tracecmd_iterate_events) \
    X(tracecmd_set_loglevel) X(tracecmd_buffer_instances)

#define TZ_TEP_FUNCS(X)                                                                                                  \
    X(tep_find_event_by_record) X(tep_data_pid) X(tep_data_comm_from_pid) X(tep_find_function) X(tep_read_number_field) \
    X(tep_read_number) X(tep_set_loglevel)

TZ_DYNLIB_DECLARE(tcmd, TZ_TCMD_FUNCS)
TZ_DYNLIB_DECLARE(tep, TZ_TEP_FUNCS)

#define tracecmd_open_head (tz_tcmd_api_get()->tracecmd_open_head)
#define tracecmd_init_data (tz_tcmd_api_get()->tracecmd_init_data)
#define tracecmd_close (tz_tcmd_api_get()->tracecmd_close)
#define tracecmd_get_tep (tz_tcmd_api_get()->tracecmd_get_tep)
#define tracecmd_iterate_events (tz_tcmd_api_get()->tracecmd_iterate_events)
#define tracecmd_set_loglevel (tz_tcmd_api_get()->tracecmd_set_loglevel)
#define tracecmd_buffer_instances (tz_tcmd_api_get()->tracecmd_buffer_instances)
#define tep_find_event_by_record (tz_tep_api_get()->tep_find_event_by_record)
#define tep_data_pid (tz_tep_api_get()->tep_data_pid)
#define tep_data_comm_from_pid (tz_tep_api_get()->tep_data_comm_from_pid)
#define tep_find_function (tz_tep_api_get()->tep_find_function)
#define tep_read_number_field (tz_tep_api_get()->tep_read_number_field)
#define tep_read_number (tz_tep_api_get()->tep_read_number)
#define tep_set_loglevel (tz_tep_api_get()->tep_set_loglevel)

#endif

/* libbabeltrace2 (CTF import), opened on first use like libpq, libmicrohttpd and
 * OpenCSD (src/util/dynlib.c says why): linked the usual way, it and GLib cost every
 * traza process their relocations before main, about 0.5 ms of a 2 ms `traza --help`.
 * The header is still the library's own: the types and the static inline helpers
 * (bt_field_class_type_is) come from it; the functions below go through the table. */
#ifndef TZ_BT_API_H
#define TZ_BT_API_H

#include <babeltrace2/babeltrace.h>
#include "util/dynlib.h"

#define TZ_BABEL_FUNCS(X) \
    X(bt_clock_snapshot_get_ns_from_origin) X(bt_component_filter_borrow_input_port_by_index_const)                    \
    X(bt_component_filter_borrow_output_port_by_index_const) X(bt_component_sink_borrow_input_port_by_index_const)     \
    X(bt_component_source_borrow_output_port_by_index_const) X(bt_component_source_get_output_port_count)              \
    X(bt_current_thread_take_error) X(bt_error_borrow_cause_by_index) X(bt_error_cause_get_message)                    \
    X(bt_error_get_cause_count) X(bt_error_release) X(bt_event_borrow_class_const)                                     \
    X(bt_event_borrow_common_context_field_const) X(bt_event_borrow_packet_const)                                      \
    X(bt_event_borrow_payload_field_const) X(bt_event_borrow_specific_context_field_const)                             \
    X(bt_event_borrow_stream_const) X(bt_event_class_get_id) X(bt_event_class_get_name)                                \
    X(bt_field_array_borrow_element_field_by_index_const) X(bt_field_array_get_length)                                 \
    X(bt_field_bit_array_get_value_as_integer) X(bt_field_bool_get_value) X(bt_field_borrow_class_const)               \
    X(bt_field_class_integer_get_preferred_display_base) X(bt_field_class_structure_borrow_member_by_index_const)      \
    X(bt_field_class_structure_get_member_count) X(bt_field_class_structure_member_get_name)                           \
    X(bt_field_get_class_type) X(bt_field_integer_signed_get_value) X(bt_field_integer_unsigned_get_value)             \
    X(bt_field_option_borrow_field_const) X(bt_field_real_double_precision_get_value)                                  \
    X(bt_field_real_single_precision_get_value) X(bt_field_string_get_value)                                           \
    X(bt_field_structure_borrow_member_field_by_index_const) X(bt_field_structure_borrow_member_field_by_name_const)   \
    X(bt_field_variant_borrow_selected_option_field_const) X(bt_graph_add_filter_component)                            \
    X(bt_graph_add_simple_sink_component) X(bt_graph_add_source_component) X(bt_graph_connect_ports)                   \
    X(bt_graph_create) X(bt_graph_put_ref) X(bt_graph_run) X(bt_message_event_borrow_default_clock_snapshot_const)     \
    X(bt_message_event_borrow_event_const) X(bt_message_event_borrow_stream_class_default_clock_class_const)           \
    X(bt_message_get_type) X(bt_message_iterator_next) X(bt_message_put_ref) X(bt_packet_borrow_context_field_const)   \
    X(bt_plugin_borrow_filter_component_class_by_name_const)                                                           \
    X(bt_plugin_borrow_source_component_class_by_name_const) X(bt_plugin_find) X(bt_plugin_put_ref)                    \
    X(bt_stream_borrow_trace_const) X(bt_stream_get_id) X(bt_stream_get_name) X(bt_trace_get_name)                     \
    X(bt_value_array_append_string_element) X(bt_value_array_create) X(bt_value_map_create)                            \
    X(bt_value_map_insert_entry) X(bt_value_put_ref) X(bt_query_executor_create) X(bt_query_executor_query)             \
    X(bt_query_executor_put_ref) X(bt_value_get_type) X(bt_value_array_get_length)                                     \
    X(bt_value_array_borrow_element_by_index_const) X(bt_value_map_borrow_entry_value_const)                           \
    X(bt_value_integer_signed_get) X(bt_message_discarded_events_get_count) X(bt_message_discarded_packets_get_count)

TZ_DYNLIB_DECLARE(babel, TZ_BABEL_FUNCS)

#define bt_clock_snapshot_get_ns_from_origin (tz_babel_api_get()->bt_clock_snapshot_get_ns_from_origin)
#define bt_component_filter_borrow_input_port_by_index_const (tz_babel_api_get()->bt_component_filter_borrow_input_port_by_index_const)
#define bt_component_filter_borrow_output_port_by_index_const (tz_babel_api_get()->bt_component_filter_borrow_output_port_by_index_const)
#define bt_component_sink_borrow_input_port_by_index_const (tz_babel_api_get()->bt_component_sink_borrow_input_port_by_index_const)
#define bt_component_source_borrow_output_port_by_index_const (tz_babel_api_get()->bt_component_source_borrow_output_port_by_index_const)
#define bt_component_source_get_output_port_count (tz_babel_api_get()->bt_component_source_get_output_port_count)
#define bt_current_thread_take_error (tz_babel_api_get()->bt_current_thread_take_error)
#define bt_error_borrow_cause_by_index (tz_babel_api_get()->bt_error_borrow_cause_by_index)
#define bt_error_cause_get_message (tz_babel_api_get()->bt_error_cause_get_message)
#define bt_error_get_cause_count (tz_babel_api_get()->bt_error_get_cause_count)
#define bt_error_release (tz_babel_api_get()->bt_error_release)
#define bt_event_borrow_class_const (tz_babel_api_get()->bt_event_borrow_class_const)
#define bt_event_borrow_common_context_field_const (tz_babel_api_get()->bt_event_borrow_common_context_field_const)
#define bt_event_borrow_packet_const (tz_babel_api_get()->bt_event_borrow_packet_const)
#define bt_event_borrow_payload_field_const (tz_babel_api_get()->bt_event_borrow_payload_field_const)
#define bt_event_borrow_specific_context_field_const (tz_babel_api_get()->bt_event_borrow_specific_context_field_const)
#define bt_event_borrow_stream_const (tz_babel_api_get()->bt_event_borrow_stream_const)
#define bt_event_class_get_id (tz_babel_api_get()->bt_event_class_get_id)
#define bt_event_class_get_name (tz_babel_api_get()->bt_event_class_get_name)
#define bt_field_array_borrow_element_field_by_index_const (tz_babel_api_get()->bt_field_array_borrow_element_field_by_index_const)
#define bt_field_array_get_length (tz_babel_api_get()->bt_field_array_get_length)
#define bt_field_bit_array_get_value_as_integer (tz_babel_api_get()->bt_field_bit_array_get_value_as_integer)
#define bt_field_bool_get_value (tz_babel_api_get()->bt_field_bool_get_value)
#define bt_field_borrow_class_const (tz_babel_api_get()->bt_field_borrow_class_const)
#define bt_field_class_integer_get_preferred_display_base (tz_babel_api_get()->bt_field_class_integer_get_preferred_display_base)
#define bt_field_class_structure_borrow_member_by_index_const (tz_babel_api_get()->bt_field_class_structure_borrow_member_by_index_const)
#define bt_field_class_structure_get_member_count (tz_babel_api_get()->bt_field_class_structure_get_member_count)
#define bt_field_class_structure_member_get_name (tz_babel_api_get()->bt_field_class_structure_member_get_name)
#define bt_field_get_class_type (tz_babel_api_get()->bt_field_get_class_type)
#define bt_field_integer_signed_get_value (tz_babel_api_get()->bt_field_integer_signed_get_value)
#define bt_field_integer_unsigned_get_value (tz_babel_api_get()->bt_field_integer_unsigned_get_value)
#define bt_field_option_borrow_field_const (tz_babel_api_get()->bt_field_option_borrow_field_const)
#define bt_field_real_double_precision_get_value (tz_babel_api_get()->bt_field_real_double_precision_get_value)
#define bt_field_real_single_precision_get_value (tz_babel_api_get()->bt_field_real_single_precision_get_value)
#define bt_field_string_get_value (tz_babel_api_get()->bt_field_string_get_value)
#define bt_field_structure_borrow_member_field_by_index_const (tz_babel_api_get()->bt_field_structure_borrow_member_field_by_index_const)
#define bt_field_structure_borrow_member_field_by_name_const (tz_babel_api_get()->bt_field_structure_borrow_member_field_by_name_const)
#define bt_field_variant_borrow_selected_option_field_const (tz_babel_api_get()->bt_field_variant_borrow_selected_option_field_const)
#define bt_graph_add_filter_component (tz_babel_api_get()->bt_graph_add_filter_component)
#define bt_graph_add_simple_sink_component (tz_babel_api_get()->bt_graph_add_simple_sink_component)
#define bt_graph_add_source_component (tz_babel_api_get()->bt_graph_add_source_component)
#define bt_graph_connect_ports (tz_babel_api_get()->bt_graph_connect_ports)
#define bt_graph_create (tz_babel_api_get()->bt_graph_create)
#define bt_graph_put_ref (tz_babel_api_get()->bt_graph_put_ref)
#define bt_graph_run (tz_babel_api_get()->bt_graph_run)
#define bt_message_event_borrow_default_clock_snapshot_const (tz_babel_api_get()->bt_message_event_borrow_default_clock_snapshot_const)
#define bt_message_event_borrow_event_const (tz_babel_api_get()->bt_message_event_borrow_event_const)
#define bt_message_event_borrow_stream_class_default_clock_class_const (tz_babel_api_get()->bt_message_event_borrow_stream_class_default_clock_class_const)
#define bt_message_get_type (tz_babel_api_get()->bt_message_get_type)
#define bt_message_discarded_events_get_count (tz_babel_api_get()->bt_message_discarded_events_get_count)
#define bt_message_discarded_packets_get_count (tz_babel_api_get()->bt_message_discarded_packets_get_count)
#define bt_message_iterator_next (tz_babel_api_get()->bt_message_iterator_next)
#define bt_message_put_ref (tz_babel_api_get()->bt_message_put_ref)
#define bt_packet_borrow_context_field_const (tz_babel_api_get()->bt_packet_borrow_context_field_const)
#define bt_plugin_borrow_filter_component_class_by_name_const (tz_babel_api_get()->bt_plugin_borrow_filter_component_class_by_name_const)
#define bt_plugin_borrow_source_component_class_by_name_const (tz_babel_api_get()->bt_plugin_borrow_source_component_class_by_name_const)
#define bt_plugin_find (tz_babel_api_get()->bt_plugin_find)
#define bt_plugin_put_ref (tz_babel_api_get()->bt_plugin_put_ref)
#define bt_stream_borrow_trace_const (tz_babel_api_get()->bt_stream_borrow_trace_const)
#define bt_stream_get_id (tz_babel_api_get()->bt_stream_get_id)
#define bt_stream_get_name (tz_babel_api_get()->bt_stream_get_name)
#define bt_trace_get_name (tz_babel_api_get()->bt_trace_get_name)
#define bt_value_array_append_string_element (tz_babel_api_get()->bt_value_array_append_string_element)
#define bt_value_array_create (tz_babel_api_get()->bt_value_array_create)
#define bt_value_map_create (tz_babel_api_get()->bt_value_map_create)
#define bt_value_map_insert_entry (tz_babel_api_get()->bt_value_map_insert_entry)
#define bt_value_put_ref (tz_babel_api_get()->bt_value_put_ref)
#define bt_query_executor_create (tz_babel_api_get()->bt_query_executor_create)
#define bt_query_executor_query (tz_babel_api_get()->bt_query_executor_query)
#define bt_query_executor_put_ref (tz_babel_api_get()->bt_query_executor_put_ref)
#define bt_value_get_type (tz_babel_api_get()->bt_value_get_type)
#define bt_value_array_get_length (tz_babel_api_get()->bt_value_array_get_length)
#define bt_value_array_borrow_element_by_index_const (tz_babel_api_get()->bt_value_array_borrow_element_by_index_const)
#define bt_value_map_borrow_entry_value_const (tz_babel_api_get()->bt_value_map_borrow_entry_value_const)
#define bt_value_integer_signed_get (tz_babel_api_get()->bt_value_integer_signed_get)

#endif

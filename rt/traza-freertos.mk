# The instrumentation flags of a FreeRTOS firmware traced by the Cortex-M runtime
# (doc/tracer-freertos.md): everything instrumented except the port layer (its SVC
# and PendSV handlers are naked functions, and an instrumented vPortSVCHandler
# crashes at the first task start; the exclusion also covers portable/MemMang and the
# inline functions of portmacro.h) and the kernel's switch function (a call open
# across the switch would belong to two tasks). Installed as the trace_cflags
# variable of traza-rt-cm3-freertos.pc.
TRAZA_FREERTOS_TRACE := -finstrument-functions -finstrument-functions-exclude-file-list=portable/ \
                        -finstrument-functions-exclude-function-list=vTaskSwitchContext

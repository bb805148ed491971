# The traza FreeRTOS demo firmware for mps2-an385 (QEMU), and the build recipe of
# doc/tracer-freertos.md. From the traza source tree, after `make rt`:
#   make -f rt/boards/mps2-an385/freertos/freertos.mk FREERTOS=<FreeRTOS-Kernel> OUT=<dir>
FREERTOS ?= ../shared/freertos/FreeRTOS-Kernel
BUILD    ?= build
OUT      ?= $(BUILD)/rt/freertos
RT_LIB   ?= $(BUILD)/rt/cm3/libtraza-rt-cm3-rtos.a
CC       := arm-none-eabi-gcc
DEMO     := rt/boards/mps2-an385/freertos
BOARD    := rt/boards/mps2-an385
CFLAGS   := -mcpu=cortex-m3 -mthumb -O1 -g -ffreestanding -ffunction-sections \
            -I$(DEMO) -Irt/include -I$(FREERTOS)/include -I$(FREERTOS)/portable/GCC/ARM_CM3
# Everything instrumented except the port layer (its handlers are naked functions:
# an instrumented vPortSVCHandler crashes at the first task start) and the kernel's
# switch function (a call open across the switch would belong to two tasks).
TRACE    := -finstrument-functions -finstrument-functions-exclude-file-list=portable/ \
            -finstrument-functions-exclude-function-list=vTaskSwitchContext
KERNEL   := tasks.c queue.c list.c timers.c portable/GCC/ARM_CM3/port.c portable/MemMang/heap_4.c
OBJS     := $(addprefix $(OUT)/k/,$(KERNEL:.c=.o)) $(OUT)/main.o $(OUT)/startup.o

$(OUT)/demo.elf: $(OBJS) $(RT_LIB) $(BOARD)/link.ld
	$(CC) -mcpu=cortex-m3 -mthumb -nostdlib -T $(BOARD)/link.ld -Wl,--gc-sections -o $@ $(OBJS) $(RT_LIB) -lgcc
$(OUT)/k/%.o: $(FREERTOS)/%.c $(DEMO)/FreeRTOSConfig.h rt/include/traza_rt_freertos.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TRACE) -c $< -o $@
$(OUT)/main.o: $(DEMO)/main.c $(DEMO)/FreeRTOSConfig.h rt/include/traza_rt_freertos.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TRACE) -c $< -o $@
$(OUT)/startup.o: $(BOARD)/startup.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

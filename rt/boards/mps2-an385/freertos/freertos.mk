# The traza FreeRTOS demo firmware for mps2-an385 (QEMU), and the build recipe of
# doc/tracer-freertos.md. From the traza source tree, after `make rt`:
#   make -f rt/boards/mps2-an385/freertos/freertos.mk FREERTOS=<FreeRTOS-Kernel> OUT=<dir>
FREERTOS ?= ../shared/freertos/FreeRTOS-Kernel
BUILD    ?= build
OUT      ?= $(BUILD)/rt/freertos
RT_LIB   ?= $(BUILD)/rt/cm3/libtraza-rt-cm3-rtos.a
# the runtime's headers (an installed runtime: pkg-config --cflags traza-rt-cm3-freertos)
CFLAGS_EXTRA ?= -Irt/include
HEADER   := $(wildcard rt/include/traza_rt_freertos.h)
CC       := arm-none-eabi-gcc
DEMO     := rt/boards/mps2-an385/freertos
BOARD    := rt/boards/mps2-an385
CFLAGS   := -mcpu=cortex-m3 -mthumb -O1 -g -ffreestanding -ffunction-sections \
            -I$(DEMO) $(CFLAGS_EXTRA) -I$(FREERTOS)/include -I$(FREERTOS)/portable/GCC/ARM_CM3
include rt/traza-freertos.mk
TRACE    ?= $(TRAZA_FREERTOS_TRACE)
KERNEL   := tasks.c queue.c list.c timers.c portable/GCC/ARM_CM3/port.c portable/MemMang/heap_4.c
OBJS     := $(addprefix $(OUT)/k/,$(KERNEL:.c=.o)) $(OUT)/main.o $(OUT)/startup.o

$(OUT)/demo.elf: $(OBJS) $(RT_LIB) $(BOARD)/link.ld
	$(CC) -mcpu=cortex-m3 -mthumb -nostdlib -T $(BOARD)/link.ld -Wl,--gc-sections -o $@ $(OBJS) $(RT_LIB) -lgcc
$(OUT)/k/%.o: $(FREERTOS)/%.c $(DEMO)/FreeRTOSConfig.h rt/traza-freertos.mk $(HEADER)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TRACE) -c $< -o $@
$(OUT)/main.o: $(DEMO)/main.c $(DEMO)/FreeRTOSConfig.h $(HEADER)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TRACE) -c $< -o $@
$(OUT)/startup.o: $(BOARD)/startup.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

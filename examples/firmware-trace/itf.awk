# The instruction trace of a small Cortex-M3 firmware, as the demo's input for
# ITFComp and Cyclitur (scripts/demo.sh). One line per executed instruction in the
# generated-ITF syntax (address, Thumb-2 disassembly, one mem= per data access,
# CCFAIL when a condition failed; doc/formats/tzi.md):
#   awk -f itf.awk > firmware.itf                 4000 iterations of the main loop
#   awk -v iterations=N -f itf.awk > firmware.itf
# The firmware: a reset handler copies .data, then main loops over sensor_read,
# filter (which keeps the last 16 values in a ring) and crc4 (a CRC of 4 bytes). The SysTick handler cuts in every 25th
# iteration, and twice the CRC check fails and the loop calls log_error: those two
# iterations are the rare cycles Cyclitur reports as anomalies.
function ins(a, text, m1, m2, m3, m4,   s) {
  s = sprintf("0x%08x %s", a, text)
  if (m1 != "") s = s sprintf(" mem=0x%08x", m1)
  if (m2 != "") s = s sprintf(" mem=0x%08x", m2)
  if (m3 != "") s = s sprintf(" mem=0x%08x", m3)
  if (m4 != "") s = s sprintf(" mem=0x%08x", m4)
  print s
}
function branch(a, text, taken) { print sprintf("0x%08x %s", a, text) (taken ? "" : " CCFAIL") }
function sensor_read() {
  ins(1536, "ldr r3, [pc, #8]", 1548); ins(1538, "ldr r0, [r3]", 1073758208)
  ins(1540, "ubfx r0, r0, #0, #0xc"); ins(1544, "bx lr")
}
function filter() {
  ins(1600, "push {r4, lr}", sp - 8, sp - 4); ins(1602, "ldr r3, [pc, #0x14]", 1624)
  ins(1604, "ldr r4, [r3]", 536870928); ins(1606, "add r0, r4"); ins(1608, "asrs r0, r0, #1")
  ins(1610, "str r0, [r3, r1, lsl #2]", 536870976 + 4 * (it % 16)); ins(1614, "pop {r4, pc}", sp - 8, sp - 4)
}
function crc4(   i) {
  ins(1664, "movs r2, #0"); ins(1666, "movs r3, #4")
  for (i = 0; i < 4; i++) {
    ins(1668, "ldrb r1, [r0], #1", 536870944 + i); ins(1672, "eors r2, r1")
    ins(1674, "subs r3, #1"); branch(1676, "bne #0x684", i < 3)
  }
  ins(1678, "mov r0, r2"); ins(1680, "bx lr")
}
function log_error() {
  ins(1728, "push {r3, lr}", sp - 8, sp - 4); ins(1730, "ldr r3, [pc, #0xc]", 1744)
  ins(1732, "str r0, [r3]", 536870960); ins(1734, "ldr r2, [r3, #4]", 536870964)
  ins(1736, "adds r2, #1"); ins(1738, "str r2, [r3, #4]", 536870964)
  ins(1740, "pop {r3, pc}", sp - 8, sp - 4)
}
function systick() {
  ins(512, "ldr r3, [pc, #8]", 524); ins(514, "ldr r2, [r3]", 536870912)
  ins(516, "adds r2, #1"); ins(518, "str r2, [r3]", 536870912); ins(520, "bx lr")
}
BEGIN {
  if (iterations == "") iterations = 4000
  sp = 536879104
  # reset handler: copy 8 words of .data from flash to RAM, then call main
  ins(1024, "ldr r0, [pc, #0x18]", 1052); ins(1026, "ldr r1, [pc, #0x1c]", 1056)
  ins(1028, "ldr r2, [pc, #0x1c]", 1060)
  for (i = 0; i < 8; i++) {
    ins(1030, "ldr r3, [r1], #4", 8192 + 4 * i); ins(1034, "str r3, [r0], #4", 536870912 + 4 * i)
    ins(1038, "cmp r0, r2"); branch(1040, "blo #0x406", i < 7)
  }
  ins(1042, "bl #0x500")
  # main
  ins(1280, "push {r4, r5, r6, lr}", sp - 16, sp - 12, sp - 8, sp - 4); sp -= 16
  ins(1282, "movs r4, #0")
  for (it = 0; it < iterations; it++) {
    bad = it == 1234 || it == 2900
    ins(1284, "bl #0x600"); sensor_read()
    ins(1288, "mov r5, r0")
    if (it % 25 == 24) systick()
    ins(1290, "bl #0x640"); filter()
    ins(1294, "mov r1, r0"); ins(1296, "ldr r0, [pc, #0x2c]", 1344)
    ins(1298, "bl #0x680"); crc4()
    ins(1302, "cmp r0, r5"); branch(1304, "bne #0x530", bad)
    if (bad) {
      ins(1328, "mov r0, r4"); ins(1330, "bl #0x6c0"); log_error(); ins(1334, "b #0x504")
    } else {
      ins(1306, "adds r4, #1"); ins(1308, "b #0x504")
    }
  }
}

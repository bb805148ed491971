# A Tarmac ES text whose register values the line model's candidates sometimes hit and
# sometimes miss (an LCG every 11th iteration, strides otherwise), for the fixtures
# v6_mixed.tzi and v7_mixed.tzi (tests/itf/t_itf.sh): awk -f mixed.awk > mixed.tarmac
BEGIN {
  x = 12345; print "Tarmac Text Rev 3t"
  for (it = 0; it < 400; it++) {
    for (l = 0; l < 4; l++) {
      pc = 32768 + 4 * ((it * 7 + l) % 5); tick = 100 + 10 * it + l
      x = (x * 69069 + 1) % 4294967296
      v = (it % 11 == 0) ? x : (l * 8 + it * 4) % 65536
      printf "%11d tic ES  (%08x:e2800001) A svc_s:          ADD      r0,r0,#%d\n", tick, pc, l + 1
      printf "                    R R0 %08x\n", v
      if (l == 2) printf "                    ST %08x %08x ........ ........ ........    S:%010x    nGnRnE OSH\n", 131072 + 4 * (it % 9), v, 131072 + 4 * (it % 9)
      if (l == 3) printf "                    LD %08x %08x ........ ........ ........    S:%010x    nGnRnE OSH\n", 131072 + 4 * ((it + 4) % 9), x % 7, 131072 + 4 * ((it + 4) % 9)
    }
  }
}

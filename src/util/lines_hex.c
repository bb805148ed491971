/* The table of tz_lines_hex_fast(); see lines_hex.h. */
#include "util/lines_hex.h"

#define D(c, v) [c] = (v) + 1
const unsigned char tz_hexval1[256] = {
    D('0', 0), D('1', 1), D('2', 2), D('3', 3), D('4', 4), D('5', 5), D('6', 6), D('7', 7),
    D('8', 8), D('9', 9), D('a', 10), D('b', 11), D('c', 12), D('d', 13), D('e', 14), D('f', 15),
    D('A', 10), D('B', 11), D('C', 12), D('D', 13), D('E', 14), D('F', 15),
};

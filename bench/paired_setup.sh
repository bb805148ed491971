# The common start of the paired Tarmac benchmarks (bench/itf_cpaired.sh,
# bench/itf_dpaired.sh), sourced from the project root with the script's arguments:
# sets T (traza), B (a second binary, or empty), N (pairs, default $1 of paired_setup),
# D (the Tarmac samples) and W (a temporary folder removed at exit, holding bench/ab.c
# built as $W/ab).
#   paired_setup DEFAULT_N TMP_TEMPLATE [TRAZA [BASE]]
paired_setup() {
  N=${N:-$1}
  W=$(mktemp -d "$2")
  T=${3:-build/traza}; B=${4:-}
  D=${TRAZA_TEST_DATA:-../shared/data}/tarmac
  trap 'rm -rf "$W"' EXIT
  cc -std=c11 -D_GNU_SOURCE -O2 -o "$W/ab" bench/ab.c
}

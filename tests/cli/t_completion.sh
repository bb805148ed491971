#!/usr/bin/env bash
# Shell completion (scripts/completion/): bash completes commands, a command's options
# (from its --help), option choices and trace names (from `traza list --json`, of the
# workspace of -w when given); the zsh completion, which runs the bash one through
# bash, gives the same candidates.
. tests/lib.sh
SRC=${TRAZA_SRC:-.}/scripts/completion
# the completion runs the `traza` of the command line: one on PATH
mkdir -p "$TMP/bin"
ln -s "$TRAZA" "$TMP/bin/traza"
export PATH=$TMP/bin:$PATH
"$TRAZA" gen --events 100 --name alpha >/dev/null 2>&1
"$TRAZA" gen --events 100 --name beta --params 2 >/dev/null 2>&1
ws2=$TMP/ws2
"$TRAZA" -w "$ws2" gen --events 100 --name gamma >/dev/null 2>&1

. "$SRC/traza.bash"
# complete WORD...: the candidates bash offers for the last word, space-separated
complete_line() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _traza
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
check_eq "bash: traza im<TAB> completes the command import" "import" "$(complete_line traza im)"
check_eq "bash: traza query --fr<TAB> completes --from" "--from" "$(complete_line traza query --fr)"
check_eq "bash: traza info <TAB> lists the trace names" "alpha beta" "$(complete_line traza info '')"
check_eq "bash: a trace name prefix" "beta" "$(complete_line traza stats b)"
check_eq "bash: the trace names of the -w workspace" "gamma" "$(complete_line traza -w "$ws2" info '')"
check_eq "bash: rm TRACE... completes every argument" "alpha beta" "$(complete_line traza rm alpha '')"
check_eq "bash: traza help COMMAND" "query" "$(complete_line traza help qu)"
check_eq "bash: the choices of --mode ring|stream" "ring stream" "$(complete_line traza record --mode '')"
check_eq "bash: the verbs of itf" "compress decompress extract stats" "$(complete_line traza itf '')"
check_eq "bash: the verbs of grammar starting with c" "compare compress cycle-time cycles" "$(complete_line traza grammar c)"
check_eq "bash: the global options" "--quiet --verbose --version --workspace" "$(complete_line traza --)"
# options come from --help: every option of query's help, and nothing else
check_eq "bash: every option of query --help, nothing else" "$("$TRAZA" query --help | _traza_help_options | sort | tr '\n' ' ' | sed 's/ $//')" \
  "$(complete_line traza query -)"
check_contains "bash: query completes the filter options" "$(complete_line traza query --)" "--overlap --producer --regex"
# after an option that takes a file, and after a trace: file names
touch "$TMP/only-file.svg"
check_eq "bash: a file name after --svg" "$TMP/only-file.svg" "$(complete_line traza stats alpha --svg "$TMP/only-f")"
check_eq "bash: traza list --j<TAB>" "--json" "$(complete_line traza list --j)"
# trace names are the "name" of each object of the list, not the keys of nested objects
check_eq "bash: the names of a JSON list" "$(printf 'a b\nc"d')" \
  "$(printf '[{"id":1,"name":"a b","params":{"name":"x"},"sources":["name"]},\n{"name" : "c\\"d"}]' | _traza_json_names name)"

if command -v zsh >/dev/null; then
  # the zsh file, sourced with stand-ins for zsh's compadd and _files
  zsh_complete() {
    zsh -f -c 'compadd() { shift; print -r -- "$*" }; _files() { print -r -- "files $*" }
      words=("${@:2}"); CURRENT=$#words; PREFIX=$words[CURRENT]; source "$1"' _ "$SRC/_traza" "$@"
  }
  check_eq "zsh: traza im<TAB>" "import" "$(zsh_complete traza im)"
  check_eq "zsh: traza query --fr<TAB>" "--from" "$(zsh_complete traza query --fr)"
  check_eq "zsh: traza info <TAB>" "alpha beta" "$(zsh_complete traza info '')"
  check_eq "zsh: file names after -o" "files " "$(zsh_complete traza export alpha -o '')"
else
  skip "zsh completion" "no zsh"
fi

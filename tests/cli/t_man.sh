#!/usr/bin/env bash
# The man pages follow the binary: every command `traza help` lists has its page
# man/traza-COMMAND.1, named in traza.1; every option a command's --help lists is in
# the OPTIONS section of its page (the global options: traza.1's); each page has the
# sections a user looks for, names only pages that exist in SEE ALSO, and groff
# renders it without a warning. The checks also run on copies with a planted
# omission, to see them fail.
. tests/lib.sh
# _traza_help_options and _traza_help_commands: what counts as an option and a
# command of the help, the same for the completion and this test
. "${TRAZA_SRC:-.}/scripts/completion/traza.bash"
MAN=${TRAZA_SRC:-.}/man
SECTIONS=(NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES FILES ENVIRONMENT "EXIT STATUS" "SEE ALSO")

# A page's source as a reader sees option names: font escapes and \- undone.
page_text() { sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' "$1"; }
# Its OPTIONS section, where each option is explained.
options_text() { page_text "$1" | awk '/^\.SH/ { on = ($0 ~ /^\.SH "?OPTIONS"?$/) } on'; }

# page_problems DIR: one line per problem of the pages in DIR; nothing when all hold.
page_problems() {
  local dir=$1 cmd page opt text sec ref
  local cmds
  cmds=$("$TRAZA" help | _traza_help_commands)
  [ -n "$cmds" ] || echo "traza help lists no command"
  for cmd in "" $cmds; do
    if [ -z "$cmd" ]; then page=$dir/traza.1; else page=$dir/traza-$cmd.1; fi
    if [ ! -f "$page" ]; then
      echo "$cmd: no page ${page##*/}"
      continue
    fi
    text=$(options_text "$page")
    while read -r opt; do
      grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|\$)" <<<"$text" || echo "${page##*/}: no $opt"
    done < <(if [ -z "$cmd" ]; then "$TRAZA" help; else "$TRAZA" "$cmd" --help; fi | _traza_help_options)
    for sec in "${SECTIONS[@]}"; do
      grep -qx "\.SH \"\?$sec\"\?" "$page" || echo "${page##*/}: no section $sec"
    done
    text=$(page_text "$page")
    for ref in $(grep -oE '^\.BR traza(-[a-z]+)? \(1\)' <<<"$text" | awk '{ print $2 }'); do
      [ -f "$dir/$ref.1" ] || echo "${page##*/}: SEE ALSO names $ref(1), which has no page"
    done
  done
  text=$(page_text "$dir/traza.1" 2>/dev/null)
  for cmd in $cmds; do
    grep -q "^\.BR traza-$cmd (1)" <<<"$text" || echo "traza.1: does not name traza-$cmd(1)"
  done
}

out=$(page_problems "$MAN")
check_eq "every command has a complete page with every option of its --help" "" "$out"

# the same checks on copies with a planted omission
# planted NAME PAGE EDIT PROBLEM: EDIT (a sed script, or rm) applied to a copy of PAGE
# makes page_problems report PROBLEM
planted() {
  rm -rf "$TMP/man" && mkdir "$TMP/man" && cp "$MAN"/*.1 "$TMP/man/"
  if [ "$3" = rm ]; then rm "$TMP/man/$2"; else sed -i "$3" "$TMP/man/$2"; fi
  check_contains "$1" "$(page_problems "$TMP/man")" "$4"
}
planted "an option left out of a page is found" traza-density.1 's/\\-\\-slices/--slices-of/g' \
  "traza-density.1: no --slices"
planted "a short option left out of a page is found" traza-record.1 's/^\\fB\\-o\\fR, //' "traza-record.1: no -o"
planted "a global option left out of traza.1 is found" traza.1 's/^\\fB\\-\\-version\\fR$/\\fB\\-\\-vers\\fR/' \
  "traza.1: no --version"
planted "a command without a page is found" traza-serve.1 rm "serve: no page traza-serve.1"
planted "a page without EXAMPLES is found" traza-gen.1 '/^\.SH EXAMPLES/d' "traza-gen.1: no section EXAMPLES"

# every page renders without a warning (-ww: all of groff's warnings)
if command -v groff >/dev/null; then
  warn=
  for page in "$MAN"/*.1; do
    w=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$w" ] || warn+="${page##*/}: $w"$'\n'
  done
  check_eq "groff renders every page without a warning" "" "$warn"
  printf '.TH X 1\n.SH NAME\nx \\- y\n.XYZ\n' >"$TMP/bad.1"
  check_contains "groff's warnings are seen" "$(groff -man -Tutf8 -ww -z "$TMP/bad.1" 2>&1)" "warning"
else
  skip "groff renders every page without a warning" "no groff"
fi

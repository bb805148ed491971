# bash completion for traza: commands, each command's options, option values listed
# as choices (--mode ring|stream), trace and tool names, and the verbs of grammar/itf.
# Everything is read from the traza being completed (the first word of the line, with
# its -w option), so the completion follows that binary's own help:
#   commands      the "Commands:" list of `traza help`
#   options       the options `traza COMMAND --help` prints (_traza_help_options)
#   trace names   `traza list --json`; tool names: `traza tools`
# Installed as $(PREFIX)/share/bash-completion/completions/traza.

# The options a --help text (on stdin) lists, one per line: those of its synopsis (the
# lines up to the first blank one) and of its indented lines; the prose, at column 0,
# may name another command's options. An option is a long --name or a one-letter -x
# after a blank or one of [ ( |; placeholders (--OPTION) and compiler flags (-pg) are
# not options.
_traza_help_options()
{
    awk 'NR == 1 || syn { syn = ($0 != ""); print; next } /^[[:space:]]/ { print }' |
        grep -oE '(^|[][:space:][(|])--?[A-Za-z][A-Za-z0-9-]*' |
        sed -E 's/^[^-]*//' | grep -E '^(--[a-z][a-z0-9-]*|-[A-Za-z])$' | sort -u
}

# Whether the --help text (on stdin) shows OPTION followed by a value (--svg FILE,
# --mode ring|stream, --regex 'COL~RE').
_traza_takes_value()
{
    grep -qE -- "(^|[][:space:][(|])$1( |=)([A-Z]|[a-z0-9-]+\||')"
}

# The commands of `traza help` (on stdin), one per line.
_traza_help_commands()
{
    awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'
}

# The string values of KEY in the objects of a JSON array (on stdin), e.g. the names
# of `traza list --json`; keys of nested objects (params) are skipped.
_traza_json_names()
{
    awk -v key="$1" '
    { text = text $0 "\n" }
    END {
        depth = 0; n = length(text); want = 0
        for (i = 1; i <= n; i++) {
            c = substr(text, i, 1)
            if (c == "\"") {
                s = ""
                for (i++; i <= n; i++) {
                    c = substr(text, i, 1)
                    if (c == "\\") { i++; s = s substr(text, i, 1); continue }
                    if (c == "\"") break
                    s = s c
                }
                if (want) { print s; want = 0; continue }
                rest = substr(text, i + 1, 8)
                if (depth == 2 && s == key && rest ~ /^[ \t\n]*:/) want = 1
            } else if (c == "{" || c == "[") depth++
            else if (c == "}" || c == "]") { depth--; want = 0 }
            else if (c == "," ) want = 0
        }
    }'
}

# The reply is file names (-f) or folder names (-d) starting with $cur.
_traza_files()
{
    _traza_reply=files
    [[ $1 == -d ]] && _traza_reply=dirs
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen "$1" -- "$cur"))
}

# For another shell's completion (the zsh one runs it through bash): completes the
# last of the words given, the command line up to the cursor, and prints the kind of
# reply (words, files or dirs) on the first line, then the candidates, one a line.
_traza_complete_words()
{
    local COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMPREPLY=() _traza_reply=words
    _traza
    printf '%s\n' "$_traza_reply" "${COMPREPLY[@]}"
}

_traza()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    local -a traza=("${COMP_WORDS[0]/#\~/$HOME}")
    local i cmd= cmdi=0 w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
        -w | --workspace)
            ((i + 1 < COMP_CWORD)) && traza+=(-w "${COMP_WORDS[i + 1]/#\~/$HOME}")
            ((i++))
            ;;
        -*) ;;
        *) cmd=$w cmdi=$i; break ;;
        esac
    done
    COMPREPLY=()

    if [[ -z $cmd ]]; then
        case $prev in
        -w | --workspace) _traza_files -d; return ;;
        esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$("${traza[@]}" help 2>/dev/null | _traza_help_options)" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "help $("${traza[@]}" help 2>/dev/null | _traza_help_commands)" -- "$cur"))
        fi
        return
    fi
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == cmdi + 1)) &&
            COMPREPLY=($(compgen -W "$("${traza[@]}" help 2>/dev/null | _traza_help_commands)" -- "$cur"))
        return
    fi

    local help
    help=$("${traza[@]}" "$cmd" --help 2>/dev/null) || return
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_traza_help_options <<<"$help")" -- "$cur"))
        return
    fi
    # the value of an option: its choices when the help lists them (--mode ring|stream),
    # else a file name (--svg FILE)
    if [[ $prev == -* ]] && _traza_takes_value "$prev" <<<"$help"; then
        local choices
        choices=$(grep -oE -- "(^|[][:space:][(|])$prev [a-z0-9-]+(\|[a-z0-9-]+)+" <<<"$help" | head -1)
        if [[ -n $choices ]]; then
            choices=${choices##* }
            COMPREPLY=($(compgen -W "${choices//|/ }" -- "$cur"))
        else
            _traza_files -f
        fi
        return
    fi
    # a positional argument: what the usage line names at that place
    local npos=0
    for ((i = cmdi + 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == -* ]]; then
            _traza_takes_value "$w" <<<"$help" && ((i++))
        else
            ((npos++))
        fi
    done
    local -a usage
    read -r -a usage <<<"${help%%$'\n'*}"
    local arg=${usage[3]}
    ((npos > 0)) && [[ $arg != *... ]] && arg=
    case $arg in
    TRACE | TRACE...)
        COMPREPLY=($(compgen -W "$("${traza[@]}" list --json 2>/dev/null | _traza_json_names name)" -- "$cur"))
        ;;
    TOOL | '[TOOL]')
        COMPREPLY=($(compgen -W "$("${traza[@]}" tools 2>/dev/null | awk '{ print $1 }')" -- "$cur"))
        ;;
    VERB)
        COMPREPLY=($(compgen -W "$(grep -oE '^  [a-z][a-z-]* +[A-Z]' <<<"$help" | awk '{ print $1 }')" -- "$cur"))
        ;;
    *)
        # a command whose usage lines start with verbs (traza itf compress ...)
        local verbs
        verbs=$(grep -oE "^ *(usage:)? *traza $cmd [a-z][a-z-]*" <<<"$help" | awk '{ print $NF }')
        if ((npos == 0)) && [[ -n $verbs ]]; then
            COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
        else
            _traza_files -f
        fi
        ;;
    esac
}
complete -F _traza traza

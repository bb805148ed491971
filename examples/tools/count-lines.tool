# An external "black-box" tool: any executable, described by this manifest and
# launched by traza with the same options as built-in tools:
#   count-lines.sh --workspace WS --trace TRACE [--json] --OPTION=VALUE...
name = count-lines
summary = example external tool: prints the trace name and its options
kind = analysis
exec = count-lines.sh
option = greeting:string:hello:a word to print first
option = repeat:int:1:how many times

/**
 * Completion scripts for bash, zsh, fish and PowerShell. Each one asks the program itself for
 * candidates through the hidden `__complete` / `__completeNoDesc` command (see completion.ts).
 */
import { COMPLETE_COMMAND, COMPLETE_NO_DESC_COMMAND } from './completion.js';

/** The shells a completion script can be generated for. */
export const SHELLS = ['bash', 'fish', 'powershell', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** A shell-safe identifier made from a program name (`pilot-agent` -> `pilot_agent`). */
function ident(program: string): string {
  return program.replace(/[^A-Za-z0-9_]/g, '_');
}

function bash(program: string, withDescriptions: boolean): string {
  const fn = `__${ident(program)}_complete`;
  const sub = withDescriptions ? COMPLETE_COMMAND : COMPLETE_NO_DESC_COMMAND;
  return `# bash completion for ${program}                                -*- shell-script -*-
# Load it with: source <(${program} completion bash)

${fn}() {
    local -a args=() cands=()
    local i w line directive=0
    # Re-join words that bash split at '=' (COMP_WORDBREAKS), so --flag=value stays one word.
    for ((i = 1; i <= COMP_CWORD; i++)); do
        w="\${COMP_WORDS[i]}"
        if ((\${#args[@]} > 0)) && [[ "$w" == "=" || "\${args[\${#args[@]}-1]}" == *= ]]; then
            args[\${#args[@]}-1]="\${args[\${#args[@]}-1]}$w"
        else
            args+=("$w")
        fi
    done
    local cur="\${args[\${#args[@]}-1]}"
    unset 'args[\${#args[@]}-1]'
    while IFS='' read -r line; do
        if [[ "$line" == :* ]]; then directive="\${line#:}"; else cands+=("$line"); fi
    done < <("\${COMP_WORDS[0]}" ${sub} "\${args[@]}" "$cur" 2>/dev/null)
    COMPREPLY=()
    if ((directive & 1)); then return; fi
    if ((directive & 2)); then compopt -o nospace 2>/dev/null; fi
    if ((directive & 4)); then compopt +o default 2>/dev/null; fi
    if ((\${#cands[@]} == 0)); then return; fi
    if ((\${#cands[@]} == 1)); then
        COMPREPLY=("\${cands[0]%%$'\\t'*}")
        return
    fi
    for line in "\${cands[@]}"; do
        if [[ "$line" == *$'\\t'* ]]; then
            COMPREPLY+=("\${line%%$'\\t'*}  (\${line#*$'\\t'})")
        else
            COMPREPLY+=("$line")
        fi
    done
}

complete -o default -F ${fn} ${program}
`;
}

function zsh(program: string, withDescriptions: boolean): string {
  const fn = `_${ident(program)}`;
  const sub = withDescriptions ? COMPLETE_COMMAND : COMPLETE_NO_DESC_COMMAND;
  return `#compdef ${program}
# zsh completion for ${program}. Load it with: source <(${program} completion zsh)
# (needs compinit), or save it as _${program} in a directory of $fpath.

${fn}() {
    local -a lines cands
    local out line name desc directive
    out="$(\${words[1]} ${sub} "\${(@)words[2,CURRENT-1]}" "\${words[CURRENT]}" 2>/dev/null)" || return 1
    lines=("\${(@f)out}")
    directive="\${lines[-1]#:}"
    lines=("\${(@)lines[1,-2]}")
    (( directive & 1 )) && return 1
    for line in "\${lines[@]}"; do
        [[ -z "$line" ]] && continue
        name="\${line%%$'\\t'*}"
        desc=""
        [[ "$line" == *$'\\t'* ]] && desc="\${line#*$'\\t'}"
        cands+=("\${name//:/\\\\:}\${desc:+:$desc}")
    done
    if (( \${#cands} > 0 )); then
        _describe 'completions' cands
        return
    fi
    (( directive & 4 )) && return 1
    _files
}

if [ "$funcstack[1]" = "${fn}" ]; then
    ${fn} "$@"
else
    compdef ${fn} ${program}
fi
`;
}

function fish(program: string, withDescriptions: boolean): string {
  const fn = `__${ident(program)}_complete`;
  const sub = withDescriptions ? COMPLETE_COMMAND : COMPLETE_NO_DESC_COMMAND;
  return `# fish completion for ${program}. Load it with: ${program} completion fish | source

function ${fn}
    set -l args (commandline -opc)
    set -l prog $args[1]
    set -e args[1]
    set -l cur (commandline -ct)
    set -l out ($prog ${sub} $args "$cur" 2>/dev/null)
    test (count $out) -gt 0; or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (math "bitand($directive, 1)") -ne 0
        return
    end
    if test (count $out) -gt 0
        printf '%s\\n' $out
    else if test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path "$cur"
    end
end

complete -c ${program} -e
complete -c ${program} -f -a '(${fn})'
`;
}

function powershell(program: string, withDescriptions: boolean): string {
  const sub = withDescriptions ? COMPLETE_COMMAND : COMPLETE_NO_DESC_COMMAND;
  return `# powershell completion for ${program}. Load it with: ${program} completion powershell | Out-String | Invoke-Expression

Register-ArgumentCompleter -CommandName '${program}' -Native -ScriptBlock {
    param($WordToComplete, $CommandAst, $CursorPosition)
    $line = $CommandAst.ToString()
    if ($line.Length -gt $CursorPosition) { $line = $line.Substring(0, $CursorPosition) }
    $words = @($line -split '\\s+' | Where-Object { $_ -ne '' })
    $prog = $words[0]
    $prior = @()
    if ($words.Count -gt 1) { $prior = @($words[1..($words.Count - 1)]) }
    # The word being completed is the last element unless the cursor follows a space.
    if ($WordToComplete -ne '' -and $prior.Count -gt 0) {
        if ($prior.Count -eq 1) { $prior = @() } else { $prior = @($prior[0..($prior.Count - 2)]) }
    }
    $out = @(& $prog ${sub} @prior "$WordToComplete" 2>$null)
    if ($out.Count -eq 0) { return }
    $directive = [int]($out[-1] -replace '^:', '')
    if ($directive -band 1) { return }
    $cands = @()
    if ($out.Count -gt 1) { $cands = @($out[0..($out.Count - 2)]) }
    # NOTE: returning nothing lets PowerShell fall back to file names.
    foreach ($c in $cands) {
        $parts = $c -split "\`t", 2
        $desc = if ($parts.Count -gt 1 -and $parts[1] -ne '') { $parts[1] } else { $parts[0] }
        [System.Management.Automation.CompletionResult]::new($parts[0], $parts[0], 'ParameterValue', $desc)
    }
}
`;
}

/** The completion script for `shell`, calling back into `program`. */
export function completionScript(shell: Shell, program: string, withDescriptions: boolean): string {
  switch (shell) {
    case 'bash':
      return bash(program, withDescriptions);
    case 'zsh':
      return zsh(program, withDescriptions);
    case 'fish':
      return fish(program, withDescriptions);
    case 'powershell':
      return powershell(program, withDescriptions);
  }
}

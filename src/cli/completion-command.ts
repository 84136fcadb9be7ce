/**
 * `kvol completion bash|zsh`: a shell completion script. It completes sub-commands, resource types
 * after get/describe/delete, the names of objects (asked of the running cluster through
 * `kvol get TYPE -o name`), and the common flags.
 *
 *   source <(kvol completion bash)      # or, for zsh: source <(kvol completion zsh)
 */
import { RESOURCES } from "../api/resources.ts";
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import { exitSuccess, exitUsage } from "./client/run-client-command.ts";
import { commands } from "./commands.ts";

export const completionUsage = `Usage:
  kvol completion bash|zsh

Prints a completion script for the shell. Load it with:
  source <(kvol completion bash)
`;

const clientFlags = [
  "-n",
  "--namespace",
  "--kubeconfig",
  "--context",
  "-o",
  "--output",
  "-w",
  "--watch",
  "-A",
  "--all-namespaces",
  "-f",
  "--filename",
  "-l",
  "--selector",
];

function words(): { commands: string; types: string; flags: string } {
  const names = [...commands.keys(), "version", "help"].sort();
  const types = [...new Set(RESOURCES.flatMap((r) => [r.plural, ...r.shortNames]))].sort();
  return { commands: names.join(" "), types: types.join(" "), flags: clientFlags.join(" ") };
}

function bashScript(): string {
  const { commands: names, types, flags } = words();
  return `# bash completion for kvol
_kvol_object_names() {
  kvol get "$1" -o name 2>/dev/null | sed 's|.*/||'
}

_kvol() {
  local cur prev command
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  command="\${COMP_WORDS[1]}"
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    COMPREPLY=( $(compgen -W "${names}" -- "\${cur}") )
    return
  fi
  case "\${prev}" in
    -f|--filename|--kubeconfig) COMPREPLY=( $(compgen -f -- "\${cur}") ); return ;;
    -o|--output) COMPREPLY=( $(compgen -W "wide yaml json name" -- "\${cur}") ); return ;;
    completion) COMPREPLY=( $(compgen -W "bash zsh" -- "\${cur}") ); return ;;
  esac
  if [[ "\${cur}" == -* ]]; then
    COMPREPLY=( $(compgen -W "${flags}" -- "\${cur}") )
    return
  fi
  case "\${command}" in
    get|describe|delete)
      if [[ \${COMP_CWORD} -eq 2 ]]; then
        COMPREPLY=( $(compgen -W "${types}" -- "\${cur}") )
      else
        COMPREPLY=( $(compgen -W "$(_kvol_object_names "\${COMP_WORDS[2]}")" -- "\${cur}") )
      fi
      ;;
  esac
}
complete -o default -F _kvol kvol
`;
}

function zshScript(): string {
  // zsh runs bash completion functions through bashcompinit, as kubectl's zsh script once did.
  return `#compdef kvol
autoload -U +X bashcompinit && bashcompinit
${bashScript()}`;
}

export async function runCompletionCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  const [shell, ...extra] = argv;
  if (shell === "-h" || shell === "--help") {
    io.out(completionUsage);
    return exitSuccess;
  }
  if (extra.length > 0 || (shell !== "bash" && shell !== "zsh")) {
    io.err(`error: name the shell: bash or zsh\n\n${completionUsage}`);
    return exitUsage;
  }
  io.out(shell === "bash" ? bashScript() : zshScript());
  return exitSuccess;
}

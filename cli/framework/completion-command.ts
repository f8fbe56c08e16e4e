/** Cobra's `completion` command: `completion bash|fish|powershell|zsh [--no-descriptions]`. */
import { command, type Command } from './command.js';
import { flag } from './flag.js';
import { completionScript, SHELLS, type Shell } from './completion-scripts.js';

const HOW_TO_LOAD: Readonly<Record<Shell, (p: string) => string>> = {
  bash: (p) => `Generate the autocompletion script for the bash shell (4.3 or newer).

To load completions in your current shell session:

	source <(${p} completion bash)

To load completions for every new session, execute once:

#### Linux:

	${p} completion bash > /etc/bash_completion.d/${p}

You will need to start a new shell for this setup to take effect.`,
  fish: (p) => `Generate the autocompletion script for the fish shell.

To load completions in your current shell session:

	${p} completion fish | source

To load completions for every new session, execute once:

	${p} completion fish > ~/.config/fish/completions/${p}.fish

You will need to start a new shell for this setup to take effect.`,
  powershell: (p) => `Generate the autocompletion script for powershell.

To load completions in your current shell session:

	${p} completion powershell | Out-String | Invoke-Expression

To load completions for every new session, add the output of the above command
to your powershell profile.`,
  zsh: (p) => `Generate the autocompletion script for the zsh shell.

If shell completion is not already enabled in your environment you will need
to enable it.  You can execute the following once:

	echo "autoload -U compinit; compinit" >> ~/.zshrc

To load completions in your current shell session:

	source <(${p} completion zsh)

To load completions for every new session, execute once:

	${p} completion zsh > "\${fpath[1]}/_${p}"

You will need to start a new shell for this setup to take effect.`,
};

/** The `completion` command tree for `program`. */
export function completionCommand(program: string): Command {
  return command({
    name: 'completion',
    short: 'Generate the autocompletion script for the specified shell',
    long: `Generate the autocompletion script for ${program} for the specified shell.\nSee each sub-command's help for details on how to use the generated script.`,
    commands: SHELLS.map((shell) =>
      command({
        name: shell,
        short: `Generate the autocompletion script for ${shell}`,
        long: HOW_TO_LOAD[shell](program),
        flags: [flag.bool('no-descriptions', false, 'disable completion descriptions')],
        run: (ctx) => {
          ctx.io.stdout.write(completionScript(shell, program, !ctx.flags.bool('no-descriptions')));
        },
      }),
    ),
  });
}

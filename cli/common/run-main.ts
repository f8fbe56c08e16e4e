/** What every launcher does: run the program's command tree on the process's argv and set the exit code. */
import { processIo, runCli, type Command, type FlagDefaultSource } from '../framework/index.js';

/** Runs `root` on `process.argv` with the process's streams; sets `process.exitCode`. */
export async function runMain(root: Command, defaults?: readonly FlagDefaultSource[]): Promise<void> {
  // NOTE: a closed pipe (`meshctl ... | head`) is not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
  process.exitCode = await runCli(root, process.argv.slice(2), processIo(defaults));
}

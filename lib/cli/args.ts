import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT } from './tools';

type Options = NonNullable<ParseArgsConfig['options']>;

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Parses the arguments of one `bullpen` command (the words after its name): the `options` it names
 * plus `--help`/`-h`, which every command takes. Strict, as node's `parseArgs` is: an option the
 * command does not name throws (main prints it and exits 1). Positional words are allowed only when
 * `positionals` is true (they land in `positionals`); otherwise one throws too.
 */
export function commandArgs<O extends Options, P extends boolean = false>(argv: string[], options: O, positionals?: P) {
  return parseArgs({ args: argv, options: { ...options, ...HELP }, allowPositionals: positionals, strict: true });
}

/**
 * Ends a command with its usage text: `asked` is true when the user asked for it (--help) and the
 * command then succeeds (exit 0); otherwise the call was wrong and it exits with the usage code (2).
 * `print` is where the text goes (stderr unless the command prints its help as its output).
 */
export function usageExit(text: string, asked: boolean, print: (text: string) => void = console.error): number {
  print(text);
  return asked ? EXIT.OK : EXIT.USAGE;
}

/**
 * Prints what a command did and returns the success exit code (0), so a command can end with it:
 * with `--json` (`json` true) the `record` as one line of JSON for scripts, otherwise `text` for people.
 */
export function printResult(json: boolean | undefined, record: unknown, text: string): number {
  console.log(json ? JSON.stringify(record) : text);
  return EXIT.OK;
}

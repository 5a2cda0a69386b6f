import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { bootstrap } from './bootstrap';
import { AppError } from './shared/errors';
import type { Services } from './services';
import { UsageError, type CliCommand, type CliIo } from './cli.args';
import { cliConfig, COMMANDS } from './cli.commands';

export { cliConfig, COMMANDS } from './cli.commands';
export type { CliCommand, CliIo, CliOption, CommandContext } from './cli.args';

const HELP_FOOTER = 'The database is the one in SVC_DATA_DIR (default ./data), shared with a running service.';

/** The command `argv` names (one word, or two), and the arguments after its name. */
export function findCommand(argv: readonly string[]): { command: CliCommand; rest: string[] } | undefined {
  const two = COMMANDS.find((c) => c.name === `${argv[0]} ${argv[1]}`);
  if (two) return { command: two, rest: argv.slice(2) };
  const one = COMMANDS.find((c) => c.name === argv[0]);
  return one ? { command: one, rest: argv.slice(1) } : undefined;
}

function synopsis(c: CliCommand): string {
  const options = Object.entries(c.options ?? {}).map(([flag, o]) => {
    const text = `--${flag}${o.value ? ` ${o.value}` : ''}`;
    return o.required ? text : `[${text}]`;
  });
  return ['svc', c.name, ...(c.args ? [c.args] : []), ...options].join(' ');
}

/** `svc help` (every command, one line each), or the help of the commands `topic` names (a command or a group). */
export function helpText(topic: readonly string[] = []): string | undefined {
  if (topic.length === 0) {
    const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
    const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
    return `Usage: svc COMMAND [ARGUMENTS] [OPTIONS]\n\nCommands:\n${lines.join('\n')}\n\nRun \`svc help COMMAND\` for a command's options. ${HELP_FOOTER}`;
  }
  const exact = findCommand(topic);
  const chosen = exact && exact.rest.length === 0 ? [exact.command] : COMMANDS.filter((c) => c.name.split(' ')[0] === topic.join(' '));
  if (chosen.length === 0) return undefined;
  return `Usage:\n${chosen.map(commandHelp).join('\n\n')}\n\n${HELP_FOOTER}`;
}

function commandHelp(c: CliCommand): string {
  const options = Object.entries(c.options ?? {}).map(([flag, o]) => {
    const name = `${o.short ? `-${o.short}, ` : ''}--${flag}${o.value ? ` ${o.value}` : ''}`;
    return `      ${name.padEnd(34)} ${o.help}${o.required ? ' (required)' : ''}`;
  });
  return [`  ${synopsis(c)}`, `      ${c.summary}`, ...(c.details ? [`      ${c.details}`] : []), ...options].join('\n');
}

function parseOptions(command: CliCommand, args: string[]) {
  const options = Object.fromEntries(
    Object.entries(command.options ?? {}).map(([flag, o]) => [flag, { type: o.type, ...(o.short ? { short: o.short } : {}) }]),
  );
  return parseArgs({ args, allowPositionals: true, options });
}

function usageFailure(io: CliIo, message: string, argv: readonly string[]): number {
  const found = findCommand(argv);
  io.err(`svc: ${message}\n\n${(found && helpText(found.command.name.split(' '))) ?? helpText()}\n`);
  return 2;
}

/** Runs one `svc` command against the services of a database; returns the process exit code. `stdin` is what was piped in, for set-password. */
export function runCli(argv: string[], services: Services, io: CliIo, stdin = ''): number {
  const help = runHelp(argv, io);
  if (help !== undefined) return help;
  if (argv.length === 0) return usageFailure(io, 'no command given', argv);
  const found = findCommand(argv);
  if (!found?.command.run) return usageFailure(io, `unknown command: ${argv.slice(0, 2).join(' ')}`, argv);
  const { command, rest } = found;
  try {
    const { values, positionals } = parseOptions(command, rest);
    const ownerId = services.identity.ensureOwner().owner.id;
    return command.run!({ services, io, values, positionals, stdin, ownerId });
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return usageFailure(io, (err as Error).message, argv);
    }
    if (err instanceof AppError) {
      const fields = err.extra.errors?.map((e) => ` (${e.param} ${e.message})`).join('') ?? '';
      io.err(`svc: ${err.code === 'validation_failed' ? 'invalid input' : err.detail}${fields}\n`);
      return 1;
    }
    throw err;
  }
}

function promptHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    process.stderr.write(question);
    const stdin = process.stdin;
    stdin.setRawMode(true);
    stdin.resume();
    let value = '';
    stdin.on('data', (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\u0003') process.exit(130);
        if (ch === '\r' || ch === '\n') {
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          return resolve(value);
        }
        value = ch === '\u007f' ? value.slice(0, -1) : value + ch;
      }
    });
  });
}

function readStdin(): string {
  try {
    return fs.readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/** The topic of a help request (`svc help [topic]`, `svc --help`, `svc <command> --help`), or undefined when `argv` asks for none. */
function helpTopic(argv: readonly string[]): string[] | undefined {
  if (argv[0] === 'help') return argv.slice(1);
  if (argv.includes('--help') || argv.includes('-h')) return argv.filter((a) => a !== '--help' && a !== '-h');
  return undefined;
}

/** Prints the help `argv` asks for; returns the exit code, or undefined when `argv` is not a help request. */
export function runHelp(argv: readonly string[], io: CliIo): number | undefined {
  const topic = helpTopic(argv);
  if (!topic) return undefined;
  const text = helpText(topic);
  if (text === undefined) return usageFailure(io, `unknown command: ${topic.join(' ')}`, []);
  io.out(`${text}\n`);
  return 0;
}

/** Entry point of the `svc` binary. */
export function main(argv = process.argv.slice(2)): void {
  const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
  const help = runHelp(argv, io);
  if (help !== undefined) {
    process.exitCode = help;
    return;
  }
  const found = findCommand(argv);
  // Before any bootstrap: a mistyped command creates no data directory.
  if (!found) {
    process.exitCode = runCliWithoutServices(argv, io);
    return;
  }
  // Commands that start what they need: a restore writes into an empty directory, the doctor only reads, etc.
  if (found.command.runAlone) {
    void found.command.runAlone(argv, io).then((code) => (process.exitCode = code));
    return;
  }
  const core = bootstrap(cliConfig());
  if (found.command.readsSecret) {
    const secret = process.stdin.isTTY ? promptHidden('New password (not shown): ') : Promise.resolve(readStdin());
    void secret.then((text) => {
      process.exitCode = runCli(argv, core.services, io, text);
      core.close();
    });
    return;
  }
  const code = runCli(argv, core.services, io);
  core.close();
  process.exitCode = code;
}

function runCliWithoutServices(argv: readonly string[], io: CliIo): number {
  return usageFailure(io, argv.length === 0 ? 'no command given' : `unknown command: ${argv.slice(0, 2).join(' ')}`, argv);
}

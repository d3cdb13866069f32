#!/usr/bin/env node
// The `agio` command: serve the embedded stack, or talk to a running bridge.
import { parseArgs } from 'node:util';
import { serve } from './serve';

const USAGE = `usage: agio <command>

  serve              run Temporal (dev server), a worker and the HTTP bridge locally
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { port: { type: 'string' } } });
      await serve({ port: values.port ? Number(values.port) : undefined });
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return command ? 0 : 2;
    default:
      process.stderr.write(`agio: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`agio: ${(err as Error).message}`);
    process.exit(1);
  },
);

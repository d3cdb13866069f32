// `agio retry|fork`: retry a run from its last good step, or fork it at a step with edits, through the bridge (issue
// 35).
import { parseArgs } from 'node:util';
import { bridgeFromEnv, printJson } from './commands';

/** The usage lines of `agio retry` and `agio fork`. */
export const RESCUE_USAGE = `  retry <runId> [--model M] [--temperature T] [--max-tokens N] [--max-steps N]
                                   continue a failed, cancelled or timed-out run from its last completed
                                   step as a new linked run (model calls already made are not made again)
  fork <runId> --step N [--tool-result TEXT | --message TEXT] [--instructions TEXT] [--model M]
           [--temperature T] [--max-tokens N] [--max-steps N]
                                   a new run from the conversation before step N: an assistant step is
                                   asked again, a tool step gets TEXT as its result, a user step TEXT
`;

/** A whole number from the command line (the bridge checks its bounds). */
function count(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n)) throw new Error(`--${name}: "${text}" is not a whole number`);
  return n;
}

/** Runs `agio retry …` or `agio fork …`; returns the exit code. */
export async function rescueCommand(command: string, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      step: { type: 'string' },
      'tool-result': { type: 'string' },
      message: { type: 'string' },
      instructions: { type: 'string' },
      model: { type: 'string' },
      temperature: { type: 'string' },
      'max-tokens': { type: 'string' },
      'max-steps': { type: 'string' },
    },
  });
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new Error(`usage:\n${RESCUE_USAGE}`);
  const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
  const maxTokens = count('max-tokens', values['max-tokens']);
  const maxSteps = count('max-steps', values['max-steps']);
  const modelSettings =
    temperature !== undefined || maxTokens !== undefined
      ? {
          ...(temperature !== undefined ? { temperature } : {}),
          ...(maxTokens !== undefined ? { maxTokens } : {}),
        }
      : undefined;
  const model = values.model ? { model: values.model } : {};
  const settings = modelSettings ? { modelSettings } : {};
  const limits = maxSteps !== undefined ? { limits: { maxSteps } } : {};
  const path = `/runs/${encodeURIComponent(runId)}/${command}`;
  const bridge = bridgeFromEnv();
  if (command === 'retry') return printJson(bridge.request('POST', path, { ...model, ...settings, ...limits }));
  const step = count('step', values.step);
  if (step === undefined) throw new Error(`agio fork needs --step N\n\n${RESCUE_USAGE}`);
  const edits = {
    ...model,
    ...settings,
    ...(values.instructions !== undefined ? { instructions: values.instructions } : {}),
    ...(values['tool-result'] !== undefined ? { toolResult: values['tool-result'] } : {}),
    ...(values.message !== undefined ? { userMessage: values.message } : {}),
  };
  return printJson(bridge.request('POST', path, { step, edits, ...limits }));
}

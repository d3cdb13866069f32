// `agio compare|bulk`: compare two runs, re-drive runs in bulk (issue 35). Filled in by the re-drive work.

export const REDRIVE_USAGE = '';

export function redriveCommand(_command: string, _args: string[]): Promise<number> {
  return Promise.reject(new Error(`agio ${_command} is not built yet`));
}

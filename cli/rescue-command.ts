// `agio retry|fork|compare|bulk`: retry and fork runs (issue 35). Filled in by the rescue work.

export const RESCUE_USAGE = '';

export function rescueCommand(_command: string, _args: string[]): Promise<number> {
  return Promise.reject(new Error(`agio ${_command} is not built yet`));
}

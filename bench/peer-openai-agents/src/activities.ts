// The peer's only tool, as a Temporal activity: echoes its argument, like Agio's `bench_echo` (bench/tools.ts),
// so the figures measure orchestration, not tools.

/** `bench_echo`: the cheapest possible tool. */
export async function benchEcho({ i }: { i: number }): Promise<string> {
  return `echo ${i}`;
}

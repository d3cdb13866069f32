// Renders a run's events in the terminal as they arrive: nested runs indented by depth, text streamed as it
// comes, tool calls and results on their own lines, and a spinner (on a TTY) while a model is thinking.
import type { AgioEvent, BudgetSpent, Step, Usage } from '../common';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s).replace(/\s+/g, ' ');

/** US dollars: two significant digits under a dollar (a cheap call costs fractions of a cent), else cents. */
const usd = (n: number) => `$${n === 0 ? 0 : n < 1 ? n.toPrecision(2) : n.toFixed(2)}`;
/** `, $0.063` (and `, some prices unknown`) for a usage with a cost. */
const costText = (usage?: Usage) =>
  usage?.costUsd !== undefined || usage?.costUnknown
    ? `, ${usd(usage.costUsd ?? 0)}${usage.costUnknown ? ' (some prices unknown)' : ''}`
    : '';

/** A live terminal view of one run's stream. */
export class LiveView {
  private openStep: string | undefined;
  private streamed = new Set<string>();
  private spinner: NodeJS.Timeout | undefined;
  private frame = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly tty = false,
  ) {}

  /** Renders one event. */
  handle(event: AgioEvent): void {
    this.stopSpinner();
    const pad = '  '.repeat(event.depth);
    switch (event.type) {
      case 'RUN_STARTED':
        this.line(`${pad}▶ ${event.agent}${event.depth ? ` (tool call ${event.toolCallId})` : `  ${event.runId}`}`);
        this.startSpinner(pad);
        break;
      case 'STEP_DELTA': {
        const text = event.delta?.content ?? '';
        if (!text) break;
        if (this.openStep !== event.stepId) {
          this.endLine();
          this.write(`${pad}  `);
          this.openStep = event.stepId;
        }
        this.streamed.add(event.stepId ?? '');
        this.write(text.replace(/\n/g, `\n${pad}  `));
        break;
      }
      case 'STEP_RETRY':
        this.line(`${pad}  ↻ model call retried (attempt ${event.attempt}); its partial text above is discarded`);
        this.streamed.delete(event.stepId ?? '');
        break;
      case 'STEP_COMPLETED':
        this.step(event.snapshot, pad, event.stepId ?? '');
        break;
      case 'RUN_COMPLETED': {
        const tokens = event.usage?.totalTokens ?? 0;
        const reason = (event.data as { terminationReason?: string } | undefined)?.terminationReason ?? 'completed';
        this.line(`${pad}✓ ${event.agent} ${reason} (${tokens} tokens${costText(event.usage)})`);
        break;
      }
      case 'RUN_PAUSED': {
        const data = event.data as { reason?: string; by?: string; budget?: BudgetSpent } | undefined;
        const budget = data?.budget;
        const why = budget
          ? `the ${budget.kind === 'run' ? "run tree's" : "tenant's daily"} budget is spent: ${usd(budget.spentUsd)} of ${usd(budget.limitUsd)}`
          : `${data?.reason ?? 'paused'}${data?.by ? ` (by ${data.by})` : ''}`;
        this.line(`${pad}  ⏸ ${event.agent} paused: ${why}`);
        break;
      }
      case 'RUN_FAILED':
        this.line(
          `${pad}✗ ${event.agent} failed: ${(event.data as { error?: { message?: string } })?.error?.message ?? 'unknown error'}`,
        );
        break;
      case 'RUN_CANCELLED':
        this.line(`${pad}■ ${event.agent} cancelled`);
        break;
      case 'MODEL_UNAVAILABLE': {
        const data = event.data as { reason?: string; nextAttemptAt?: number } | undefined;
        const wait = data?.nextAttemptAt
          ? `; next try in ${Math.max(0, Math.round((data.nextAttemptAt - event.timestamp) / 1000))} s`
          : '';
        this.line(
          `${pad}  ⚠ model unavailable (attempt ${event.attempt}): ${clip(data?.reason ?? 'unknown error', 120)}${wait}`,
        );
        break;
      }
      case 'CONTEXT_COMPACTED': {
        const data = event.data as { items?: unknown[]; bytesBefore?: number; bytesAfter?: number } | undefined;
        this.line(
          `${pad}  ⇣ conversation compacted: ${data?.items?.length ?? 0} older parts replaced by references (${data?.bytesBefore} → ${data?.bytesAfter} bytes)`,
        );
        break;
      }
      case 'TOOL_AUTH_REQUIRED':
        this.line(`${pad}  ? approval needed for ${JSON.stringify(event.data)}`);
        break;
      default:
        this.line(`${pad}  · ${event.type}${event.data ? ` ${clip(JSON.stringify(event.data), 100)}` : ''}`);
    }
  }

  /** Ends the view (stops the spinner, closes an open line). */
  close(): void {
    this.stopSpinner();
    this.endLine();
  }

  private step(step: Step | undefined, pad: string, stepId: string): void {
    if (!step) return;
    if (step.role === 'user' && step.index <= 1 && !pad) this.line(`${pad}> ${clip(step.content ?? '', 200)}`);
    if (step.role === 'assistant') {
      if (step.content && !this.streamed.has(stepId)) this.line(`${pad}  ${step.content}`);
      this.endLine();
      for (const call of step.toolCalls ?? []) this.line(`${pad}  ⚙ ${call.name} ${clip(call.arguments, 80)}`);
      if (step.toolCalls?.length) this.startSpinner(pad);
    }
    if (step.role === 'tool') {
      this.line(`${pad}  ${step.isError ? '✗' : '↳'} ${step.name}: ${clip(step.content ?? '', 100)}`);
      this.startSpinner(pad);
    }
  }

  private line(text: string): void {
    this.endLine();
    this.write(`${text}\n`);
  }

  private endLine(): void {
    if (this.openStep !== undefined) this.write('\n');
    this.openStep = undefined;
  }

  private startSpinner(pad: string): void {
    if (!this.tty) return;
    this.spinner = setInterval(() => this.write(`\r${pad}  ${SPINNER[this.frame++ % SPINNER.length]} thinking…`), 80);
  }

  private stopSpinner(): void {
    if (!this.spinner) return;
    clearInterval(this.spinner);
    this.spinner = undefined;
    this.write('\r\x1b[2K');
  }
}

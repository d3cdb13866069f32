// Structured output in the agent loop: what a run with an output schema asks of its model calls, and what it does
// with a final answer's check (recorded by the model call, see activities/model/output-check.ts): accept it and parse
// it, ask for a repair, or fail the run with OutputValidationError. Only runs whose agent has an outputSchema get here,
// so runs started before it existed replay untouched.
import { ApplicationFailure } from '@temporalio/workflow';
import {
  DEFAULT_MAX_OUTPUT_REPAIRS,
  ErrorType,
  answerJsonText,
  outputFailureMessage,
  outputRepairPrompt,
  type AgentRunResume,
  type AgentSpec,
  type OutputCheck,
  type OutputFormat,
  type RunOutput,
  type Step,
} from '../../common';
import type { CallModelOutput } from '../../common/contracts/model-call';

/** An accepted final answer: its JSON text (the run's response) and its value (the run's output). */
export type AcceptedOutput = { kind: 'accepted'; response: string; output: RunOutput['output'] };
/** What a final answer's check decides. */
export type OutputVerdict = AcceptedOutput | { kind: 'rejected'; violations: string[] };

/**
 * The structured-output state of one run: its format, and the repair turns used and allowed (carried across
 * continue-as-new).
 */
export class StructuredOutput {
  readonly format: OutputFormat;
  private used: number;
  private readonly allowed: number;

  constructor(
    private readonly agent: AgentSpec & { outputSchema: NonNullable<AgentSpec['outputSchema']> },
    carried?: AgentRunResume['outputRepairs'],
  ) {
    this.format = {
      name: agent.outputSchemaName ?? agent.name,
      schema: agent.outputSchema,
      ...(agent.outputSchemaStrict !== undefined ? { strict: agent.outputSchemaStrict } : {}),
    };
    this.used = carried?.used ?? 0;
    // Fixed when the run starts: a later release with another default does not change a run in flight.
    this.allowed = carried?.allowed ?? agent.maxOutputRepairs ?? DEFAULT_MAX_OUTPUT_REPAIRS;
  }

  /** The spec's structured output, if it has an output schema. */
  static of(agent: AgentSpec, carried?: AgentRunResume['outputRepairs']): StructuredOutput | undefined {
    return agent.outputSchema
      ? new StructuredOutput({ ...agent, outputSchema: agent.outputSchema }, carried)
      : undefined;
  }

  /** Judges a final answer (an assistant step without tool calls) by the check its model call recorded. */
  verdict(step: Step, check: OutputCheck | undefined): OutputVerdict {
    // A call that ran without the check (a worker without structured output) cannot vouch for the answer.
    const violations = check?.violations ?? [
      'the answer was not checked against the schema (the worker that called the model does not support output schemas)',
    ];
    if (violations.length) return { kind: 'rejected', violations };
    const response = answerJsonText(step.content ?? '');
    return { kind: 'accepted', response, output: JSON.parse(response) as RunOutput['output'] };
  }

  /**
   * The accepted answer of a turn without tools (the max-steps summary): `repair` commits a repair step and asks
   * again, until an answer fits or no repair is left. An answer that calls tools anyway cannot be repaired (its calls
   * would go unanswered in the conversation), so it fails the run at once.
   */
  async settle(
    answer: Pick<CallModelOutput, 'step' | 'outputCheck'>,
    repair: (violations: string[]) => Promise<Pick<CallModelOutput, 'step' | 'outputCheck'>>,
  ): Promise<AcceptedOutput> {
    for (;;) {
      if (answer.step.toolCalls?.length)
        this.fail(['the answer called tools after the step limit instead of answering with JSON']);
      const verdict = this.verdict(answer.step, answer.outputCheck);
      if (verdict.kind === 'accepted') return verdict;
      answer = await repair(verdict.violations);
    }
  }

  /**
   * The user step of a repair turn (at `index` of run `runId`), counted against the repairs allowed; when none is
   * left, the run fails instead with a non-retryable OutputValidationError naming the last violations.
   */
  repairStep(runId: string, index: number, violations: string[]): Step {
    if (this.used >= this.allowed) this.fail(violations);
    this.used++;
    return {
      id: `${runId}:${index}`,
      runId,
      index,
      role: 'user',
      content: outputRepairPrompt(this.format, violations),
      metadata: { synthetic: 'output_repair', violations },
    };
  }

  /** Fails the run: no answer matching the schema. */
  fail(violations: string[]): never {
    throw ApplicationFailure.create({
      type: ErrorType.OutputValidationError,
      nonRetryable: true,
      message: outputFailureMessage(this.agent.name, this.format, this.used, violations),
      details: [{ violations }],
    });
  }

  /** What a continue-as-new carries. */
  carried(): NonNullable<AgentRunResume['outputRepairs']> {
    return { used: this.used, allowed: this.allowed };
  }
}

// The one list of error types Agio raises, so retry policies and callers compare stable names, not classes.

/** `ApplicationFailure.type` values used across workflows and activities. */
export const ErrorType = {
  /** The model provider answered 429; retried after Retry-After. */
  ModelRateLimited: 'ModelRateLimited',
  /** 5xx from the provider; retried. */
  ModelServerError: 'ModelServerError',
  /** Network failure or a stream that ended before its finish reason; retried. */
  ModelConnectionError: 'ModelConnectionError',
  /** The provider's body was not a valid Chat Completions stream; retried a bounded number of times. */
  ModelMalformedResponse: 'ModelMalformedResponse',
  /** 400/404/422: the request itself is wrong; not retried. */
  ModelBadRequest: 'ModelBadRequest',
  /** 401/403: credentials are wrong or missing; not retried. */
  ModelAuthError: 'ModelAuthError',
  /** An agent spec that cannot run (an output schema that is not a valid JSON Schema); not retried. */
  InvalidAgentSpec: 'InvalidAgentSpec',
  /** A run started by name names no agent its worker has (agentByName); not retried. */
  UnknownAgent: 'UnknownAgent',
  /** A run started by name asked for limits above its agent's own where it may only tighten them; not retried. */
  LimitAboveAgent: 'LimitAboveAgent',
  /**
   * Workflow input that does not fit the workflow's schema (e.g. sent by the Temporal CLI or an older client); not
   * retried.
   */
  InvalidRunInput: 'InvalidRunInput',
  /** An agent's `tools` names a tool (or an `mcp:<server>` group) the worker does not have; not retried. */
  UnknownTool: 'UnknownTool',
  /** The conversation to send is larger than the run's maxModelInputBytes; not retried. */
  ModelInputTooLarge: 'ModelInputTooLarge',
  /**
   * The model's answer is larger than the run's maxModelOutputBytes (a step must fit in a Temporal payload); not
   * retried.
   */
  ModelOutputTooLarge: 'ModelOutputTooLarge',
  /** A model call failed for good with no error type of its own (it timed out, say); the run fails with it. */
  ModelCallFailed: 'ModelCallFailed',
  /** What an agent run carries into continue-as-new does not fit in one workflow input, even shortened; not retried. */
  HistoryTooLarge: 'HistoryTooLarge',
  /**
   * A model call's worker does not hold the run's earlier messages in its message store (memory stores lost with a
   * restart, or not shared between workers): not retried; the run sends its whole conversation once instead.
   */
  ConversationNotStored: 'ConversationNotStored',
  /** The agent's final answer still did not match its output schema after the repair turns; not retried. */
  OutputValidationError: 'OutputValidationError',
  /** A pause update refused: the run is paused already or a pause is pending (the bridge answers 409). */
  AlreadyPaused: 'AlreadyPaused',
  /**
   * A workflow agent's sub-agents failed: every branch of a parallel agent, or one of a sequence or loop; not retried.
   */
  SubAgentsFailed: 'SubAgentsFailed',
  /**
   * The root was terminated in Temporal (its log has no terminal event; readers end its stream with a synthetic one).
   */
  Terminated: 'Terminated',
  /**
   * A workspace tool was called on a worker where no sandbox can start (no bubblewrap, no user namespaces); not
   * retried.
   */
  SandboxUnavailable: 'SandboxUnavailable',
  /** The root passed its Temporal execution or run timeout (no terminal event either; readers add a synthetic one). */
  TimedOut: 'TimedOut',
  /**
   * A model call refused before the provider was called: the run's tree or its tenant spent its cost budget
   * (details: a BudgetSpent (common/budgets.ts)). The run pauses with reason `budget` instead of failing.
   */
  BudgetSpent: 'BudgetSpent',
  /**
   * A decision quoting a binding that is not the waiting call's (it was escalated since, or another call); HTTP 409.
   */
  StaleApproval: 'StaleApproval',
  /** A decision on an escalated call from a decider without the role it was escalated to; HTTP 403. */
  ApprovalEscalated: 'ApprovalEscalated',
  /** A callback result for no callback waiting in the run (unknown id, another tenant, the run moved on); HTTP 404. */
  CallbackNotFound: 'CallbackNotFound',
  /** A callback result for a call whose result was already taken (a result counts once); HTTP 409. */
  CallbackAlreadyCompleted: 'CallbackAlreadyCompleted',
  /** A callback result after its call's wait timed out (the model was told so); HTTP 410. */
  CallbackExpired: 'CallbackExpired',
  /** A user message refused by the run (closing, malformed, a run started before messages); the bridge answers 409. */
  MessageRefused: 'MessageRefused',
  /** A bulk job's filter names runs its action cannot act on (the bridge refuses it with 400 before starting one). */
  InvalidBulkFilter: 'InvalidBulkFilter',
} as const;
/** One of {@link ErrorType}. */
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

/** The longest wait between two attempts of a failing model call (its retry policy's maximum interval). */
export const MODEL_RETRY_MAX_INTERVAL_MS = 60_000;
/** From this attempt on, a failing model call counts as an outage: announced on the stream and shown in run state. */
export const MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT = 3;

/** Error types that retrying cannot fix. */
export const NON_RETRYABLE_MODEL_ERRORS: ErrorType[] = [
  ErrorType.ModelBadRequest,
  ErrorType.ModelAuthError,
  ErrorType.InvalidAgentSpec,
  ErrorType.ModelOutputTooLarge,
];

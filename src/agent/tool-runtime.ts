// Executes one round's tool calls: parse and validate arguments, ask the permission gate (and a
// person when it says `ask`), run the tool, and turn every outcome into exactly one output.
// Consecutive read-only calls run in parallel; everything else runs in call order.

import { jsonNestsDeeperThan, MAX_JSON_DEPTH, parseToolArguments, type ModelToolCall, type ModelToolDefinition } from '../model/index.js';
import { FatalToolError, ToolError, formatToolError, toolDefinition, type AnyTool, type ToolAccess, type ToolContext } from './tool.js';
import type { ApprovalBroker, ApprovalResolution, GateRequest, HookedCall, PermissionGate, ToolHooks } from './tool-gate.js';
import type { RunEvent } from './run-events.js';
import { containedEmit } from './run-observer.js';

export interface ToolRuntimeOptions {
  tools: readonly AnyTool[];
  root: string;
  /** The host's per-session state, handed to every call as `context.state` (e.g. file stamps). */
  state?: unknown;
  gate: PermissionGate;
  approvals: ApprovalBroker;
  /** Hooks run before and after each call the gate does not deny (`hooks/`); absent: none. */
  hooks?: ToolHooks;
  /**
   * Turns the raw argument string into a value for zod. Default: JSON, with the nulls that strict
   * mode made the model send for omitted optional fields mapped back to "absent".
   */
  parseArguments?: (raw: string, tool: AnyTool) => unknown;
}

export interface ToolCallOutcome {
  callId: string;
  name: string;
  output: string;
  isError: boolean;
}

/**
 * A tool said the run cannot continue. Carries one outcome for every call of the batch (the fatal
 * one, and `NOT_RUN` for calls after it) so the loop can still commit an output for each call.
 */
export class FatalBatchError extends Error {
  constructor(
    readonly fatal: FatalToolError,
    readonly outcomes: ToolCallOutcome[],
  ) {
    super(fatal.message);
    this.name = 'FatalBatchError';
  }
}

export interface BatchContext {
  runId: string;
  round: number;
  signal: AbortSignal;
  emit: (event: RunEvent) => void;
  /** The calls were announced (`tool_requested`) before: a takeover runs the cut-off round's calls again. */
  announced?: boolean;
}

/** Outputs longer than this are clipped here as a last line of defence; tools cap their own first. */
const OUTPUT_HARD_CAP = 100_000;

export class ToolRuntime {
  private readonly byName: Map<string, AnyTool>;

  constructor(private readonly options: ToolRuntimeOptions) {
    this.byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  }

  /** The tools the model is shown: hidden tools are neither listed nor callable. */
  visibleTools(): AnyTool[] {
    return this.options.tools.filter((tool) => this.options.gate.isVisible(tool));
  }

  private cachedDefinitions: ModelToolDefinition[] | null = null;

  /** Computed once per runtime: schema conversion is not free, and the tool list is fixed for a run. */
  definitions(): ModelToolDefinition[] {
    this.cachedDefinitions ??= this.visibleTools().map(toolDefinition);
    return this.cachedDefinitions;
  }

  /**
   * Run a batch. Resolves with one outcome per call, in call order. Throws `FatalBatchError` (with
   * an outcome for every call) when a tool says the run cannot continue. When `signal` aborts, calls that had not finished get a
   * `CANCELLED` output so the committed history never holds a call without its output.
   */
  async executeBatch(calls: readonly ModelToolCall[], batch: BatchContext): Promise<ToolCallOutcome[]> {
    // Events are emitted between committing the calls and committing their outputs: an observer
    // that throws here would cost a call its output (or the run its history), so it is contained.
    const context: BatchContext = { ...batch, emit: containedEmit(batch.emit) };
    if (batch.announced !== true) {
      for (const call of calls) {
        context.emit({ type: 'tool_requested', round: context.round, callId: call.id, name: call.name, arguments: call.arguments });
      }
    }
    const outcomes: ToolCallOutcome[] = [];
    let index = 0;
    while (index < calls.length) {
      const first = calls[index]!;
      const segment = [first];
      if (this.isReadOnly(first.name)) {
        while (index + segment.length < calls.length && this.isReadOnly(calls[index + segment.length]!.name)) {
          segment.push(calls[index + segment.length]!);
        }
      }
      index += segment.length;
      // allSettled: a fatal error in one parallel call must not leave its siblings running on
      // after the batch (and the run) has ended.
      const results = await Promise.allSettled(segment.map((call) => this.executeOne(call, context)));
      let fatal: FatalToolError | null = null;
      results.forEach((result, position) => {
        if (result.status === 'fulfilled') {
          outcomes.push(result.value);
          return;
        }
        const error = result.reason as FatalToolError;
        fatal ??= error;
        const call = segment[position]!;
        outcomes.push({ callId: call.id, name: call.name, output: formatToolError(error.code, error.message), isError: true });
      });
      if (fatal !== null) {
        for (const call of calls.slice(index)) {
          outcomes.push({
            callId: call.id,
            name: call.name,
            output: formatToolError('NOT_RUN', 'The run stopped before this call ran.'),
            isError: true,
          });
        }
        throw new FatalBatchError(fatal, outcomes);
      }
    }
    return outcomes;
  }

  private isReadOnly(name: string): boolean {
    const tool = this.byName.get(name);
    return tool?.readOnly === true && this.options.gate.isVisible(tool);
  }

  /** Never rejects but with `FatalToolError`: anything else becomes an error output for this call. */
  private async executeOne(call: ModelToolCall, context: BatchContext): Promise<ToolCallOutcome> {
    try {
      return await this.runCall(call, context);
    } catch (error) {
      if (error instanceof FatalToolError) throw error;
      const message = (error as Error)?.message ?? String(error);
      const output = context.signal.aborted
        ? formatToolError('CANCELLED', 'The run was cancelled before this call ran.')
        : formatToolError('INTERNAL_ERROR', `Glassbox could not run this call: ${message}`);
      context.emit({ type: 'tool_finished', callId: call.id, name: call.name, isError: true, output, durationMs: 0 });
      return { callId: call.id, name: call.name, output, isError: true };
    }
  }

  private async runCall(call: ModelToolCall, context: BatchContext): Promise<ToolCallOutcome> {
    const fail = (code: string, message: string): ToolCallOutcome => {
      const outcome = { callId: call.id, name: call.name, output: formatToolError(code, message), isError: true };
      context.emit({ type: 'tool_finished', callId: call.id, name: call.name, isError: true, output: outcome.output, durationMs: 0 });
      return outcome;
    };
    if (context.signal.aborted) return fail('CANCELLED', 'The run was cancelled before this call ran.');

    const tool = this.byName.get(call.name);
    if (!tool || !this.options.gate.isVisible(tool)) {
      const names = this.visibleTools()
        .map((t) => t.name)
        .join(', ');
      return fail('UNKNOWN_TOOL', `There is no tool named "${call.name}". Available tools: ${names}.`);
    }

    let raw: unknown;
    try {
      // The default parser refuses arguments nested deeper than validation can walk; a host's own
      // parser gets the same guard, since the schema check below recurses either way.
      if (this.options.parseArguments && jsonNestsDeeperThan(call.arguments)) {
        throw new Error(`Tool arguments nest arrays or objects more than ${MAX_JSON_DEPTH} levels deep; send a flatter value.`);
      }
      raw = this.options.parseArguments
        ? this.options.parseArguments(call.arguments, tool)
        : parseToolArguments(call.arguments, toolDefinition(tool).parameters, tool.strict);
    } catch (error) {
      return fail('INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${(error as Error).message}`);
    }
    const parsed = tool.schema.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
        .join('; ');
      return fail('INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${problems}`);
    }
    const args = parsed.data;

    let access: ToolAccess;
    try {
      access = tool.access(args, { root: this.options.root });
    } catch (error) {
      if (error instanceof ToolError) return fail(error.code, error.message);
      throw error;
    }
    const request: GateRequest = { tool, args, access };
    const hooked: HookedCall = { ...request, callId: call.id };
    const hookContext = { signal: context.signal, emit: context.emit };
    const gated = await this.options.gate.decide(request);
    // A denied call runs no hook: nothing a hook says could let it through.
    const decision =
      this.options.hooks && gated.decision !== 'deny' ? await this.options.hooks.beforeCall(hooked, gated, hookContext) : gated;
    context.emit({
      type: 'tool_permission_decided',
      callId: call.id,
      name: tool.name,
      decision: decision.decision,
      reason: decision.reason,
      rule: decision.rule,
      ...(decision.configRule ? { configRule: decision.configRule } : {}),
    });
    let execution = decision.execution;
    if (decision.decision === 'deny') {
      return fail('PERMISSION_DENIED', `${decision.reason} Do not retry the same action; choose another approach or ask the user.`);
    }
    if (decision.decision === 'ask') {
      const summary = summarizeAccess(tool.name, access, call.arguments);
      context.emit({
        type: 'approval_requested',
        callId: call.id,
        name: tool.name,
        summary,
        reason: decision.reason,
        arguments: call.arguments,
      });
      let resolution: ApprovalResolution;
      try {
        resolution = await this.options.approvals.request(
          {
            runId: context.runId,
            callId: call.id,
            toolName: tool.name,
            summary,
            reason: decision.reason,
            arguments: call.arguments,
            ...(this.options.gate.describeSessionGrant ? { sessionScope: this.options.gate.describeSessionGrant(request) } : {}),
          },
          context.signal,
        );
      } catch (error) {
        if (context.signal.aborted) resolution = { decision: 'deny' as const, by: 'cancelled', message: null };
        else throw error;
      }
      context.emit({
        type: 'approval_resolved',
        callId: call.id,
        name: tool.name,
        decision: resolution.decision,
        by: resolution.by,
        message: resolution.message,
      });
      if (resolution.decision === 'deny') {
        if (context.signal.aborted) return fail('CANCELLED', 'The run was cancelled while waiting for approval.');
        const note = resolution.message ? ` The user said: ${resolution.message}` : '';
        return fail('APPROVAL_DENIED', `The user denied this ${tool.name} call (${resolution.by}).${note}`);
      }
      if (resolution.decision === 'approve_session') this.options.gate.grantForSession(request);
      if (this.options.gate.approvedExecution) execution = this.options.gate.approvedExecution(decision, request);
    }

    if (context.signal.aborted) return fail('CANCELLED', 'The run was cancelled before this call ran.');
    context.emit({ type: 'tool_started', callId: call.id, name: tool.name });
    const started = performance.now();
    const toolContext: ToolContext = {
      root: this.options.root,
      execution,
      callId: call.id,
      signal: context.signal,
      state: this.options.state,
    };
    let output: string;
    let isError: boolean;
    try {
      const result = await tool.execute(args, toolContext);
      output = result.output;
      isError = result.isError ?? false;
      if (context.signal.aborted) {
        output = `${output}\n[The run was cancelled while this call was running; its output may be incomplete.]`;
      }
    } catch (error) {
      if (error instanceof FatalToolError) throw error;
      isError = true;
      if (error instanceof ToolError) output = formatToolError(error.code, error.message);
      else if (context.signal.aborted) output = formatToolError('CANCELLED', 'The run was cancelled while this call was running.');
      else output = formatToolError('TOOL_FAILED', (error as Error)?.message ?? String(error));
    }
    // The call's own time: the PostToolUse hooks' runs are reported on their own.
    const durationMs = Math.round(performance.now() - started);
    const added = this.options.hooks ? await this.options.hooks.afterCall(hooked, { output, isError }, hookContext) : null;
    if (added !== null) output = `${output}\n${added}`;
    if (output.length > OUTPUT_HARD_CAP) {
      output = `${output.slice(0, OUTPUT_HARD_CAP)}\n[Output clipped at ${OUTPUT_HARD_CAP} characters of ${output.length}.]`;
    }
    context.emit({ type: 'tool_finished', callId: call.id, name: tool.name, isError, output, durationMs });
    return { callId: call.id, name: tool.name, output, isError };
  }
}

export function summarizeAccess(toolName: string, access: ReturnType<AnyTool['access']>, rawArguments = ''): string {
  switch (access.kind) {
    case 'exec':
      return `${toolName}: ${access.command}${access.escalate ? ' (escalated: runs outside the sandbox)' : ''}`;
    case 'read':
      return `${toolName}: read ${access.paths.join(', ')}`;
    case 'write':
      return `${toolName}: write ${access.paths.join(', ')}`;
    case 'mcp':
      // Nothing else says what an MCP call does, so the person approving sees its arguments.
      return `${toolName}: MCP server "${access.server}", tool "${access.tool}", arguments ${clipArguments(rawArguments)}`;
    case 'none':
      return toolName;
  }
}

function clipArguments(raw: string): string {
  const text = raw.trim() === '' ? '{}' : raw.trim();
  return text.length > 400 ? `${text.slice(0, 400)}... (${text.length} characters)` : text;
}

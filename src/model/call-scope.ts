// One attempt of one model call: the signal handed to the SDK, aborted either by the caller or by
// our own timer. The SDK's `timeout` only covers the wait for response headers; a stream that
// goes silent afterwards would hang forever, so the timer measures silence, not total time, and
// allows a different silence before the first event reaches the caller than after it: a model may
// think for minutes before it writes, but a stream that stops mid-answer has stalled.

import type { ErrorContext } from './map-sdk-error.js';

export interface ScopeTimeouts {
  /** The SDK's wait for response headers; named in the message when that is what ran out. */
  requestTimeoutMs: number;
  /** Longest silence until `answerStarted` (for a non-streaming call: until it ends). */
  startMs: number;
  /** Longest silence after `answerStarted`. */
  idleMs: number;
  /** Whether this is a stream, whose timeouts have their own settings to name. */
  stream: boolean;
}

export class CallScope {
  private readonly controller = new AbortController();
  private readonly callerSignal: AbortSignal | undefined;
  private readonly timeouts: ScopeTimeouts;
  private readonly baseURL: string;
  private timer: NodeJS.Timeout | null = null;
  private expired = false;
  /** The silence allowed now: `startMs`, then `idleMs` once the answer started. */
  private limitMs: number;
  private started = false;
  /** When the provider last said something; the timer checks it instead of being reset per event. */
  private lastActivity = 0;
  private readonly onCallerAbort = (): void => this.controller.abort(this.callerSignal?.reason);

  constructor(callerSignal: AbortSignal | undefined, timeouts: ScopeTimeouts, baseURL: string) {
    this.callerSignal = callerSignal;
    this.timeouts = timeouts;
    this.limitMs = timeouts.startMs;
    this.baseURL = baseURL;
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.arm(this.limitMs);
  }

  /** The signal to pass to the SDK request. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.callerSignal?.aborted ?? false;
  }

  get timedOut(): boolean {
    return this.expired;
  }

  /**
   * The provider is still talking. Called for every stream event, so it only records the time:
   * re-creating a timer per event costs more than the rest of the event's handling.
   */
  touch(): void {
    this.lastActivity = performance.now();
  }

  /** The first event is about to reach the caller: from now on silences get `idleMs`. */
  answerStarted(): void {
    if (this.started) return;
    this.started = true;
    this.limitMs = this.timeouts.idleMs;
    // The pending check may lie up to `startMs` ahead; bring it forward to the new limit.
    this.arm(this.limitMs);
  }

  errorContext(): ErrorContext {
    return {
      baseURL: this.baseURL,
      signal: this.callerSignal,
      timedOut: this.expired,
      // Our own limit when our timer fired; otherwise only the SDK's header wait can have run out.
      timeoutMs: this.expired ? this.limitMs : this.timeouts.requestTimeoutMs,
      stream: this.timeouts.stream && this.expired,
    };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  private arm(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.lastActivity = performance.now();
    this.timer = setTimeout(() => this.check(), delayMs);
  }

  /** Fires when the silence may have lasted `limitMs`; re-arms for the remainder if it has not. */
  private check(): void {
    const silentFor = performance.now() - this.lastActivity;
    if (silentFor < this.limitMs) {
      const remaining = this.limitMs - silentFor;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.check(), Math.max(1, remaining));
      return;
    }
    this.expired = true;
    this.controller.abort(new Error(`no response within ${this.limitMs} ms`));
  }
}

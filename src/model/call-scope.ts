// One attempt of one model call: the signal handed to the SDK, aborted either by the caller or by
// our own timer. The SDK's `timeout` only covers the wait for response headers; a stream that
// goes silent afterwards would hang forever, so for streams the timer restarts on every event.

import type { ErrorContext } from './map-sdk-error.js';

export class CallScope {
  private readonly controller = new AbortController();
  private readonly callerSignal: AbortSignal | undefined;
  private readonly timeoutMs: number;
  private readonly baseURL: string;
  private timer: NodeJS.Timeout | null = null;
  private expired = false;
  /** When the provider last said something; the timer checks it instead of being reset per event. */
  private lastActivity = 0;
  private readonly onCallerAbort = (): void => this.controller.abort(this.callerSignal?.reason);

  constructor(callerSignal: AbortSignal | undefined, timeoutMs: number, baseURL: string) {
    this.callerSignal = callerSignal;
    this.timeoutMs = timeoutMs;
    this.baseURL = baseURL;
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.arm();
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

  errorContext(): ErrorContext {
    return { baseURL: this.baseURL, signal: this.callerSignal, timedOut: this.expired, timeoutMs: this.timeoutMs };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  private arm(delayMs: number = this.timeoutMs): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.lastActivity = performance.now();
    this.timer = setTimeout(() => this.check(), delayMs);
  }

  /** Fires when the silence may have lasted `timeoutMs`; re-arms for the remainder if it has not. */
  private check(): void {
    const silentFor = performance.now() - this.lastActivity;
    if (silentFor < this.timeoutMs) {
      const remaining = this.timeoutMs - silentFor;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.check(), Math.max(1, remaining));
      return;
    }
    this.expired = true;
    this.controller.abort(new Error(`no response within ${this.timeoutMs} ms`));
  }
}

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

  /** Restart the inactivity timer: the provider is still talking. */
  touch(): void {
    this.arm();
  }

  errorContext(): ErrorContext {
    return { baseURL: this.baseURL, signal: this.callerSignal, timedOut: this.expired, timeoutMs: this.timeoutMs };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new Error(`no response within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
  }
}

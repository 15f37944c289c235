// `--max-budget-usd`: a spending cap for a run, kept before each call rather than noticed after it.
// A call is sent only if what was spent plus what it could cost stays within the cap; what it could
// cost is its input (the request's characters / 4, all billed at the uncached rate) plus the whole
// output allowance, at the model's list price, so the estimate errs towards stopping early.

import type { ModelGateway } from './gateway.js';
import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent, Usage } from './ir.js';
import { ModelError } from './model-error.js';
import { ratesFor, usageCost } from './estimate-cost.js';
import type { ModelPricing } from './model-entry.js';

/** What the cap needs to know of a model: its price (null: none known) and its output allowance. */
export interface BudgetModel {
  pricing: ModelPricing | null;
  maxOutputTokens: number;
}

export interface BudgetOptions {
  limitUsd: number;
  /** The model of a request, priced; the CLI resolves every model it may call before the run. */
  model(name: string): BudgetModel;
}

const usd = (amount: number): string => `$${amount.toFixed(amount < 0.01 ? 6 : 4)}`;

export class BudgetGateway implements ModelGateway {
  readonly wireApi: ModelGateway['wireApi'];
  readonly baseURL: string;
  private spent = 0;

  constructor(
    readonly inner: ModelGateway,
    private readonly budget: BudgetOptions,
  ) {
    this.wireApi = inner.wireApi;
    this.baseURL = inner.baseURL;
  }

  /** USD spent so far at list prices (calls without reported usage counted at their estimate). */
  get spentUsd(): number {
    return this.spent;
  }

  /** The call's estimated cost, once it is allowed; throws BUDGET_EXCEEDED (never sent) otherwise. */
  private admit(request: ModelRequest): { estimate: number; pricing: ModelPricing } {
    const { pricing, maxOutputTokens } = this.budget.model(request.model);
    if (pricing === null) {
      throw new ModelError('BUDGET_EXCEEDED', `${request.model} has no known price, so --max-budget-usd cannot be kept; nothing was sent.`);
    }
    const inputTokens = Math.ceil(JSON.stringify([request.messages, request.tools ?? [], request.responseFormat ?? null]).length / 4);
    const outputTokens = request.maxOutputTokens ?? maxOutputTokens;
    const rates = ratesFor(pricing, inputTokens);
    const estimate = (inputTokens * rates.inputPerMillion + outputTokens * rates.outputPerMillion) / 1_000_000;
    if (this.spent + estimate > this.budget.limitUsd) {
      throw new ModelError(
        'BUDGET_EXCEEDED',
        `Stopped before a model call that could cost up to ${usd(estimate)} (about ${inputTokens} input and up to ${outputTokens} output tokens of ${request.model}): ` +
          `with ${usd(this.spent)} spent it could pass the budget of ${usd(this.budget.limitUsd)} (--max-budget-usd). The session can be resumed to continue.`,
      );
    }
    return { estimate, pricing };
  }

  private charge(usage: Usage | null, admitted: { estimate: number; pricing: ModelPricing }): void {
    this.spent += usage === null ? admitted.estimate : usageCost(usage, admitted.pricing);
  }

  async createResponse(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    const admitted = this.admit(request);
    const response = await this.inner.createResponse(request, options);
    this.charge(response.usage, admitted);
    return response;
  }

  async *streamResponse(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamEvent> {
    const admitted = this.admit(request);
    let started = false;
    let completed = false;
    try {
      for await (const event of this.inner.streamResponse(request, options)) {
        started = true;
        if (event.type === 'completed') {
          completed = true;
          this.charge(event.response.usage, admitted);
        }
        yield event;
      }
    } finally {
      // A stream that broke after it started may still be billed: counted at its estimate.
      if (started && !completed) this.charge(null, admitted);
    }
  }
}

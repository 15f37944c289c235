// The one "what did we send on wire X" reader for tests: the fake provider's own reader of captured
// request bodies (src/testing/sent-transcript.ts, which the offline demo uses too), and the views
// of it the suites assert on. A new wire's request shape is taught there, not in each suite.

import type { WireApi } from '../../src/model/index.js';
import { sentTranscript, type CapturedRequest, type SentEntry } from '../../src/testing/index.js';

export { sentTranscript, type SentEntry };

/** A captured body and its wire, or a captured request. */
type Sent = Pick<CapturedRequest, 'body' | 'wireApi'>;

export function sentEntries(body: Record<string, unknown>, wireApi: WireApi): SentEntry[] {
  return sentTranscript({ body, wireApi } satisfies Sent);
}

/** The tool outputs the provider was shown, in order. */
export function toolOutputsSent(body: Record<string, unknown>, wireApi: WireApi): string[] {
  return sentEntries(body, wireApi).flatMap((entry) => (entry.kind === 'output' ? [entry.text] : []));
}

// What every wire builder needs besides the turn itself.

import type { CapturedRequest, IdFactory } from './scripted-turn.js';

export interface WireMeta {
  /** Echoed as `model`. */
  model: string;
  /** Unix seconds, used for `created` / `created_at`. */
  created: number;
  /** Source of response, item and message ids (shared per provider so ids never repeat). */
  ids: IdFactory;
  request: CapturedRequest;
}

/** A complete non-streaming answer: HTTP status and JSON body. */
export interface WireReply {
  status: number;
  body: unknown;
}

// The workbench's addresses: `/` (a new session), `/sessions/:id` with `?tab=` for the inspector
// tab, and `/sessions/:id/calls/:n` for one model call (n from 1, as the trace numbers them).
// The server answers every such path with the page, so reload, Back and shared links work.

import { TAB_NAMES, type InspectorTabName } from '../inspector/tab-names.js';

export interface Route {
  sessionId: string | null;
  tab: InspectorTabName;
  /** Index from 0 of the open model call, or null. */
  call: number | null;
}

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const HOME: Route = { sessionId: null, tab: 'debug', call: null };

export function parseRoute(pathname: string, search: string): Route {
  const params = new URLSearchParams(search);
  const tabParam = params.get('tab');
  const tab = TAB_NAMES.find((name) => name === tabParam) ?? 'debug';
  const match = /^\/sessions\/([^/]+)(?:\/calls\/(\d{1,9}))?\/?$/.exec(pathname);
  if (match === null || !SESSION_ID.test(match[1]!)) return { ...HOME, tab };
  const call = match[2] === undefined ? null : Math.max(0, Number(match[2]) - 1);
  return { sessionId: match[1]!, tab: call === null ? tab : 'debug', call };
}

export function routeUrl(route: Route): string {
  if (route.sessionId === null) return route.tab === 'debug' ? '/' : `/?tab=${route.tab}`;
  const base = `/sessions/${route.sessionId}`;
  if (route.call !== null) return `${base}/calls/${route.call + 1}`;
  return route.tab === 'debug' ? base : `${base}?tab=${route.tab}`;
}

export function sameRoute(a: Route, b: Route): boolean {
  return a.sessionId === b.sessionId && a.tab === b.tab && a.call === b.call;
}

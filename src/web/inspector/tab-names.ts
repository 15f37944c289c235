// The inspector's tabs, in order (shortcuts 1–4 and the `?tab=` of an address name them).

export type InspectorTabName = 'debug' | 'audit' | 'session' | 'context';
export const TAB_NAMES: readonly InspectorTabName[] = ['debug', 'audit', 'session', 'context'];

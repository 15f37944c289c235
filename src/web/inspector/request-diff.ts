// What changed between two consecutive requests: the messages both share at the start, the ones
// the earlier request had that this one no longer sends (a compaction replaced them), and the ones
// added since. Requests only ever grow at the end or get rewritten by compaction, so a common
// prefix says it all.

export interface RequestDiff<M> {
  unchanged: number;
  removed: M[];
  added: M[];
}

export function requestDiff<M>(previous: readonly M[], current: readonly M[]): RequestDiff<M> {
  let same = 0;
  const limit = Math.min(previous.length, current.length);
  while (same < limit && JSON.stringify(previous[same]) === JSON.stringify(current[same])) same += 1;
  return { unchanged: same, removed: previous.slice(same), added: current.slice(same) };
}

// The project root the server runs in, for showing paths relative to it deep in the transcript.

import { createContext, useContext } from 'react';

export const ProjectRootContext = createContext('');

export function useProjectRoot(): string {
  return useContext(ProjectRootContext);
}

/**
 * `text` with every `<root>/` prefix taken out, so paths read project-relative: the model may name
 * absolute paths, and a person approving a write should see where in the project it lands.
 */
export function withoutRoot(text: string, root: string): string {
  const base = root.replace(/\/+$/, '');
  return base === '' ? text : text.split(`${base}/`).join('');
}

// The project root the server runs in, for showing paths relative to it deep in the transcript.

import { createContext, useContext } from 'react';

export const ProjectRootContext = createContext('');

export function useProjectRoot(): string {
  return useContext(ProjectRootContext);
}

// skill: the body and supporting files of a skill, loaded when the model asks for them. The
// system prompt lists only each skill's name and description, so a project with many skills pays
// for the list and for the skills used, not for every body on every request. The skills are
// found again on each call (the folders may have changed since the session started) and read
// through workspace/'s guarded reader with the skill's folder as the root.

import { z } from 'zod';
import { builtInSchema, loadToolDescription, ToolError, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { SKILL_TOOL_NAME } from '../../views/index.js';
import { findSkills, listSkillFiles, RefusedFileError, readSkillBody, readSkillFile, type SkillPlaces } from '../../workspace/index.js';

// Named in views/, which reads the loads back for what they cost.
export { SKILL_TOOL_NAME };

const skillSchema = builtInSchema(
  'skill',
  z.object({
    name: z.string().describe('The skill name, as listed.'),
    file: z.string().optional().describe("A supporting file's path inside the skill's folder; omit to load the skill."),
  }),
);

export type SkillArgs = z.infer<typeof skillSchema>;

export interface SkillToolOptions {
  /** Glassbox's home, whose `skills/` folder holds the user's own skills. */
  glassboxHome: string;
  /** The user's home, whose credential stores are never read (default: the OS's). */
  homeDir?: string;
}

export function createSkillTool(options: SkillToolOptions): Tool<SkillArgs> {
  const placesFor = (root: string): SkillPlaces =>
    options.homeDir === undefined
      ? { root, glassboxHome: options.glassboxHome }
      : { root, glassboxHome: options.glassboxHome, homeDir: options.homeDir };
  return {
    name: SKILL_TOOL_NAME,
    description: loadToolDescription(new URL('./skill.md', import.meta.url)),
    schema: skillSchema,
    readOnly: true,
    strict: false,
    // It reads only inside the skill folders, through the guarded reader (no secret file, nothing
    // outside the folder after realpath), which the user or the project put there for the model;
    // a home skill lies outside the project, where a read path would ask for approval each time.
    access: () => ({ kind: 'none' }),
    async execute(args: SkillArgs, context: ToolContext): Promise<ToolResult> {
      context.signal.throwIfAborted();
      const places = placesFor(context.root);
      const { skills } = await findSkills(places);
      const skill = skills.find((candidate) => candidate.name === args.name);
      if (skill === undefined) {
        const names = skills.map((candidate) => candidate.name).join(', ') || 'none';
        throw new ToolError('UNKNOWN_SKILL', `No skill is named "${args.name}". Skills: ${names}.`);
      }
      try {
        if (args.file !== undefined && args.file.trim() !== '') {
          const text = await readSkillFile(skill, args.file, places);
          if (text === null) throw new ToolError('NOT_FOUND', `The skill ${skill.name} has no file ${args.file}.`);
          return { output: text };
        }
        const [body, listed] = await Promise.all([readSkillBody(skill, places), listSkillFiles(skill)]);
        const files =
          listed.files.length === 0
            ? ''
            : `\n\n<skill_files>\n${listed.files.join('\n')}${listed.more ? '\n… more files not listed' : ''}\n</skill_files>\nRead one with skill(name="${skill.name}", file="<path>").`;
        return { output: `<skill name="${skill.name}" source="${skill.label}">\n${body}\n</skill>${files}` };
      } catch (error) {
        if (error instanceof RefusedFileError)
          throw new ToolError(
            'REFUSED',
            `${args.file?.trim() ? args.file : `${skill.name}/SKILL.md`} ${error.reason.replace(/^leads outside the project/, "leads outside the skill's folder")}.`,
          );
        throw error;
      }
    },
  };
}

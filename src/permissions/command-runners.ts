// Programs the classifier never calls known safe, whatever their arguments, each with the reason
// the verdict gives: those that run another command or change the shell's state, and a few
// whose programs can do anything or never end.

/** Programs whose job is to run another command (or code): never known safe, never granted by prefix. */
export const COMMAND_RUNNERS: ReadonlyMap<string, string> = new Map([
  ['eval', 'runs its arguments as shell code'],
  ['exec', 'replaces the shell with another command'],
  ['source', 'runs a script in the current shell'],
  ['.', 'runs a script in the current shell'],
  ['env', 'runs another command with a changed environment'],
  ['xargs', 'runs a command built from its input'],
  ['sudo', 'runs a command as another user'],
  ['doas', 'runs a command as another user'],
  ['su', 'runs a command as another user'],
  ['nohup', 'runs a command that outlives the shell'],
  ['setsid', 'runs a command in a new session'],
  ['timeout', 'runs another command'],
  ['nice', 'runs another command'],
  ['stdbuf', 'runs another command'],
  ['watch', 'runs a command repeatedly and never ends'],
  ['command', 'runs another command, bypassing functions'],
  ['builtin', 'runs a shell builtin'],
  ['trap', 'runs a command when the shell gets a signal'],
  ['alias', 'changes what a later command name means'],
  ['hash', 'changes where a later command is found'],
  ['enable', 'loads or disables shell builtins'],
  ['set', 'changes shell options for the rest of the command'],
  ['shopt', 'changes shell options for the rest of the command'],
  ['export', 'changes the environment of later commands'],
  ['declare', 'changes shell state'],
  ['typeset', 'changes shell state'],
  ['readonly', 'changes shell state'],
  ['local', 'changes shell state'],
  ['unset', 'changes shell state'],
]);

/** Programs that take a program of their own, which can run commands or never end. */
export const UNSAFE_PROGRAM_REASONS: ReadonlyMap<string, string> = new Map([
  ['awk', 'awk programs can run commands (system()) and write files'],
  ['gawk', 'awk programs can run commands (system()) and write files'],
  ['mawk', 'awk programs can run commands (system()) and write files'],
  ['nawk', 'awk programs can run commands (system()) and write files'],
  ['egrep', 'egrep is a script that runs whatever `grep` PATH finds; `grep -E` is known safe'],
  ['fgrep', 'fgrep is a script that runs whatever `grep` PATH finds; `grep -F` is known safe'],
  ['jq', 'a jq program can run forever (`repeat`, `range(infinite)`), so jq is not known safe'],
]);

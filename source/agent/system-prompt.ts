export type SystemPromptInput = {
  cwd: string;
  /** e.g. `linux`, `darwin` (process.platform). */
  platform: string;
  /** Today, as the person's clock has it. */
  date: Date;
  /**
   * Every tool nib has, whatever the approval mode: the prompt is written once per session and
   * the person can switch modes mid-session, so it must not describe the mode nib started in.
   */
  tools: readonly string[];
  /** Project instructions (AGENTS.md and the like), already labelled with their paths. */
  instructions?: string;
};

/**
 * Short and concrete: a long prompt costs tokens on every request and buries the rules that
 * matter. Pure, so the exact text is testable.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const has = (name: string) => input.tools.includes(name);
  const lines = [
    'You are nib, a coding agent working in the user\'s terminal. You read their code, change files and run commands through tools; every write and command may need their approval.',
    '',
    `Working directory: ${input.cwd}`,
    `OS: ${input.platform}`,
    `Date: ${input.date.toISOString().slice(0, 10)}`,
    `Tools: ${input.tools.join(', ') || 'none'}`,
    '',
    'How to work:',
    '- Look before you act: find files with list/grep and read them; never guess at their content.',
  ];
  if (has('edit')) lines.push('- Read a file before editing it. Prefer edit (a small exact replacement) to rewriting a whole file with write.');
  if (has('write')) lines.push('- Use write for new files, or when most of a file changes.');
  if (has('bash')) lines.push('- Use bash to build, test and inspect; it has no stdin, so pass flags that avoid prompts.');
  lines.push(
    '- If the user declines a call, do not repeat it; adjust to what they said, or ask.',
    '- Paths are relative to the working directory. Stay inside it unless asked.',
    '- Answers are read in a terminal: be short and direct, use Markdown sparingly, and show code only when it helps.',
    '- In plan mode (the user can switch it on and off) only the read tools are offered: investigate, then describe the changes you propose instead of making them.',
  );
  if (input.instructions?.trim()) {
    lines.push('', 'Project instructions:', input.instructions.trim());
  }
  return lines.join('\n');
}

/**
 * Replaces the markdown section that starts with the line `heading` (up to the next line starting
 * with `## `) by `section`, or appends `section` when there is none. This keeps one entry per round
 * when a round interrupted before loop_state.json was written is run again.
 */
export function upsertSection(text: string, heading: string, section: string): string {
  const lines = text.length === 0 ? [] : text.replace(/\n$/, '').split('\n');
  const start = lines.findIndex((line) => line === heading);
  const body = section.replace(/\n+$/, '').split('\n');
  if (start === -1) {
    const prefix = lines.length === 0 ? [] : [...lines, ''];
    return `${[...prefix, ...body].join('\n')}\n`;
  }
  let end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  if (end === -1) end = lines.length;
  const after = lines.slice(end);
  const merged = [...lines.slice(0, start), ...body, ...(after.length > 0 ? ['', ...after] : [])];
  return `${merged.join('\n')}\n`;
}

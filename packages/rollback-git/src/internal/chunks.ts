/** How many file operations run at once. */
export const CONCURRENCY = 16;

/** Runs `task` over `items`, {@link CONCURRENCY} at a time. */
export async function inChunks<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY) {
    await Promise.all(items.slice(i, i + CONCURRENCY).map(task));
  }
}

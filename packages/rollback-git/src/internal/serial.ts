/**
 * Runs async tasks one at a time in call order, so two members of one rollback never interleave
 * their reads and writes of the same repository. A failed task does not block the next.
 */
export function createSerial(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

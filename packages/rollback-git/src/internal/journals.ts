import { ChangeJournal, type JournalLimits } from './change-journal.js';
import type { Repo } from './repo.js';

const journals = new WeakMap<Repo, ChangeJournal>();

/**
 * Turns the change journal on for `repo` (option `watch`, issue 31): its whole-tree scans then
 * stat only what the OS reported touched, once a first walk has put its watches in place.
 * Returns the journal (its `counts` say how scans went).
 */
export function enableJournal(repo: Repo, limits?: JournalLimits): ChangeJournal {
  let journal = journals.get(repo);
  if (journal === undefined) {
    journal = new ChangeJournal(repo.dir, repo.gitdir, limits);
    journals.set(repo, journal);
  }
  return journal;
}

/** `repo`'s change journal, or `undefined` when it is off (or could not work here). */
export function journalOf(repo: Repo): ChangeJournal | undefined {
  const journal = journals.get(repo);
  return journal?.usable ? journal : undefined;
}

/** Closes `repo`'s watchers and turns the journal off. */
export function disableJournal(repo: Repo): void {
  journals.get(repo)?.close();
  journals.delete(repo);
}

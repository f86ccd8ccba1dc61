/**
 * A parallel batch's order of proposer calls: candidate k's `propose` is called only once every
 * candidate before it has called its own (or ended before it), whatever order their working copies
 * were ready in, so a proposer that draws from shared state (a random stream) proposes the same K
 * candidates on a quiet and on a loaded machine (issue 32). The calls still run concurrently.
 */
export interface ProposalTurn {
  /** Resolves when this candidate may call its proposer. */
  readonly wait: () => Promise<void>;
  /** Lets the next candidate call its proposer (idempotent). */
  readonly pass: () => void;
}

/** The turns of `n` candidates: candidate k waits for candidate k − 1 to pass. */
export function proposalTurns(n: number): (k: number) => ProposalTurn {
  const gates: { promise: Promise<void>; open: () => void }[] = Array.from({ length: n + 1 }, () => {
    let open = () => {};
    const promise = new Promise<void>((resolve) => (open = resolve));
    return { promise, open };
  });
  gates[0]!.open();
  return (k) => ({ wait: () => gates[k]!.promise, pass: () => gates[k + 1]!.open() });
}

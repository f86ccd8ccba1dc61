import type { LoopEvent, LoopEventOf, LoopEventType } from '../contracts/events.js';

/** A tiny typed event hub with listeners and async iterators. */
export class EventHub {
  private readonly listeners = new Map<LoopEventType, Set<(event: LoopEvent) => void>>();
  private readonly queues = new Set<{ items: LoopEvent[]; wake?: () => void; done: boolean }>();

  on<T extends LoopEventType>(type: T, handler: (event: LoopEventOf<T>) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(handler as (event: LoopEvent) => void);
    return () => set.delete(handler as (event: LoopEvent) => void);
  }

  emit(event: LoopEvent): void {
    for (const q of this.queues) {
      q.items.push(event);
      q.wake?.();
    }
    for (const handler of this.listeners.get(event.type) ?? []) handler(event);
  }

  close(): void {
    for (const q of this.queues) {
      q.done = true;
      q.wake?.();
    }
  }

  iterate(): AsyncIterableIterator<LoopEvent> {
    const q: { items: LoopEvent[]; wake?: () => void; done: boolean } = { items: [], done: false };
    this.queues.add(q);
    const hub = this;
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      async next(): Promise<IteratorResult<LoopEvent>> {
        for (;;) {
          const item = q.items.shift();
          if (item) return { value: item, done: false };
          if (q.done) {
            hub.queues.delete(q);
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (q.wake = resolve));
          q.wake = undefined;
        }
      },
      async return(): Promise<IteratorResult<LoopEvent>> {
        hub.queues.delete(q);
        return { value: undefined, done: true };
      },
    };
  }
}

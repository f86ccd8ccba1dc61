import { describe, expect, it } from 'vitest';
import { createBarrier, createDeferred } from './deferred.js';

describe('createDeferred and createBarrier', () => {
  it('a deferred settles only when told', async () => {
    const d = createDeferred<number>();
    let settled = false;
    void d.promise.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    d.resolve(7);
    await expect(d.promise).resolves.toBe(7);
  });

  it(
    'a barrier releases nobody until the last of its parties arrives, and ' + 'counts how many waited at once',
    async () => {
      const barrier = createBarrier(3);
      const released: number[] = [];
      const first = barrier.arrive().then(() => released.push(1));
      const second = barrier.arrive().then(() => released.push(2));
      await Promise.resolve();
      expect(released).toEqual([]);
      expect(barrier.arrived()).toBe(2);
      await Promise.all([first, second, barrier.arrive()]);
      expect(released.sort()).toEqual([1, 2]);
      expect(barrier.maxWaiting()).toBe(3);
    },
  );
});

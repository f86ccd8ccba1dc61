import { z } from 'zod';

/** zod schema of a Redis URL (`redis://host:port[/db]` or `rediss://`). */
export const redisUrlSchema = z.string().regex(/^rediss?:\/\/[^\s]+$/, 'redis must be a redis:// or rediss:// URL');

/**
 * BullMQ connection options for `url`: commands wait while the connection is down and ioredis
 * reconnects by itself (`maxRetriesPerRequest: null`, offline queue on), so a Redis restart
 * stalls the coordinator and the workers instead of failing them.
 */
export function connectionOf(url: string): {
  url: string;
  maxRetriesPerRequest: null;
  enableOfflineQueue: boolean;
  retryStrategy: (times: number) => number;
} {
  return {
    url,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(100 * times, 2000),
  };
}

/** The default BullMQ queue name of candidate evaluations. */
export const DEFAULT_QUEUE = 'loop-candidates';

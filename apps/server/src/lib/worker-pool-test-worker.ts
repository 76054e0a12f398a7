// A thread for worker-pool.test.ts: 'exit' ends the thread, 'fill' fills its heap, 'spin' never answers; anything else is echoed.
import { serveWorkerTasks } from './worker-task.ts';

const kept: number[][] = [];
serveWorkerTasks<string, string>(async (input) => {
  if (input === 'exit') process.exit(3);
  // Small arrays, kept: the heap reaches its limit one small allocation at a time.
  if (input === 'fill') for (;;) kept.push(new Array(1000).fill(kept.length));
  if (input === 'spin') for (;;);
  return { value: `echo ${input}` };
});

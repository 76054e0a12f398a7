import { noPayload, type JobDefinition } from '../../queue/job-queue.ts';
import type { EventOutbox } from './outbox.ts';

export const EVENT_SWEEP_JOB = 'event-sweep';

/**
 * Scheduled: dispatches the events a process left behind (it died between a commit and its dispatch) once they are
 * `leftoverMs` old, so the process that wrote one has had its chance to dispatch it, and queues again what the
 * receivers left.
 */
export const eventSweepJob = (outbox: EventOutbox, leftoverMs: number): JobDefinition<Record<string, never>> => ({
  name: EVENT_SWEEP_JOB,
  payload: noPayload,
  handle: async () => void (await outbox.sweep(leftoverMs)),
});

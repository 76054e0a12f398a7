// `npx tsx bench/idle-rss-run.ts` (in apps/server): the memory at rest of the built processes alone.
import { runIdleRssBench } from './idle-rss.ts';

await runIdleRssBench();

// `npx tsx bench/page-run.ts` (in apps/server): the page bench alone.
import { runPageBench } from './page.ts';

await runPageBench();

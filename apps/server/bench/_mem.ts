import { createRenderPool } from '../src/providers/labels/render-pool.ts';
import { eachLimited } from '../src/lib/each-limited.ts';
const pool = createRenderPool(2);
const req = (i: number) => ({ orderId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, uid: 'priority', serviceName: 'Priority', design: 'normal', weight: 2, weightUnit: 'lb', length: null, width: null, height: null,
  from: { name: 'A', company: '', street: '1 Main', street2: '', city: 'NY', state: 'NY', zip: '10001', country: 'United States', phone: '' },
  to: { name: 'B ' + i, company: '', street: '2 Main', street2: '', city: 'LA', state: 'CA', zip: '90210', country: 'United States', phone: '' }, createdAt: new Date().toISOString() });
let peak = 0; const t = setInterval(() => peak = Math.max(peak, process.memoryUsage.rss()), 10);
await eachLimited(Array.from({ length: 50 }, (_, i) => i), 8, async (i) => void await pool.render(req(i) as any));
const before = process.memoryUsage.rss();
await eachLimited(Array.from({ length: 5000 }, (_, i) => i), 8, async (i) => void await pool.render(req(i) as any));
console.log('before', before / 2**20 | 0, 'peak', peak / 2**20 | 0);
clearInterval(t); await pool.close();

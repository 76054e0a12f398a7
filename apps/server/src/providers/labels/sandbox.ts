import fs from 'node:fs';
import { LabelProviderError, type LabelProvider, type LabelReady } from './label-provider.ts';
import type { LabelRenderer } from './render-pool.ts';

export type SandboxMode = 'instant' | 'processing' | 'fail';

export const SANDBOX_FAILURE = 'the sandbox label provider is set to fail (LABEL_SANDBOX_MODE=fail)';

/**
 * The default provider: renders SAMPLE labels locally. Modes exercise the other paths:
 * 'processing' answers later (the label is ready `delayMs` after the order), 'fail' refuses every label.
 */
export function createSandboxLabelProvider(options: { mode: SandboxMode; delayMs: number; renderer: LabelRenderer; callLog?: string }): LabelProvider {
  // A diagnostic: one line per label asked for and per label made, appended by every process alike, so a test can count them across processes.
  const logCall = (what: 'create' | 'made', orderId: string) => {
    if (options.callLog) fs.appendFileSync(options.callLog, `${what} ${orderId}\n`);
  };
  const render = async (request: Parameters<LabelRenderer['render']>[0]): Promise<LabelReady> => {
    const label: LabelReady = { status: 'completed', ...(await options.renderer.render(request)) };
    logCall('made', request.orderId);
    return label;
  };
  return {
    name: 'sandbox',
    freeLabels: true,
    async createLabel(request) {
      logCall('create', request.orderId);
      if (options.mode === 'fail') throw new LabelProviderError(SANDBOX_FAILURE);
      // The ready time travels in the reference, so the sandbox keeps no state of its own.
      if (options.mode === 'processing') return { status: 'processing', providerRef: `sandbox:${Date.now() + options.delayMs}` };
      return render(request);
    },
    async checkLabel(request, providerRef) {
      const readyAt = Number(providerRef.split(':')[1]);
      if (!Number.isFinite(readyAt)) return { status: 'failed', message: 'the sandbox does not know this label' };
      if (Date.now() < readyAt) return { status: 'processing', providerRef };
      return render(request);
    },
  };
}

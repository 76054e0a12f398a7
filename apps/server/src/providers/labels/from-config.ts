import path from 'node:path';
import type { Config } from '../../config.ts';
import type { LabelProvider } from './label-provider.ts';
import { createRenderPool, inlineRenderer, type LabelRenderer } from './render-pool.ts';
import { createSandboxLabelProvider } from './sandbox.ts';

/** Render threads for sandbox labels (LABEL_RENDER_THREADS; 0 renders on the calling thread). */
export function createLabelRenderer(config: Config): LabelRenderer {
  return config.LABEL_RENDER_THREADS > 0 ? createRenderPool(config.LABEL_RENDER_THREADS) : inlineRenderer();
}

/** The configured label provider; the sandbox (LABEL_SANDBOX_MODE) is the only adapter so far. It remembers its purchases in DATA_DIR/sandbox-labels. */
export function createLabelProvider(config: Config, renderer: LabelRenderer): LabelProvider {
  return createSandboxLabelProvider({
    mode: config.LABEL_SANDBOX_MODE,
    delayMs: config.LABEL_SANDBOX_DELAY_MS,
    renderer,
    callLog: config.LABEL_SANDBOX_CALL_LOG,
    memoryDir: path.join(config.dataDir, 'sandbox-labels'),
  });
}

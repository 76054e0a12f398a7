import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const COMPRESSIBLE = /\.(js|css|html|svg|json|csv|txt|map)$/;

/** Writes a .br and a .gz beside every text file of the build, once; the server sends the one the browser takes. */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'portal-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const files = fs.readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && COMPRESSIBLE.test(d.name));
      for (const file of files) {
        const full = path.join(file.parentPath, file.name);
        const data = fs.readFileSync(full);
        if (data.length < 1024) continue; // not worth a round of decompression
        fs.writeFileSync(`${full}.br`, zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length } }));
        fs.writeFileSync(`${full}.gz`, zlib.gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
  server: { port: 5173, strictPort: true },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|@tanstack|clsx|js-cookie|cookie|set-cookie-parser)[\\/]/, priority: 20 },
            { name: 'bootstrap', test: /node_modules[\\/](react-bootstrap|@restart|dom-helpers|@popperjs|react-transition-group|uncontrollable|classnames|warning|invariant|prop-types-extra|dequal|react-lifecycles-compat|@babel[\\/]runtime|@react-aria)[\\/]/, priority: 10 },
          ],
        },
      },
    },
  },
});

// Builds the browser UI into ui/dist (embedded in the binary and served by src/http/static.ts).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * pdf.js's data, fetched by name at run time (so not importable modules): the CMaps of CJK
 * documents, the standard fonts a PDF may name without embedding, and the JavaScript decoders
 * of JPEG 2000 and JBIG2 images (their WebAssembly builds would need 'wasm-unsafe-eval' in the
 * CSP). Emitted under assets/pdfjs-<version>/ (the version keeps the immutable cache honest).
 */
function pdfjsData(): Plugin {
  const dir = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const wanted: Record<string, (name: string) => boolean> = {
    cmaps: (n) => n.endsWith('.bcmap'),
    standard_fonts: (n) => /\.(pfb|ttf)$/.test(n),
    wasm: (n) => n.endsWith('_nowasm_fallback.js'),
  };
  return {
    name: 'burrow-pdfjs-data',
    apply: 'build',
    generateBundle() {
      for (const [sub, keep] of Object.entries(wanted))
        for (const name of fs.readdirSync(path.join(dir, sub)).filter(keep))
          this.emitFile({
            type: 'asset',
            fileName: `assets/pdfjs-${version}/${sub}/${name}`,
            source: fs.readFileSync(path.join(dir, sub, name)),
          });
    },
  };
}

/**
 * The build's third-party notices (build/build.ts) list the packages the UI bundle really
 * carries: with BURROW_UI_MODULES set, every module of every chunk is written there.
 */
function moduleList(): Plugin {
  return {
    name: 'burrow-module-list',
    apply: 'build',
    generateBundle(_options, bundle) {
      const out = process.env.BURROW_UI_MODULES;
      if (!out) return;
      const ids = Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? Object.keys(c.modules) : []));
      fs.writeFileSync(out, JSON.stringify(ids));
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [preact({ prerender: { enabled: false } }), pdfjsData(), moduleList()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    // The server's CSP allows scripts from 'self' only: never inline code.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: true,
    // pdf.js (PdfView's own chunk, ~540 kB, loaded on a phone's first PDF) is the largest.
    chunkSizeWarningLimit: 800,
    // Rolldown warns when a plugin takes a second or more: on a busy machine, copying pdf.js's
    // 1.2 MB worker did, and the warning said more about the load than about the build.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});

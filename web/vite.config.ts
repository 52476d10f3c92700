import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { constants, gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vitest/config";

/**
 * Writes `name.gz` next to every compressible file of the build (the wasm module is
 * ~1.3 MB raw, a third of that gzipped). `podplan playground` serves it to clients that
 * accept gzip; static servers can do the same (nginx `gzip_static on`).
 */
function precompress(): Plugin {
  const compressible = /\.(js|mjs|css|html|wasm|json|svg|map|txt)$/;
  let outDir = "dist";
  return {
    name: "podplan-precompress",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      const walk = (dir: string) => {
        for (const name of readdirSync(dir)) {
          const path = join(dir, name);
          if (statSync(path).isDirectory()) walk(path);
          else if (compressible.test(name) && statSync(path).size >= 1024) {
            const raw = readFileSync(path);
            const gz = gzipSync(raw, { level: constants.Z_BEST_COMPRESSION });
            if (gz.length < raw.length) writeFileSync(`${path}.gz`, gz);
          }
        }
      };
      walk(outDir);
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the built site works from any directory, any host, or file-less
  // from the podplan binary.
  base: "./",
  plugins: [precompress()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 2000,
  },
  server: {
    host: "127.0.0.1",
    // The wasm package lives outside web/ (../wasm/pkg/web).
    fs: { allow: [".."] },
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});

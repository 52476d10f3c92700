import { defineConfig } from "vitest/config";

export default defineConfig({
  // Relative asset URLs: the built site works from any directory, any host, or file-less
  // from the podplan binary.
  base: "./",
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

// Bundle the extension (vscode is provided by the editor) and the pure
// modules the unit tests import.
import * as esbuild from "esbuild";

await esbuild.build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node18",
  external: ["vscode"],
  outfile: "dist/extension.js",
  sourcemap: false,
  logLevel: "warning",
});
await esbuild.build({
  entryPoints: ["src/serverLocation.ts", "src/settings.ts", "src/menuModel.ts"],
  bundle: false,
  platform: "node",
  format: "esm",
  target: "node18",
  outdir: "out",
  outExtension: { ".js": ".mjs" },
  logLevel: "warning",
});

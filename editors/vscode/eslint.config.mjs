import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "out/", "node_modules/"] },
  ...tseslint.configs.recommended,
  {
    files: ["test/**/*.mjs", "e2e/**/*.mjs"],
    languageOptions: {
      globals: { process: "readonly", URL: "readonly", console: "readonly", fetch: "readonly", setTimeout: "readonly" },
    },
  },
);

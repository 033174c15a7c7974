// The TextMate grammars, tokenized with the engine VS Code itself uses
// (vscode-textmate + vscode-oniguruma), over real Linux Kconfig and .config
// lines (the provisioned 6.1 tree when present, else the bundled sample).
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import oniguruma from "vscode-oniguruma";
import textmate from "vscode-textmate";

const require = createRequire(import.meta.url);
const here = new URL("..", import.meta.url).pathname;
const kernel = process.env.KCONFIG_LS_KERNEL ?? join(homedir(), ".cache", "kconfig-ls", "linux-source-6.1");
const haveKernel = existsSync(join(kernel, "Kconfig"));

const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
const onigLib = oniguruma.loadWASM(wasm).then(() => ({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (s) => new oniguruma.OnigString(s),
}));
const registry = new textmate.Registry({
  onigLib,
  loadGrammar: async (scope) => {
    const file = { "source.kconfig": "kconfig", "source.kconfig-config": "kconfig-config" }[scope];
    if (!file) return null;
    const path = join(here, "syntaxes", `${file}.tmLanguage.json`);
    return textmate.parseRawGrammar(readFileSync(path, "utf8"), path);
  },
});

/** [(text, scopes)] for every token of every line. */
async function tokenize(scope, text) {
  const grammar = await registry.loadGrammar(scope);
  let stack = textmate.INITIAL;
  const lines = [];
  for (const line of text.split("\n")) {
    const result = grammar.tokenizeLine(line, stack);
    lines.push(result.tokens.map((t) => [line.slice(t.startIndex, t.endIndex), t.scopes]));
    stack = result.ruleStack;
  }
  return lines;
}

function scopeOf(tokens, text) {
  const token = tokens.find(([t]) => t === text);
  assert.ok(token, `no token ${JSON.stringify(text)} in ${JSON.stringify(tokens.map(([t]) => t))}`);
  return token[1].at(-1);
}

const INTEL = haveKernel ? readFileSync(join(kernel, "drivers/net/ethernet/intel/Kconfig"), "utf8") : null;

test("entries, types, attributes, expressions", async () => {
  const [config, type, depends, select, dflt] = await tokenize("source.kconfig", [
    "config E1000",
    '\ttristate "Intel(R) PRO/1000 Gigabit Ethernet support"',
    "\tdepends on PCI && (X86 || COMPILE_TEST)",
    "\tselect CRC32 if NET",
    "\tdefault y if X86_64 != n",
  ].join("\n"));
  assert.equal(scopeOf(config, "config"), "keyword.control.entry.kconfig");
  assert.equal(scopeOf(config, "E1000"), "entity.name.type.symbol.kconfig");
  assert.equal(scopeOf(type, "tristate"), "storage.type.kconfig");
  assert.equal(scopeOf(type, "Intel(R) PRO/1000 Gigabit Ethernet support"), "string.quoted.double.kconfig");
  assert.equal(scopeOf(depends, "depends on"), "keyword.other.attribute.kconfig");
  assert.equal(scopeOf(depends, "&&"), "keyword.operator.kconfig");
  assert.equal(scopeOf(depends, "COMPILE_TEST"), "variable.other.symbol.kconfig");
  assert.equal(scopeOf(select, "if"), "keyword.control.conditional.kconfig");
  assert.equal(scopeOf(dflt, "y"), "constant.language.tristate.kconfig");
  assert.equal(scopeOf(dflt, "!="), "keyword.operator.kconfig");
});

test("help blocks end where the indentation does", async () => {
  const lines = await tokenize("source.kconfig", [
    "config FOO",
    "\tbool \"foo\"",
    "\thelp",
    "\t  Say Y if (you && want) it; config-like words are text here.",
    "",
    "\t  Second paragraph.",
    "",
    "config BAR",
  ].join("\n"));
  assert.equal(scopeOf(lines[2], "help"), "keyword.other.help.kconfig");
  for (const i of [3, 5]) {
    assert.ok(lines[i].every(([, scopes]) => scopes.includes("comment.block.documentation.help.kconfig")), i);
  }
  assert.equal(scopeOf(lines[7], "config"), "keyword.control.entry.kconfig");
});

test("macros, variables, source and comments", async () => {
  const [assign, shell, source, comment] = await tokenize("source.kconfig", [
    "cc-option = $(success,trap \"rm -rf .tmp_$$\" EXIT; $(CC) -Werror $(CLANG_FLAGS) $(1) -S -x c /dev/null -o .tmp_$$)",
    '\tdefault "$(shell,$(CC) --version | head -n 1)"',
    'source "drivers/net/Kconfig"',
    "# the end",
  ].join("\n"));
  assert.equal(scopeOf(assign, "cc-option"), "variable.other.definition.kconfig");
  // success is a user function (scripts/Kconfig.include), not a built-in.
  assert.equal(scopeOf(assign, "success"), "variable.other.macro.kconfig");
  assert.equal(scopeOf(assign, "CC"), "variable.other.macro.kconfig");
  assert.equal(scopeOf(shell, "shell"), "support.function.macro.kconfig");
  assert.equal(scopeOf(source, "source"), "keyword.control.import.kconfig");
  assert.equal(scopeOf(comment, "# the end"), "comment.line.number-sign.kconfig");
});

test("every config line of a real kernel Kconfig names its symbol", { skip: !haveKernel }, async () => {
  const lines = await tokenize("source.kconfig", INTEL);
  const text = INTEL.split("\n");
  let checked = 0;
  text.forEach((line, i) => {
    const m = /^config ([A-Z0-9_]+)$/.exec(line);
    if (m) {
      assert.equal(scopeOf(lines[i], m[1]), "entity.name.type.symbol.kconfig", line);
      checked += 1;
    }
    if (/^\tdepends on /.test(line)) {
      assert.equal(scopeOf(lines[i], "depends on"), "keyword.other.attribute.kconfig", line);
    }
  });
  assert.ok(checked >= 20, `only ${checked} config lines`);
});

test(".config lines", async () => {
  const [header, unset, yes, string, hex] = await tokenize("source.kconfig-config", [
    "# Automatically generated file; DO NOT EDIT.",
    "# CONFIG_E1000 is not set",
    "CONFIG_NET=y",
    'CONFIG_LOCALVERSION="-test \\"quoted\\""',
    "CONFIG_PHYSICAL_START=0x1000000",
  ].join("\n"));
  assert.equal(scopeOf(header, "# Automatically generated file; DO NOT EDIT."), "comment.line.number-sign.kconfig-config");
  assert.equal(scopeOf(unset, "CONFIG_E1000"), "variable.other.symbol.kconfig-config");
  assert.equal(scopeOf(unset, "is not set"), "constant.language.unset.kconfig-config");
  assert.equal(scopeOf(yes, "CONFIG_NET"), "variable.other.symbol.kconfig-config");
  assert.equal(scopeOf(yes, "y"), "constant.language.tristate.kconfig-config");
  assert.equal(scopeOf(string, '\\"'), "constant.character.escape.kconfig-config");
  assert.equal(scopeOf(hex, "0x1000000"), "constant.numeric.kconfig-config");
});

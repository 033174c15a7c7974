// Unit tests of finding the server and building its settings (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";
import { locateServer } from "../out/serverLocation.mjs";
import { archChoices, initializationOptions, statusText } from "../out/settings.mjs";

function probe(executables, onPath = {}) {
  return {
    isExecutable: (p) => executables.includes(p),
    which: (name) => onPath[name],
  };
}

test("kconfig.server.path wins when it is an executable", () => {
  const found = locateServer({ path: "/venv/bin/kconfig-ls", python: "/usr/bin/python3" },
    probe(["/venv/bin/kconfig-ls"], { "kconfig-ls": "/usr/bin/kconfig-ls" }));
  assert.deepEqual(found, { command: "/venv/bin/kconfig-ls", args: ["serve"], source: "kconfig.server.path" });
});

test("a wrong kconfig.server.path is an error naming the setting and the fix", () => {
  const found = locateServer({ path: "/nope/kconfig-ls" }, probe([], { "kconfig-ls": "/usr/bin/kconfig-ls" }));
  assert.match(found.error, /kconfig\.server\.path is "\/nope\/kconfig-ls", which is not an executable file/);
  assert.match(found.error, /scripts\/setup/);
});

test("kconfig.server.python runs the module, bare names are looked up on PATH", () => {
  assert.deepEqual(locateServer({ python: "/venv/bin/python" }, probe(["/venv/bin/python"])),
    { command: "/venv/bin/python", args: ["-m", "kconfig_ls", "serve"], source: "kconfig.server.python" });
  assert.deepEqual(locateServer({ python: "python3" }, probe([], { python3: "/usr/bin/python3" })).command,
    "/usr/bin/python3");
  assert.match(locateServer({ python: "python9" }, probe([])).error, /kconfig\.server\.python/);
});

test("otherwise kconfig-ls on PATH, else a clear error", () => {
  assert.deepEqual(locateServer({ path: " ", python: "" }, probe([], { "kconfig-ls": "/usr/local/bin/kconfig-ls" })),
    { command: "/usr/local/bin/kconfig-ls", args: ["serve"], source: "PATH" });
  assert.match(locateServer({}, probe([])).error, /kconfig-ls was not found on PATH/);
});

test("settings become initializationOptions with the workspace trust", () => {
  assert.deepEqual(initializationOptions({ arch: "x86_64", configFile: "", root: " ", trustedRoots: ["/src"] }, false),
    { kconfig: { arch: "x86_64", trustedRoots: ["/src"] }, trusted: false });
  assert.equal(initializationOptions({}, true).trusted, true);
});

test("status text and architecture choices", () => {
  assert.equal(statusText({ arch: "arm64", configFile: "/src/linux/.config", configExists: true }),
    "Kconfig: arm64 · .config");
  assert.equal(statusText({ arch: "x86_64", configFile: "/t/.config", configExists: false }),
    "Kconfig: x86_64 · .config (defaults)");
  assert.equal(statusText({ arch: null, configFile: "/t/my.config", configExists: true }), "Kconfig: my.config");
  assert.deepEqual(archChoices(["x86", "arm64", "um"]), ["arm64", "i386", "um", "x86", "x86_64"]);
});

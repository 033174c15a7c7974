// Unit tests of finding the server and building its settings (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findBundle, locateServer, nodeProbe } from "../out/serverLocation.mjs";
import { archChoices, initializationOptions, statusText } from "../out/settings.mjs";

function probe(executables, onPath = {}, pythons = {}) {
  return {
    isExecutable: (p) => executables.includes(p),
    which: (name) => onPath[name],
    python: (p) => pythons[p],
  };
}

const BUNDLE = { libs: "/ext/bundled/libs", version: "0.1.0" };
const PY311 = { version: [3, 11, 2] };

test("kconfig.server.path wins when it is an executable", () => {
  const found = locateServer({ path: "/venv/bin/kconfig-ls", python: "/usr/bin/python3" },
    probe(["/venv/bin/kconfig-ls"], { "kconfig-ls": "/usr/bin/kconfig-ls" }), BUNDLE);
  assert.equal(found.command, "/venv/bin/kconfig-ls");
  assert.deepEqual(found.args, ["serve"]);
  assert.equal(found.source, "kconfig.server.path");
  assert.match(found.description, /\/venv\/bin\/kconfig-ls \(kconfig.server.path\)/);
});

test("a wrong kconfig.server.path is an error naming the setting and the fix", () => {
  const found = locateServer({ path: "/nope/kconfig-ls" }, probe([], { "kconfig-ls": "/usr/bin/kconfig-ls" }));
  assert.match(found.error, /kconfig\.server\.path is "\/nope\/kconfig-ls", which is not an executable file/);
  assert.match(found.error, /scripts\/setup/);
});

test("kconfig.server.python with kconfig-ls installed runs it, before the bundle", () => {
  const python = { version: [3, 12, 1], kconfigLs: "0.0.9" };
  const found = locateServer({ python: "/venv/bin/python" }, probe(["/venv/bin/python"], {}, { "/venv/bin/python": python }),
    BUNDLE);
  assert.deepEqual([found.command, found.args, found.source, found.env],
    ["/venv/bin/python", ["-m", "kconfig_ls", "serve"], "kconfig.server.python", undefined]);
  assert.match(found.description, /kconfig-ls 0\.0\.9 installed in \/venv\/bin\/python .*Python 3\.12\.1/);
  // Bare names are looked up on PATH.
  assert.equal(locateServer({ python: "python3" },
    probe([], { python3: "/usr/bin/python3" }, { "/usr/bin/python3": python })).command, "/usr/bin/python3");
});

test("kconfig.server.python without kconfig-ls runs the bundled server", () => {
  const found = locateServer({ python: "/opt/py/bin/python3" },
    probe(["/opt/py/bin/python3"], {}, { "/opt/py/bin/python3": PY311 }), BUNDLE);
  assert.equal(found.source, "bundled");
  assert.equal(found.command, "/opt/py/bin/python3");
  assert.deepEqual(found.env, { PYTHONPATH: "/ext/bundled/libs", PYTHONNOUSERSITE: "1" });
  // Without a bundle that is an error.
  assert.match(locateServer({ python: "/opt/py/bin/python3" },
    probe(["/opt/py/bin/python3"], {}, { "/opt/py/bin/python3": PY311 })).error, /cannot import kconfig_ls/);
});

test("a kconfig.server.python that does not run, or is too old, is one clear message", () => {
  assert.match(locateServer({ python: "python9" }, probe([]), BUNDLE).error,
    /kconfig\.server\.python is "python9", which is not a Python interpreter that runs.*Python 3\.11 or newer/);
  const old = probe(["/usr/bin/python3.9"], {}, { "/usr/bin/python3.9": { version: [3, 9, 2] } });
  assert.match(locateServer({ python: "/usr/bin/python3.9" }, old, BUNDLE).error,
    /is Python 3\.9\.2 without kconfig-ls.*apt-get install python3/);
});

test("no settings: the bundle with python3 from PATH, before kconfig-ls on PATH", () => {
  const onPath = { python3: "/usr/bin/python3", "kconfig-ls": "/usr/local/bin/kconfig-ls" };
  const found = locateServer({ path: " ", python: "" }, probe([], onPath, { "/usr/bin/python3": PY311 }), BUNDLE);
  assert.equal(found.source, "bundled");
  assert.equal(found.command, "/usr/bin/python3");
  assert.match(found.description,
    /kconfig-ls 0\.1\.0 bundled in the extension \(\/ext\/bundled\/libs\), run by \/usr\/bin\/python3 \(Python 3\.11\.2\)/);
});

test("a python3 too old for the bundle falls back to kconfig-ls on PATH, else says what to install", () => {
  const old = { "/usr/bin/python3": { version: [3, 10, 12] } };
  assert.equal(locateServer({}, probe([], { python3: "/usr/bin/python3", "kconfig-ls": "/usr/bin/kconfig-ls" }, old),
    BUNDLE).source, "PATH");
  assert.match(locateServer({}, probe([], { python3: "/usr/bin/python3" }, old), BUNDLE).error,
    /python3 on PATH is Python 3\.10\.12\. The server bundled in this extension needs Python 3\.11 or newer/);
  assert.match(locateServer({}, probe([]), BUNDLE).error, /no python3 was found on PATH/);
});

test("without a bundle: kconfig-ls on PATH, else a clear error", () => {
  assert.deepEqual(locateServer({}, probe([], { "kconfig-ls": "/usr/local/bin/kconfig-ls" })).command,
    "/usr/local/bin/kconfig-ls");
  assert.match(locateServer({}, probe([])).error, /kconfig-ls was not found on PATH/);
});

test("the real probe reads an interpreter's version and whether it has kconfig_ls", () => {
  const real = nodeProbe({ PATH: "/usr/bin:/bin" });
  const info = real.python("/usr/bin/python3");
  assert.equal(info.version[0], 3);
  assert.equal(real.python("/bin/false"), undefined);
});

test("findBundle reads the bundled package's version", () => {
  const root = mkdtempSync(join(tmpdir(), "bundle-"));
  mkdirSync(join(root, "bundled", "libs", "kconfig_ls"), { recursive: true });
  writeFileSync(join(root, "bundled", "libs", "kconfig_ls", "__init__.py"), '"""doc"""\n\n__version__ = "1.2.3"\n');
  assert.deepEqual(findBundle(root), { libs: join(root, "bundled", "libs"), version: "1.2.3" });
  assert.equal(findBundle(join(root, "nowhere")), undefined);
});

test("settings become initializationOptions with the workspace trust", () => {
  assert.deepEqual(initializationOptions({ arch: "x86_64", configFile: "", root: " ", trustedRoots: ["/src"] }, false),
    { kconfig: { arch: "x86_64", trustedRoots: ["/src"] }, trusted: false, commandLinks: true });
  assert.equal(initializationOptions({}, true).trusted, true);
  assert.deepEqual(initializationOptions({ kconfigVersion: "6.1" }, true).kconfig, { kconfigVersion: "6.1", trustedRoots: [] });
});

test("status text and architecture choices", () => {
  assert.equal(statusText({ arch: "arm64", configFile: "/src/linux/.config", configExists: true }),
    "Kconfig: arm64 · .config");
  assert.equal(statusText({ arch: "x86_64", configFile: "/t/.config", configExists: false }),
    "Kconfig: x86_64 · .config (defaults)");
  assert.equal(statusText({ arch: null, configFile: "/t/my.config", configExists: true }), "Kconfig: my.config");
  assert.deepEqual(archChoices(["x86", "arm64", "um"]), ["arm64", "i386", "um", "x86", "x86_64"]);
});

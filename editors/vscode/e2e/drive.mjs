// End-to-end: the packaged extension in a real VS Code (code-server), driven
// through headless Chromium.  Installs the .vsix, opens a folder, opens a
// Kconfig file by Quick Open, puts the cursor on a symbol with Go to Line,
// shows the hover and prints its text as JSON on stdout:
//   {"hover": "...", "status": "..."}
//
//   node e2e/drive.mjs --code-server BIN --vsix FILE --folder DIR \
//        --file drivers/Kconfig --line 16 --column 9 [--python PYTHON] [--chromium BIN] [--expect TEXT] \
//        [--screenshot PNG] [--definition-at LINE:COL] [--break-at LINE [--break-text TEXT]] [--read-output]
//        [--count-faded]
// Without --python no server setting is made: the extension finds its server
// itself (the bundled one).  With --read-output, also opens the "Kconfig"
// Output channel and reports its text as "output".
// With --menu, also opens the Kconfig "Menu" view, expands "Device drivers",
// ticks the checkbox of "Networking support" and reports the rows shown and
// the editor's text afterwards as "menu" (--menu-screenshot: a picture).
// With --count-faded, also reports how many spans on screen are drawn faded
// (diagnostics tagged "unnecessary": the compiled-out lines) as "faded".
// With --definition-at, also presses F12 there and reports the cursor's new
// "Ln L, Col C"; with --break-at, types TEXT at the end of that line and
// reports the error count the status bar then shows.
//
// Exits 1 (with what the page showed) when no hover containing --expect
// (default "value") appears within two minutes.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { chromium } from "playwright-core";

const { values: args } = parseArgs({
  options: {
    "code-server": { type: "string" },
    vsix: { type: "string" },
    folder: { type: "string" },
    file: { type: "string" },
    line: { type: "string" },
    column: { type: "string" },
    python: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    expect: { type: "string", default: "value" },
    keep: { type: "boolean", default: false },
    screenshot: { type: "string" },
    "definition-at": { type: "string" },
    "break-at": { type: "string" },
    "break-text": { type: "string", default: " (" },
    "read-output": { type: "boolean", default: false },
    "count-faded": { type: "boolean", default: false },
    menu: { type: "boolean", default: false },
    "menu-screenshot": { type: "string" },
  },
});
for (const name of ["code-server", "vsix", "folder", "file", "line", "column"]) {
  if (!args[name]) {
    console.error(`drive.mjs: --${name} is required`);
    process.exit(2);
  }
}

const TIMEOUT_MS = 120_000;
const work = mkdtempSync(join(tmpdir(), "kconfig-ls-vscode-e2e-"));
const userData = join(work, "user-data");
const extensions = join(work, "extensions");
mkdirSync(join(userData, "User"), { recursive: true });
writeFileSync(
  join(userData, "User", "settings.json"),
  JSON.stringify({
    ...(args.python ? { "kconfig.server.python": args.python } : {}),
    "security.workspace.trust.enabled": false,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
  }),
);

function log(message) {
  console.error(`drive.mjs: ${message}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, deadline) {
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer`);
}

const common = ["--user-data-dir", userData, "--extensions-dir", extensions];
const install = spawnSync(args["code-server"], [...common, "--install-extension", args.vsix], {
  encoding: "utf8",
});
if (install.status !== 0) {
  log(`installing the extension failed:\n${install.stdout}\n${install.stderr}`);
  process.exit(1);
}
log(install.stdout.trim().split("\n").pop());

const port = await freePort();
const server = spawn(
  args["code-server"],
  [
    ...common,
    "--auth", "none",
    "--bind-addr", `127.0.0.1:${port}`,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
    args.folder,
  ],
  { stdio: ["ignore", "pipe", "pipe"], detached: true },
);
let serverLog = "";
server.stdout.on("data", (d) => (serverLog += d));
server.stderr.on("data", (d) => (serverLog += d));

let browser;
let exitCode = 1;
const deadline = Date.now() + TIMEOUT_MS;
try {
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, deadline);
  browser = await chromium.launch({
    executablePath: args.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${base}/?folder=${encodeURIComponent(args.folder)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: TIMEOUT_MS });
  await page.waitForSelector(".part.statusbar", { timeout: TIMEOUT_MS });

  // Open the file with Quick Open.
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } });
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input", { timeout: TIMEOUT_MS });
  await page.keyboard.type(args.file, { delay: 20 });
  await page.waitForSelector(".quick-input-list .monaco-list-row", { timeout: TIMEOUT_MS });
  await page.keyboard.press("Enter");
  await page.waitForSelector(".monaco-editor .view-lines", { timeout: TIMEOUT_MS });
  log(`opened ${args.file}`);

  async function goTo(lineColumn) {
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+G");
    await page.waitForSelector(".quick-input-widget input", { timeout: TIMEOUT_MS });
    await page.keyboard.type(lineColumn, { delay: 20 });
    await page.keyboard.press("Enter");
  }

  async function statusbar() {
    return page.locator(".part.statusbar").innerText();
  }

  /** Poll ``probe`` until it returns something truthy or 30 s pass. */
  async function poll(probe) {
    const until = Math.min(deadline, Date.now() + 30_000);
    let value;
    while (Date.now() < until) {
      value = await probe();
      if (value) return value;
      await new Promise((r) => setTimeout(r, 250));
    }
    return value;
  }

  /** The Kconfig "Menu" view: open it from the palette, expand a menu,
   * tick a checkbox, and see the config buffer change. */
  async function driveMenu() {
    await page.keyboard.press("Escape");
    await page.keyboard.press("F1");
    await page.waitForSelector(".quick-input-widget input", { timeout: TIMEOUT_MS });
    await page.keyboard.type("Kconfig: Open Menu", { delay: 20 });
    await page.waitForSelector(".quick-input-list .monaco-list-row", { timeout: TIMEOUT_MS });
    await page.keyboard.press("Enter");
    // (The view has the side bar to itself: its own activity-bar container.)
    const rows = page.locator(".part.sidebar .monaco-list-row");
    const row = (text) => rows.filter({ hasText: text }).first();
    await row("Device drivers").waitFor({ timeout: TIMEOUT_MS });
    const top = await rows.allInnerTexts();
    await row("Device drivers").click();
    await row("Networking support").waitFor({ timeout: TIMEOUT_MS });
    const expanded = await rows.allInnerTexts();
    await row("Networking support").locator(".custom-view-tree-node-item-checkbox").click();
    const editor = page.locator(".monaco-editor .view-lines").first();
    const configText = await poll(async () => {
      const text = (await editor.innerText()).replace(/\u00a0/g, " ");
      return text.includes("CONFIG_NET=y") ? text : "";
    });
    // (Network device support shows once the server read the edited buffer.)
    await poll(async () => (await rows.allInnerTexts()).some((t) => t.includes("Network device support")));
    const after = await rows.allInnerTexts();
    if (args["menu-screenshot"]) await page.screenshot({ path: args["menu-screenshot"] });
    return { top, expanded, configText, after };
  }

  let hover = "";
  while (Date.now() < deadline) {
    // Go to line:column, then "Show or Focus Hover".
    await goTo(`${args.line}:${args.column}`);
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    try {
      await page.waitForSelector(".monaco-hover .hover-contents", { state: "visible", timeout: 3000 });
      hover = await page.locator(".monaco-hover").first().innerText();
    } catch {
      hover = "";
    }
    if (hover.includes(args.expect)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const status = await statusbar();
  const result = { hover, status };
  if (hover.includes(args.expect)) {
    exitCode = 0;
    if (args["count-faded"]) {
      result.faded = await poll(async () => page.locator(".monaco-editor .squiggly-inline-unnecessary").count());
    }
    if (args.screenshot) await page.screenshot({ path: args.screenshot });
    await page.keyboard.press("Escape");
    if (args["read-output"]) {
      // The extension's Output channel, through the palette's "Output: Show
      // Output Channels..." (its first lines say which server runs).
      await page.keyboard.press("Escape");
      await page.keyboard.press("F1");
      await page.waitForSelector(".quick-input-widget input", { timeout: TIMEOUT_MS });
      await page.keyboard.type("Output: Show Output Channels", { delay: 20 });
      await page.waitForSelector(".quick-input-list .monaco-list-row", { timeout: TIMEOUT_MS });
      await page.keyboard.press("Enter");
      await page.keyboard.type("Kconfig", { delay: 20 });
      await page.keyboard.press("Enter");
      result.output = await poll(async () => {
        const lines = page.locator(".output-view .view-lines");
        const text = (await lines.count()) ? await lines.first().innerText() : "";
        return text.includes("server:") ? text : "";
      });
      // Back to the editor (Go to Line would move in the Output view).
      await page.keyboard.press("Control+1");
    }
    if (args.menu) {
      result.menu = await driveMenu();
    }
    if (args["definition-at"]) {
      // Go to Definition (F12) from a reference; the cursor position the
      // status bar then shows is where the server sent the editor.
      await goTo(args["definition-at"]);
      const from = `Ln ${args["definition-at"].split(":")[0]},`;
      await poll(async () => (await statusbar()).includes(from));
      await page.keyboard.press("F12");
      result.definition = await poll(async () => {
        const now = (await statusbar()).match(/Ln \d+, Col \d+/);
        return now && !now[0].startsWith(from) ? now[0] : "";
      });
    }
    if (args["break-at"]) {
      // Type text that breaks the line; the error count in the status bar
      // comes from the diagnostics the server publishes.
      await goTo(args["break-at"]);
      await page.keyboard.press("End");
      await page.keyboard.type(args["break-text"], { delay: 20 });
      result.errors_after_break = await poll(async () => {
        const text = await page.locator('[id="status.problems"]').innerText();
        const errors = Number((text.match(/\d+/) || ["0"])[0]);
        return errors > 0 ? errors : 0;
      });
    }
  }
  console.log(JSON.stringify(result));
  if (exitCode !== 0) {
    log(`no hover with ${JSON.stringify(args.expect)}; last: ${JSON.stringify(hover)}`);
    await page.screenshot({ path: join(work, "page.png") });
    log(`screenshot: ${join(work, "page.png")}`);
  }
} catch (err) {
  log(`${err.stack || err}\n--- code-server log ---\n${serverLog}`);
} finally {
  if (browser) await browser.close();
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    // already gone
  }
  if (exitCode === 0 && !args.keep) rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);

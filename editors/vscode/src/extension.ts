// The kconfig-ls extension: starts the language server (found as
// serverLocation.ts says), passes the settings and workspace trust, and adds
// the palette commands and the status bar item.  Everything about Kconfig
// itself happens in the server.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from "vscode-languageclient/node";
import { MenuNode, MenuTree } from "./menuTree";
import { Bundle, findBundle, locateServer, nodeProbe } from "./serverLocation";
import { archChoices, initializationOptions, KconfigSettings, statusText } from "./settings";

let client: LanguageClient | undefined;
let statusItem: vscode.StatusBarItem;
let output: vscode.OutputChannel;
let bundle: Bundle | undefined;
let menu: MenuTree;

function settings(): KconfigSettings {
  const config = vscode.workspace.getConfiguration("kconfig");
  return {
    arch: config.get<string>("arch"),
    configFile: config.get<string>("configFile"),
    root: config.get<string>("root"),
    kconfigVersion: config.get<string>("kconfigVersion"),
    trustedRoots: config.get<string[]>("trustedRoots"),
  };
}

async function execute<T>(command: string, ...args: unknown[]): Promise<T | undefined> {
  if (!client) {
    void vscode.window.showWarningMessage("kconfig-ls is not running (see the Kconfig output).");
    return undefined;
  }
  try {
    return (await client.sendRequest("workspace/executeCommand", { command, arguments: args })) as T;
  } catch (err) {
    void vscode.window.showErrorMessage(`kconfig-ls: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

async function request<T>(method: string, params: unknown): Promise<T | undefined> {
  if (!client) return undefined;
  try {
    return (await client.sendRequest(method, params)) as T;
  } catch (err) {
    output.appendLine(`${method}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

async function startClient(): Promise<void> {
  const config = vscode.workspace.getConfiguration("kconfig");
  const located = locateServer(
    { path: config.get<string>("server.path"), python: config.get<string>("server.python") },
    nodeProbe(),
    bundle,
  );
  if ("error" in located) {
    output.appendLine(located.error);
    const choice = await vscode.window.showErrorMessage(located.error, "Open Settings");
    if (choice === "Open Settings") {
      void vscode.commands.executeCommand("workbench.action.openSettings", "kconfig.server");
    }
    return;
  }
  output.appendLine(`starting ${located.description}: ${located.command} ${located.args.join(" ")}`);
  const serverOptions: ServerOptions = {
    command: located.command,
    args: located.args,
    transport: TransportKind.stdio,
    options: located.env ? { env: { ...process.env, ...located.env } } : undefined,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(config.get<boolean>("sourceFiles", true)),
    initializationOptions: initializationOptions(settings(), vscode.workspace.isTrusted),
    outputChannel: output,
    // The hover's "full explanation" link runs this command, and only it.
    markdown: { isTrusted: { enabledCommands: ["kconfig-ls.explain"] } },
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{Kconfig,Kconfig.*,Config.in,*.kconfig,.config}"),
    },
  };
  client = new LanguageClient("kconfig-ls", "Kconfig (kconfig-ls)", serverOptions, clientOptions);
  client.onNotification("kconfig/status", (status: ServerStatus) => showStatus(status));
  client.onNotification("kconfig/menuChanged", () => menu.refresh());
  await client.start();
  menu.refresh();
  const status = await execute<ServerStatus>("kconfig.status");
  if (status?.server) {
    output.appendLine(`server: kconfig-ls ${status.server.version} from ${status.server.package} (Python ${status.server.pythonVersion} at ${status.server.python})`);
  }
  showStatus(status);
}

/** The documents the server is given: Kconfig and config files, and with
 * kconfig.sourceFiles the tree's C, assembly, device-tree and make files
 * (the server reads only their CONFIG_ uses). */
function documentSelector(sourceFiles: boolean): { language: string; scheme?: string; pattern?: string }[] {
  const selector: { language: string; scheme?: string; pattern?: string }[] = [
    { language: "kconfig" },
    { language: "kconfig-config" },
  ];
  if (sourceFiles) {
    for (const language of SOURCE_LANGUAGES) selector.push({ language, scheme: "file" });
    selector.push({ language: "restructuredtext", scheme: "file", pattern: "**/Documentation/**" });
  }
  return selector;
}

/** Language ids of VS Code and common extensions for the files whose
 * CONFIG_ uses the server reads. */
const SOURCE_LANGUAGES = ["c", "cpp", "asm", "arm", "dts", "linkerscript", "makefile", "rust"];

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

type ServerInfo = { version: string; package: string; python: string; pythonVersion: string };
type ServerStatus = { loaded: boolean; arch?: string; configFile?: string; configExists?: boolean; server?: ServerInfo };

async function updateStatus(): Promise<void> {
  showStatus(await execute<ServerStatus>("kconfig.status"));
}

/** Show what the server has loaded (it also sends this after every load). */
function showStatus(status: ServerStatus | undefined): void {
  if (status && status.loaded) {
    statusItem.text = `$(chip) ${statusText(status)}`;
    const server = status.server ? ` Server: kconfig-ls ${status.server.version} (${status.server.package}).` : "";
    statusItem.tooltip = `kconfig-ls: ARCH=${status.arch}, config ${status.configFile}.${server} Click to change ARCH.`;
    statusItem.show();
  }
}

function symbolAtCursor(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const range = editor.document.getWordRangeAtPosition(editor.selection.active, /[A-Za-z0-9_]+/);
  if (!range) return undefined;
  return editor.document.getText(range).replace(/^CONFIG_/, "");
}

async function showText(title: string, text: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ content: `${title}\n\n${text}`, language: "markdown" });
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
}

async function explainCommand(symbol?: unknown): Promise<void> {
  // From a hover link the symbol comes as the argument.
  const given = typeof symbol === "string" ? symbol : undefined;
  const name = given ?? symbolAtCursor() ?? (await vscode.window.showInputBox({ prompt: "Symbol to explain" }));
  if (!name) return;
  const result = await execute<{ text: string }>("kconfig.explain", name);
  if (result) await showText(`# Why CONFIG_${name} has its value`, "```\n" + result.text + "```");
}

interface HowToResult {
  text: string;
  result: { reachable: boolean; already: boolean; assignments: Record<string, string> };
}

async function howToCommand(): Promise<void> {
  const name = symbolAtCursor() ?? (await vscode.window.showInputBox({ prompt: "Symbol" }));
  if (!name) return;
  const target = await vscode.window.showQuickPick(["y", "m", "n", "another value…"], {
    placeHolder: `Make CONFIG_${name} =`,
  });
  if (!target) return;
  const value = target === "another value…" ? await vscode.window.showInputBox({ prompt: `Value for ${name}` }) : target;
  if (value === undefined) return;
  await offerHowTo(name, value, false);
}

/** The verified how-to for `name` = `value`: shown when there is nothing
 * to apply, else offered ("Apply to config"; `modal` asks in a dialog, as
 * the menu's "Make it y/m" does, where the click alone chose the value). */
async function offerHowTo(name: string, value: string, modal: boolean): Promise<void> {
  const answer = await execute<HowToResult>("kconfig.howTo", name, value);
  if (!answer) return;
  const show = () => showText(`# CONFIG_${name}=${value}`, "```\n" + answer.text + "```");
  if (!answer.result.reachable || answer.result.already) {
    await show();
    return;
  }
  const sets = Object.entries(answer.result.assignments).map(([n, v]) => `${n}=${v}`).join(", ");
  const choice = modal
    ? await vscode.window.showInformationMessage(`Make ${name}=${value}: set ${sets}?`, { modal: true }, "Apply to config")
    : await vscode.window.showInformationMessage(`Make ${name}=${value}: set ${sets}`, "Apply to config", "Show");
  if (choice === "Apply to config") {
    await execute("kconfig.applyHowTo", name, value);
  } else if (choice === "Show") {
    await show();
  }
}

interface Outcome {
  ok: boolean;
  stage: string;
  message: string;
  log_tail: string;
}

async function writeConfigCommand(): Promise<void> {
  const result = await execute<Outcome>("kconfig.writeConfig", {});
  if (!result) return;
  if (result.ok) void vscode.window.showInformationMessage(`kconfig-ls: ${result.message}`);
  else void vscode.window.showErrorMessage(`kconfig-ls: ${result.message}`);
}

async function validateCommand(): Promise<void> {
  const mode = await vscode.window.showQuickPick(
    ["Build and boot in QEMU", "Build only", "Add boot essentials, build and boot"],
    { placeHolder: "Validate the configuration" },
  );
  if (!mode) return;
  const result = await execute<Outcome>("kconfig.validate", {
    boot: mode !== "Build only",
    addBootEssentials: mode.startsWith("Add"),
  });
  if (!result) return;
  if (result.ok) {
    void vscode.window.showInformationMessage(`kconfig-ls: ${result.message}`);
  } else {
    output.appendLine(`validate failed (${result.stage}): ${result.message}\n${result.log_tail}`);
    output.show(true);
    void vscode.window.showErrorMessage(`kconfig-ls: validation failed (${result.stage}): ${result.message}`);
  }
}

async function setArchCommand(): Promise<void> {
  const status = await execute<{ root?: string }>("kconfig.status");
  let dirs: string[] = [];
  if (status?.root) {
    try {
      dirs = fs.readdirSync(path.join(status.root, "arch")).filter((d) =>
        fs.existsSync(path.join(status.root as string, "arch", d, "Kconfig")),
      );
    } catch {
      dirs = [];
    }
  }
  const arch = await vscode.window.showQuickPick(archChoices(dirs), { placeHolder: "ARCH" });
  if (!arch) return;
  await execute("kconfig.setArch", arch);
  await updateStatus();
}

function associateConfFile(document: vscode.TextDocument): void {
  const enabled = vscode.workspace.getConfiguration("kconfig").get<boolean>("associateConfFiles");
  if (enabled && document.fileName.endsWith(".conf") && document.languageId === "plaintext") {
    void vscode.languages.setTextDocumentLanguage(document, "kconfig-config");
  }
}

/** The tree view and its commands (see menuTree.ts). */
function registerMenu(context: vscode.ExtensionContext): void {
  menu = new MenuTree({ request, execute });
  const view = vscode.window.createTreeView("kconfig.menu", {
    treeDataProvider: menu,
    showCollapseAll: true,
    // (A checkbox is one symbol's value: ticking a menu must not tick what is under it.)
    manageCheckboxStateManually: true,
  });
  menu.view = view;
  const showAll = async (on: boolean) => {
    menu.showAll = on;
    await vscode.commands.executeCommand("setContext", "kconfig.menuShowAll", on);
    menu.refresh();
  };
  const symbolOf = (node?: MenuNode) => node?.entry.symbol;
  const makeFromMenu = async (name: string | undefined, value: string) => {
    if (name) await offerHowTo(name, value, true);
  };
  context.subscriptions.push(
    view,
    view.onDidChangeCheckboxState(async (event) => {
      for (const [node, state] of event.items) {
        await menu.setValue(node.entry, state === vscode.TreeItemCheckboxState.Checked ? "y" : "n");
      }
    }),
    vscode.commands.registerCommand("kconfig-ls.openMenu", () => vscode.commands.executeCommand("kconfig.menu.focus")),
    vscode.commands.registerCommand("kconfig-ls.menuSet", (node: MenuNode) => menu.choose(node)),
    vscode.commands.registerCommand("kconfig-ls.menuSearch", () => menu.search()),
    vscode.commands.registerCommand("kconfig-ls.menuRefresh", () => menu.refresh()),
    vscode.commands.registerCommand("kconfig-ls.menuShowAll", () => showAll(true)),
    vscode.commands.registerCommand("kconfig-ls.menuHideAll", () => showAll(false)),
    vscode.commands.registerCommand("kconfig-ls.menuWhy", (node?: MenuNode) => explainCommand(symbolOf(node))),
    vscode.commands.registerCommand("kconfig-ls.menuMakeY", (node?: MenuNode) => makeFromMenu(symbolOf(node), "y")),
    vscode.commands.registerCommand("kconfig-ls.menuMakeM", (node?: MenuNode) => makeFromMenu(symbolOf(node), "m")),
    vscode.commands.registerCommand("kconfig-ls.menuGoTo", async (node?: MenuNode) => {
      if (!node) return;
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(node.entry.location.uri));
      const at = new vscode.Position(node.entry.location.line, 0);
      await vscode.window.showTextDocument(document, { selection: new vscode.Range(at, at) });
    }),
  );
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Kconfig");
  registerMenu(context);
  bundle = findBundle(context.extensionPath);
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  statusItem.command = "kconfig-ls.setArch";
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand("kconfig-ls.explain", explainCommand),
    vscode.commands.registerCommand("kconfig-ls.howTo", howToCommand),
    vscode.commands.registerCommand("kconfig-ls.writeConfig", writeConfigCommand),
    vscode.commands.registerCommand("kconfig-ls.validate", validateCommand),
    vscode.commands.registerCommand("kconfig-ls.setArch", setArchCommand),
    vscode.commands.registerCommand("kconfig-ls.restart", async () => {
      await stopClient();
      await startClient();
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("kconfig.server") || event.affectsConfiguration("kconfig.sourceFiles")) {
        await stopClient();
        await startClient();
      } else if (event.affectsConfiguration("kconfig") && client) {
        await client.sendNotification("workspace/didChangeConfiguration", {
          settings: initializationOptions(settings(), vscode.workspace.isTrusted),
        });
        await updateStatus();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      await stopClient();
      await startClient();
    }),
    vscode.workspace.onDidOpenTextDocument(associateConfFile),
  );
  vscode.workspace.textDocuments.forEach(associateConfFile);
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

// The Kconfig "Menu" tree view (its own activity-bar container): the kernel's menu as menuconfig shows it,
// from the server's configurator protocol (kconfig/menu, kconfig/search,
// kconfig.setValue, kconfig/menuChanged).  Menus expand lazily; bool
// entries have checkboxes, tristate and choice entries a quick pick,
// numbers and strings an input box checked against their range; invisible
// entries appear greyed behind "Show All", with the why in their tooltip.

import * as vscode from "vscode";
import { checkNumber, MenuEntry, valueDescription } from "./menuModel";

interface SetValueAnswer {
  applied: boolean;
  changed: { symbol: string; value: string; visible: boolean }[];
  reason?: string;
  howTo?: { assignments: Record<string, string> };
  howToText?: string;
}

/** What the view needs from the extension: requests to the server. */
export interface MenuServer {
  request<T>(method: string, params: unknown): Promise<T | undefined>;
  execute<T>(command: string, ...args: unknown[]): Promise<T | undefined>;
}

/** A tree element: an entry and where it sits (its stable key keeps the
 * view's expansion across re-loads, when entry ids change). */
export class MenuNode {
  constructor(
    readonly entry: MenuEntry,
    readonly parent: MenuNode | undefined,
    readonly key: string,
  ) {}
}

export class MenuTree implements vscode.TreeDataProvider<MenuNode> {
  private readonly changed = new vscode.EventEmitter<MenuNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Loaded elements by entry id (for reveal after a search). */
  private readonly byId = new Map<number, MenuNode>();
  showAll = false;
  view: vscode.TreeView<MenuNode> | undefined;

  constructor(private readonly server: MenuServer) {}

  /** Ask again for everything (the server's kconfig/menuChanged). */
  refresh(): void {
    this.byId.clear();
    this.changed.fire(undefined);
  }

  async getChildren(element?: MenuNode): Promise<MenuNode[]> {
    const answer = await this.server.request<{ nodes: MenuEntry[]; stale?: boolean; error?: string }>(
      "kconfig/menu", { node: element ? element.entry.id : null, showAll: this.showAll });
    if (this.view) {
      this.view.message = answer?.stale ? `Showing the last good tree: ${answer.error}` : undefined;
    }
    const seen = new Map<string, number>();
    return (answer?.nodes ?? []).map((entry) => {
      const name = `${entry.kind}:${entry.symbol ?? entry.prompt ?? ""}`;
      const count = (seen.get(name) ?? 0) + 1;
      seen.set(name, count);
      const key = `${element ? element.key : ""}/${name}${count > 1 ? `#${count}` : ""}`;
      const node = new MenuNode(entry, element, key);
      this.byId.set(entry.id, node);
      return node;
    });
  }

  getParent(element: MenuNode): MenuNode | undefined {
    return element.parent;
  }

  getTreeItem(element: MenuNode): vscode.TreeItem {
    const entry = element.entry;
    const label = entry.kind === "comment" ? `*** ${entry.prompt ?? ""} ***` : entry.prompt ?? entry.symbol ?? "";
    const item = new vscode.TreeItem(label);
    item.id = element.key;
    if (entry.hasChildren) {
      // (A choice's entries and a config's dependents show at once, as in
      // menuconfig; menus open on request.)
      const open = entry.kind === "choice" || entry.kind === "config";
      item.collapsibleState = open ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
    }
    const marks = entry.type === "bool" && !entry.inChoice ? "" : valueDescription(entry);
    item.description = [marks, entry.symbol ? `CONFIG_${entry.symbol}` : "", entry.visible ? "" : "(hidden)"]
      .filter((s) => s).join("  ");
    if (entry.type === "bool" && !entry.inChoice && entry.kind !== "choice") {
      item.checkboxState = entry.value === "y" ? vscode.TreeItemCheckboxState.Checked
        : vscode.TreeItemCheckboxState.Unchecked;
    }
    if (!entry.visible) {
      item.iconPath = new vscode.ThemeIcon("eye-closed", new vscode.ThemeColor("disabledForeground"));
    } else if (entry.kind === "menu" || entry.kind === "menuconfig") {
      item.iconPath = new vscode.ThemeIcon("folder");
    }
    item.contextValue = entry.symbol ? `kconfig-symbol-${entry.type ?? "none"}` : `kconfig-${entry.kind}`;
    if (entry.symbol || entry.kind === "choice") {
      item.command = { command: "kconfig-ls.menuSet", title: "Set Value", arguments: [element] };
    }
    item.tooltip = entry.symbol ? `CONFIG_${entry.symbol} = ${entry.value ?? ""}` : entry.prompt ?? undefined;
    return item;
  }

  /** The why, for the tooltip of a hidden entry or one that cannot change. */
  async resolveTreeItem(item: vscode.TreeItem, element: MenuNode): Promise<vscode.TreeItem> {
    const entry = element.entry;
    if (entry.symbol && (!entry.visible || entry.assignable.length < 2)) {
      const why = await this.server.execute<{ markdown: string }>("kconfig.explain", entry.symbol);
      if (why) item.tooltip = new vscode.MarkdownString(why.markdown);
    }
    return item;
  }

  /** Set a value (from a click, a checkbox, a quick pick or an input box). */
  async setValue(entry: MenuEntry, value: string): Promise<void> {
    if (!entry.symbol) return;
    const answer = await this.server.execute<SetValueAnswer>("kconfig.setValue", entry.symbol, value);
    if (!answer) return;
    if (!answer.applied) {
      const actions = answer.howTo ? ["Apply the how-to", "Show"] : [];
      const choice = await vscode.window.showWarningMessage(`kconfig-ls: ${answer.reason ?? "not set"}`, ...actions);
      if (choice === "Apply the how-to") {
        await this.server.execute("kconfig.applyHowTo", entry.symbol, value);
      } else if (choice === "Show" && answer.howToText) {
        const document = await vscode.workspace.openTextDocument({ content: answer.howToText, language: "markdown" });
        await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
      }
    }
    this.refresh();
  }

  /** What clicking an entry does: the next step for its type. */
  async choose(element: MenuNode): Promise<void> {
    const entry = element.entry;
    if (entry.kind === "choice") {
      await this.chooseMember(element);
      return;
    }
    if (!entry.symbol) return;
    if (entry.inChoice) {
      if (entry.value !== "y") await this.setValue(entry, "y");
      return;
    }
    if (entry.type === "bool" || entry.type === "tristate") {
      if (entry.assignable.length < 2) {
        void vscode.window.showInformationMessage(
          `CONFIG_${entry.symbol} is ${entry.value} and cannot be changed here: use "Why?" or "Make it y".`);
        return;
      }
      if (entry.type === "bool") {
        await this.setValue(entry, entry.value === "y" ? "n" : "y");
        return;
      }
      const picked = await vscode.window.showQuickPick(
        entry.assignable.map((v) => ({ label: v, description: v === entry.value ? "(current)" : "" })),
        { placeHolder: `CONFIG_${entry.symbol} =` });
      if (picked && picked.label !== entry.value) await this.setValue(entry, picked.label);
      return;
    }
    const value = await vscode.window.showInputBox({
      prompt: `CONFIG_${entry.symbol}${entry.range ? ` (${entry.range[0]} to ${entry.range[1]})` : ""}`,
      value: entry.value ?? "",
      validateInput: (text) => {
        const complaint = checkNumber(entry, text);
        return complaint ? `Expected ${complaint}` : undefined;
      },
    });
    if (value !== undefined && value !== entry.value) await this.setValue(entry, value);
  }

  /** A choice: a quick pick of its entries that can be chosen now. */
  async chooseMember(element: MenuNode): Promise<void> {
    const members = (await this.getChildren(element)).map((n) => n.entry).filter((e) => e.symbol && e.visible);
    if (!members.length) {
      void vscode.window.showInformationMessage(`"${element.entry.prompt ?? "This choice"}" has no entry to choose now.`);
      return;
    }
    const picked = await vscode.window.showQuickPick(
      members.map((e) => ({
        label: e.prompt ?? e.symbol ?? "",
        description: `CONFIG_${e.symbol}${e.value === "y" ? "  (chosen)" : ""}`,
        entry: e,
      })),
      { placeHolder: element.entry.prompt ?? "Choose" });
    if (picked && picked.entry.value !== "y") await this.setValue(picked.entry, "y");
  }

  /** Search like menuconfig's "/", then show the entry in the tree. */
  async search(): Promise<void> {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { entry: MenuEntry }>();
    pick.placeholder = "Search Kconfig: symbol name, prompt or help text";
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.onDidChangeValue(async (query) => {
      const answer = await this.server.request<{ results: MenuEntry[] }>("kconfig/search", { query });
      if (pick.value !== query) return;
      pick.items = (answer?.results ?? []).map((entry) => ({
        label: entry.prompt ?? entry.symbol ?? "",
        description: `${entry.symbol ? `CONFIG_${entry.symbol}` : ""} ${valueDescription(entry)}`.trim(),
        detail: (entry.path ?? []).join(" › "),
        alwaysShow: true,
        entry,
      }));
    });
    const chosen = await new Promise<MenuEntry | undefined>((resolve) => {
      pick.onDidAccept(() => resolve(pick.selectedItems[0]?.entry));
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
    pick.dispose();
    if (chosen) await this.reveal(chosen);
  }

  /** Expand the menus above `entry` and select it. */
  async reveal(entry: MenuEntry): Promise<void> {
    if (!entry.visible && !this.showAll) await vscode.commands.executeCommand("kconfig-ls.menuShowAll");
    let parent: MenuNode | undefined;
    for (const id of [...(entry.parents ?? []), entry.id]) {
      const children = await this.getChildren(parent);
      parent = children.find((n) => n.entry.id === id);
      if (!parent) return;
    }
    if (parent && this.view) await this.view.reveal(parent, { select: true, focus: true, expand: false });
  }
}

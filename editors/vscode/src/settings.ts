// The server's settings from the extension's configuration: what goes into
// initializationOptions and workspace/didChangeConfiguration.  Pure logic.

export interface KconfigSettings {
  arch?: string;
  configFile?: string;
  root?: string;
  kconfigVersion?: string;
  trustedRoots?: string[];
}

export interface InitializationOptions {
  kconfig: { arch?: string; configFile?: string; root?: string; kconfigVersion?: string; trustedRoots: string[] };
  /** VS Code's workspace trust: only then may the tree's $(shell,...) run. */
  trusted: boolean;
  /** Hovers may link to the extension's (trusted) explain command. */
  commandLinks: boolean;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = (value ?? "").trim();
  return trimmed ? trimmed : undefined;
}

export function initializationOptions(settings: KconfigSettings, workspaceTrusted: boolean): InitializationOptions {
  const kconfig: InitializationOptions["kconfig"] = { trustedRoots: [...(settings.trustedRoots ?? [])] };
  const arch = nonEmpty(settings.arch);
  const configFile = nonEmpty(settings.configFile);
  const root = nonEmpty(settings.root);
  const kconfigVersion = nonEmpty(settings.kconfigVersion);
  if (arch) kconfig.arch = arch;
  if (configFile) kconfig.configFile = configFile;
  if (root) kconfig.root = root;
  if (kconfigVersion) kconfig.kconfigVersion = kconfigVersion;
  return { kconfig, trusted: workspaceTrusted, commandLinks: true };
}

/** The status bar text: ARCH (kernel trees have one) and the config file's name. */
export function statusText(status: { arch?: string | null; configFile?: string; configExists?: boolean }): string {
  const arch = status.arch ? `${status.arch} · ` : "";
  const file = status.configFile ? status.configFile.split("/").pop() : ".config";
  return `Kconfig: ${arch}${file}${status.configExists === false ? " (defaults)" : ""}`;
}

/** Architectures a kernel tree offers: its arch/ directories plus the
 * ARCH names the kernel Makefile maps onto them. */
export function archChoices(archDirs: string[]): string[] {
  const extra: Record<string, string[]> = { x86: ["x86_64", "i386"], sparc: ["sparc64", "sparc32"], um: [] };
  const out = new Set<string>();
  for (const dir of archDirs) {
    out.add(dir);
    for (const alias of extra[dir] ?? []) out.add(alias);
  }
  return [...out].sort();
}
